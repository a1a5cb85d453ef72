import { describe, expect, it } from 'vitest';
import { Continuation } from '../../compiler/src/ir/defs.ts';
import { FnType } from '../../compiler/src/ir/types.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { Closedness } from '../../compiler/src/ir/closedness.ts';
import { reachable } from '../../compiler/src/ir/reachable.ts';
import { cffViolations, lower2cff } from '../../compiler/src/transform/lower2cff.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import { World } from '../../compiler/src/ir/world.ts';
import { emitProgram } from '../../compiler/src/emit/index.ts';
import { interpret } from '../../compiler/src/interp/index.ts';
import { checkProgram } from '../../compiler/src/sema/check.ts';
import { parseModule } from '../../compiler/src/syntax/parser.ts';
import {
  Builder, buildForBreak, buildLocalFib, buildNestedLoops, forBreakExpected, nestedLoopsExpected,
} from './support/programs.ts';

describe('lower2cff', () => {
  it('turns range with a capturing, breaking body closure into one function with a loop', () => {
    const b = new Builder();
    const main = buildForBreak(b);
    const before = [0, 3, 9].map((n) => b.run(main, [BigInt(n)]));
    expect(before).toEqual([0, 3, 9].map((n) => forBreakExpected(n)));

    const sink = new DiagnosticSink();
    expect(lower2cff(b.w, { sink })).toBe(true);
    expect(sink.list).toEqual([]);
    expect(cffViolations(b.w)).toEqual([]);

    const r = reachable(b.w);
    const free = new Closedness(r.continuations);
    const functions = r.continuations.filter((c) => c.hasBody && free.isClosed(c) && c.retParam);
    expect(functions).toEqual([main]);
    for (const c of r.continuations) {
      if (c.hasBody && c !== main) expect((c.type as FnType).isFirstOrder).toBe(true);
    }
    // A loop: some block is jumped to from a block reachable from it.
    const blocks = r.continuations.filter((c) => c.hasBody && c !== main && !c.isIntrinsic);
    const succ = (c: Continuation) => c.ops.filter((o): o is Continuation => o instanceof Continuation && blocks.includes(o));
    const onCycle = blocks.some((start) => {
      const seen = new Set<Continuation>();
      const stack = succ(start);
      while (stack.length) {
        const c = stack.pop()!;
        if (c === start) return true;
        if (!seen.has(c)) {
          seen.add(c);
          stack.push(...succ(c));
        }
      }
      return false;
    });
    expect(onCycle).toBe(true);

    expect([0, 3, 9].map((n) => b.run(main, [BigInt(n)]))).toEqual(before);
  });
});

describe('lower2cff on harder programs', () => {
  it('turns nested range loops over unroll_step (with $ and an inner break) into loops of one function', () => {
    const b = new Builder();
    const main = buildNestedLoops(b);
    const ns = [0, 4, 12];
    const expected = ns.map((n) => nestedLoopsExpected(n));
    expect(ns.map((n) => b.run(main, [BigInt(n)]))).toEqual(expected);
    const sink = new DiagnosticSink();
    expect(lower2cff(b.w, { sink })).toBe(true);
    expect(cffViolations(b.w)).toEqual([]);
    expect(verify(b.w)).toEqual([]);
    const r = reachable(b.w);
    const free = new Closedness(r.continuations);
    expect(r.continuations.filter((c) => c.hasBody && free.isClosed(c))).toEqual([main]);
    expect(ns.map((n) => b.run(main, [BigInt(n)]))).toEqual(expected);
  });

  it('reports an error at the specialisation budget instead of going on', () => {
    const b = new Builder();
    buildNestedLoops(b);
    const sink = new DiagnosticSink();
    expect(lower2cff(b.w, { sink, budget: 1 })).toBe(false);
    expect(sink.list).toHaveLength(1);
    expect(sink.list[0]!.message).toMatch(
      /^lowering to control-flow form does not terminate: '\w+' keeps being specialised for new higher-order arguments \(1 specialisations\)$/,
    );
  });

  it('leaves a closure alone that is recursive with changing return continuations', () => {
    const b = new Builder();
    buildLocalFib(b);
    const sink = new DiagnosticSink();
    expect(lower2cff(b.w, { sink })).toBe(true);
    expect(cffViolations(b.w)).toEqual([expect.stringContaining('is a higher-order continuation nested in a function')]);
  });
});

describe('lower2cff applies the partial evaluator\'s higher-order rule', () => {
  /** Impala source emitted without the prelude or the evaluator: what lower2cff sees when the evaluator left a call alone. */
  function emitted(source: string): { world: World; test: Continuation } {
    const sink = new DiagnosticSink();
    const program = checkProgram([parseModule({ path: 'test.impala', text: source }, sink)], sink, { preludeModules: 0 });
    const world = new World();
    const { exports } = emitProgram(program, world, sink);
    expect(sink.list).toEqual([]);
    return { world, test: exports.find((c) => c.name === 'test')! };
  }

  it('specialises for a function value that the recursion passes instead of the param, when the call passes it too', () => {
    // `walk`'s recursion passes `inc`, a value from outside it, not its own `f`: static for the call
    // from `test`, which passes `inc` as well. The copy's recursive call is rewired to the copy, a loop.
    // A rule that counts any recursive argument other than the param as changing left `walk` taking `f`.
    const { world, test } = emitted(
      `fn inc(x: i32) -> i32 { x + 1 }
       fn walk(n: i32, acc: i32, f: fn(i32) -> i32) -> i32 { if n > 0 { walk(n - 1, f(acc), inc) } else { acc } }
       extern fn test(n: i32) -> i32 { walk(n, 0, inc) }`,
    );
    const ns = [0n, 1n, 7n];
    expect(ns.map((n) => interpret(world, test, [n]).result)).toEqual(ns);
    const sink = new DiagnosticSink();
    expect(lower2cff(world, { sink })).toBe(true);
    expect(sink.list).toEqual([]);
    expect(cffViolations(world)).toEqual([]);
    expect(verify(world)).toEqual([]);
    expect(ns.map((n) => interpret(world, test, [n]).result)).toEqual(ns);
  });

  it('leaves a closure alone that a recursion through another function wraps anew on every round', () => {
    // `f` calls `h` with a closure wrapping its `k`, and `h` calls `f` back with it: a recursion
    // through `h` that changes `k`. Specialising for it makes the next closure to specialise for;
    // the rule sees the cycle and leaves it to closure conversion, well within the budget.
    const { world, test } = emitted(
      `fn f(n: i32, k: fn(i32) -> i32) -> i32 { h(n, |x: i32| k(x + 1)) }
       fn h(n: i32, k: fn(i32) -> i32) -> i32 { if n <= 0 { k(0) } else { f(n - 1, k) } }
       extern fn test(n: i32) -> i32 { f(n, |x: i32| x * 2) }`,
    );
    const ns = [0n, 1n, 5n];
    const expected = ns.map((n) => 2n * (n + 1n));
    expect(ns.map((n) => interpret(world, test, [n]).result)).toEqual(expected);
    const sink = new DiagnosticSink();
    expect(lower2cff(world, { sink, budget: 200 })).toBe(true);
    expect(sink.list).toEqual([]);
    expect(verify(world)).toEqual([]);
    expect(ns.map((n) => interpret(world, test, [n]).result)).toEqual(expected);
  });
});
