// Compile time on long chains: the passes must stay near linear in the length of a
// chain of calls whose results all meet at its end (`x = x + f(i)` thousands of
// times), where each return block is nested one deeper than the one before. The
// bounds are generous (ten times or more what the passes take on a quiet machine) but far below what a pass
// quadratic in the chain takes at this length: performance itself is measured by
// the benchmark scripts.
import { describe, expect, it } from 'vitest';
import { emitLLVM } from '../../compiler/src/backend/llvm.ts';
import { Closedness } from '../../compiler/src/ir/closedness.ts';
import type { Continuation, Def } from '../../compiler/src/ir/index.ts';
import { printWorld } from '../../compiler/src/ir/printer.ts';
import { readsParamsOf } from '../../compiler/src/pe/liveness.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { lower2cff } from '../../compiler/src/transform/lower2cff.ts';
import { Builder } from '../interp/build.ts';

const LENGTH = 40_000;

/** `f(a) = a + g(0) + g(1) + … + g(LENGTH - 1)`: one return block per call, the sum read at the end. */
function sumOfCalls() {
  const b = new Builder();
  const { w, i32 } = b;
  const g = b.fn('g', [i32], i32);
  g.jump(g.param(2), [g.param(0), w.arith('mul', g.param(1), w.litI32(3))]);
  const f = b.fn('f', [i32], i32);
  f.external = true;
  f.cc = 'C';
  let block = f;
  let mem: Def = f.param(0);
  let sum: Def = f.param(1);
  const blocks: Continuation[] = [];
  const sums: Def[] = [];
  for (let i = 0; i < LENGTH; i++) {
    const next = b.call(block, g, mem, [w.litI32(i)], i32);
    blocks.push(next);
    sum = w.arith('add', sum, next.param(1));
    sums.push(sum);
    block = next;
    mem = next.param(0);
  }
  block.jump(f.param(2), [mem, sum]);
  return { b, f, g, blocks, sums };
}

/** `f(a)` adding up `a > i ? i : a * i` for i below `length`: a join block per step, its param read at the end. */
function sumOfJoins(length: number) {
  const b = new Builder();
  const { w, i32 } = b;
  const f = b.fn('f', [i32], i32);
  f.external = true;
  f.cc = 'C';
  const a = f.param(1);
  let block = f;
  let mem: Def = f.param(0);
  let sum: Def = a;
  for (let i = 0; i < length; i++) {
    const then = b.block('then');
    const other = b.block('else');
    const join = b.block('join', [i32]);
    w.branch(block, mem, w.cmp('gt', a, w.litI32(i)), then, other);
    then.jump(join, [then.param(0), w.litI32(i)]);
    other.jump(join, [other.param(0), w.arith('mul', a, w.litI32(i))]);
    sum = w.arith('add', sum, join.param(1));
    block = join;
    mem = join.param(0);
  }
  block.jump(f.param(2), [mem, sum]);
  return b.w;
}

function seconds(run: () => void): number {
  const start = performance.now();
  run();
  return (performance.now() - start) / 1000;
}

describe('compile time on a long chain of calls', () => {
  const chain = sumOfCalls();

  it('finds the top-level functions without the sets of what each block is nested in', () => {
    let closedness: Closedness | undefined;
    expect(seconds(() => (closedness = new Closedness([chain.f, chain.g, ...chain.blocks])))).toBeLessThan(10);
    expect(closedness!.isClosed(chain.f)).toBe(true);
    expect(chain.blocks.some((k) => closedness!.isClosed(k))).toBe(false);
  });

  it('asks whether a value reads the params of a continuation without walking the chain it was built from', () => {
    const later = chain.b.block('later', [chain.b.i32]);
    let found = false;
    expect(seconds(() => (found = chain.sums.some((s) => readsParamsOf([s], later))))).toBeLessThan(5);
    expect(found).toBe(false);
    expect(readsParamsOf([chain.sums[LENGTH - 1]!], chain.blocks[0]!)).toBe(true);
  });

  it('prints the chain', () => {
    let text = '';
    expect(seconds(() => (text = printWorld(chain.b.w)))).toBeLessThan(20);
    expect(text).not.toContain('closure over');
  });

  it('places the sum in the blocks of the chain', () => {
    let llvm = '';
    expect(seconds(() => (llvm = emitLLVM(chain.b.w, { moduleName: 'chain' })))).toBeLessThan(20);
    expect(llvm.match(/= call i32 @g\(/g)?.length).toBe(LENGTH);
  });

  it('lowers a chain of joins whose params meet at its end', () => {
    const world = sumOfJoins(LENGTH / 4);
    let ok = false;
    expect(seconds(() => (ok = lower2cff(world, { sink: new DiagnosticSink() })))).toBeLessThan(20);
    expect(ok).toBe(true);
  });
});
