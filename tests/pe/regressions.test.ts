// Programs on which the evaluator once produced wrong or ill-scoped code, most
// of them found by the differential property (tests/properties). Each checks
// that the interpreter prints the same before and after evaluation and that the
// evaluated world still goes through the transforms and the backend.
import { describe, expect, it } from 'vitest';
import { verify } from '../../compiler/src/ir/verify.ts';
import { Program } from './support.ts';

/** Runs `test(args)` before and after evaluation; both must print `stdout` and return `result`. */
function expectSameAfterEvaluation(source: string, stdout: string, result: bigint, args: readonly bigint[] = []): void {
  const p = new Program(source);
  expect(p.run('test', args)).toEqual({ stdout, result });
  expect(p.evaluate()).toBe(true);
  expect(verify(p.world).filter((l) => !l.startsWith('note:'))).toEqual([]);
  expect(p.run('test', args)).toEqual({ stdout, result });
  p.llvm();
}

describe('partial evaluation regressions', () => {
  it('does not return past a block whose params later code still reads', () => {
    // After `yes()` and the branch fold, twice's return block is `ret(m, s) = join(m, s)`,
    // but `s` is printed again after the join: returning to `join` directly left `s` unbound.
    expectSameAfterEvaluation(
      `fn twice(f: fn(i32) -> i32, x: i32) -> i32 { f(f(x)) }
       fn yes() -> bool { true }
       extern fn test() -> i32 {
           let s = twice(|z: i32| z + 1, 1);
           print_i32(if yes() { s } else { 0 });
           print_i32(s);
           0
       }`,
      '33',
      0n,
    );
  });

  it('does not pass a closure on to the callers of the function it is nested in', () => {
    // mk's body is `return(|z| z * n)`: a jump to its own return param, but the closure reads `n`.
    // Passing that jump on to rec's call (the return continuation of a non-tail recursion is not
    // specialised) left rec returning a closure over a param of mk.
    expectSameAfterEvaluation(
      `fn mk(n: i32) -> fn(i32) -> i32 { |z: i32| z * n }
       fn rec(n: i32) -> fn(i32) -> i32 {
           if n == 0 { mk(7) } else { let f = rec(n - 1); print_i32(n); f }
       }
       extern fn test(d: i32) -> i32 { rec(d)(2) }`,
      '12',
      14n,
      [2n],
    );
  });

  it('specialises a generator for a break that its recursion passes on unchanged', () => {
    // The body breaks at once, so both the outer call and the recursive call of `down` return to
    // the loop's exit. The recursion does not change that argument, yet it counted as moving:
    // `down` stayed a closure over the exit and closure conversion rejected the non-local jump.
    expectSameAfterEvaluation(
      `fn @(?n) down(n: i32, body: fn(i32) -> ()) -> () { if n > 0 { down(n - 1, body); @@body(n - 1) } }
       extern fn test(d: i32) -> i32 {
           let mut v = 1;
           for i in down(d) { break() }
           print_i32(v);
           v + d
       }`,
      '1',
      4n,
      [3n],
    );
  });

  it('copies a filter that inlining made stale with the params it stands for now', () => {
    // range's loop inside `fold` gets the filter `?a & ?n` on fold's `n`; inlining fold into `r`
    // replaces that `n` by r's, which the filter, outside the graph, does not see. Specialising
    // `r` for 0 copied the stale filter and the next sweep made it read r's `n` from `test`.
    expectSameAfterEvaluation(
      `fn fold(n: i32, f: fn(i32) -> i32) -> i32 { let mut acc = 0; for i in range(0, n) { acc = f(i); } acc }
       fn @(?n) r(n: i32) -> i32 { if n <= 0 { fold(n, |j: i32| 0) } else { 1 - r(n - 1) } }
       extern fn test(d: i32) -> i32 {
           let mut s = 0;
           let p = |z: i32| { s += r(z); };
           p(d);
           p(0);
           s
       }`,
      '',
      1n,
      [1n],
    );
  });

  it('does not specialise for the return blocks of a mutual recursion returning closures', () => {
    // `even` calls `odd`, which calls `even` with a return block of its own that wraps the one
    // `even` was called with. Only direct recursion counted as changing an argument, so each
    // call was specialised for the next, bigger return continuation until the budget ran out.
    expectSameAfterEvaluation(
      `fn even(n: i32) -> fn(i32) -> i32 {
           if n == 0 { |z: i32| z } else { let f = odd(n - 1); |z: i32| f(z) * 2 }
       }
       fn odd(n: i32) -> fn(i32) -> i32 {
           if n == 0 { |z: i32| -z } else { let f = even(n - 1); print_i32(n); |z: i32| f(z) + n }
       }
       extern fn test(n: i32, z: i32) -> i32 { even(n)(z) }`,
      '2',
      -36n,
      [3n, 10n],
    );
  });
});
