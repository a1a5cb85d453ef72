import { describe, expect, it } from 'vitest';
import type { Continuation, Def } from '../../compiler/src/ir/index.ts';
import { arrayCells, arrayPointer, InterpError, interpret, Pointer } from '../../compiler/src/interp/index.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import { Builder } from './build.ts';

/** fact(n) = n <= 1 ? 1 : n * fact(n - 1), on i64, recursing through return blocks. */
function factorial(b: Builder): Continuation {
  const { w, i64 } = b;
  const fact = b.fn('fact', [i64], i64);
  const [mem, n, ret] = fact.params;
  const base = b.block('base');
  const rec = b.block('rec');
  w.branch(fact, mem!, w.cmp('le', n!, b.lit(i64, 1n)), base, rec);
  base.jump(ret!, [base.param(0), b.lit(i64, 1n)]);
  const after = b.call(rec, fact, rec.param(0), [w.arith('sub', n!, b.lit(i64, 1n))], i64, 'after');
  after.jump(ret!, [after.param(0), w.arith('mul', n!, after.param(1))]);
  return fact;
}

/** sum(n) = 0 + 1 + … + (n - 1) with a loop header whose params are the phis. */
function loopSum(b: Builder): Continuation {
  const { w, i32 } = b;
  const sum = b.fn('sum', [i32], i32);
  const [mem, n, ret] = sum.params;
  const head = b.block('head', [i32, i32]);
  const body = b.block('body');
  const exit = b.block('exit');
  sum.jump(head, [mem!, w.litI32(0), w.litI32(0)]);
  const [hm, i, acc] = head.params;
  w.branch(head, hm!, w.cmp('lt', i!, n!), body, exit);
  body.jump(head, [body.param(0), w.arith('add', i!, w.litI32(1)), w.arith('add', acc!, i!)]);
  exit.jump(ret!, [exit.param(0), acc!]);
  return sum;
}

describe('interpreter: control flow', () => {
  it('runs a loop with block params', () => {
    const b = new Builder();
    const sum = loopSum(b);
    expect(verify(b.w)).toEqual([]);
    const r = interpret(b.w, sum, [100n]);
    expect(r.result).toBe(4950n);
    expect(r.steps).toBeGreaterThan(200);
  });

  it('runs recursion through return blocks, wrapping i64', () => {
    const b = new Builder();
    const fact = factorial(b);
    expect(verify(b.w)).toEqual([]);
    expect(interpret(b.w, fact, [20n]).result).toBe(2432902008176640000n);
    // 21! overflows i64 and wraps like the native code.
    expect(interpret(b.w, fact, [21n]).result).toBe(BigInt.asIntN(64, 51090942171709440000n));
  });

  it('recurses 200000 deep without growing the JS stack', () => {
    const b = new Builder();
    const { w, i64 } = b;
    const f = b.fn('sumrec', [i64], i64);
    const [mem, n, ret] = f.params;
    const zero = b.block('zero');
    const rec = b.block('rec');
    w.branch(f, mem!, w.cmp('eq', n!, b.lit(i64, 0n)), zero, rec);
    zero.jump(ret!, [zero.param(0), b.lit(i64, 0n)]);
    const after = b.call(rec, f, rec.param(0), [w.arith('sub', n!, b.lit(i64, 1n))], i64);
    after.jump(ret!, [after.param(0), w.arith('add', n!, after.param(1))]);
    expect(interpret(b.w, f, [200000n]).result).toBe(20000100000n);
  });

  it('switches with match and runs parallel sequentially', () => {
    const b = new Builder();
    const { w, i32 } = b;
    // classify(x) = match x { 1 => 10, 2 => 20, _ => 0 } + sum over parallel(0..x) of i, accumulated in a slot
    const f = b.fn('classify', [i32], i32);
    const [mem, x, ret] = f.params;
    const one = b.block('one');
    const two = b.block('two');
    const other = b.block('other');
    const join = b.block('join', [i32]);
    w.match(f, mem!, x!, other, [[w.litI32(1), one], [w.litI32(2), two]]);
    one.jump(join, [one.param(0), w.litI32(10)]);
    two.jump(join, [two.param(0), w.litI32(20)]);
    other.jump(join, [other.param(0), w.litI32(0)]);
    const [jm, base] = join.params;
    const entered = w.enter(jm!);
    const acc = w.slot(w.extract(entered, 1), i32);
    const m1 = w.store(w.extract(entered, 0), acc, base!);
    const bodyT = b.fnType([i32], null);
    const par = w.intrinsic('parallel', b.fnType([i32, i32, i32, bodyT], null));
    const body = w.continuation(bodyT, 'body');
    const [bm, bi, bret] = body.params;
    const old = w.load(bm!, acc);
    body.jump(bret!, [w.store(w.extract(old, 0), acc, w.arith('add', w.extract(old, 1), bi!)), ]);
    const done = b.call(join, par, m1, [w.litI32(4), w.litI32(0), x!, body], null, 'done');
    const fin = w.load(done.param(0), acc);
    done.jump(ret!, [w.extract(fin, 0), w.extract(fin, 1)]);
    expect(verify(b.w)).toEqual([]);
    expect(interpret(b.w, f, [1n]).result).toBe(10n);
    expect(interpret(b.w, f, [2n]).result).toBe(21n);
    expect(interpret(b.w, f, [5n]).result).toBe(10n);
  });
});

