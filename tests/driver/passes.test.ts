// The one pass list (driver/passes.ts) with its observer hook, and the stage timings
// behind `impala --time-passes` and compile()'s `timePasses`, on the real compiler.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile } from '../../compiler/src/driver/compile.ts';
import { main } from '../../compiler/src/driver/cli.ts';
import { PASSES, type PassName, runPasses } from '../../compiler/src/driver/passes.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { formatTimings } from '../../compiler/src/driver/timings.ts';
import { arrayPointer, interpret } from '../../compiler/src/interp/index.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { usePrivateCache, useTempDir } from './helpers.ts';

const tmp = useTempDir();
usePrivateCache();

// A closure for lower2cff, a `vectorize` for the vectoriser, a `parallel` for its lowering.
const SOURCE = `
fn @(?n) pow(x: i32, n: i32) -> i32 { if n == 0 { 1 } else { x * pow(x, n - 1) } }
fn apply(f: fn(i32) -> i32, x: i32) -> i32 { f(x) }
extern fn work(data: &mut [i32], n: i32) -> i32 {
    for i in vectorize(4, 0, n) { data(i) = apply(|v| pow(v, 3), i); }
    for i in parallel(0, 0, n) { data(i) = data(i) + 1; }
    let mut s = 0;
    for i in range(0, n) { s += data(i); }
    s
}
`;

function world() {
  const sink = new DiagnosticSink();
  const front = frontEnd([{ path: 'passes.impala', text: SOURCE }], sink);
  if (!front) throw new Error(sink.list.map((d) => d.message).join('\n'));
  return { ...front, sink };
}

/** `work` on 0..n-1 computed by hand: the sum of i³ + 1. */
function expected(n: number): bigint {
  let s = 0n;
  for (let i = 0n; i < BigInt(n); i++) s += i * i * i + 1n;
  return s;
}

/** `work` on `n` zeros in the interpreter; passes may replace the export by a rewritten copy, so it is looked up by name. */
function runWork(w: World, n: number): unknown {
  const work = [...w.continuations].find((c) => c.external && c.hasBody && c.name === 'work')!;
  const data = arrayPointer(w.types, w.types.prim('i32'), Array.from({ length: n }, () => 0n));
  return interpret(w, work, [data, BigInt(n)]).result;
}

describe('the pass list', () => {
  it('names the stages in order: PE, lower2cff, kernel extraction, vectorise, parallel, closure conversion, cleanup after each', () => {
    expect(PASSES.map((p) => p.name)).toEqual([
      'pe', 'cleanup', 'lower2cff', 'cleanup', 'kernels', 'cleanup', 'vectorize', 'cleanup', 'parallel', 'cleanup', 'closure-convert', 'cleanup',
    ]);
  });

  it('calls the observer after every pass with the World, which the interpreter runs to the same result', () => {
    const { world: w, sink } = world();
    // The interpreter has no masked vector memory intrinsics: up to the vectoriser it runs the
    // World; the native build in the timing test below checks the code after it.
    const interpretable = PASSES.findIndex((p) => p.name === 'vectorize');
    const seen: [PassName, number][] = [];
    const results: unknown[] = [];
    const ok = runPasses(w, {
      sink,
      observe: (pass, observed, index) => {
        expect(observed).toBe(w);
        seen.push([pass, index]);
        if (index < interpretable) results.push(runWork(w, 9));
      },
    });
    expect(sink.list.map((d) => d.message)).toEqual([]);
    expect(ok).toBe(true);
    expect(seen).toEqual(PASSES.map((p, i) => [p.name, i]));
    expect(results).toEqual(Array.from({ length: interpretable }, () => expected(9)));
  });

  it('runs a range of the list, and stops where the observer returns false', () => {
    const { world: w, sink } = world();
    const first: PassName[] = [];
    expect(runPasses(w, { sink, observe: (p) => void first.push(p) }, { through: 'lower2cff' })).toBe(true);
    expect(first).toEqual(['pe', 'cleanup', 'lower2cff']);
    const rest: PassName[] = [];
    expect(runPasses(w, { sink, observe: (p) => (rest.push(p), p !== 'vectorize') }, { after: 'lower2cff' })).toBe(false);
    expect(rest).toEqual(['cleanup', 'kernels', 'cleanup', 'vectorize']);
  });

  it('stops at the first pass that reports an error', () => {
    const { world: w, sink } = world();
    const seen: PassName[] = [];
    // A budget of one specialisation cannot evaluate pow(v, 3).
    expect(runPasses(w, { sink, pe: { budget: 1 }, observe: (p) => void seen.push(p) })).toBe(false);
    expect(seen).toEqual([]);
    expect(sink.hasErrors).toBe(true);
  });
});

describe('stage timings', () => {
  it('formats a table with each stage, its milliseconds and its share, then the total', () => {
    const table = formatTimings([{ stage: 'parse', ms: 30 }, { stage: 'clang', ms: 90 }], 'times');
    expect(table.split('\n')).toEqual([
      'times:',
      '  stage         ms   share',
      '  parse       30.0   25.0%',
      '  clang       90.0   75.0%',
      '  total      120.0  100.0%',
      '',
    ]);
  });

  it('impala --time-passes prints every stage, clang included, to stderr', async () => {
    const file = path.join(tmp(), 'work.impala');
    await writeFile(file, SOURCE);
    let stderr = '';
    const io = { out: () => {}, err: (t: string) => void (stderr += t) };
    const lib = path.join(tmp(), 'libwork.so');
    expect(await main(['--time-passes', '--shared', file, '-o', lib], io)).toBe(0);
    const stages = stderr.split('\n').slice(2).map((l) => l.trim().split(/\s+/)[0]);
    expect(stages).toEqual(['parse', 'sema', 'emit', ...PASSES.map((p) => p.name), 'llvm-text', 'runtime', 'clang', 'total', '']);
    expect(stderr).toMatch(/^impala: time per stage \(.*libwork\.so\):\n/);
    expect((await readFile(lib)).length).toBeGreaterThan(0);
  });

  it('compile() with timePasses times a cold compile stage by stage, and a cached one as a cache hit', async () => {
    const sources = [{ path: 'work.impala', text: `${SOURCE}\n// timed\n` }];
    const cold = await compile({ sources, options: { timePasses: true } });
    expect(cold.cached).toBe(false);
    expect(cold.timings!.map((t) => t.stage)).toEqual(['parse', 'sema', 'emit', ...PASSES.map((p) => p.name), 'llvm-text', 'runtime', 'clang']);
    expect(cold.timings!.every((t) => t.ms >= 0)).toBe(true);
    const data = new Int32Array(9);
    expect(cold.fn('work')(data, 9)).toBe(Number(expected(9)));

    const warm = await compile({ sources, options: { timePasses: true } });
    expect(warm.cached).toBe(true);
    expect(warm.timings!.map((t) => t.stage)).toEqual(['cached']);
    expect((await compile({ sources })).timings).toBeUndefined();
  });
});
