// Hand-built CPS programs for the transform tests, written the way emit/ lowers
// Impala: mem first, return continuation last, closures as nested continuations.
// Each pass is checked by running the program in the IR interpreter (the oracle)
// before and after it.
import { interpret, type Value } from '../../../compiler/src/interp/index.ts';
import type { Continuation, Def } from '../../../compiler/src/ir/defs.ts';
import type { FnType, IRType } from '../../../compiler/src/ir/types.ts';
import { World } from '../../../compiler/src/ir/world.ts';

export class Builder {
  readonly w = new World();
  get i32(): IRType {
    return this.w.prim('i32');
  }
  get mem(): IRType {
    return this.w.mem;
  }
  /** `fn(mem)`: a block, or the return continuation of a unit function. */
  get bb(): FnType {
    return this.w.fnType([this.mem]);
  }
  /** `fn(mem, T)`: the return continuation of a function returning T. */
  ret(t: IRType): FnType {
    return this.w.fnType([this.mem, t]);
  }
  /** The CPS type of `fn(params…) -> R` (R null for `()`). */
  fn(params: readonly IRType[], r: IRType | null): FnType {
    return this.w.fnType([this.mem, ...params, r ? this.ret(r) : this.bb]);
  }
  cont(params: readonly IRType[], name: string, names: readonly string[] = []): Continuation {
    return this.w.continuation(this.w.fnType([this.mem, ...params]), name, ['mem', ...names]);
  }
  lit(n: number): Def {
    return this.w.litI32(n);
  }
  /** A function `name(mem, params…, ret)` (ret a unit or R-returning continuation). */
  func(params: readonly IRType[], r: IRType | null, name: string, names: readonly string[] = []): Continuation {
    return this.w.continuation(this.fn(params, r), name, ['mem', ...names, 'ret']);
  }
  /** `func`, exported (an entry of the program). */
  exported(params: readonly IRType[], r: IRType | null, name: string, names: readonly string[] = []): Continuation {
    const c = this.func(params, r, name, names);
    c.external = true;
    return c;
  }
  /** A stack slot of type `t` in a new frame entered at `mem`: the memory after storing `init` in it (if given). */
  stackSlot(mem: Def, t: IRType, init?: Def): { mem: Def; ptr: Def } {
    const entered = this.w.enter(mem);
    const ptr = this.w.slot(this.w.extract(entered, 1), t);
    const m = this.w.extract(entered, 0);
    return { mem: init ? this.w.store(m, ptr, init) : m, ptr };
  }
  /** A continuation used as a branch target or a block. */
  block(name: string): Continuation {
    return this.w.continuation(this.bb, name, ['mem']);
  }
  /** Runs `entry(mem, args…, ret)` in the IR interpreter: what it returns (`[]` for `()`). */
  run(entry: Continuation, args: readonly Value[]): Value {
    return interpret(this.w, entry, args, { stepLimit: 1_000_000 }).result;
  }
  /**
   * A function that takes `entry`'s params with param `ret` (its return continuation)
   * moved last and calls `entry`, so `run` can call an entry whose return param is
   * not last, such as a lifted one.
   */
  returningLast(entry: Continuation, ret: number): Continuation {
    const order = entry.params.map((_, i) => i).filter((i) => i !== ret);
    order.push(ret);
    const types = order.map((i) => entry.params[i]!.type);
    const wrapper = this.w.continuation(this.w.fnType(types), `${entry.name}.call`, order.map((i) => entry.params[i]!.name));
    wrapper.jump(entry, entry.params.map((_, i) => wrapper.param(order.indexOf(i))));
    return wrapper;
  }
}

/**
 * `fn range(a, b, f: fn(i32) -> ()) -> () { if a < b { f(a); range(a + 1, b, f) } }`
 */
export function buildRange(b: Builder): Continuation {
  const range = b.func([b.i32, b.i32, b.fn([b.i32], null)], null, 'range', ['a', 'b', 'f']);
  const [, , hi, f, ret] = range.params;
  countingLoop(b, range, b.lit(1), (a) => [a, hi!, f!, ret!]);
  return range;
}

/**
 * Ends `loop(mem, a, hi, …, f, ret)` (f and ret its last two params) with
 * `if a < hi { f(a); loop(again(a + step)…) }` (`again` gives all args but mem).
 */
function countingLoop(b: Builder, loop: Continuation, step: Def, again: (next: Def) => Def[]): void {
  const { w } = b;
  const [mem, a, hi] = loop.params;
  const [f, ret] = loop.params.slice(-2);
  const then = b.block('then');
  const next = b.block('next');
  const done = b.block('done');
  w.branch(loop, mem!, w.cmp('lt', a!, hi!), then, done);
  then.jump(f!, [then.param(0), a!, next]);
  next.jump(loop, [next.param(0), ...again(w.arith('add', a!, step))]);
  done.jump(ret!, [done.param(0)]);
}