describe('interpreter: closures', () => {
  it('calls closures created in each loop iteration after the loop', () => {
    const b = new Builder();
    const { w, i32 } = b;
    const cloT = b.fnType([], null); // fn(mem, fn(mem))
    const f = b.fn('main', [], null);
    const [mem, ret] = f.params;
    const entered = w.enter(mem!);
    const arr = w.slot(w.extract(entered, 1), w.types.definiteArray(cloT, 5));
    // loop 1: arr(i) = || print_i32(i * 10)
    const head = b.block('head', [i32]);
    const body = b.block('body');
    const head2 = b.block('head2', [i32]);
    const exit1 = b.block('exit1');
    f.jump(head, [w.extract(entered, 0), w.litI32(0)]);
    const [hm, i] = head.params;
    w.branch(head, hm!, w.cmp('lt', i!, w.litI32(5)), body, exit1);
    const clo = w.continuation(cloT, 'clo');
    const [cm, ck] = clo.params;
    const printed = b.print(clo, cm!, 'anydsl_print_i32', w.arith('mul', i!, w.litI32(10)));
    printed.jump(ck!, [printed.param(0)]);
    body.jump(head, [w.store(body.param(0), w.lea(arr, i!), clo), w.arith('add', i!, w.litI32(1))]);
    // loop 2: arr(j)() for j in 0..5
    exit1.jump(head2, [exit1.param(0), w.litI32(0)]);
    const [h2m, j] = head2.params;
    const body2 = b.block('body2');
    const done = b.block('done');
    w.branch(head2, h2m!, w.cmp('lt', j!, w.litI32(5)), body2, done);
    const loaded = w.load(body2.param(0), w.lea(arr, j!));
    const back = b.call(body2, w.extract(loaded, 1), w.extract(loaded, 0), [], null, 'back');
    back.jump(head2, [back.param(0), w.arith('add', j!, w.litI32(1))]);
    done.jump(ret!, [done.param(0)]);
    expect(verify(b.w)).toEqual([]);
    const r = interpret(b.w, f, []);
    expect(r.stdout).toBe('010203040');
    expect(r.result).toEqual([]);
  });

  it('keeps the activation of each recursive call for the closures it built', () => {
    const b = new Builder();
    const { w, i32 } = b;
    // chain(n, k) = if n == 0 { k() } else { chain(n - 1, || { print(n); k() }) }
    const kT = b.fnType([], null);
    const chain = b.fn('chain', [i32, kT], null);
    const [mem, n, k, ret] = chain.params;
    const stop = b.block('stop');
    const more = b.block('more');
    w.branch(chain, mem!, w.cmp('eq', n!, w.litI32(0)), stop, more);
    const callK = b.call(stop, k!, stop.param(0), [], null, 'called');
    callK.jump(ret!, [callK.param(0)]);
    const clo = w.continuation(kT, 'clo');
    const [cm, cret] = clo.params;
    const printed = b.print(clo, cm!, 'anydsl_print_i32', n!);
    const tail = b.call(printed, k!, printed.param(0), [], null, 'tail');
    tail.jump(cret!, [tail.param(0)]);
    more.jump(chain, [more.param(0), w.arith('sub', n!, w.litI32(1)), clo, ret!]);
    // main() = chain(4, || ())
    const main = b.fn('main', [], null);
    const nop = w.continuation(kT, 'nop');
    nop.jump(nop.param(1), [nop.param(0)]);
    main.jump(chain, [main.param(0), w.litI32(4), nop, main.param(1)]);
    expect(verify(b.w)).toEqual([]);
    expect(interpret(b.w, main, []).stdout).toBe('1234');
  });
});

