import { describe, expect, it } from 'vitest';
import { Continuation, PrimOp } from '../../compiler/src/ir/defs.ts';
import { World } from '../../compiler/src/ir/world.ts';
import { substitute } from '../../compiler/src/transform/substitute.ts';

describe('substitute', () => {
  it('replaces a def used both directly and through another primop of the same user', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const k = w.continuation(w.fnType([w.mem, i32, i32]), 'k');
    const [m, i, a] = k.params;
    const r = w.continuation(w.fnType([w.mem, i32]), 'r');
    k.jump(r, [m!, w.arith('mul', w.arith('add', i!, w.litI32(1)), i!)]);
    substitute(w, new Map([[i!, a!]]));
    expect(k.arg(1)).toBe(w.arith('mul', w.arith('add', a!, w.litI32(1)), a!));
  });

  it('folds what becomes constant and follows chains of replacements', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const k = w.continuation(w.fnType([w.mem, i32]), 'k');
    const r = w.continuation(w.fnType([w.mem, i32]), 'r');
    const hidden = w.hlt(k.param(1));
    const ran = w.run(hidden);
    k.jump(r, [k.param(0), w.arith('add', ran, w.litI32(2))]);
    substitute(w, new Map<PrimOp | typeof hidden, typeof hidden>([[ran, hidden], [hidden, k.param(1)]]));
    expect(k.arg(1)).toBe(w.arith('add', k.param(1), w.litI32(2)));
    substitute(w, new Map([[k.param(1), w.litI32(40)]]));
    expect(k.arg(1)).toBe(w.litI32(42));
    expect(k.callee).toBeInstanceOf(Continuation);
  });
});