/**
 * ```
 * extern fn main(n: i32) -> i32 {
 *   let mut acc = 0;                       // in a stack slot: the body closure writes it
 *   for i in range(0, n) { if i == 5 { break() } acc += i * n; }
 *   acc
 * }
 * ```
 */
export function buildForBreak(b: Builder): Continuation {
  const { w } = b;
  const range = buildRange(b);
  const main = b.exported([b.i32], b.i32, 'main', ['n']);
  const [mem, n, ret] = main.params;
  const { mem: m1, ptr: acc } = b.stackSlot(mem!, b.i32, b.lit(0));
  const brk = b.block('break');
  const body = b.func([b.i32], null, 'body', ['i']);
  main.jump(range, [m1, b.lit(0), n!, body, brk]);

  accumulateUntil(b, body, 5, brk, acc, (i) => w.arith('mul', i, n!));

  const l2 = w.load(brk.param(0), acc);
  brk.jump(ret!, [w.extract(l2, 0), w.extract(l2, 1)]);
  return main;
}

/** Ends the loop body `body(mem, j, cont)` with `if j == stop { brk() } else { *acc += term(j); cont() }`. */
function accumulateUntil(b: Builder, body: Continuation, stop: number, brk: Continuation, acc: Def, term: (j: Def) => Def): void {
  const { w } = b;
  const [mem, j, cont] = body.params;
  const leave = b.block('leave');
  const work = b.block('work');
  w.branch(body, mem!, w.cmp('eq', j!, b.lit(stop)), leave, work);
  leave.jump(brk, [leave.param(0)]);
  const l = w.load(work.param(0), acc);
  work.jump(cont!, [w.store(w.extract(l, 0), acc, w.arith('add', w.extract(l, 1), term(j!)))]);
}

/** The reference result of `buildForBreak`'s main. */
export function forBreakExpected(n: number): bigint {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    if (i === 5) break;
    acc += i * n;
  }
  return BigInt(acc | 0);
}

/**
 * A function recursive in its closure argument, which lower2cff must leave alone:
 * ```
 * fn walk(n: i32, f: fn(i32) -> i32) -> i32 { if n == 0 { f(0) } else { walk(n - 1, |x| f(x + n)) } }
 * extern fn main(k: i32, c: i32) -> i32 { walk(k, |x| x * 2 + c) }      // = k * (k + 1) + c
 * ```
 */
export function buildWalk(b: Builder): Continuation {
  const { w } = b;
  const fT = b.fn([b.i32], b.i32);
  const walk = b.func([b.i32, fT], b.i32, 'walk', ['n', 'f']);
  const [wm, n, f, wret] = walk.params;
  const base = b.block('base');
  const rec = b.block('rec');
  w.branch(walk, wm!, w.cmp('eq', n!, b.lit(0)), base, rec);
  base.jump(f!, [base.param(0), b.lit(0), wret!]);
  const g = b.func([b.i32], b.i32, 'g', ['x']);
  g.jump(f!, [g.param(0), w.arith('add', g.param(1), n!), g.param(2)]);
  rec.jump(walk, [rec.param(0), w.arith('sub', n!, b.lit(1)), g, wret!]);

  const main = b.exported([b.i32, b.i32], b.i32, 'main', ['k', 'c']);
  const [mm, k, c, mret] = main.params;
  const h = b.func([b.i32], b.i32, 'h', ['x']);
  h.jump(h.param(2), [h.param(0), w.arith('add', w.arith('mul', h.param(1), b.lit(2)), c!)]);
  main.jump(walk, [mm!, k!, h, mret!]);
  return main;
}

/**
 * A closure returned from a function and called in tail position:
 * `fn make_adder(a: i32) -> fn(i32) -> i32 { |y| a + y }` and
 * `extern fn main(a: i32, b: i32) -> i32 { make_adder(a)(b) }`.
 */
export function buildMakeAdder(b: Builder): Continuation {
  const { w } = b;
  const fT = b.fn([b.i32], b.i32);
  const make = b.func([b.i32], fT, 'make_adder', ['a']);
  const adder = b.func([b.i32], b.i32, 'adder', ['y']);
  adder.jump(adder.param(2), [adder.param(0), w.arith('add', make.param(1), adder.param(1))]);
  make.jump(make.param(2), [make.param(0), adder]);
  const main = b.exported([b.i32, b.i32], b.i32, 'main', ['a', 'b']);
  const k = b.cont([fT], 'k', ['f']);
  main.jump(make, [main.param(0), main.param(1), k]);
  k.jump(k.param(1), [k.param(0), main.param(2), main.param(3)]);
  return main;
}

