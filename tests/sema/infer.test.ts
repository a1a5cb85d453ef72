import { describe, expect, it } from 'vitest';
import type { Expr } from '../../compiler/src/syntax/ast.ts';
import { typeToString } from '../../compiler/src/sema/types.ts';
import { allExprs, bindingType, check, checkClean, miniPrelude, typesAt } from './helpers.ts';

function pathRes(exprs: Expr[], name: string) {
  const e = exprs.find((x) => x.kind === 'path' && x.path.segments.map((s) => s.name).join('::') === name);
  if (e?.kind !== 'path') throw new Error(`no path ${name}`);
  return e.res!;
}

function typeArgs(exprs: Expr[], name: string): string[] {
  const r = pathRes(exprs, name);
  return 'typeArgs' in r ? r.typeArgs.map(typeToString) : [];
}

describe('literal inference', () => {
  it('defaults unsuffixed literals to i32 and f64', () => {
    const c = checkClean('fn f() -> () { let a = 1; let b = 2.5; let c = 0x10; }');
    expect(bindingType(c, 'a')).toBe('i32');
    expect(bindingType(c, 'b')).toBe('f64');
    expect(bindingType(c, 'c')).toBe('i32');
  });

  it('takes the type the context fixes', () => {
    const c = checkClean(`
      fn g(x: u16) -> () {}
      fn f(big: i64, h: f32) -> () {
        let a: u8 = 3;
        let b = big + 1;
        let c = h * 2.0;
        let d = 2.0 * h;
        let e = 1;
        let e2: i64 = e;
        g(7);
        let arr: [f32 * 2] = [1.0, 2.0];
        let t: (u64, f16) = (1, 0.5);
      }
    `);
    expect(bindingType(c, 'a')).toBe('u8');
    expect(bindingType(c, 'b')).toBe('i64');
    expect(bindingType(c, 'c')).toBe('f32');
    expect(bindingType(c, 'd')).toBe('f32');
    expect(bindingType(c, 'e')).toBe('i64');
    expect(typesAt(c.user, 10, 11)).toEqual(['u16']);
    expect(bindingType(c, 'arr')).toBe('[f32 * 2]');
    expect(bindingType(c, 't')).toBe('(u64, f16)');
  });

  it('respects suffixes, including float suffixes on integers', () => {
    const c = checkClean('fn f() -> () { let a = 1u8; let b = 2i64; let c = 1024f; let d = 3u; let e = 1.5h; let g = 7f64; }');
    expect(['a', 'b', 'c', 'd', 'e', 'g'].map((n) => bindingType(c, n))).toEqual(['u8', 'i64', 'f32', 'u32', 'f16', 'f64']);
  });

  it('types chars as u8 and strings as NUL-terminated u8 arrays', () => {
    const c = checkClean('fn f() -> () { let c = \'a\'; let s = "abc"; }');
    expect(bindingType(c, 'c')).toBe('u8');
    expect(bindingType(c, 's')).toBe('[u8 * 4]');
  });

  it('reports literals out of range for their type', () => {
    const c = check(`
      fn f() -> () {
        let a: u8 = 256;
        let b: i8 = -128;
        let c: i8 = 128;
        let d = 300u8;
        let e: u32 = -1;
        let g: i64 = 9223372036854775807;
        let h = 2147483648;
        let k: f32 = 1e39;
      }
    `);
    expect(c.errors).toEqual([
      "3:21: literal out of range for type 'u8'",
      "5:21: literal out of range for type 'i8'",
      "6:17: literal out of range for type 'u8'",
      "7:23: literal out of range for type 'u32'",
      "9:17: literal out of range for type 'i32'",
      "10:22: literal out of range for type 'f32'",
    ]);
  });

  it('accepts hex, octal and binary literals spelling a bit pattern of a signed type', () => {
    const c = check(`
      fn f() -> () {
        let a: i32 = 0xFF00_FF00;
        let b: i8 = 0b1000_0000;
        let c: i8 = 0x1FF;
        let d: i32 = 4278255360;
      }
    `);
    expect(c.errors).toEqual(["5:21: literal out of range for type 'i8'", "6:22: literal out of range for type 'i32'"]);
  });

  it('does not turn an integer literal into a float', () => {
    const c = check('fn f() -> () { let x: f32 = 1; }');
    expect(c.errors).toEqual(["1:29: mismatched types: expected 'f32' but found 'i32'"]);
  });
});

