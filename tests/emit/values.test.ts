// Values, memory and the boundary to other code: literals, statics, pointers,
// heap, SIMD, externs, compiler-known functions, PE annotations, instances.
import { describe, expect, it } from 'vitest';
import { Continuation, DefiniteArrayType, FnType, PrimType, PtrType, isLit } from '../../compiler/src/ir/index.ts';
import { continuations, emit, emitErrors, named, primops, run } from './helpers.ts';

describe('literals and statics', () => {
  it('a string literal used as &[u8] is an immutable global of [u8 * N] with a NUL', () => {
    const r = emit('fn main() -> i32 { print_string("hi"); 0 }');
    const [g] = primops([r.main!], 'global');
    expect(g!.type).toBeInstanceOf(PtrType);
    expect((g!.type as PtrType).pointee).toBeInstanceOf(DefiniteArrayType);
    expect(((g!.type as PtrType).pointee as DefiniteArrayType).dim).toBe(3);
    expect((g!.payload as { mutable: boolean }).mutable).toBe(false);
    expect(primops([r.main!], 'bitcast')).toHaveLength(1);
    expect(run('fn main() -> i32 { print_string("hi"); 0 }').stdout).toBe('hi');
  });

  it('a string literal as a value is its bytes', () => {
    expect(run('fn main() -> i32 { let s = "abc"; (s(1) as i32) * 10 + s(3) as i32 }').result).toBe(980n);
  });

  it('an immutable scalar static folds; a static mut is a global with loads and stores', () => {
    const src = `static K = 6 * 7; static mut COUNT: i32 = 0;
      fn bump() -> () { COUNT = COUNT + K; }
      fn main() -> i32 { bump(); bump(); COUNT }`;
    const r = emit(src);
    const bump = named([r.main!], 'bump');
    expect(primops([bump], 'global')).toHaveLength(1);
    expect(primops([bump], 'store')).toHaveLength(1);
    expect(primops([bump], 'add')[0]!.ops.some((o) => isLit(o) && o.payload === 42n)).toBe(true);
    expect(run(src).result).toBe(84n);
  });

  it('a constant table indexed dynamically is read from its global', () => {
    const src = 'static T = [10, 20, 30]; fn at(i: i32) -> i32 { T(i) } fn main() -> i32 { at(2) + T(0) }';
    const at = named([emit(src).main!], 'at');
    expect(primops([at], 'lea')).toHaveLength(1);
    expect(run(src).result).toBe(40n);
  });

  it('a static whose initialiser is not constant is an error', () => {
    expect(emitErrors('fn f() -> i32 { 1 } static S: i32 = f(); fn main() -> i32 { S }')).toEqual([
      "the initialiser of static 'S' is not a compile-time constant",
    ]);
  });

  it('a static struct of functions is its value: math.sqrtf(x) calls the fn directly, with no global', () => {
    const src = `struct M { sqrtf: fn(f32) -> f32, twice: fn(i32) -> i32 }
      fn half(x: f32) -> f32 { x * 0.5f }
      static cpu = M { sqrtf: half, twice: |i: i32| i * 2 };
      static math = cpu;
      fn main() -> i32 { (math.sqrtf(8.0f) as i32) + math.twice(1) }`;
    const r = emit(src);
    expect(primops([r.main!], 'global')).toEqual([]);
    expect(primops([r.main!], 'extract').filter((p) => p.type instanceof FnType)).toEqual([]);
    const callees = continuations([r.main!]).map((c) => c.callee);
    expect(callees).toContain(named([r.main!], 'half'));
    expect(run(src).result).toBe(6n);
  });

  it('a static mut starts zeroed without initialiser; one holding a function is a global', () => {
    expect(run('struct S { a: i32, b: [f64 * 2] } static mut s: S; static mut n: i64; fn main() -> i32 { s.a += 3; s.a + s.b(1) as i32 + n as i32 }').result).toBe(3n);
    const src = 'fn f(x: i32) -> i32 { x + 1 } fn h(x: i32) -> i32 { x * 3 } static mut g = f; fn main() -> i32 { let a = g(1); g = h; a + g(2) }';
    expect(primops([emit(src).main!], 'global')).toHaveLength(1);
    expect(run(src).result).toBe(8n);
  });
});

describe('operators and casts', () => {
  it('unsigned division and shifts follow the type', () => {
    const src = 'fn main() -> i32 { let a = 0xFFFFFFF0u; let b = -16; ((a / 16u) >> 24u) as i32 + (b / 16) * 1000 + (b >> 2) * 100 }';
    expect(run(src).result).toBe(15n - 1000n - 400n);
  });

  it('negation, not, increments and compound assignment', () => {
    const src = `fn main() -> i32 {
      let mut x = 5; let y = x++; let z = ++x; x -= 2; x *= 3;
      let f = -2.5f; let n = !0u8;
      x * 1000 + y * 100 + z * 10 + (n as i32 - 250) + (-f as i32) * 0 + (!true) as i32
    }`;
    expect(run(src).result).toBe(15000n + 500n + 70n + 5n);
  });

  it('pointer casts are bitcasts, numeric casts are casts', () => {
    const r = emit('fn main() -> i32 { let x = 3.9f; let p = &x; let q = p as &i32; (x as i32) + (*q != 0) as i32 }');
    expect(primops([r.main!], 'bitcast').length).toBeGreaterThan(0);
    expect(primops([r.main!], 'cast').length).toBeGreaterThan(0);
  });
});

