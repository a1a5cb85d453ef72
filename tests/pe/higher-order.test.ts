// The automatic filter for higher-order parameters (paper §4.3) and its
// exceptions, on Impala: closures vanish, plain calls of top-level functions stay.
import { describe, expect, it } from 'vitest';
import { Program, count, llvmFunction } from './support.ts';

describe('automatic specialisation of higher-order parameters', () => {
  it('specialises a function argument, so the closure vanishes', () => {
    const p = new Program(`
fn apply(f: fn(i32) -> i32, v: i32) -> i32 { f(v) }
extern fn test(x: i32) -> i32 { apply(|y| y + x, 1) * apply(|y| y * x, 2) }`);
    const xs = [[0n], [3n], [-5n]];
    const before = p.runAll('test', xs);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', xs)).toEqual(before);
    // The closures capture x: the specialisations are not top-level, so their return goes too.
    expect(p.trace.filter((l) => l.startsWith('specialise apply') && l.includes('(higher-order)'))).toEqual([
      expect.stringMatching(/^specialise apply at test.impala:3:33: args \[f, return\] = lambda, ret \(higher-order\)$/),
      expect.stringMatching(/^specialise apply at test.impala:3:55: args \[f, return\] = lambda, ret \(higher-order\)$/),
    ]);
    const llvm = p.llvm();
    expect(llvmFunction(llvm, 'test')).not.toMatch(/\bcall\b/);
    expect(count(llvm, /^define /m)).toBe(1);
  });

  it('leaves a plain call of a top-level function alone: first-order values and a standard return', () => {
    const p = new Program(`
fn add(a: i32, b: i32) -> i32 { a + b }
extern fn test(x: i32) -> i32 { add(x, 1) + add(2, x) }`);
    expect(p.evaluate()).toBe(true);
    expect(p.trace).toEqual([]);
    expect(count(llvmFunction(p.llvm(), 'test'), /call i32 @add/)).toBe(2);
  });

  it('specialises the return continuation of a closure (it is not a top-level function)', () => {
    const p = new Program(`
extern fn test(x: i32) -> i32 { let add = |y: i32| x + y; add(1) * add(2) }`);
    const before = p.runAll('test', [[4n]]);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', [[4n]])).toEqual(before);
    expect(p.trace.filter((l) => l.includes('(higher-order)'))).toEqual([
      expect.stringMatching(/^specialise lambda at .*: args \[return\] = ret \(higher-order\)$/),
      expect.stringMatching(/^specialise lambda at .*: args \[return\] = ret \(higher-order\)$/),
    ]);
    expect(llvmFunction(p.llvm(), 'test')).not.toMatch(/\bcall\b/);
  });

  it('does not specialise a higher-order argument the recursion keeps changing', () => {
    const p = new Program(`
fn compose(n: i32, f: fn(i32) -> i32, x: i32) -> i32 { if n == 0 { f(x) } else { compose(n - 1, |y| f(y) + 1, x) } }
extern fn test(n: i32, x: i32) -> i32 { compose(n, |y| y * 2, x) }`);
    const args = [[0n, 5n], [3n, 5n]];
    const before = p.runAll('test', args);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', args)).toEqual(before);
    expect(p.trace.some((l) => l.includes('args [f]'))).toBe(false);
  });

  it('specialises a static higher-order argument of a recursion once: the recursion calls the specialisation', () => {
    const p = new Program(`
fn sum(i: i32, n: i32, f: fn(i32) -> i32) -> i32 { if i < n { f(i) + sum(i + 1, n, f) } else { 0 } }
extern fn test(n: i32, k: i32) -> i32 { sum(0, n, |i| i * k) }`);
    const args = [[0n, 3n], [5n, 3n]];
    const before = p.runAll('test', args);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', args)).toEqual(before);
    expect(p.trace.filter((l) => l.includes('args [f]'))).toHaveLength(1);
  });

  it('specialises a closure that a mutual recursion passes on unchanged', () => {
    // `od` passes on its own param, which holds what `ev` was called with: static around the cycle.
    const p = new Program(`
fn ev(n: i32, f: fn(i32) -> i32) -> i32 { if n == 0 { f(0) } else { od(n - 1, f) } }
fn od(n: i32, f: fn(i32) -> i32) -> i32 { if n == 0 { f(1) } else { ev(n - 1, f) } }
extern fn test(n: i32) -> i32 { ev(n, |z: i32| z + 1) + od(n, |z: i32| z * 3) }`);
    const xs = [[0n], [3n], [4n]];
    const before = p.runAll('test', xs);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', xs)).toEqual(before);
    expect(p.trace.filter((l) => l.includes('(higher-order)'))).toEqual([
      expect.stringMatching(/^specialise ev at test.impala:4:33: args \[f\] = lambda \(higher-order\)$/),
      expect.stringMatching(/^specialise od at test.impala:2:43: args \[f\] = lambda \(higher-order\)$/),
      expect.stringMatching(/^specialise od at test.impala:4:57: args \[f\] = lambda \(higher-order\)$/),
      expect.stringMatching(/^specialise ev at test.impala:3:43: args \[f\] = lambda \(higher-order\)$/),
    ]);
  });

  it('specialises a function called at one place only, whatever cycle that call lies on', () => {
    // `od` is called only from `ev`, which `od` calls back with a return block of its own. A
    // continuation used only by one call outside it is replaced by its specialisation there,
    // so no search for recursion through other functions is made for it (for the return block
    // of every call in a loop, that search built the scopes of most of the function around it).
    const p = new Program(`
fn ev(n: i32) -> fn(i32) -> i32 { if n == 0 { |z: i32| z } else { let f = od(n - 1); |z: i32| f(z) * 2 } }
fn od(n: i32) -> fn(i32) -> i32 { if n == 0 { |z: i32| -z } else { let f = ev(n - 1); print_i32(n); |z: i32| f(z) + n } }
extern fn test(n: i32, z: i32) -> i32 { ev(n)(z) }`);
    const args = [[0n, 7n], [1n, 7n], [4n, -3n]];
    const before = p.runAll('test', args);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', args)).toEqual(before);
    expect(p.trace).toContainEqual(expect.stringMatching(/^specialise od at test.impala:2:75: args \[return\] = ret \(higher-order\)$/));
    // `ev` is called from two places, and `od`'s call passes a return block of its own: it stays.
    expect(p.trace.filter((l) => /^specialise ev .*\(higher-order\)/.test(l))).toEqual([]);
  });
});