/**
 * Function values stored in memory and called through it:
 * ```
 * fn dbl(x: i32) -> i32 { x * 2 }
 * extern fn main(a: i32, b: i32) -> i32 {
 *   let mut p = |x: i32| x + a;   let q = p(b);      // a closure through a stack slot
 *   p = dbl;                      q + p(b)           // a top-level function through it
 * }
 * ```
 */
export function buildStoredClosures(b: Builder): Continuation {
  const { w } = b;
  const fT = b.fn([b.i32], b.i32);
  const dbl = b.func([b.i32], b.i32, 'dbl', ['x']);
  dbl.jump(dbl.param(2), [dbl.param(0), w.arith('mul', dbl.param(1), b.lit(2))]);
  const main = b.exported([b.i32, b.i32], b.i32, 'main', ['a', 'b']);
  const [mem, a, bb, ret] = main.params;
  const lam = b.func([b.i32], b.i32, 'lam', ['x']);
  lam.jump(lam.param(2), [lam.param(0), w.arith('add', lam.param(1), a!)]);
  const { mem: m1, ptr: p } = b.stackSlot(mem!, fT, lam);
  const l1 = w.load(m1, p);
  const k1 = b.cont([b.i32], 'k1', ['q']);
  main.jump(w.extract(l1, 1), [w.extract(l1, 0), bb!, k1]);
  const m2 = w.store(k1.param(0), p, dbl);
  const l2 = w.load(m2, p);
  const k2 = b.cont([b.i32], 'k2', ['r']);
  k1.jump(w.extract(l2, 1), [w.extract(l2, 0), bb!, k2]);
  k2.jump(ret!, [k2.param(0), w.arith('add', k1.param(1), k2.param(1))]);
  return main;
}

/**
 * A `break` continuation passed to a function that is recursive in it, so it
 * cannot be inlined: calling it would be a non-local jump.
 * ```
 * fn search(n: i32, k: fn() -> !) -> i32 { if n == 0 { k() } else { search(n - 1, || { note(n); k() }) } }
 * extern fn main(n: i32) -> i32 { with break in … search(n, break) … }
 * ```
 */
export function buildEscapingBreak(b: Builder): { main: Continuation; brk: Continuation } {
  const { w } = b;
  const note = w.imported(b.fn([b.i32], null), 'note', 'C');
  const search = b.func([b.i32, b.bb], b.i32, 'search', ['n', 'k']);
  const [sm, n, k, sret] = search.params;
  const base = b.block('base');
  const rec = b.block('rec');
  w.branch(search, sm!, w.cmp('eq', n!, b.lit(0)), base, rec);
  base.jump(k!, [base.param(0)]);
  const k2 = b.block('k2');
  const after = b.block('after');
  k2.jump(note, [k2.param(0), n!, after]);
  after.jump(k!, [after.param(0)]);
  rec.jump(search, [rec.param(0), w.arith('sub', n!, b.lit(1)), k2, sret!]);
  const main = b.exported([b.i32], b.i32, 'main', ['n']);
  const brk = b.block('break');
  brk.span = { file: 'test.impala', line: 3, col: 5, endLine: 3, endCol: 9 };
  brk.jump(main.param(2), [brk.param(0), b.lit(42)]);
  main.jump(search, [main.param(0), main.param(1), brk, main.param(2)]);
  return { main, brk };
}

/**
 * The prelude's loops, two levels deep:
 * ```
 * fn unroll_step(a: i32, b: i32, s: i32, f: fn(i32) -> ()) -> () { if a < b { f(a); unroll_step(a + s, b, s, f) } }
 * fn range(a: i32, b: i32, f: fn(i32) -> ()) -> () { unroll_step($a, b, 1, f) }
 * extern fn main(n: i32) -> i32 {
 *   let mut acc = 0;
 *   for i in range(0, n) { for j in range(0, i) { if j == 7 { break() } acc += i * j; } }
 *   acc
 * }
 * ```
 */
