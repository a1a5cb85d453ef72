import { describe, expect, it } from 'vitest';
import { verify } from '../../compiler/src/ir/verify.ts';
import { Builder } from '../interp/build.ts';

/** fn main(n: i32) -> i32 { if n < 0 { 0 } else { n } }, exported. */
function program(): Builder & { main: ReturnType<Builder['fn']> } {
  const b = new Builder();
  const { w, i32 } = b;
  const main = b.fn('main', [i32], i32);
  main.external = true;
  main.cc = 'C';
  const [mem, n, ret] = main.params;
  const neg = b.block('neg');
  const pos = b.block('pos');
  w.branch(main, mem!, w.cmp('lt', n!, w.litI32(0)), neg, pos);
  neg.jump(ret!, [neg.param(0), w.litI32(0)]);
  pos.jump(ret!, [pos.param(0), n!]);
  return Object.assign(b, { main });
}

describe('verify', () => {
  it('accepts a well-formed program', () => {
    expect(verify(program().w)).toEqual([]);
  });

  it('reports a jump with the wrong number of arguments', () => {
    const b = program();
    const pos = [...b.w.continuations].find((c) => c.name === 'pos')!;
    pos.jump(b.main.param(2), [pos.param(0)]);
    const problems = verify(b.w);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^pos_\d+: jump to %p_\d+ passes 1 arguments, but its type fn\(mem, i32\) takes 2$/);
  });

  it('reports an argument of the wrong type', () => {
    const b = program();
    const neg = [...b.w.continuations].find((c) => c.name === 'neg')!;
    neg.jump(b.main.param(2), [neg.param(0), b.lit(b.f64, 0)]);
    expect(verify(b.w)).toEqual([
      expect.stringMatching(/^neg_\d+: argument 1 \(0f64\) of the jump to %p_\d+ has type f64, expected i32$/),
    ]);
  });

  it('reports ill-typed primops', () => {
    const b = program();
    const { w, i32, f64 } = b;
    const f = b.fn('f', [i32], i32);
    // The World trusts its callers; an add of i32 and f64 is built but ill-typed.
    const bad = w.arith('add', f.param(1), b.lit(f64, 1.5));
    f.jump(f.param(2), [f.param(0), bad]);
    const slot = w.slot(w.extract(w.enter(f.param(0)), 1), i32);
    const g = b.fn('g', [], i32);
    const st = w.store(g.param(0), slot, b.lit(f64, 2));
    g.jump(g.param(1), [st, w.litI32(0)]);
    const problems = verify(b.w);
    expect(problems).toContainEqual(expect.stringMatching(/^add_\d+: add operands i32 and f64 differ from the result i32$/));
    expect(problems).toContainEqual(expect.stringMatching(/^store_\d+: stored value has type f64, expected i32$/));
  });

  it('checks match cases and the first param', () => {
    const b = program();
    const { w, i32 } = b;
    const f = b.fn('f', [i32], null);
    const done = b.block('done');
    done.jump(f.param(2), [done.param(0)]);
    f.jump(w.matchIntrinsic(i32), [f.param(0), f.param(1), done, w.litI32(1)]);
    const noMem = w.continuation(w.fnType([i32]), 'nomem');
    noMem.jump(f, [w.bottom(w.mem), noMem.param(0), done]);
    const problems = verify(b.w);
    expect(problems).toContainEqual(expect.stringMatching(/^f_\d+: match takes .* got 4 arguments$/));
    expect(problems).toContainEqual(expect.stringMatching(/^nomem_\d+: first param is i32, not mem$/));
    expect(problems.filter((p) => !p.startsWith('note:'))).toHaveLength(2);
  });

  it('reports inconsistent use lists', () => {
    const b = program();
    const n = b.main.param(1);
    const [key] = n.uses.keys();
    n.uses.delete(key!);
    expect(verify(b.w)).toContainEqual(expect.stringMatching(/does not record this use$/));
  });

  it('notes unreachable continuations that dead code still uses', () => {
    const b = program();
    const dead = b.block('dead');
    const target = b.block('target');
    dead.jump(target, [dead.param(0)]);
    target.jump(target, [target.param(0)]);
    const problems = verify(b.w);
    expect(problems).toEqual([expect.stringMatching(/^note: target_\d+ is unreachable but still used by dead code \(dead_\d+, target_\d+\)$/)]);
  });

  it('reports continuations forgotten while still referenced', () => {
    const b = program();
    const pos = [...b.w.continuations].find((c) => c.name === 'pos')!;
    b.w.continuations.delete(pos);
    expect(verify(b.w)).toContainEqual(expect.stringMatching(/^pos_\d+: is used but no longer in the world/));
  });
});
