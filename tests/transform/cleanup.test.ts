import { describe, expect, it } from 'vitest';
import { Continuation, PrimOp } from '../../compiler/src/ir/defs.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import { reachable } from '../../compiler/src/ir/reachable.ts';
import { cleanup } from '../../compiler/src/transform/cleanup.ts';
import { Builder } from './support/programs.ts';

function live(b: Builder): Continuation[] {
  return reachable(b.w).continuations.filter((c) => c.hasBody);
}

describe('cleanup', () => {
  it('removes run/hlt, folds leftover known to false and the branch on it', () => {
    const b = new Builder();
    const { w } = b;
    const main = b.exported([b.i32], b.i32, 'main', ['x']);
    const [mem, x, ret] = main.params;
    const yes = b.block('yes');
    const no = b.block('no');
    w.branch(main, mem!, w.known(x!), yes, no);
    yes.jump(ret!, [yes.param(0), w.run(w.arith('add', x!, b.lit(1)))]);
    no.jump(ret!, [no.param(0), w.arith('mul', w.hlt(x!), b.lit(2))]);
    cleanup(w);
    expect(live(b)).toEqual([main]);
    expect(main.callee).toBe(ret);
    expect((main.arg(1) as PrimOp).tag).toBe('mul');
    expect((main.arg(1) as PrimOp).op(0)).toBe(x);
    expect(b.run(main, [21n])).toBe(42n);
  });

  it('drops a leftover pe_info call: it continues at its return continuation', () => {
    const b = new Builder();
    const { w } = b;
    const peInfo = w.intrinsic('pe_info', b.fn([w.types.ptr(w.types.indefiniteArray(w.prim('u8'))), b.i32], null));
    const main = b.exported([b.i32], b.i32, 'main', ['x']);
    const after = b.block('after');
    const msg = w.bottom(w.types.ptr(w.types.indefiniteArray(w.prim('u8'))));
    main.jump(peInfo, [main.param(0), msg, main.param(1), after]);
    after.jump(main.param(2), [after.param(0), main.param(1)]);
    cleanup(w);
    expect(main.callee).toBe(main.param(2));
    expect(peInfo.uses.size).toBe(0);
  });

  it('forgets continuations the externals cannot reach, but keeps imports', () => {
    const b = new Builder();
    const { w } = b;
    const print = w.imported(b.fn([b.i32], null), 'print', 'C');
    const main = b.exported([], null, 'main');
    main.jump(print, [main.param(0), b.lit(1), main.param(1)]);
    const dead = b.func([], null, 'dead');
    dead.jump(print, [dead.param(0), b.lit(2), dead.param(1)]);
    cleanup(w);
    expect(w.continuations.has(dead)).toBe(false);
    expect(w.continuations.has(print)).toBe(true);
    expect(print.uses.size).toBe(1);
  });

  it('eta-reduces a forwarding return continuation into a tail call, but keeps a forwarding branch target', () => {
    const b = new Builder();
    const { w } = b;
    const h = w.imported(b.fn([b.i32], null), 'h', 'C');
    const g = b.func([b.i32], null, 'g', ['y']);
    g.jump(h, [g.param(0), g.param(1), g.param(2)]);
    const main = b.exported([b.i32], null, 'main', ['x']);
    const [mem, x, ret] = main.params;
    const k = b.block('k');
    k.jump(ret!, [k.param(0)]);
    const yes = b.block('yes');
    const no = b.block('no');
    w.branch(main, mem!, w.cmp('lt', x!, b.lit(0)), yes, no);
    yes.jump(g, [yes.param(0), x!, k]);
    no.jump(ret!, [no.param(0)]);
    cleanup(w);
    // `k` is gone: the call returns straight to main's caller; g had one call site and was merged.
    expect(w.continuations.has(k)).toBe(false);
    expect(live(b).map((c) => c.name).sort()).toEqual(['main', 'no', 'yes']);
    expect(yes.callee).toBe(h);
    expect(yes.arg(2)).toBe(ret);
    // `no` forwards to a return param but is a branch target: it stays a block.
    expect(main.arg(3)).toBe(no);
    expect(verify(w)).toEqual([]);
  });

  it('removes loop-invariant and unused block params', () => {
    const b = new Builder();
    const { w } = b;
    const main = b.exported([b.i32], b.i32, 'main', ['n']);
    const [mem, n, ret] = main.params;
    // head(i, acc, limit, junk): limit is always n, junk is never read.
    const head = b.cont([b.i32, b.i32, b.i32, b.i32], 'head', ['i', 'acc', 'limit', 'junk']);
    const [hm, i, acc, limit, junk] = head.params;
    const body = b.block('body');
    const exit = b.block('exit');
    main.jump(head, [mem!, b.lit(0), b.lit(0), n!, b.lit(7)]);
    w.branch(head, hm!, w.cmp('lt', i!, limit!), body, exit);
    body.jump(head, [body.param(0), w.arith('add', i!, b.lit(1)), w.arith('add', acc!, i!), limit!, w.arith('add', junk!, b.lit(1))]);
    exit.jump(ret!, [exit.param(0), acc!]);
    const expected = b.run(main, [10n]);
    expect(expected).toBe(45n);
    cleanup(w);
    const loop = live(b).find((c) => c.name === 'head')!;
    expect(loop.params.map((p) => p.name)).toEqual(['mem', 'i', 'acc', 'junk']);
    cleanup(w);
    expect(b.run(main, [10n])).toBe(expected);
    expect(verify(w)).toEqual([]);
  });

  it('merges a chain of single-predecessor blocks', () => {
    const b = new Builder();
    const { w } = b;
    const main = b.exported([b.i32], b.i32, 'main', ['x']);
    const a = b.cont([b.i32], 'a', ['v']);
    const c = b.cont([b.i32], 'c', ['v']);
    main.jump(a, [main.param(0), w.arith('add', main.param(1), b.lit(1))]);
    a.jump(c, [a.param(0), w.arith('mul', a.param(1), b.lit(3))]);
    c.jump(main.param(2), [c.param(0), w.arith('sub', c.param(1), b.lit(2))]);
    cleanup(w);
    expect(live(b)).toEqual([main]);
    expect(b.run(main, [4n])).toBe(13n);
  });
});