describe('pointers and memory', () => {
  it('fields and elements behind pointers use lea', () => {
    const src = `struct P { x: i32, y: [i32 * 3] }
      fn set(p: &mut P) -> () { p.x = 7; p.y(2) = 5; }
      fn main() -> i32 { let mut v = P { x: 0, y: [0, 0, 0] }; set(&mut v); v.x * 10 + v.y(2) }`;
    const set = named([emit(src).main!], 'set');
    expect(primops([set], 'lea').length).toBeGreaterThanOrEqual(2);
    expect(run(src).result).toBe(75n);
  });

  it('&[T * N] is passed as &[T] through a bitcast', () => {
    const src = 'fn sum(a: &[i32], n: i32) -> i32 { let mut s = 0; let mut i = 0; while i < n { s += a(i); i++; } s } fn main() -> i32 { let a = [1, 2, 3]; sum(&a, 3) }';
    expect(run(src).result).toBe(6n);
  });

  it('the address of an rvalue is a fresh slot (or a global for constants)', () => {
    const src = 'fn get(p: &i32) -> i32 { *p } fn f(x: i32) -> i32 { get(&(x + 1)) * 10 + get(&7) } fn main() -> i32 { f(4) }';
    const f = named([emit(src).main!], 'f');
    expect(primops([f], 'slot')).toHaveLength(1);
    expect(primops([f], 'global')).toHaveLength(1);
    expect(run(src).result).toBe(57n);
  });

  it('~e and ~[n: T] allocate with the alloc primop', () => {
    const src = `fn main() -> i32 {
      let p = ~41; let a = ~[4: i32];
      a(3) = *p + 1;
      a(3)
    }`;
    const allocs = primops([emit(src).main!], 'alloc');
    expect(allocs).toHaveLength(2);
    expect(run(src).result).toBe(42n);
  });
});

describe('simd', () => {
  it('simd literals are vectors; lanes are extracted and inserted', () => {
    const src = `fn main() -> i32 {
      let mut v = simd[1, 2, 3, 4];
      v(0) = 10;
      let w = v * simd[2, 2, 2, 2];
      w(0) + w(3)
    }`;
    const r = emit(src);
    expect(primops([r.main!], 'vector').some((v) => (v.type as PrimType).length === 4)).toBe(true);
    expect(run(src).result).toBe(28n);
  });
});

describe('externs and compiler-known functions', () => {
  it('extern "C" and "device" functions are imported with their link names', () => {
    const r = emit(`extern "C" { fn abs(i32) -> i32; }
      extern "device" { fn "llvm.sqrt.f32" sqrtf(f32) -> f32; }
      fn main() -> i32 { abs(-3) + sqrtf(4.0f) as i32 }`);
    const imports = continuations([r.main!]).filter((c) => c.isImported);
    const abs = imports.find((c) => c.name === 'abs')!;
    const sqrt = imports.find((c) => c.name === 'sqrtf')!;
    expect(abs.cc).toBe('C');
    expect(sqrt.cc).toBe('device');
    expect(sqrt.linkName).toBe('llvm.sqrt.f32');
  });

  it('bitcast, select, insert, sizeof, alignof and undef are primops', () => {
    const r = emit(`fn f(x: i32) -> i32 {
      let g = bitcast[f32](x);
      let s = select(g > 0.5f, 1, 2);
      let t = insert((1, 2), 1, x);
      let u = undef[i32]();
      s + t(1) + sizeof[f64]() + alignof[i32]() + u
    }
    fn main() -> i32 { f(0x3f800000) }`);
    const f = named([r.main!], 'f');
    for (const tag of ['bitcast', 'select', 'sizeof', 'alignof', 'bottom'] as const) expect(primops([f], tag), tag).not.toHaveLength(0);
    expect(continuations([f]).some((c) => c.isIntrinsic && c.intrinsic !== 'branch')).toBe(false);
  });

  it('parallel, spawn and friends are intrinsic continuations', () => {
    const r = emit('fn main() -> i32 { let mut s = 0; for i in parallel(4, 0, 8) { s += i; } let t = spawn(|| ()); sync(t); 0 }');
    const intrinsics = continuations([r.main!]).filter((c) => c.isIntrinsic).map((c) => c.intrinsic);
    expect(intrinsics).toEqual(expect.arrayContaining(['parallel', 'spawn', 'sync']));
  });
});