describe('coercions', () => {
  it('uses &mut T as &T, &[T * N] as &[T], ~T as &T and strings as &[u8], and records them', () => {
    const c = checkClean(`
      fn takes(p: &i32, a: &[f32], m: &mut [f32], s: &[u8]) -> () {}
      fn f() -> () {
        let mut x = 1;
        let mut arr = [1.0f, 2.0f];
        let o = ~5;
        takes(&mut x, &arr, &mut arr, "hi");
        takes(o, &mut arr, &mut arr, "");
      }
    `);
    const coerced = [...c.program.coercions].filter(([e]) => e.span.file === 'test.impala').map(([e, t]) => `${e.span.line}:${e.span.col} ${typeToString(e.type!)} => ${typeToString(t)}`);
    expect(coerced).toEqual([
      '7:15 &mut i32 => &i32',
      '7:23 &[f32 * 2] => &[f32]',
      '7:29 &mut [f32 * 2] => &mut [f32]',
      '7:39 [u8 * 3] => &[u8]',
      '8:15 ~i32 => &i32',
      '8:18 &mut [f32 * 2] => &[f32]',
      '8:28 &mut [f32 * 2] => &mut [f32]',
      '8:38 [u8 * 1] => &[u8]',
    ]);
  });

  it('does not use &T as &mut T, nor mix address spaces', () => {
    const c = check(`
      fn takes(p: &mut i32) -> () {}
      fn shared(p: &[3]i32) -> () {}
      fn f(q: &i32, g: &[1]i32) -> () { takes(q); shared(g); }
    `);
    expect(c.errors).toEqual([
      "4:47: mismatched types: expected '&mut i32' but found '&i32' as argument type",
      "4:58: mismatched types: expected '&[3] i32' but found '&[1] i32' as argument type",
    ]);
  });

  it('joins branches of &mut T and &T at &T', () => {
    const c = checkClean('fn f(c: bool) -> () { let mut a = 1; let b = 2; let r = if c { &mut a } else { &b }; }');
    expect(bindingType(c, 'r')).toBe('&i32');
  });

  it('treats never as a subtype of everything', () => {
    const c = checkClean(`
      fn diverge() -> ! { diverge() }
      fn f(c: bool) -> i32 {
        let x: f32 = if c { return(1) } else { 2.0f };
        let y = if c { 3 } else { diverge() };
        let z: (&[u8], i32) = (return(5), 1);
        y
      }
    `);
    expect(bindingType(c, 'x')).toBe('f32');
    expect(bindingType(c, 'y')).toBe('i32');
  });
});

describe('generics', () => {
  it('records explicit and inferred instantiations of generic fns', () => {
    const c = checkClean(`
      fn id[T](x: T) -> T { x }
      fn pair[A, B](a: A, b: B) -> (A, B) { (a, b) }
      fn main() -> () {
        let a = id(1.0f);
        let b = id[i64](2);
        let c = pair(true, 3u8);
      }
    `);
    const exprs = allExprs(c.user);
    const ids = exprs.filter((e) => e.kind === 'path' && e.path.segments[0]!.name === 'id');
    expect(ids.map((e) => (e.kind === 'path' && e.res && 'typeArgs' in e.res ? e.res.typeArgs.map(typeToString) : []))).toEqual([
      ['f32'],
      ['i64'],
    ]);
    expect(typeArgs(exprs, 'pair')).toEqual(['bool', 'u8']);
    expect(bindingType(c, 'c')).toBe('(bool, u8)');
  });

  it('checks generic bodies once with abstract parameters and records param instantiations inside them', () => {
    const c = checkClean(`
      fn id[T](x: T) -> T { x }
      fn twice[T](x: T) -> (T, T) { (id(x), id[T](x)) }
    `);
    const exprs = allExprs(c.user);
    const ids = exprs.filter((e) => e.kind === 'path' && e.path.segments[0]!.name === 'id');
    expect(ids.map((e) => (e.kind === 'path' && e.res && 'typeArgs' in e.res ? e.res.typeArgs.map(typeToString) : []))).toEqual([
      ['T'],
      ['T'],
    ]);
  });

  it('instantiates generic structs and enums', () => {
    const c = checkClean(`
      struct Box[T] { v: T }
      enum Opt[T] { None, Some(T) }
      fn main() -> f32 {
        let a = Box { v: 1.0f };
        let b = Box[i64] { v: 2 };
        let o = Opt::Some(3u16);
        let n: Opt[f32] = Opt::None;
        match o { Opt::Some(x) => x as f32, Opt::None => a.v }
      }
    `);
    expect(bindingType(c, 'a')).toBe('Box[f32]');
    expect(bindingType(c, 'b')).toBe('Box[i64]');
    expect(bindingType(c, 'o')).toBe('Opt[u16]');
    expect(typeArgs(allExprs(c.user), 'Opt::None')).toEqual(['f32']);
    const lit = allExprs(c.user).find((e) => e.kind === 'struct');
    expect(lit?.kind === 'struct' && lit.res?.kind === 'struct' && lit.res.typeArgs.map(typeToString)).toEqual(['f32']);
  });

  it('infers the source type of bitcast and the result of select', () => {
    const c = checkClean(
      'fn f(x: f32) -> () { let b = bitcast[u32](x); let s = select(true, 1u8, 2); let z = sizeof[f64](); }',
      miniPrelude,
    );
    expect(typeArgs(allExprs(c.user), 'bitcast')).toEqual(['u32', 'f32']);
    expect(typeArgs(allExprs(c.user), 'select')).toEqual(['bool', 'u8']);
    expect(bindingType(c, 'b')).toBe('u32');
    expect(bindingType(c, 's')).toBe('u8');
    expect(bindingType(c, 'z')).toBe('i32');
  });

  it('reports wrong numbers of type arguments and uninferable ones', () => {
    const c = check(`
      fn id[T](x: T) -> T { x }
      fn plain(x: i32) -> i32 { x }
      struct S[T] { v: T }
      fn f(s: S) -> () { let a = id[i32, f32](1); let b = plain[i32](1); let u = undef(); }
    `, miniPrelude);
    expect(c.errors).toEqual([
      "5:15: wrong number of type arguments for 'S': expected 1 but found 0",
      "5:34: wrong number of type arguments for 'id': expected 1 but found 2",
      "5:59: wrong number of type arguments for 'plain': expected 0 but found 1",
      '5:82: cannot infer a type here; add a type annotation',
    ]);
  });
});