describe('interpreter: memory', () => {
  it('stores and loads struct fields and whole structs through pointers', () => {
    const b = new Builder();
    const { w, i32, f64 } = b;
    const point = w.types.struct('Point');
    point.fields = [i32, f64];
    point.fieldNames = ['x', 'y'];
    const f = b.fn('f', [i32], f64);
    const [mem, x, ret] = f.params;
    const e = w.enter(mem!);
    const p = w.slot(w.extract(e, 1), point);
    const m1 = w.store(w.extract(e, 0), p, w.structAgg(point, [w.litI32(0), b.lit(f64, 0.5)]));
    const m2 = w.store(m1, w.lea(p, 0), x!);
    const whole = w.load(m2, p);
    const sum = w.arith('add', w.cast(f64, w.extract(w.extract(whole, 1), 0)), w.extract(w.extract(whole, 1), 1));
    f.jump(ret!, [w.extract(whole, 0), sum]);
    expect(verify(b.w)).toEqual([]);
    expect(interpret(b.w, f, [41n]).result).toBe(41.5);
  });

  it('fills a heap array in a loop and sums it', () => {
    const b = new Builder();
    const { w, i32 } = b;
    const arrT = w.types.indefiniteArray(i32);
    const f = b.fn('squares', [i32], i32);
    const [mem, n, ret] = f.params;
    const a = w.alloc(mem!, arrT, n!);
    const ptr = w.extract(a, 1);
    const fill = b.block('fill', [i32]);
    const fillBody = b.block('fill_body');
    const sum = b.block('sum', [i32, i32]);
    const sumBody = b.block('sum_body');
    const exit = b.block('exit');
    const startSum = b.block('start_sum');
    f.jump(fill, [w.extract(a, 0), w.litI32(0)]);
    const [fm, i] = fill.params;
    w.branch(fill, fm!, w.cmp('lt', i!, n!), fillBody, startSum);
    fillBody.jump(fill, [w.store(fillBody.param(0), w.lea(ptr, i!), w.arith('mul', i!, i!)), w.arith('add', i!, w.litI32(1))]);
    startSum.jump(sum, [startSum.param(0), w.litI32(0), w.litI32(0)]);
    const [sm, j, acc] = sum.params;
    w.branch(sum, sm!, w.cmp('lt', j!, n!), sumBody, exit);
    const l = w.load(sumBody.param(0), w.lea(ptr, j!));
    sumBody.jump(sum, [w.extract(l, 0), w.arith('add', j!, w.litI32(1)), w.arith('add', acc!, w.extract(l, 1))]);
    exit.jump(ret!, [exit.param(0), acc!]);
    expect(verify(b.w)).toEqual([]);
    expect(interpret(b.w, f, [10n]).result).toBe(285n);
  });

  it('reads loads at the point of their mem operand, not at the point of use', () => {
    const b = new Builder();
    const { w, i32 } = b;
    const f = b.fn('f', [], i32);
    const [mem, ret] = f.params;
    const e = w.enter(mem!);
    const p = w.slot(w.extract(e, 1), i32);
    const m1 = w.store(w.extract(e, 0), p, w.litI32(1));
    const first = w.load(m1, p);
    const m2 = w.store(w.extract(first, 0), p, w.litI32(2));
    const next = b.block('next');
    f.jump(next, [m2]);
    // `first` is used only in the next block, after the second store has run.
    const second = w.load(next.param(0), p);
    next.jump(ret!, [w.extract(second, 0), w.arith('add', w.arith('mul', w.extract(first, 1), w.litI32(10)), w.extract(second, 1))]);
    expect(interpret(b.w, f, []).result).toBe(12n);
  });

  it('prints global strings and uses anydsl_alloc memory once it is typed', () => {
    const b = new Builder();
    const { w, i32, u8, f32 } = b;
    const text = [...'hi\n\0'].map((c) => b.lit(u8, BigInt(c.charCodeAt(0))));
    const str = w.global(w.definiteArray(u8, text), false, 'hi');
    const bytes = w.types.ptr(w.types.indefiniteArray(u8));
    const f = b.fn('main', [], f32);
    const [mem, ret] = f.params;
    const printed = b.call(f, b.extern('anydsl_print_string', [bytes]), mem!, [w.bitcast(bytes, str)], null);
    const i8p = w.types.ptr(w.types.indefiniteArray(w.prim('i8')));
    const alloc = b.call(printed, b.extern('anydsl_alloc', [i32, b.i64], i8p), printed.param(0), [w.litI32(0), b.lit(b.i64, 16n)], i8p);
    const floats = w.bitcast(w.types.ptr(w.types.indefiniteArray(f32)), alloc.param(1));
    const m1 = w.store(alloc.param(0), w.lea(floats, 3), b.lit(f32, 2.5));
    const l = w.load(m1, w.lea(floats, 3));
    const released = b.call(alloc, b.extern('anydsl_release', [i32, i8p]), w.extract(l, 0), [w.litI32(0), alloc.param(1)], null);
    released.jump(ret!, [released.param(0), w.extract(l, 1)]);
    expect(verify(b.w)).toEqual([]);
    const r = interpret(b.w, f, []);
    expect(r.stdout).toBe('hi\n');
    expect(r.result).toBe(2.5);
  });

  it('reports type punning of memory as unsupported', () => {
    const b = new Builder();
    const { w, i32, f32 } = b;
    const f = b.fn('pun', [], i32);
    const [mem, ret] = f.params;
    const e = w.enter(mem!);
    const p = w.slot(w.extract(e, 1), f32);
    const m1 = w.store(w.extract(e, 0), p, b.lit(f32, 1));
    const l = w.load(m1, w.bitcast(w.types.ptr(i32), p));
    f.jump(ret!, [w.extract(l, 0), w.extract(l, 1)]);
    expect(() => interpret(b.w, f, [])).toThrow(/unsupported in interpreter/);
  });

  it('reports out-of-bounds accesses, division by zero and the step limit', () => {
    const b = new Builder();
    const { w, i32 } = b;
    const div = b.fn('div', [i32, i32], i32);
    div.jump(div.param(3), [div.param(0), w.arith('div', div.param(1), div.param(2))]);
    expect(interpret(b.w, div, [7n, -2n]).result).toBe(-3n);
    expect(() => interpret(b.w, div, [1n, 0n])).toThrow(InterpError);
    expect(() => interpret(b.w, div, [1n, 0n])).toThrow(/division by zero/);

    const spin = b.fn('spin', [], null);
    const loop = b.block('loop');
    spin.jump(loop, [spin.param(0)]);
    loop.jump(loop, [loop.param(0)]);
    expect(() => interpret(b.w, spin, [], { stepLimit: 1000 })).toThrow(/step limit of 1000/);

    const oob = b.fn('oob', [i32], i32);
    const a = w.alloc(oob.param(0), w.types.indefiniteArray(i32), w.litI32(4));
    const l = w.load(w.extract(a, 0), w.lea(w.extract(a, 1), oob.param(1)));
    oob.jump(oob.param(2), [w.extract(l, 0), w.extract(l, 1)]);
    expect(interpret(b.w, oob, [3n]).result).toBe(0n);
    expect(() => interpret(b.w, oob, [4n])).toThrow(/out-of-bounds load/);
  });

  it('indexes from an element when its address is viewed as an array (a slice)', () => {
    const b = new Builder();
    const { w, i32 } = b;
    const arrT = w.types.indefiniteArray(i32);
    const f = b.fn('f', [w.types.ptr(arrT)], i32);
    const [mem, a, ret] = f.params;
    const slice = w.bitcast(w.types.ptr(arrT), w.lea(a!, 3));
    const l = w.load(mem!, w.lea(slice, 2));
    f.jump(ret!, [w.extract(l, 0), w.extract(l, 1)]);
    expect(verify(b.w)).toEqual([]);
    const data = arrayPointer(b.w.types, i32, [0n, 10n, 20n, 30n, 40n, 50n, 60n]);
    expect(interpret(b.w, f, [data]).result).toBe(50n);
  });

  it('returns pointers as Pointer values', () => {
    const b = new Builder();
    const { w, i32 } = b;
    const f = b.fn('f', [], w.types.ptr(w.types.indefiniteArray(i32)));
    const a = w.alloc(f.param(0), w.types.indefiniteArray(i32), w.litI32(2));
    f.jump(f.param(1), [w.extract(a, 0), w.extract(a, 1)]);
    expect(interpret(b.w, f, []).result).toBeInstanceOf(Pointer);
  });
});

