// Closures that a recursive function returns, built at a different depth on
// every call: lower2cff cannot specialise them away, so closure conversion must
// turn them into records whose environment holds the record of the closure
// they capture. The jump that returns such a closure passes it as a value, even
// though its type ends in a continuation like a call's return continuation does;
// taking it for one left the closure unconverted ("used as a value but is not a
// function" in the backend). Each program is built natively and must print what
// the interpreter prints right after emission; `main` takes argc so the depth
// stays dynamic.
import { afterAll, describe, expect, it } from 'vitest';
import { mainAtEveryStage, removeScratch } from '../properties/stages.ts';

afterAll(removeScratch);

async function expectEveryStage(source: string, stdout: string): Promise<void> {
  expect(await mainAtEveryStage(source)).toEqual({ emitted: stdout, pe: stdout, optimised: stdout, native: stdout });
}

const main = (body: string): string =>
  `fn main(argc: i32, argv: &[&[u8]]) -> i32 { let d = argc - 1; ${body} }`;

describe('closures returned through recursion', () => {
  it('converts a closure capturing the closure the recursive call returned', async () => {
    await expectEveryStage(
      `fn rec(n: i32) -> fn(i32) -> i32 {
           if n == 0 { |z: i32| z } else { let f = rec(n - 1); |z: i32| f(z) + n }
       }
       extern fn test(n: i32, z: i32) -> i32 { rec(n)(z) }
       ${main('test(d + 3, 10)')}`,
      '<exit 16>',
    );
  });

  it('converts closures capturing two returned closures and scalars', async () => {
    await expectEveryStage(
      `fn rec(n: i32, k: i32) -> fn(i32) -> i32 {
           if n == 0 { |z: i32| z + k } else {
               let f = rec(n - 1, k);
               let g = rec(n / 2, k + 1);
               |z: i32| f(z) + g(z) * n + k
           }
       }
       extern fn test(n: i32, z: i32) -> i32 { rec(n, 1)(z) }
       ${main("print_i32(test(d + 3, 10)); print_char('\\n'); print_i32(test(d + 5, -2)); 0")}`,
      '161\n172',
    );
  });

  it('returns closures through two levels of recursion', async () => {
    await expectEveryStage(
      `fn wrap(m: i32, f: fn(i32) -> i32) -> fn(i32) -> i32 {
           if m == 0 { f } else { let g = wrap(m - 1, f); |z: i32| g(z) + m }
       }
       fn rec(n: i32) -> fn(i32) -> i32 {
           if n == 0 { |z: i32| z } else { let f = rec(n - 1); wrap(n, |z: i32| f(z) * 2) }
       }
       extern fn test(n: i32, z: i32) -> i32 { rec(n)(z) }
       ${main('print_i32(test(d + 3, 10)); 0')}`,
      '96',
    );
  });

  it('returns a closure or a top-level function from the same recursion', async () => {
    await expectEveryStage(
      `fn inc(z: i32) -> i32 { z + 1 }
       fn rec(n: i32) -> fn(i32) -> i32 {
           if n == 0 { inc } else { let f = rec(n - 1); |z: i32| f(f(z)) + n }
       }
       fn apply(f: fn(i32) -> i32, x: i32) -> i32 { f(x) }
       extern fn test(n: i32, z: i32) -> i32 { apply(rec(n), z) }
       ${main('print_i32(test(d + 3, 10)); 0')}`,
      '29',
    );
  });

  it('joins closures from both arms of a branch before capturing them', async () => {
    await expectEveryStage(
      `fn rec(n: i32) -> fn(i32) -> i32 {
           if n == 0 { |z: i32| z } else {
               let f = if n % 2 == 0 { rec(n - 1) } else { let h = rec(n - 1); |z: i32| h(z) * 3 };
               |z: i32| f(z) + n
           }
       }
       extern fn test(n: i32, z: i32) -> i32 { rec(n)(z) }
       ${main('print_i32(test(d + 3, 10)); 0')}`,
      '102',
    );
  });

  it('converts closures that return closures, recursively and from an array', async () => {
    // The inner closure is returned through the return param of a closure, not of a top-level function.
    await expectEveryStage(
      `fn rec(n: i32) -> fn(i32) -> fn(i32) -> i32 {
           if n == 0 { |a: i32| |b: i32| a - b } else {
               let f = rec(n - 1);
               |a: i32| { let g = f(a + n); |b: i32| g(b) * 2 }
           }
       }
       extern fn test(n: i32, a: i32, b: i32) -> i32 { rec(n)(a)(b) }
       extern fn pick(n: i32, z: i32) -> i32 {
           let fs = [|k: i32| |x: i32| x * k + n, |k: i32| |x: i32| x - k * n];
           fs(n & 1)(z)(z + 1)
       }
       ${main("print_i32(test(d + 3, 10, 4)); print_char('\\n'); print_i32(pick(d + 3, 10)); print_char('\\n'); print_i32(pick(d + 4, 10)); 0")}`,
      '96\n-19\n114',
    );
  });

  it('keeps returned closures in a struct and in an array', async () => {
    await expectEveryStage(
      `struct S { f: fn(i32) -> i32, k: i32 }
       fn rec_s(n: i32) -> S {
           if n == 0 { S { f: |z: i32| z, k: 0 } } else {
               let s = rec_s(n - 1);
               let f = s.f;
               S { f: |z: i32| f(z) * 2 + n, k: s.k + 1 }
           }
       }
       fn rec_a(n: i32) -> [fn(i32) -> i32 * 2] {
           if n == 0 { [|z: i32| z, |z: i32| -z] } else {
               let a = rec_a(n - 1);
               let f = a(0);
               let g = a(1);
               [|z: i32| g(z) + n, |z: i32| f(z) * n]
           }
       }
       extern fn test_s(n: i32, z: i32) -> i32 { let s = rec_s(n); s.f(z) + s.k * 100 }
       extern fn test_a(n: i32, z: i32) -> i32 { let a = rec_a(n); a(0)(z) * 1000 + a(1)(z) }
       ${main("print_i32(test_s(d + 3, 10)); print_char('\\n'); print_i32(test_a(d + 3, 10)); print_char('\\n'); print_i32(test_a(d + 4, 7)); 0")}`,
      '391\n-14964\n30964',
    );
  });
});
