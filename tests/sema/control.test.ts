import { describe, expect, it } from 'vitest';
import type { Expr } from '../../compiler/src/syntax/ast.ts';
import { typeToString } from '../../compiler/src/sema/types.ts';
import type { JumpTarget } from '../../compiler/src/sema/check.ts';
import { allExprs, bindingType, check, checkClean } from './helpers.ts';

/** `kind@line:col type -> target` for every return/break/continue. */
function jumps(exprs: Expr[], table: ReadonlyMap<Expr, JumpTarget>): string[] {
  return exprs
    .filter((e) => e.kind === 'return' || e.kind === 'break' || e.kind === 'continue')
    .map((e) => {
      const t = table.get(e);
      const target = !t ? 'none' : t.kind === 'fn' ? `fn ${t.decl.name.name}` : t.kind === 'local' ? `param ${t.binding.name?.name}` : `${t.kind}@${t.expr.span.line}:${t.expr.span.col}`;
      return `${e.kind}@${e.span.line}:${e.span.col} ${typeToString(e.type!)} -> ${target}`;
    });
}

describe('for, with, while and the first-class continuations', () => {
  it('annotates return, break and continue inside for and while', () => {
    const c = checkClean(`
      fn f(n: i32) -> i32 {
        for i in range(0, n) {
          if i == 3 { continue() }
          if i == 4 { break() }
          if i == 5 { return(i) }
        }
        let mut k = 0;
        while k < n { k++; if k == 2 { continue() } if k == 9 { break() } }
        k
      }
    `);
    expect(jumps(allExprs(c.user), c.program.jumps)).toEqual([
      'continue@4:23 fn() -> ! -> for@3:9',
      'break@5:23 fn() -> ! -> for@3:9',
      'return@6:23 fn(i32) -> ! -> fn f',
      'continue@9:40 fn() -> ! -> while@9:9',
      'break@9:65 fn() -> ! -> while@9:9',
    ]);
  });

  it('types the body from the generator, continue from the body result and break from the call result', () => {
    const c = checkClean(`
      fn gen(n: i32, body: fn(i32, f32) -> bool) -> u8 { if body(n, 1.0f) { 1 } else { 0 } }
      fn f() -> u8 {
        let r = for i, x in gen(3) { if x > 2.0f { continue(false) } if i == 1 { break(7) } true };
        r
      }
    `);
    expect(bindingType(c, 'r')).toBe('u8');
    expect(bindingType(c, 'i')).toBe('i32');
    expect(bindingType(c, 'x')).toBe('f32');
    expect(jumps(allExprs(c.user), c.program.jumps)).toEqual([
      'continue@4:52 fn(bool) -> ! -> for@4:17',
      'break@4:82 fn(u8) -> ! -> for@4:17',
    ]);
    const [body] = [...c.program.forBodies.values()].slice(-1);
    expect(typeToString(body!)).toBe('fn(i32, f32) -> bool');
  });

  it('supports for without parameters and with, which has no continue of its own', () => {
    const c = checkClean(`
      fn bench(body: fn() -> ()) -> () { body() }
      fn region(body: fn(i32) -> ()) -> f64 { body(1); 0.5 }
      fn f() -> f64 {
        for bench() { }
        for i in range(0, 4) {
          let t = with x in region() { if x > 0 { continue() } if x < 0 { break(1.0) } };
        }
        0.0
      }
    `);
    expect(jumps(allExprs(c.user), c.program.jumps)).toEqual([
      'continue@7:51 fn() -> ! -> for@6:9',
      'break@7:75 fn(f64) -> ! -> for@7:19',
    ]);
    expect(bindingType(c, 't')).toBe('f64');
  });

  it('lets return inside a closure leave the closure, and break cross it', () => {
    const c = checkClean(`
      fn f() -> i64 {
        for i in range(0, 3) {
          let g = |x: i32| -> bool { if x == 0 { break() } if x > 1 { return(true) } false };
          g(i);
        }
        1
      }
    `);
    expect(jumps(allExprs(c.user), c.program.jumps)).toEqual([
      'break@4:50 fn() -> ! -> for@3:9',
      'return@4:71 fn(bool) -> ! -> closure@4:19',
    ]);
  });

  it('makes return, break and continue first-class values', () => {
    const c = checkClean(`
      fn g(k: fn() -> !) -> () { k() }
      fn f() -> () {
        let r = return;
        for i in range(0, 3) { g(continue); g(break); }
        r()
      }
    `);
    expect(bindingType(c, 'r')).toBe('fn() -> !');
  });

  it('resolves explicit CPS parameters named return and continue', () => {
    const c = checkClean(`
      fn get_42(return: fn(i32) -> !) -> ! { return(42) }
      fn body(i: i32, continue: fn() -> !) -> ! { continue() }
    `);
    expect(jumps(allExprs(c.user), c.program.jumps)).toEqual([
      'return@2:46 fn(i32) -> ! -> param return',
      'continue@3:51 fn() -> ! -> param continue',
    ]);
  });

  it('accepts closures as continuations', () => {
    checkClean(`
      fn get_42(ret: fn(i32) -> !) -> ! { ret(42) }
      fn use_it(x: i32, k: fn(i32) -> !) -> ! { k(x + 1) }
      fn f(k: fn(i32) -> !) -> ! { get_42(|res| use_it(res, k)) }
    `);
  });

  it('reports break and continue outside loops and return in a continuation', () => {
    const c = check(`
      fn f() -> () { break() }
      fn g() -> () { let c = || continue(); }
      fn h(k: i32) -> ! { return() }
      fn i() -> () { fn inner() -> () { break() } for x in range(0, 1) { fn nested() -> () { continue() } } }
    `);
    // A nested fn sees the enclosing loop's continuations, as a closure does.
    expect(c.errors).toEqual([
      "2:22: 'break' outside of a loop",
      "3:33: 'continue' outside of a loop",
      "4:27: 'return' in a function that never returns ('-> !')",
      "5:41: 'break' outside of a loop",
    ]);
  });

  it('reports generators that cannot take a body', () => {
    const c = check(`
      fn no_body(n: i32) -> () {}
      fn two(body: fn(i32, i32) -> ()) -> () {}
      fn f() -> () {
        for i in no_body(1) { }
        for i in two() { }
      }
    `);
    expect(c.errors).toEqual([
      "5:18: 'fn(i32) -> ()' cannot be used as a for generator: it must be a fn taking 2 arguments, the body last",
      "6:9: wrong number of for parameters: expected 2 but found 1",
    ]);
  });

  it('requires bool conditions and unit loop bodies', () => {
    const c = check('fn f(n: i32) -> () { while n { } if n { } while true { 1 } }');
    expect(c.errors).toEqual([
      "1:28: mismatched types: expected 'bool' but found 'i32' as condition",
      "1:37: mismatched types: expected 'bool' but found 'i32' as condition",
      "1:56: mismatched types: expected '()' but found 'i32'",
    ]);
  });
});