describe('interpreter: values', () => {
  it('rounds f32 arithmetic and computes device math', () => {
    const b = new Builder();
    const { w, f32 } = b;
    const f = b.fn('f', [f32, f32], f32);
    const [mem, x, y, ret] = f.params;
    const sqrt = b.extern('llvm.sqrt.f32', [f32], f32, 'device');
    const fma = b.extern('llvm.fma.f32', [f32, f32, f32], f32, 'device');
    const s = b.call(f, sqrt, mem!, [w.arith('add', x!, y!)], f32);
    const r = b.call(s, fma, s.param(0), [s.param(1), s.param(1), b.lit(f32, -0.3)], f32);
    r.jump(ret!, [r.param(0), r.param(1)]);
    const out = interpret(b.w, f, [Math.fround(0.1), Math.fround(0.2)]).result as number;
    const sum = Math.fround(Math.fround(0.1) + Math.fround(0.2));
    const root = Math.fround(Math.sqrt(sum));
    // root * root is exact in f64, so this rounds once, like fma.
    expect(out).toBe(Math.fround(root * root + Math.fround(-0.3)));
  });

  it('wraps unsigned arithmetic and converts between widths', () => {
    const b = new Builder();
    const { w } = b;
    const u8 = b.u8;
    const f = b.fn('f', [u8], b.i32);
    const [mem, x, ret] = f.params;
    const wrapped = w.arith('add', x!, b.lit(u8, 10n)); // 250 + 10 = 4 (mod 256)
    const shifted = w.arith('shr', w.cast(w.prim('i8'), x!), b.lit(w.prim('i8'), 1n)); // (i8)250 = -6 >> 1 = -3
    f.jump(ret!, [mem!, w.arith('add', w.cast(b.i32, wrapped), w.cast(b.i32, shifted))]);
    expect(interpret(b.w, f, [250n]).result).toBe(1n);
  });

  it('builds and inspects variants', () => {
    const b = new Builder();
    const { w, i32 } = b;
    const opt = w.types.variant('Option');
    opt.variants = [w.types.unit(), w.types.tuple([i32])];
    opt.variantNames = ['None', 'Some'];
    const f = b.fn('f', [i32], i32);
    const [mem, x, ret] = f.params;
    const some = b.block('some');
    const none = b.block('none');
    const v = w.variant(opt, 1, w.tuple([x!]));
    const hidden = w.hlt(v);
    w.match(f, mem!, w.variantIndex(hidden), none, [[b.lit(w.prim('u32'), 1n), some]]);
    some.jump(ret!, [some.param(0), w.extract(w.variantExtract(hidden, 1), 0)]);
    none.jump(ret!, [none.param(0), w.litI32(-1)]);
    expect(verify(b.w)).toEqual([]);
    expect(interpret(b.w, f, [9n]).result).toBe(9n);
  });
});

