import { describe, expect, it } from 'vitest';
import { check } from './helpers.ts';

describe('type errors', () => {
  it('reports mismatches naming both types, with context', () => {
    const c = check(`
      fn take(x: i32) -> () {}
      fn f(y: f32) -> i32 {
        let a: i32 = y;
        take(y);
        let b = y + 1u8;
        y
      }
    `);
    expect(c.errors).toEqual([
      "4:22: mismatched types: expected 'i32' but found 'f32'",
      "5:14: mismatched types: expected 'i32' but found 'f32' as argument type",
      "6:21: mismatched types: expected 'f32' but found 'u8'",
      "7:9: mismatched types: expected 'i32' but found 'f32'",
    ]);
  });

  it('reports wrong numbers of arguments', () => {
    const c = check(`
      fn two(a: i32, b: i32) -> i32 { a + b }
      fn f() -> () { two(1); two(1, 2, 3); let g = |x: i32| x; g(); }
    `);
    expect(c.errors).toEqual([
      '3:22: wrong number of arguments: expected 2 but found 1',
      '3:30: wrong number of arguments: expected 2 but found 3',
      '3:64: wrong number of arguments: expected 1 but found 0',
    ]);
  });

  it('reports writes to immutable bindings, but not through &mut', () => {
    const c = check(`
      struct S { f: i32 }
      static G: i32 = 1;
      fn f(p: &i32, q: &mut i32, s: &S, t: &mut S, param: i32) -> () {
        let x = 1;
        x = 2;
        let r = &mut x;
        x++;
        *p = 1;
        *q = 1;
        s.f = 1;
        t.f = 1;
        param += 1;
        G = 2;
        let arr = [1, 2];
        arr(0) = 3;
        let mut ok = 1;
        ok = 2;
        let m = &mut ok;
        *m = 4;
        3 = 4;
      }
    `);
    expect(c.errors).toEqual([
      "6:9: cannot assign to immutable 'x'",
      "7:22: cannot assign to immutable 'x'",
      "8:9: cannot assign to immutable 'x'",
      "9:9: cannot assign to immutable location behind '&i32'",
      "11:9: cannot assign to immutable location behind '&S'",
      "13:9: cannot assign to immutable 'param'",
      "14:9: cannot assign to immutable static 'G'",
      "16:9: cannot assign to immutable 'arr'",
      '21:9: cannot assign to this expression',
    ]);
  });

  it('reports unknown fields and non-callable callees', () => {
    const c = check(`
      struct S { a: i32 }
      fn f(s: S, p: &S, n: i32) -> () { s.b; p.c; n.a; n(1); s(0); }
    `);
    expect(c.errors).toEqual([
      "3:43: no field 'b' in 'S'",
      "3:48: no field 'c' in '&S'",
      "3:53: no field 'a' in 'i32'",
      "3:56: expression of type 'i32' is not callable",
      "3:62: expression of type 'S' is not callable",
    ]);
  });

  it('reports struct literal errors', () => {
    const c = check(`
      struct S { a: i32, b: f32 }
      fn f() -> () { let s = S { a: 1, c: 2, a: 3 }; let t = i32 { x: 1 }; }
    `);
    expect(c.errors).toEqual([
      "3:40: no field 'c' in 'S'",
      "3:46: field 'a' specified more than once",
      "3:30: missing field 'b' in 'S'",
      "3:62: 'i32' is not a struct",
    ]);
  });

  it("reports 'if' without 'else' used as a value and missing return values", () => {
    const c = check(`
      fn a(c: bool) -> i32 { if c { 1 } }
      fn b() -> i32 { }
      fn d() -> f32 { let x = 1.0f; }
      fn e(c: bool) -> () { if c { 5 } }
      fn g(c: bool) -> i32 { if c { return(1) } 2 }
    `);
    expect(c.errors).toEqual([
      "2:30: mismatched types: expected 'i32' but found '()' ('if' without 'else' used as a non-unit value)",
      "3:21: mismatched types: expected 'i32' but found '()' (missing return value)",
      "4:21: mismatched types: expected 'f32' but found '()' (missing return value)",
      "5:36: mismatched types: expected '()' but found 'i32' ('if' without 'else' has no value)",
    ]);
  });

  it('reports branches of different types', () => {
    const c = check('fn f(c: bool, n: i32) -> () { let x = if c { 1u8 } else { 2.0f }; let y = match n { 0 => true, _ => 1 }; }');
    expect(c.errors).toEqual([
      "1:59: mismatched types: expected 'u8' but found 'f32'",
      "1:101: mismatched types: expected 'bool' but found 'i32'",
    ]);
  });

  it('reports operators applied to unsuitable types', () => {
    const c = check(`
      struct S { a: i32 }
      fn f(b: bool, x: f32, s: S, p: &i32) -> () { let a = b + b; let c = x << x; let d = !x; let e = s == s; let g = *x; let h = x && x; }
    `);
    expect(c.errors).toEqual([
      "3:60: operator '+' cannot be applied to type 'bool'",
      "3:75: operator '<<' cannot be applied to type 'f32'",
      "3:91: operator '!' cannot be applied to type 'f32'",
      "3:103: operator '==' cannot be applied to type 'S'",
      "3:119: type 'f32' cannot be dereferenced",
      "3:131: operator '&&' cannot be applied to type 'f32'",
    ]);
  });

  it('reports invalid casts but allows numeric and pointer casts', () => {
    const c = check(`
      struct S { a: i32 }
      fn f(x: f32, p: &[u8], s: S) -> () {
        let a = x as u8; let b = 3 as f64; let c = p as &[f32]; let d = p as u64; let e = true as i32;
        let g = s as i32; let h = (1, 2) as i64;
      }
    `);
    expect(c.errors).toEqual(["5:17: cannot cast 'S' to 'i32'", "5:35: cannot cast '(i32, i32)' to 'i64'"]);
  });

  it('reports bitcasts between types of different sizes or kinds, at the call', () => {
    const c = check(`
      fn generic[T](x: T) -> u32 { bitcast[u32](x) }
      fn f(x: f32, p: &i32, v: simd[f32 * 4], s: (i32, i32)) -> () {
        let a = bitcast[u32](1.5);
        let b = bitcast[u64](x);
        let c = bitcast[simd[u8 * 4]](v);
        let d = bitcast[u32](true);
        let e = bitcast[u64](p);
        let g = bitcast[i64](s);
        let ok = (bitcast[u32](x), bitcast[simd[i32 * 4]](v), bitcast[u64](simd[1, 2]), bitcast[&[u8]](p), bitcast[u32](-2), bitcast[(i32, i32)](s));
      }
    `);
    expect(c.errors).toEqual([
      "4:17: cannot bitcast 'f64' to 'u32': their sizes differ (64 and 32 bits)",
      "5:17: cannot bitcast 'f32' to 'u64': their sizes differ (32 and 64 bits)",
      "6:17: cannot bitcast 'simd[f32 * 4]' to 'simd[u8 * 4]': their sizes differ (128 and 32 bits)",
      "7:17: cannot bitcast 'bool' to 'u32': bitcast reinterprets a number as a number of the same size, or a pointer as a pointer",
      "8:17: cannot bitcast '&i32' to 'u64': bitcast reinterprets a number as a number of the same size, or a pointer as a pointer",
      "9:17: cannot bitcast '(i32, i32)' to 'i64': bitcast reinterprets a number as a number of the same size, or a pointer as a pointer",
    ]);
  });

  it('reports simd literals and types with fewer than two lanes or with non-primitive ones', () => {
    const c = check(`
      fn f(v: simd[f32 * 0], w: simd[(i32, i32) * 2]) -> () {
        let a = simd[];
        let b: simd[&i32 * 4] = undef();
        let c = simd[(1, 2), (3, 4)];
        let d = simd[0.5f];
        let e: simd[i32 * 1] = undef();
      }
    `);
    expect(c.errors).toEqual([
      "2:15: a simd type needs at least two lanes",
      "2:38: simd elements must be of primitive type, found '(i32, i32)'",
      "3:17: a simd literal needs at least two elements",
      "6:17: a simd literal needs at least two elements",
      "7:16: a simd type needs at least two lanes",
      // Element types are checked once inferred, after the statements.
      "4:21: simd elements must be of primitive type, found '&i32'",
      "5:17: simd elements must be of primitive type, found '(i32, i32)'",
    ]);
  });

  it("reserves link names starting with 'llvm.' to extern \"device\" and rejects empty ones", () => {
    const c = check(`
      extern "C" { fn "llvm.smax.i32" smax(i32, i32) -> i32; fn "llvm_ok" fine() -> (); fn plain() -> (); }
      extern "device" { fn "llvm.smin.i32" smin(i32, i32) -> i32; }
      extern "C" { fn "" nameless() -> (); fn "a\\0b" cut() -> (); }
    `);
    expect(c.errors).toEqual([
      `2:20: link name 'llvm.smax.i32' of extern "C" fn 'smax' is reserved: names starting with 'llvm.' are LLVM intrinsics, declared with extern "device"`,
      "4:20: link name of fn 'nameless' must be a non-empty symbol without NUL characters",
      "4:44: link name of fn 'cut' must be a non-empty symbol without NUL characters",
    ]);
  });

  it('reports tuple index errors', () => {
    const c = check('fn f(t: (i32, f32), i: i32) -> () { let a = t(2); let b = t(i); let c = t(0, 1); }');
    expect(c.errors).toEqual([
      "1:47: tuple index 2 out of range for '(i32, f32)'",
      '1:61: tuple index must be an integer literal',
      '1:73: wrong number of indices: expected 1 but found 2',
    ]);
  });

  it('reports non-integer array indices', () => {
    const c = check('fn f(a: &[f32]) -> () { let x = a(1.0f); let y = a(true); let z = a(2u8); }');
    expect(c.errors).toEqual([
      "1:35: mismatched types: expected an integer but found 'f32'",
      "1:52: mismatched types: expected an integer but found 'bool'",
    ]);
  });

  it('reports pattern errors', () => {
    const c = check(`
      enum E { A, B(i32), C(f32, bool) }
      fn f(e: E, n: i32, b: bool) -> () {
        let 3 = n;
        let E::B(x) = e;
        let r = match e { E::A => 1, E::B(y) => y };
        let s = match n { 1 => 2 };
        let t = match b { true => 1 };
        let u = match e { E::B(1, 2) => 0, _ => 1 };
        let v = match n { 1.5 => 0, _ => 1 };
        let w = match e { E::C(_, true) => 0, E::C(_, false) => 1, E::A => 2, E::B(_) => 3 };
      }
    `);
    expect(c.errors).toEqual([
      "4:13: refutable pattern in 'let': use 'match'",
      "5:13: refutable pattern in 'let': use 'match'",
      "9:27: variant 'B' has 1 field but the pattern has 2",
      "10:27: mismatched types: expected 'i32' but found 'f64' in pattern",
      "6:17: non-exhaustive match: 'E::C(_, _)' not covered",
      "7:17: non-exhaustive match: '_' not covered",
      "8:17: non-exhaustive match: 'false' not covered",
    ]);
  });

  it('reports uninferable types once', () => {
    const c = check('fn f() -> () { let x; let g = |a| a; }');
    expect(c.errors).toEqual(['1:20: cannot infer a type here; add a type annotation', '1:32: cannot infer a type here; add a type annotation']);
  });

  it('checks statics, their inferred types and cycles', () => {
    const c = check(`
      static A: u8 = 300;
      static B = C + 1;
      static C = 2i64;
      static D = D;
      static E: f32 = 1;
      fn f() -> i64 { B }
    `);
    expect(c.errors).toEqual([
      "2:22: literal out of range for type 'u8'",
      "5:14: cannot infer the type of static 'D': its initialiser depends on itself",
      "6:23: mismatched types: expected 'f32' but found 'i32'",
    ]);
  });

  it('reports many errors in one run, in several functions', () => {
    const c = check(`
      fn a() -> i32 { 1.0f }
      fn b() -> () { nope(); }
      fn c() -> () { let x = 1; x = 2; }
      fn d(s: (i32, i32)) -> () { s.f; }
      fn e() -> () { break() }
      fn g() -> () { let q: u8 = 999; }
    `);
    expect(c.errors.map((e) => e.split(':').slice(0, 2).join(':'))).toEqual(['2', '3', '4', '5', '6', '7'].map((l, i) => `${l}:${[23, 22, 33, 37, 22, 34][i]}`));
  });

  it('reports exported generic fns and fns without body', () => {
    const c = check('extern fn gen[T](x: T) -> T { x }');
    expect(c.errors).toEqual(["1:11: exported fn 'gen' cannot be generic"]);
  });
});
