import { describe, expect, it } from 'vitest';
import type { Expr } from '../../compiler/src/syntax/ast.ts';
import { allExprs, bindingType, check, checkClean } from './helpers.ts';

/** The resolutions of every path expression spelled `name`, in source order. */
function resOf(exprs: Expr[], name: string) {
  return exprs
    .filter((e): e is Extract<Expr, { kind: 'path' }> => e.kind === 'path' && e.path.segments.map((s) => s.name).join('::') === name)
    .map((e) => e.res);
}

describe('name resolution', () => {
  it('makes items at one level mutually visible regardless of order', () => {
    checkClean(`
      fn a() -> i32 { b() + S { x: 1 }.x }
      fn b() -> i32 { C }
      static C: i32 = 3;
      struct S { x: i32 }
    `);
  });

  it('makes items in a block visible throughout the block', () => {
    const c = checkClean(`
      fn main() -> i32 {
        let v = helper(2);
        fn helper(x: i32) -> i32 { twice(x) }
        fn twice(x: i32) -> i32 { x * 2 }
        v
      }
    `);
    const [res] = resOf(allExprs(c.user), 'helper');
    expect(res).toMatchObject({ kind: 'fn', decl: { name: { name: 'helper' } } });
  });

  it('resolves each use of a shadowed local to the binding in scope', () => {
    const c = checkClean(`
      fn main() -> i64 {
        let x = 1;
        let x = x + 1;
        let y: i64 = 7;
        let x = y;
        x
      }
    `);
    const uses = resOf(allExprs(c.user), 'x');
    expect(uses).toHaveLength(2);
    const [first, second] = uses.map((r) => (r?.kind === 'local' ? r.binding : null));
    expect(first).not.toBe(second);
    expect(first?.span.line).toBe(3);
    expect(second?.span.line).toBe(6);
  });

  it('resolves params, type params and nested generic uses', () => {
    const c = checkClean(`
      fn pick[T](a: T, b: T, first: bool) -> T { if first { a } else { b } }
      fn main() -> f32 { pick(1.0f, 2.0f, true) }
    `);
    const [res] = resOf(allExprs(c.user), 'first');
    expect(res).toMatchObject({ kind: 'local', binding: { name: { name: 'first' } } });
  });

  it('resolves module paths and enum variants', () => {
    const c = checkClean(`
      mod geo { pub mod shapes { pub fn area(w: f32, h: f32) -> f32 { w * h } pub enum Kind { Square, Rect(f32) } } }
      fn main() -> f32 {
        let k = geo::shapes::Kind::Rect(2.0f);
        match k { geo::shapes::Kind::Square => 0.0f, geo::shapes::Kind::Rect(w) => geo::shapes::area(w, 3.0f) }
      }
    `);
    const exprs = allExprs(c.user);
    expect(resOf(exprs, 'geo::shapes::area')[0]).toMatchObject({ kind: 'fn' });
    expect(resOf(exprs, 'geo::shapes::Kind::Rect')[0]).toMatchObject({ kind: 'variant', index: 1 });
  });

  it('reports unknown identifiers and keeps going', () => {
    const c = check(`
      fn main() -> i32 {
        let a = nope;
        let b = m::missing();
        a + b + also_missing(1)
      }
      mod m {}
    `);
    expect(c.errors).toEqual([
      "3:17: unknown identifier 'nope'",
      "4:17: unknown identifier 'm::missing'",
      "5:17: unknown identifier 'also_missing'",
    ]);
  });

  it('reports unknown types', () => {
    const c = check('fn f(x: Nope) -> () {}');
    expect(c.errors).toEqual(["1:9: unknown type 'Nope'"]);
  });

  it('reports duplicate definitions at one level, but not across levels', () => {
    const c = check(`
      fn f() -> () {}
      struct T { a: i32 }
      fn f() -> () {}
      struct T { b: i32 }
      fn g() -> () { fn f() -> () {} f() }
    `);
    expect(c.errors).toEqual(["4:10: duplicate definition of 'f'", "5:14: duplicate definition of 'T'"]);
  });

  it('reports duplicate parameters and duplicate pattern bindings', () => {
    const c = check('fn f(a: i32, a: i32) -> () { let (b, b) = (1, 2); }');
    expect(c.errors).toEqual(["1:14: duplicate definition of 'a'", "1:38: identifier 'b' is bound more than once in this pattern"]);
  });

  it('lets nested fns capture locals, not type parameters of an enclosing item', () => {
    const c = check(`
      fn outer[T](p: i32, t: T) -> i32 {
        fn inner() -> i32 { p }
        fn generic_inner(x: T) -> () {}
        inner()
      }
    `);
    expect(c.errors).toEqual(["4:29: cannot use type parameter 'T' of an enclosing item"]);
  });

  it('resolves names in a nested fn as of its block, not as of when the fn is checked', () => {
    const c = check(`
      fn h() -> i32 { 1 }
      fn outer() -> i32 {
        let x = 1;
        { fn g() -> i32 { h() } fn k() -> i32 { x } }
        let h = 2;
        let x = true;
        h
      }
    `);
    expect(c.errors).toEqual([]);
    const [res] = resOf(allExprs(c.user), 'h');
    expect(res).toMatchObject({ kind: 'fn', decl: { name: { name: 'h' } } });
    const [x] = resOf(allExprs(c.user), 'x');
    expect(x).toMatchObject({ kind: 'local', binding: { kind: 'bind', span: { line: 4 } } });
  });

  it('lets closures capture locals', () => {
    const c = checkClean(`
      fn main() -> i32 { let k = 3; let f = |x: i32| x + k; f(1) }
    `);
    expect(bindingType(c, 'f')).toBe('fn(i32) -> i32');
  });

  it('reports a value used where a type is expected and vice versa', () => {
    const c = check(`
      struct S { a: i32 }
      mod m {}
      fn f() -> () { let x = S; let y: m = 1; }
    `);
    expect(c.errors).toEqual(["4:30: expected a value, found struct 'S'", "4:40: expected a type, found module 'm'"]);
  });

  it('expands type aliases, also generic ones', () => {
    const c = checkClean(`
      type Vec4 = [f32 * 4];
      type Pair[T] = (T, T);
      fn main() -> () { let v: Vec4 = [1.0f, 2.0f, 3.0f, 4.0f]; let p: Pair[i64] = (1, 2); }
    `);
    expect(bindingType(c, 'v')).toBe('[f32 * 4]');
    expect(bindingType(c, 'p')).toBe('(i64, i64)');
  });

  it('reports cyclic aliases and infinitely sized types', () => {
    const c = check(`
      type A = B;
      type B = A;
      struct L { next: L }
      struct Ok { next: &Ok }
    `);
    expect(c.errors).toEqual(["2:12: type alias 'A' refers to itself", "4:14: recursive type 'L' has infinite size"]);
  });

  it('accepts primitive aliases', () => {
    const c = checkClean('fn f(a: int, b: uint, c: float, d: double, e: half) -> () {}');
    expect(c.program.signature(c.program.fns.at(-1)!).params.map((t) => (t.tag === 'prim' ? t.name : ''))).toEqual([
      'i32', 'u32', 'f32', 'f64', 'f16',
    ]);
  });
});