describe('interpreter: host data and runtime', () => {
  it('works on host arrays passed by pointer', () => {
    const b = new Builder();
    const { w, i32, f32 } = b;
    // scale(a: &mut [f32], n: i32, k: f32): a(i) *= k for i in 0..n
    const arrP = w.types.ptr(w.types.indefiniteArray(f32));
    const scale = b.fn('scale', [arrP, i32, f32], null);
    const [mem, a, n, k, ret] = scale.params;
    const head = b.block('head', [i32]);
    const body = b.block('body');
    const exit = b.block('exit');
    scale.jump(head, [mem!, w.litI32(0)]);
    const [hm, i] = head.params;
    w.branch(head, hm!, w.cmp('lt', i!, n!), body, exit);
    const cell = w.lea(a!, i!);
    const l = w.load(body.param(0), cell);
    body.jump(head, [w.store(w.extract(l, 0), cell, w.arith('mul', w.extract(l, 1), k!)), w.arith('add', i!, w.litI32(1))]);
    exit.jump(ret!, [exit.param(0)]);
    const data = arrayPointer(b.w.types, f32, [1, 2, 3, 4]);
    interpret(b.w, scale, [data, 3n, 0.5]);
    expect(arrayCells(data)).toEqual([0.5, 1, 1.5, 4]);
  });

  it('streams UTF-8 output and keeps it on errors', () => {
    const b = new Builder();
    const { w, u8, i32 } = b;
    const f = b.fn('f', [i32], i32);
    let at = f;
    let mem: Def = f.param(0);
    for (const byte of [0x68, 0xc3, 0xa9, 0x0a]) {
      at = b.print(at, mem, 'anydsl_print_char', b.lit(u8, BigInt(byte)));
      mem = at.param(0);
    }
    at.jump(f.param(2), [mem, w.arith('rem', w.litI32(1), f.param(1))]);
    const chunks: string[] = [];
    expect(interpret(b.w, f, [1n], { stdout: (s) => chunks.push(s) }).stdout).toBe('hé\n');
    expect(chunks.join('')).toBe('hé\n');
    try {
      interpret(b.w, f, [0n]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InterpError);
      expect((e as InterpError).stdout).toBe('hé\n');
      expect((e as InterpError).message).toMatch(/division by zero \(i32 rem\) \(in after_anydsl_print_char_\d+, after 9 jumps\)/);
    }
  });

  it('runs spawned tasks and atomics', () => {
    const b = new Builder();
    const { w, i32 } = b;
    const u32 = w.prim('u32');
    const f = b.fn('f', [], i32);
    const [mem, ret] = f.params;
    const e = w.enter(mem!);
    const counter = w.slot(w.extract(e, 1), i32);
    const m1 = w.store(w.extract(e, 0), counter, w.litI32(40));
    const taskT = b.fnType([], null);
    const spawn = w.intrinsic('spawn', b.fnType([taskT], i32));
    const sync = w.intrinsic('sync', b.fnType([i32], null));
    const atomic = w.intrinsic('atomic', b.fnType([u32, w.types.ptr(i32), i32], i32));
    const task = w.continuation(taskT, 'task');
    const added = b.call(task, atomic, task.param(0), [b.lit(u32, 1n), counter, w.litI32(2)], i32);
    added.jump(task.param(1), [added.param(0)]);
    const spawned = b.call(f, spawn, m1, [task], i32);
    const synced = b.call(spawned, sync, spawned.param(0), [spawned.param(1)], null);
    const l = w.load(synced.param(0), counter);
    synced.jump(ret!, [w.extract(l, 0), w.extract(l, 1)]);
    expect(verify(b.w)).toEqual([]);
    expect(interpret(b.w, f, []).result).toBe(42n);
  });
});
