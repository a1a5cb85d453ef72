// Issue 13 item 7: the C functions of the 2018 runtime.impala that runtime/compat.c and
// threads.cpp add, called from C (taskgraph.c: the task graph, which Impala code cannot
// reach since an Impala function cannot be passed to C, the random numbers against
// splitmix64 computed here, the float classification, anydsl_info), and the 2018
// declarations from Impala in the interpreter, which must print what the native program
// prints (tests/conformance/pos/compat_runtime_2018.*).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { interpret, mainArguments } from '../../compiler/src/interp/index.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { useTempDir } from '../driver/helpers.ts';
import { buildHarness } from '../runtime/support.ts';

const tmp = useTempDir('anydsl-compat-runtime-');

function splitmix64(seed: bigint, count: number): bigint[] {
  const m = (1n << 64n) - 1n;
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state + 0x9e3779b97f4a7c15n) & m;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & m;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & m;
    return z ^ (z >> 31n);
  });
}

const harness = (): Promise<string> => buildHarness(tmp(), path.join(repoRoot, 'tests', 'compat', 'taskgraph.c'));

describe('the 2018 runtime functions', () => {
  it('run the task graph in edge order, draw splitmix64 numbers, classify floats, print the platforms', async () => {
    const exe = await harness();
    const r = spawnSync(exe, [], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const [a, b, c, f] = splitmix64(7n, 4);
    const f32 = Math.fround(Number(f! >> 40n) * 2 ** -24);
    expect(r.stdout).toBe(
      [
        'graph round 0: ordered',
        'graph round 1: ordered',
        `u64 ${a}`,
        `u64 ${b}`,
        `u64 ${c}`,
        `f32 ${Number(f32.toPrecision(9))}`,
        'is 110 101',
        'device ptr of host memory on the host: same',
        '',
      ].join('\n'),
    );
    const info = spawnSync(exe, ['info'], { encoding: 'utf8', timeout: 60_000 });
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(/^Available platforms:\n {4}\* host: the CPU\n {4}\* CUDA/);
    expect(info.stdout).toMatch(/\n {4}\* (OpenCL|CUDA: none)/);
  }, 120_000);

  it('print the same in the interpreter as natively', () => {
    const file = path.join(repoRoot, 'tests', 'conformance', 'pos', 'compat_runtime_2018.impala');
    const sink = new DiagnosticSink();
    const fe = frontEnd([{ path: file, text: readFileSync(file, 'utf8') }], sink);
    if (!fe) throw new Error(sink.list.map((d) => d.message).join('\n'));
    const main = fe.emitted.main!;
    const r = interpret(fe.world, main, mainArguments(main, ['x']), { stepLimit: 50_000_000 });
    expect(r.result).toBe(0n);
    expect(r.stdout).toBe(readFileSync(file.replace(/\.impala$/, '.stdout'), 'utf8'));
  });
});
