// The partial-evaluation contract (docs/language.md) on real Impala: what the residual
// LLVM IR looks like, what the trace says, and that the interpreter computes the
// same before and after evaluation.
import { describe, expect, it } from 'vitest';
import { defaultPeGrowth } from '../../compiler/src/pe/index.ts';
import { Program, count, llvmFunction } from './support.ts';

const pow = `
fn @(?n) pow(x: i32, n: i32) -> i32 {
    if n == 0 { 1 } else if n % 2 == 0 { let r = pow(x, n / 2); r * r } else { x * pow(x, n - 1) }
}`;

/** A body whose every copy prints one number: 13 + 7 i. */
const g = `fn g(i: i32) -> () { anydsl_print_i32(i * 7 + 13) }`;

describe('the examples of the partial-evaluation contract (docs/language.md)', () => {
  it('pow(y, 4) leaves exactly two multiplications and no call', () => {
    const p = new Program(`${pow}\nextern fn test(y: i32) -> i32 { pow(y, 4) }`);
    const ys = [[0n], [1n], [3n], [-7n], [1000n]];
    const before = p.runAll('test', ys);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', ys)).toEqual(before);
    const f = llvmFunction(p.llvm(), 'test');
    expect(count(f, /= mul /)).toBe(2);
    expect(f).not.toMatch(/\bcall\b/);
  });

  it('pow(y, d) with a dynamic exponent stays a recursive call', () => {
    const p = new Program(`${pow}\nextern fn test(y: i32, d: i32) -> i32 { pow(y, d) }`);
    const args = [[3n, 0n], [3n, 5n], [-2n, 7n]];
    const before = p.runAll('test', args);
    expect(p.evaluate()).toBe(true);
    expect(p.trace).toEqual([]);
    expect(p.runAll('test', args)).toEqual(before);
    const llvm = p.llvm();
    expect(llvmFunction(llvm, 'test')).toMatch(/call i32 @pow\(/);
    expect(llvmFunction(llvm, 'pow')).toMatch(/call i32 @pow\(/);
  });

  it('unroll(0, 3, g) leaves three copies of the body of g and no loop', () => {
    const p = new Program(`${g}\nextern fn test() -> () { unroll(0, 3, g) }`);
    const before = p.run('test');
    expect(before.stdout).toBe('132027');
    expect(p.evaluate()).toBe(true);
    expect(p.run('test')).toEqual(before);
    const llvm = p.llvm();
    const f = llvmFunction(llvm, 'test');
    expect([...f.matchAll(/call void @anydsl_print_i32\(i32 (\d+)\)/g)].map((m) => m[1])).toEqual(['13', '20', '27']);
    expect(f).not.toMatch(/phi|br i1/);
    expect(count(llvm, /^define /m)).toBe(1);
  });

  it('range(0, n, g) leaves one loop with g inlined and no indirect call', () => {
    const p = new Program(`${g}\nextern fn test(n: i32) -> () { range(0, n, g) }`);
    const ns = [[0n], [1n], [4n]];
    const before = p.runAll('test', ns);
    expect(before[2]!.stdout).toBe('13202734');
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', ns)).toEqual(before);
    const llvm = p.llvm();
    const f = llvmFunction(llvm, 'test');
    expect(count(f, /= phi /)).toBe(1);
    expect(count(f, /br i1 /)).toBe(1);
    expect(count(f, /\bcall\b/)).toBe(1);
    expect(f).toMatch(/call void @anydsl_print_i32\(i32 %/);
    expect(count(llvm, /^define /m)).toBe(1);
  });

  it('a for loop over range with a body that writes a captured variable is one loop, no closure', () => {
    const p = new Program('extern fn test(n: i32) -> i32 { let mut s = 0; for i in range(0, n) { s += i * i; } s }');
    const ns = [[0n], [1n], [10n]];
    const before = p.runAll('test', ns);
    expect(before[2]!.result).toBe(285n);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', ns)).toEqual(before);
    const llvm = p.llvm();
    const f = llvmFunction(llvm, 'test');
    expect(count(f, /= phi /)).toBe(1);
    expect(f).not.toMatch(/\bcall\b/);
    expect(count(llvm, /^define /m)).toBe(1);
  });

  it('f(3, x, 5) and f(x, 3, x + y) specialise the arguments their filters fire for', () => {
    const p = new Program(`
fn f(@(?a) a: i32, @(?a) b: i32, @(b < 5) c: i32) -> i32 { a + b + c }
extern fn test(x: i32, y: i32) -> i32 { f(3, x, 5) + f(x, 3, x + y) }`);
    const args = [[0n, 0n], [4n, -9n], [100n, 7n]];
    const before = p.runAll('test', args);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', args)).toEqual(before);
    const filtered = p.trace.filter((l) => l.startsWith('specialise f at test.impala:3:') && l.includes('(filter)'));
    expect(filtered).toHaveLength(2);
    // The filter of c, `b < 5`, is `x < 5` in the first call: unknown. The paper's `f3x_(5)`.
    expect(filtered[0]).toMatch(/: args \[a, b\] = 3, x \(filter\)/);
    // `?x` is false in the second call; `3 < 5` holds. The paper's `f__xy(x, 3)`.
    expect(filtered[1]).toMatch(/: args \[c\] = \(x \+ y\) \(filter\)/);
    // Each specialisation has a single call site and is inlined with the remaining arguments.
    expect(p.trace.filter((l) => l.includes('(single use)'))).toEqual([
      expect.stringMatching(/^specialise f at test.impala:3:\d+: args \[mem, c\] = mem, 5 \(single use\)$/),
      expect.stringMatching(/^specialise f at test.impala:3:\d+: args \[mem, a, b\] = mem, x, 3 \(single use\)$/),
    ]);
    expect(llvmFunction(p.llvm(), 'test')).not.toMatch(/\bcall\b/);
  });

  it('@@ackermann(3, 4) folds to 125', () => {
    const p = new Program(`
fn @(?m & ?n) ackermann(m: i32, n: i32) -> i32 {
    if m == 0 { n + 1 } else if n == 0 { ackermann(m - 1, 1) } else { ackermann(m - 1, ackermann(m, n - 1)) }
}
extern fn test() -> i32 { @@ackermann(3, 4) }`);
    expect(p.run('test').result).toBe(125n);
    expect(p.evaluate()).toBe(true);
    expect(p.run('test').result).toBe(125n);
    expect(p.trace[0]).toMatch(/^specialise ackermann at test.impala:5:\d+: args \[mem, m, n, return\] = mem, 3, 4, return \(@@\)$/);
    expect(llvmFunction(p.llvm(), 'test')).toMatch(/^entry:\n {2}ret i32 125\n}/m);
  });

  it('@ on a recursion with a dynamic counter stops at the budget with a diagnostic at the call', () => {
    const p = new Program(`
fn @count(n: i32) -> i32 { if n == 0 { 0 } else { 1 + count(n - 1) } }
extern fn test(d: i32) -> i32 { count(d) }`);
    expect(p.evaluate()).toBe(false);
    expect(p.sink.list).toHaveLength(1);
    const [d] = p.sink.list;
    expect(d!.severity).toBe('error');
    expect(d!.span).toMatchObject({ file: 'test.impala', line: 2, col: 55 });
    expect(d!.message).toMatch(/partial evaluation does not terminate: 'count' .* filter @\(true\) on 'n' keeps firing/);
    // The work is bounded by the growth bound, not by time: it stops just past the bound, and
    // what is left is the original code plus at most what the bound allows.
    const added = Number(/the specialisations added (\d+) continuations/.exec(d!.message)?.[1]);
    expect(added).toBeGreaterThan(defaultPeGrowth);
    expect(added).toBeLessThan(defaultPeGrowth + 100);
    expect(p.world.continuations.size).toBeLessThan(defaultPeGrowth + 100);
  });

  it('an explicit budget stops earlier', () => {
    const p = new Program(`
fn @count(n: i32) -> i32 { if n == 0 { 0 } else { 1 + count(n - 1) } }
extern fn test(d: i32) -> i32 { count(d) }`);
    expect(p.evaluate({ budget: 50 })).toBe(false);
    expect(p.trace.filter((l) => l.includes('(filter)'))).toHaveLength(50);
    expect(p.sink.list[0]!.message).toMatch(/stopped after 50 specialisations/);
  });

  it('the budget is per exported function: kernels of 31 and 16 specialisations fit a budget of 40, one kernel of 46 does not fit twice 20', () => {
    const p = new Program(`
fn @count(@n: i32) -> i32 { if n == 0 { 0 } else { 1 + count(n - 1) } }
fn @twice(@n: i32) -> i32 { if n == 0 { 0 } else { 2 + twice(n - 1) } }
extern fn a() -> i32 { count(30) }
extern fn b() -> i32 { twice(15) }`);
    expect(p.evaluate({ budget: 40 })).toBe(true);
    expect(p.trace.filter((l) => l.includes('(filter)')).length).toBeGreaterThan(40);
    expect(p.run('a').result).toBe(30n);
    expect(p.run('b').result).toBe(30n);
    const one = new Program(`
fn @count(@n: i32) -> i32 { if n == 0 { 0 } else { 1 + count(n - 1) } }
extern fn a() -> i32 { count(45) }
extern fn b() -> i32 { 0 }`);
    expect(one.evaluate({ budget: 20 })).toBe(false);
  });
});

describe('PE annotations', () => {
  it('pe_info reports its value once per specialisation that makes it static, and never a dynamic one', () => {
    const p = new Program(`
fn @(?n) pow(x: i32, n: i32) -> i32 {
    pe_info("pow n", n);
    if n == 0 { 1 } else { x * pow(x, n - 1) }
}
extern fn test(y: i32, d: i32) -> i32 { pow(y, 2) + pow(y, d) }`);
    expect(p.evaluate()).toBe(true);
    const notes = p.sink.list.filter((d) => d.severity === 'note').map((d) => d.message);
    expect(notes).toEqual(['pe_info: pow n: 2', 'pe_info: pow n: 1', 'pe_info: pow n: 0']);
    expect(p.run('test', [3n, 2n]).result).toBe(18n);
  });

  it('$ hides the bound from unroll: the call stays a loop over one copy of the body', () => {
    const p = new Program(`${g}\nextern fn test() -> () { unroll($0, 3, g) }`);
    const before = p.run('test');
    expect(p.evaluate()).toBe(true);
    expect(p.run('test')).toEqual(before);
    expect(p.trace[0]).toMatch(/^specialise unroll at .*: args \[b, f\] = 3, g \(filter\)$/);
    // Closed (its bound and body are constants), the specialised unroll_step stays a
    // function looping by a tail call to itself.
    const llvm = p.llvm();
    expect(count(llvm, /call void @anydsl_print_i32/)).toBe(1);
    expect(llvmFunction(llvm, 'unroll_step')).toMatch(/tail call void @unroll_step\(i32 %/);
  });

  it('? folds for arguments a filter specialised and is false for dynamic ones', () => {
    const p = new Program(`
fn @(?n) known(n: i32) -> bool { ?n }
extern fn test(x: i32) -> i32 { (if known(4) { 10 } else { 20 }) + (if ?x { 1 } else { 2 }) }`);
    expect(p.evaluate()).toBe(true);
    expect(llvmFunction(p.llvm(), 'test')).toMatch(/ret i32 12\n/);
  });

  it('@@ inlines a call whatever the callee filters say', () => {
    const p = new Program(`
fn twice(x: i32) -> i32 { x + x }
extern fn test(y: i32) -> i32 { @@twice(y) + twice(y) + twice(3) }`);
    const before = p.runAll('test', [[5n]]);
    expect(p.evaluate()).toBe(true);
    expect(p.runAll('test', [[5n]])).toEqual(before);
    expect(p.trace).toEqual([expect.stringMatching(/^specialise twice at test.impala:3:\d+: args \[mem, x, return\] = mem, y, ret \(@@\)$/)]);
    expect(count(llvmFunction(p.llvm(), 'test'), /call i32 @twice/)).toBe(2);
  });
});