export function buildNestedLoops(b: Builder): Continuation {
  const { w } = b;
  const bodyT = b.fn([b.i32], null);
  const step = b.func([b.i32, b.i32, b.i32, bodyT], null, 'unroll_step', ['a', 'b', 's', 'f']);
  {
    const [, , hi, s, f, ret] = step.params;
    countingLoop(b, step, s!, (a) => [a, hi!, s!, f!, ret!]);
  }
  const range = b.func([b.i32, b.i32, bodyT], null, 'range', ['a', 'b', 'f']);
  range.jump(step, [range.param(0), w.hlt(range.param(1)), range.param(2), b.lit(1), range.param(3), range.param(4)]);

  const main = b.exported([b.i32], b.i32, 'main', ['n']);
  const [mem, n, ret] = main.params;
  const { mem: m1, ptr: acc } = b.stackSlot(mem!, b.i32, b.lit(0));
  const after = b.block('after');
  const outer = b.func([b.i32], null, 'outer', ['i']);
  main.jump(range, [m1, b.lit(0), n!, outer, after]);
  const l = w.load(after.param(0), acc);
  after.jump(ret!, [w.extract(l, 0), w.extract(l, 1)]);

  const [om, i, ocont] = outer.params;
  const brk = b.block('break');
  const inner = b.func([b.i32], null, 'inner', ['j']);
  outer.jump(range, [om!, b.lit(0), i!, inner, brk]);
  brk.jump(ocont!, [brk.param(0)]);

  accumulateUntil(b, inner, 7, brk, acc, (j) => w.arith('mul', i!, j));
  return main;
}

export function nestedLoopsExpected(n: number): bigint {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < i; j++) {
      if (j === 7) break;
      acc += i * j;
    }
  }
  return BigInt(acc);
}

/**
 * Recursion through a second function that wraps the closure every time round:
 * ```
 * fn f(n: i32, k: fn(i32) -> i32) -> i32 { h(n, |x| k(x + 1)) }
 * fn h(n: i32, k: fn(i32) -> i32) -> i32 { if n == 0 { k(0) } else { f(n - 1, k) } }
 * extern fn main(n: i32) -> i32 { let v = f(n, |x| x); h(v, |x| x) }      // = n + 1
 * ```
 */
export function buildMutualClosureRecursion(b: Builder): Continuation {
  const { w } = b;
  const kT = b.fn([b.i32], b.i32);
  const f = b.func([b.i32, kT], b.i32, 'f', ['n', 'k']);
  const h = b.func([b.i32, kT], b.i32, 'h', ['n', 'k']);
  const c = b.func([b.i32], b.i32, 'c', ['x']);
  c.jump(f.param(2), [c.param(0), w.arith('add', c.param(1), b.lit(1)), c.param(2)]);
  f.jump(h, [f.param(0), f.param(1), c, f.param(3)]);
  const base = b.block('base');
  const rec = b.block('rec');
  w.branch(h, h.param(0), w.cmp('eq', h.param(1), b.lit(0)), base, rec);
  base.jump(h.param(2), [base.param(0), b.lit(0), h.param(3)]);
  rec.jump(f, [rec.param(0), w.arith('sub', h.param(1), b.lit(1)), h.param(2), h.param(3)]);
  const main = b.exported([b.i32], b.i32, 'main', ['n']);
  const id = b.func([b.i32], b.i32, 'id', ['x']);
  id.jump(id.param(2), [id.param(0), id.param(1)]);
  const k1 = b.cont([b.i32], 'k1', ['v']);
  main.jump(f, [main.param(0), main.param(1), id, k1]);
  k1.jump(h, [k1.param(0), k1.param(1), id, main.param(2)]);
  return main;
}

/**
 * A local closure that is recursive but not tail recursive, capturing `c`:
 * `extern fn main(n: i32, c: i32) -> i32 { fn fib(k: i32) -> i32 { if k < 2 { k + c } else { fib(k - 1) + fib(k - 2) } } fib(n) }`
 */
export function buildLocalFib(b: Builder): Continuation {
  const { w } = b;
  const main = b.exported([b.i32, b.i32], b.i32, 'main', ['n', 'c']);
  const [mem, n, c, ret] = main.params;
  const fib = b.func([b.i32], b.i32, 'fib', ['k']);
  const [fm, k, r] = fib.params;
  const leaf = b.block('leaf');
  const rec = b.block('rec');
  w.branch(fib, fm!, w.cmp('lt', k!, b.lit(2)), leaf, rec);
  leaf.jump(r!, [leaf.param(0), w.arith('add', k!, c!)]);
  const j1 = b.cont([b.i32], 'j1', ['x']);
  const j2 = b.cont([b.i32], 'j2', ['y']);
  rec.jump(fib, [rec.param(0), w.arith('sub', k!, b.lit(1)), j1]);
  j1.jump(fib, [j1.param(0), w.arith('sub', k!, b.lit(2)), j2]);
  j2.jump(r!, [j2.param(0), w.arith('add', j1.param(1), j2.param(1))]);
  const k1 = b.cont([b.i32], 'k1', ['v']);
  main.jump(fib, [mem!, n!, k1]);
  k1.jump(ret!, [k1.param(0), w.arith('mul', k1.param(1), b.lit(10))]);
  return main;
}
