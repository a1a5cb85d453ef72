// SSA construction: which locals become block params, which live in memory, and
// that aggregates are updated as whole values.
import { describe, expect, it } from 'vitest';
import { DefiniteArrayType, StructType } from '../../compiler/src/ir/index.ts';
import { emit, named, primops, run } from './helpers.ts';

describe('mutable locals', () => {
  it('a counter in a while loop is a param of the loop header, not a slot', () => {
    const r = emit('fn main() -> i32 { let mut i = 0; let mut s = 0; while i < 10 { s += i; i++; } s }');
    const head = named([r.main!], 'while_head');
    expect(head.params.map((p) => p.type.toString())).toEqual(['mem', 'i32', 'i32']);
    expect(primops([r.main!], 'slot')).toHaveLength(0);
    expect(primops([r.main!], 'enter')).toHaveLength(0);
    expect(run('fn main() -> i32 { let mut i = 0; let mut s = 0; while i < 10 { s += i; i++; } s }').result).toBe(45n);
  });

  it('drops trivial phis: a variable the loop only reads gets no param', () => {
    const r = emit('fn main() -> i32 { let mut n = 7; n = n + 1; let mut i = 0; while i < n { i++; } i }');
    expect(named([r.main!], 'while_head').params.map((p) => p.type.toString())).toEqual(['mem', 'i32']);
  });

  it('taking the address puts the variable in a stack slot', () => {
    const src = 'fn inc(p: &mut i32) -> () { *p = *p + 1 } fn main() -> i32 { let mut x = 41; inc(&mut x); x }';
    const r = emit(src);
    expect(primops([r.main!], 'slot')).toHaveLength(1);
    expect(primops([r.main!], 'enter')).toHaveLength(1);
    expect(run(src).result).toBe(42n);
  });

  it('a mutable variable written in a for body lives in memory', () => {
    const src = 'fn main() -> i32 { let mut acc = 0; for i in range(0, 5) { acc += i; } acc }';
    expect(primops([emit(src).main!], 'slot')).toHaveLength(1);
    expect(run(src).result).toBe(10n);
  });

  it('an immutable local read by a closure is just a value', () => {
    const src = 'fn main() -> i32 { let k = 3; let f = |x: i32| x * k; f(14) }';
    expect(primops([emit(src).main!], 'slot')).toHaveLength(0);
    expect(run(src).result).toBe(42n);
  });

  it('an uninitialised variable assigned on both branches merges in the join', () => {
    const src = 'fn pick(c: bool) -> i32 { let mut x: i32; if c { x = 1; } else { x = 2; } x } fn main() -> i32 { pick(false) * 10 + pick(true) }';
    expect(run(src).result).toBe(21n);
  });
});

describe('aggregates as SSA values', () => {
  it('array element assignment in a loop is an insert on a header param', () => {
    const src = `fn main() -> i32 {
      let mut a = [1, 2, 3, 4];
      let mut i = 0;
      while i < 4 { a(i) = a(i) * 10; i++; }
      a(0) + a(1) + a(2) + a(3)
    }`;
    const r = emit(src);
    const head = named([r.main!], 'while_head');
    expect(head.params.some((p) => p.type instanceof DefiniteArrayType)).toBe(true);
    expect(primops([r.main!], 'insert').length).toBeGreaterThan(0);
    expect(primops([r.main!], 'slot')).toHaveLength(0);
    expect(run(src).result).toBe(100n);
  });

  it('struct fields and nested tuple elements are updated with insert', () => {
    const src = `struct P { x: i32, y: (i32, i32) }
      fn main() -> i32 {
        let mut p = P { x: 1, y: (2, 3) };
        let mut n = 0;
        while n < 3 { p.x = p.x + 1; p.y(1) = p.y(1) * 2; n++; }
        p.x * 100 + p.y(0) * 10 + p.y(1)
      }`;
    const r = emit(src);
    expect(named([r.main!], 'while_head').params.some((p) => p.type instanceof StructType)).toBe(true);
    expect(primops([r.main!], 'slot')).toHaveLength(0);
    expect(run(src).result).toBe(400n + 20n + 24n);
  });

  it('copies of array values are independent', () => {
    const src = 'fn main() -> i32 { let mut a = [1, 2]; let b = a; a(0) = 9; b(0) * 10 + a(0) }';
    expect(run(src).result).toBe(19n);
  });
});
