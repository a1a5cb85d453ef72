import { describe, expect, it } from 'vitest';
import { Continuation, Param, PrimOp } from '../../compiler/src/ir/defs.ts';
import { Scope } from '../../compiler/src/ir/scope.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import { drop, inline, lift, mangle, specialise } from '../../compiler/src/transform/mangle.ts';
import { Builder, buildRange } from './support/programs.ts';

/** `fn pow(x: i32, n: i32) -> i32 { if n == 0 { 1 } else { x * pow(x, n - 1) } }` */
function buildPow(b: Builder): Continuation {
  const { w } = b;
  const pow = b.func([b.i32, b.i32], b.i32, 'pow', ['x', 'n']);
  const [mem, x, n, ret] = pow.params;
  const one = b.block('one');
  const rec = b.block('rec');
  w.branch(pow, mem!, w.cmp('eq', n!, b.lit(0)), one, rec);
  one.jump(ret!, [one.param(0), b.lit(1)]);
  const k = b.cont([b.i32], 'k', ['r']);
  rec.jump(pow, [rec.param(0), x!, w.arith('sub', n!, b.lit(1)), k]);
  k.jump(ret!, [k.param(0), w.arith('mul', x!, k.param(1))]);
  return pow;
}

function bodyCallees(c: Continuation): string[] {
  const seen = new Set<Continuation>();
  const out: string[] = [];
  const visit = (k: Continuation): void => {
    if (seen.has(k) || !k.hasBody) return;
    seen.add(k);
    out.push(k.callee instanceof Continuation ? k.callee.name : (k.callee as Param).name);
    for (const o of k.ops) if (o instanceof Continuation && !o.isIntrinsic && o.hasBody && o.name !== 'pow') visit(o);
  };
  visit(c);
  return out;
}

describe('mangle', () => {
  it('drops a param, folding the branch on it and never copying the dead side', () => {
    const b = new Builder();
    const pow = buildPow(b);
    const before = b.w.continuations.size;
    const pow3 = drop(b.w, new Scope(pow), [null, null, b.lit(3), null]);
    expect(pow3.params.map((p) => p.name)).toEqual(['mem', 'x', 'ret']);
    // n == 3 folds: the entry jumps straight to the copy of `rec`, `one` is not copied.
    expect(bodyCallees(pow3)).toEqual(['rec', 'pow', 'ret']);
    expect(b.w.continuations.size - before).toBe(3);
    // The recursive call stays a call of the original with n - 1 = 2 folded.
    const rec = pow3.callee as Continuation;
    expect(rec.callee === pow).toBe(true);
    expect(rec.arg(2)).toBe(b.lit(2));
    expect(b.run(pow3, [5n])).toBe(125n);
  });

  it('lifts a free param into a new trailing param', () => {
    const b = new Builder();
    const { w } = b;
    const outer = b.func([b.i32], b.i32, 'outer', ['a']);
    const inner = b.func([b.i32], b.i32, 'inner', ['x']);
    inner.jump(inner.param(2), [inner.param(0), w.arith('add', inner.param(1), outer.param(1))]);
    outer.jump(inner, [outer.param(0), b.lit(1), outer.param(2)]);
    const lifted = lift(w, new Scope(inner), [outer.param(1)]);
    expect(lifted.params.map((p) => p.name)).toEqual(['mem', 'x', 'ret', 'a']);
    expect(new Scope(lifted).freeParams().size).toBe(0);
    expect(b.run(b.returningLast(lifted, 2), [2n, 40n])).toBe(42n);
  });

  it('drops and lifts at once (the thesis pow_m example)', () => {
    const b = new Builder();
    const { w } = b;
    const f = b.func([b.i32], b.i32, 'f', ['y']);
    const g = b.func([b.i32, b.i32], b.i32, 'g', ['a', 'b']);
    g.jump(g.param(3), [g.param(0), w.arith('mul', w.arith('add', g.param(1), g.param(2)), f.param(1))]);
    f.jump(g, [f.param(0), f.param(1), b.lit(3), f.param(2)]);
    const m = mangle(w, new Scope(g), [null, null, b.lit(3), null], [f.param(1)]);
    expect(m.params.map((p) => p.name)).toEqual(['mem', 'a', 'ret', 'y']);
    expect(b.run(b.returningLast(m, 2), [4n, 10n])).toBe(70n);
  });

  it('specialises a recursive higher-order function into a loop over the remaining params', () => {
    const b = new Builder();
    const { w } = b;
    const range = buildRange(b);
    const body = b.func([b.i32], null, 'body', ['i']);
    body.jump(body.param(2), [body.param(0)]);
    const spec = specialise(w, range, [null, null, null, body, null]);
    expect(spec.params.map((p) => p.name)).toEqual(['mem', 'a', 'b', 'ret']);
    const copies = new Scope(spec).continuations;
    expect(copies.filter((c) => c.hasBody && c.callee === range)).toHaveLength(0);
    expect(copies.filter((c) => c.hasBody && c.callee === spec)).toHaveLength(1);
    expect(verify(w)).toEqual([]);
  });

  it('inlines a call: the callee body becomes the caller body', () => {
    const b = new Builder();
    const pow = buildPow(b);
    const main = b.func([b.i32], b.i32, 'main', ['x']);
    main.jump(pow, [main.param(0), main.param(1), b.lit(2), main.param(2)]);
    expect(inline(b.w, main)).toBe(true);
    // n == 2 folded: main jumps to the copy of `rec`, which calls pow(x, 1) returning to a copy of `k`.
    const rec = main.callee as Continuation;
    expect(rec.name).toBe('rec');
    expect(rec.callee === pow).toBe(true);
    expect(rec.arg(2) === b.lit(1)).toBe(true);
    expect(rec.arg(1) === main.param(1)).toBe(true);
    const k = rec.arg(3) as Continuation;
    expect(k.callee === main.param(2)).toBe(true);
    expect((k.arg(1) as PrimOp).tag).toBe('mul');
    expect(b.run(main, [7n])).toBe(49n);
    expect(verify(b.w).filter((l) => !l.startsWith('note:'))).toEqual([]);
  });

  it('keeps params that are not dropped as params of the copy, in order', () => {
    const b = new Builder();
    const pow = buildPow(b);
    const copy = drop(b.w, new Scope(pow), [null, null, null, null]);
    expect(copy).not.toBe(pow);
    expect(copy.params.every((p) => p instanceof Param && p.continuation === copy)).toBe(true);
    expect(b.run(copy, [2n, 10n])).toBe(1024n);
  });
});