describe('calls, indexing and fields', () => {
  it('indexes arrays, pointers to arrays, tuples and simd vectors with call syntax', () => {
    const c = checkClean(`
      struct P { x: f32 }
      fn f(a: &[f32], pp: &&[i64 * 4], m: &[[u8 * 3] * 2], p: &&P) -> () {
        let x = a(1);
        let y = pp(2);
        let t = (1u8, true);
        let z = t(1);
        let v = simd[1.0f, 2.0f, 3.0f, 4.0f];
        let w = v(3);
        let q = m(1)(2);
        let px = p.x;
        let i = a(2u64);
      }
    `);
    expect(['x', 'y', 'z', 'w', 'q', 'px', 'i'].map((n) => bindingType(c, n))).toEqual(['f32', 'i64', 'bool', 'f32', 'u8', 'f32', 'f32']);
  });

  it('makes fn items first-class values', () => {
    const c = checkClean(`
      fn inc(x: i32) -> i32 { x + 1 }
      fn apply(f: fn(i32) -> i32, x: i32) -> i32 { f(x) }
      fn main() -> i32 { let g = inc; apply(g, 1) + apply(inc, 2) + apply(|x| x * 2, 3) }
    `);
    expect(bindingType(c, 'g')).toBe('fn(i32) -> i32');
  });

  it('treats fn(A) -> R as fn(A, fn(R) -> !) -> !', () => {
    const c = checkClean(`
      fn twice_k(x: i32, ret: fn(i32) -> !) -> ! { ret(x * 2) }
      fn unit_k(ret: fn() -> !) -> ! { ret() }
      fn apply(f: fn(i32) -> i32, x: i32) -> i32 { f(x) }
      fn direct(x: i32) -> i32 { x + 1 }
      fn apply_k(f: fn(i32, fn(i32) -> !) -> !, x: i32) -> i32 { f(x, return) }
      fn main() -> i32 { let a = twice_k(5); let u = unit_k(); apply(twice_k, 21) + apply_k(direct, 41) + a }
    `);
    expect(bindingType(c, 'a')).toBe('i32');
    expect(bindingType(c, 'u')).toBe('()');
  });

  it('types continuations and calls of -> ! fns as never', () => {
    const c = checkClean(`
      fn stop() -> ! { stop() }
      fn f(k: fn(i32) -> !) -> i32 { if true { k(1) } else { stop() } }
    `);
    expect(typesAt(c.user, 3, 48)).toEqual(['!', 'fn(i32) -> !']);
  });

  it('supports simd arithmetic and comparisons', () => {
    const c = checkClean(`
      fn f(a: simd[f32 * 4], b: simd[f32 * 4]) -> () { let s = a + b * a; let m = a < b; let l = s(0); }
    `);
    expect(bindingType(c, 's')).toBe('simd[f32 * 4]');
    expect(bindingType(c, 'm')).toBe('simd[bool * 4]');
    expect(bindingType(c, 'l')).toBe('f32');
  });

  it('types PE annotations transparently', () => {
    const c = checkClean(`
      fn g(x: i32) -> i32 { x }
      fn @(?n) f(n: i32, @(?n && n > 0) m: i32) -> i32 { let h = $n; let k = ?m; @@g(h) + if k { 1 } else { 0 } }
    `);
    expect(bindingType(c, 'h')).toBe('i32');
    expect(bindingType(c, 'k')).toBe('bool');
  });

  it('infers closure parameter types from the expected fn type and from use', () => {
    const c = checkClean(`
      fn each(n: i32, f: fn(i32, f32) -> bool) -> () {}
      fn main() -> () { each(3, |i, x| x > i as f32); let g = |a, b| a + b; let r = g(1u8, 2); }
    `);
    expect(bindingType(c, 'g')).toBe('fn(u8, u8) -> u8');
    expect(bindingType(c, 'i')).toBe('i32');
  });

  it('accepts typeof', () => {
    const c = checkClean('fn f() -> () { let a = 2u16; let b: typeof(a) = 3; }');
    expect(bindingType(c, 'b')).toBe('u16');
  });
});
