import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Closedness, nestedBySets } from '../../compiler/src/ir/closedness.ts';
import type { Continuation, Def } from '../../compiler/src/ir/index.ts';
import { Builder } from '../interp/build.ts';

/** One operand of a random body: a param of some continuation, a continuation, or a primop over two of those. */
type Operand = { param: [number, number] } | { cont: number } | { add: [Operand, Operand] } | { tuple: [Operand, Operand] };

const operand = (n: number): fc.Arbitrary<Operand> =>
  fc.letrec<{ op: Operand }>((tie) => ({
    op: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.record({ param: fc.tuple(fc.nat(n - 1), fc.nat(1)) }),
      fc.record({ cont: fc.nat(n - 1) }),
      fc.record({ add: fc.tuple(tie('op'), tie('op')) }),
      fc.record({ tuple: fc.tuple(tie('op'), tie('op')) }),
    ),
  })).op;

/** Continuations with two i32 params and random bodies, and which of them the analysis is given. */
const graph = fc.integer({ min: 1, max: 9 }).chain((n) =>
  fc.record({
    bodies: fc.array(fc.option(fc.array(operand(n), { minLength: 1, maxLength: 4 }), { freq: 6 }), { minLength: n, maxLength: n }),
    listed: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
  }),
);

/**
 * Mostly well-formed code, where the dominator tree decides: continuation i is
 * mentioned by an earlier one (its parent) and reads params of continuations
 * before it; a few extra mentions make joins and loops that keep or break dominance.
 */
const nested = fc.integer({ min: 2, max: 12 }).chain((n) =>
  fc.record({
    parents: fc.tuple(...Array.from({ length: n }, (_, i) => fc.nat(Math.max(0, i - 1)))),
    reads: fc.tuple(...Array.from({ length: n }, (_, i) => fc.array(fc.tuple(fc.nat(i), fc.nat(1)), { maxLength: 3 }))),
    extra: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 }),
  }).map(({ parents, reads, extra }) => {
    const ops: Operand[][] = Array.from({ length: n }, (_, i) => reads[i]!.map((param): Operand => ({ param })));
    parents.forEach((p, i) => i > 0 && ops[p]!.push({ cont: i }));
    for (const [from, to] of extra) ops[from]!.push({ cont: to });
    return ops.map((o, i) => (o.length ? o : [{ param: [i, 0] } as Operand]));
  }),
);

function build(bodies: readonly (readonly Operand[] | null)[]): Continuation[] {
  const b = new Builder();
  const { w, i32 } = b;
  const conts = bodies.map((_, i) => w.continuation(w.fnType([i32, i32]), `c${i}`));
  const def = (o: Operand): Def => {
    if ('param' in o) return conts[o.param[0]]!.param(o.param[1]);
    if ('cont' in o) return conts[o.cont]!;
    if ('add' in o) {
      const [x, y] = o.add.map(def);
      return x!.type === i32 && y!.type === i32 ? w.arith('add', x!, y!) : w.tuple([x!, y!]);
    }
    return w.tuple(o.tuple.map(def));
  };
  bodies.forEach((ops, i) => {
    if (!ops) return;
    const [callee, ...args] = ops.map(def);
    conts[i]!.jump(callee!, args);
  });
  return conts;
}

describe('Closedness', () => {
  it('agrees with the owner sets on any graph, given any part of it', () => {
    fc.assert(
      fc.property(graph, ({ bodies, listed }) => {
        const conts = build(bodies);
        const list = conts.filter((_, i) => listed[i]);
        const closedness = new Closedness(list);
        expect(list.map((c) => !closedness.isClosed(c))).toEqual(nestedBySets(list));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with the owner sets on mostly well-formed code', () => {
    fc.assert(
      fc.property(nested, (bodies) => {
        const conts = build(bodies);
        const closedness = new Closedness(conts);
        expect(conts.map((c) => !closedness.isClosed(c))).toEqual(nestedBySets(conts));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds the single top-level function of a chain of calls whose last block reads every result', () => {
    const b = new Builder();
    const { w, i32 } = b;
    const f = b.fn('f', [i32], i32);
    const g = b.fn('g', [i32], i32);
    g.jump(g.param(2), [g.param(0), g.param(1)]);
    let block = f;
    let mem: Def = f.param(0);
    let sum: Def = f.param(1);
    const blocks: Continuation[] = [];
    for (let i = 0; i < 50; i++) {
      const next = b.call(block, g, mem, [w.litI32(i)], i32);
      blocks.push(next);
      sum = w.arith('add', sum, next.param(1));
      block = next;
      mem = next.param(0);
    }
    block.jump(f.param(2), [mem, sum]);
    const closedness = new Closedness([f, g, ...blocks]);
    expect(closedness.isClosed(f)).toBe(true);
    expect(closedness.isClosed(g)).toBe(true);
    expect(blocks.filter((k) => closedness.isClosed(k))).toEqual([]);
  });
});
