// Placement of primops: loop-invariant code leaves loops, other code sinks to its
// uses, trapping division stays where it was asked for, effects follow their mem.
import { describe, expect, it } from 'vitest';
import { collectProgram } from '../../compiler/src/backend/program.ts';
import { scheduleFunction } from '../../compiler/src/backend/schedule.ts';
import type { Continuation, PrimOp } from '../../compiler/src/ir/defs.ts';
import { block, func, World } from './helpers.ts';

function loopWorld() {
  const w = new World();
  const i32 = w.prim('i32');
  const f = func(w, 'f', [i32, i32], i32, true);
  const [m, n, d, ret] = f.params;
  const head = block(w, 'head', [i32, i32]);
  const body = block(w, 'body');
  const odd = block(w, 'odd');
  const next = block(w, 'next', [i32]);
  const exit = block(w, 'exit');
  const [hm, i, acc] = head.params;
  f.jump(head, [m!, w.litI32(0), w.litI32(0)]);
  w.branch(head, hm!, w.cmp('lt', i!, n!), body, exit);
  const invariant = w.arith('mul', n!, w.litI32(3));
  const quotient = w.arith('div', n!, d!);
  const even = block(w, 'even');
  even.jump(next, [even.param(0), w.litI32(0)]);
  w.branch(body, body.param(0), w.cmp('ne', w.arith('and', i!, w.litI32(1)), w.litI32(0)), odd, even);
  odd.jump(next, [odd.param(0), w.arith('add', w.arith('mul', i!, invariant), quotient)]);
  next.jump(head, [next.param(0), w.arith('add', i!, w.litI32(1)), w.arith('add', acc!, next.param(1))]);
  const late = w.arith('sub', w.arith('mul', n!, w.litI32(7)), w.litI32(1));
  const fr = w.enter(exit.param(0));
  const slot = w.slot(w.extract(fr, 1), i32);
  const st = w.store(w.extract(fr, 0), slot, w.arith('add', acc!, late));
  const ld = w.load(st, slot);
  exit.jump(ret!, [w.extract(ld, 0), w.extract(ld, 1)]);
  return { w, f, head, body, odd, next, exit, invariant, quotient, late, st, ld, slot };
}

describe('schedule', () => {
  it('builds the CFG in reverse post-order with dominators and loop depths', () => {
    const { f, head, body, odd, exit } = loopWorld();
    const s = scheduleFunction(f, collectProgram([f]));
    const names = s.cfg.blocks.map((b) => b.name);
    expect(names[0]).toBe('f');
    expect(names.indexOf('head')).toBeLessThan(names.indexOf('body'));
    expect(s.dom.idom(exit)).toBe(head);
    expect(s.dom.idom(odd)).toBe(body);
    expect(s.loops.depth(body)).toBe(1);
    expect(s.loops.depth(exit)).toBe(0);
  });

  it('hoists loop invariants, sinks values to their uses and keeps division where it is used', () => {
    const t = loopWorld();
    const s = scheduleFunction(t.f, collectProgram([t.f]));
    const where = (p: unknown): Continuation => s.blockOf.get(p as PrimOp)!;
    expect(where(t.invariant)).toBe(t.f);
    expect(where(t.quotient)).toBe(t.odd);
    expect(where(t.late)).toBe(t.exit);
    expect(where(t.st)).toBe(t.exit);
    expect(where(t.ld)).toBe(t.exit);
    const exitOps = s.placed.get(t.exit)!;
    expect(exitOps.indexOf(t.st as PrimOp)).toBeLessThan(exitOps.indexOf(t.ld as PrimOp));
  });
});
