import { describe, expect, it } from 'vitest';
import { Continuation } from '../../compiler/src/ir/defs.ts';
import { FnType } from '../../compiler/src/ir/types.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { Closedness, reachable } from '../../compiler/src/transform/analysis.ts';
import { cffViolations, lower2cff } from '../../compiler/src/transform/lower2cff.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
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
