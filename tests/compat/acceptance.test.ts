// Issue 13 acceptance: a program written the way 2018 AnyDSL code is written
// (acceptance/: a platform file with a struct of math functions and its static
// instance, a backend file with `static math = cpu_intrinsics;`, generators that are
// nested recursive fns capturing their parameters, the five-argument `vectorize`,
// `parallel`, the runtime's random numbers and timer, `rv_any` inside `vectorize`, `_`
// parameters, a function in continuation form called with `return`) builds, runs, and
// prints what its plain scalar version (acceptance/scalar.impala) prints, natively and
// in the interpreter. The program checks itself against scalar code as well (exit 1-3).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../compiler/src/driver/build.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { interpret, mainArguments } from '../../compiler/src/interp/index.ts';
import { DiagnosticSink, type SourceFile } from '../../compiler/src/syntax/diagnostics.ts';
import { useTempDir } from '../driver/helpers.ts';

const dir = path.join(import.meta.dirname, 'acceptance');
const load = (...names: string[]): SourceFile[] => names.map((n) => ({ path: `tests/compat/acceptance/${n}`, text: readFileSync(path.join(dir, n), 'utf8') }));
const program = load('intrinsics_cpu.impala', 'backend_cpu.impala', 'app.impala');
const scalar = load('scalar.impala');

const tmp = useTempDir('anydsl-compat-');

async function runNative(sources: SourceFile[], name: string, kind: 'exe' | 'llvm' = 'exe'): Promise<{ stdout: string; status: number | null; output: string }> {
  const output = path.join(tmp(), kind === 'exe' ? name : `${name}.ll`);
  const built = await buildProgram(sources, { kind, optLevel: 2, output });
  if (!built.ok) throw new Error(built.rendered);
  if (kind === 'llvm') return { stdout: '', status: 0, output };
  const r = spawnSync(output, [], { encoding: 'utf8', timeout: 60_000 });
  return { stdout: r.stdout, status: r.status, output };
}

let scalarRun: ReturnType<typeof runNative> | undefined;
const runScalar = (): ReturnType<typeof runNative> => (scalarRun ??= runNative(scalar, 'scalar'));

describe('a program in the 2018 style', () => {
  it('builds, vectorises and runs in parallel, and prints what its scalar version prints', async () => {
    const [app, plain, ll] = await Promise.all([runNative(program, 'app'), runScalar(), runNative(program, 'app', 'llvm')]);
    expect(app.status).toBe(0);
    expect(plain.status).toBe(0);
    expect(app.stdout).toMatch(/^\d+(\.\d+)? \d+\n$/);
    expect(app.stdout).toBe(plain.stdout);
    const text = readFileSync(ll.output, 'utf8');
    expect(text).toMatch(/<8 x float>/);
    expect(text).toMatch(/@anydsl_parallel_for\(/);
  }, 240_000);

  it('runs the same in the interpreter', async () => {
    const sink = new DiagnosticSink();
    const fe = frontEnd(program, sink);
    if (!fe) throw new Error(sink.list.map((d) => d.message).join('\n'));
    const main = fe.emitted.main!;
    const r = interpret(fe.world, main, mainArguments(main, ['app']), { stepLimit: 200_000_000 });
    const plain = await runScalar();
    expect(r.result).toBe(0n);
    expect(r.stdout).toBe(plain.stdout);
  }, 240_000);
});