describe('partial evaluation annotations', () => {
  it('filters: a fn filter is ORed into every param filter, mem and return get false', () => {
    const r = emit(`fn @(?n) pow(x: i32, n: i32) -> i32 { if n == 0 { 1 } else { x * pow(x, n - 1) } }
      fn g(@(?a) a: i32, @b: i32, c: i32) -> i32 { a + b + c }
      fn main() -> i32 { pow(2, 3) + g(1, 2, 3) }`);
    const pow = named([r.main!], 'pow');
    expect(pow.filter).toHaveLength(4);
    const [m, fx, fn, fr] = pow.filter!;
    expect(isLit(m!) && m!.payload === false && isLit(fr!) && fr!.payload === false).toBe(true);
    expect(fx).toBe(fn);
    expect(primops([fx!], 'known')[0]!.op(0)).toBe(pow.param(2));
    const g = named([r.main!], 'g');
    expect(primops([g.filter![1]!], 'known')[0]!.op(0)).toBe(g.param(1));
    expect(isLit(g.filter![2]!) && g.filter![2]!.payload).toBe(true);
    expect(isLit(g.filter![3]!) && g.filter![3]!.payload).toBe(false);
  });

  it('@? on a param is ?param; a fn without filters has none', () => {
    const r = emit('fn h(@? n: i32) -> i32 { n } fn k(n: i32) -> i32 { n } fn main() -> i32 { h(1) + k(2) }');
    expect(primops([named([r.main!], 'h').filter![1]!], 'known')).toHaveLength(1);
    expect(named([r.main!], 'k').filter).toBeNull();
  });

  it('$e is hlt, ?e is known, @@f(x) calls run(f)', () => {
    const r = emit('fn id(x: i32) -> i32 { x } fn f(x: i32) -> i32 { let y = $x; if ?x { 1 } else { @@id(y) } } fn main() -> i32 { f(3) }');
    const f = named([r.main!], 'f');
    expect(primops([f], 'hlt')[0]!.op(0)).toBe(f.param(1));
    expect(primops([f], 'known')[0]!.op(0)).toBe(f.param(1));
    const [runOp] = primops([f], 'run');
    expect(runOp!.op(0)).toBe(named([r.main!], 'id'));
  });
});

describe('functions', () => {
  it('main and exported functions are external with the C calling convention', () => {
    const r = emit('extern fn twice(x: i32) -> i32 { x * 2 } fn main() -> i32 { twice(1) }');
    expect(r.main!.external && r.main!.cc === 'C' && r.main!.name === 'main').toBe(true);
    expect(r.exports.map((c) => [c.name, c.external, c.cc, c.params.length])).toEqual([['twice', true, 'C', 3]]);
  });

  it('generic fns get one continuation per instance', () => {
    const src = `fn id[T](x: T) -> T { x }
      fn main() -> i32 { let a = id(1); let b = id(2); let c = id(1.5f); a + b + c as i32 }`;
    const ids = continuations([emit(src).main!]).filter((c) => c.name === 'id');
    expect(ids).toHaveLength(2);
    expect(run(src).result).toBe(4n);
  });

  it('closures capture values and may escape', () => {
    const src = `fn adder(n: i32) -> fn(i32) -> i32 { |x| x + n }
      fn main() -> i32 { let add5 = adder(5); let mut c = 0; let inc = || { c += 1; }; inc(); inc(); add5(10) + c }`;
    expect(run(src).result).toBe(17n);
  });

  it('an enum constructor used as a function value', () => {
    const src = `enum E { A(i32), B }
      fn apply(f: fn(i32) -> E, x: i32) -> E { f(x) }
      fn main() -> i32 { match apply(E::A, 9) { E::A(v) => v, E::B => 0 } }`;
    expect(run(src).result).toBe(9n);
  });

  it('a CPS function called in direct style gets the return continuation', () => {
    const src = `fn twice_k(x: i32, k: fn(i32) -> !) -> ! { k(x * 2) }
      fn apply_k(f: fn(i32, fn(i32) -> !) -> !, x: i32) -> i32 { f(x, return) }
      fn direct(x: i32) -> i32 { x + 1 }
      fn main() -> i32 { twice_k(5) * 100 + apply_k(direct, 41) }`;
    expect(run(src).result).toBe(1042n);
  });

  it('every continuation and primop made for user code has a span', () => {
    const r = emit('fn main() -> i32 { let mut i = 0; while i < 3 { i++; } i * 2 }');
    for (const c of continuations([r.main!]).filter((k) => !k.isIntrinsic)) expect(c.span, c.label).not.toBeNull();
    for (const p of primops([r.main!]).filter((p) => p.tag === 'mul' || p.tag === 'lt')) expect(p.span).not.toBeNull();
    expect(r.main!).toBeInstanceOf(Continuation);
  });
});
