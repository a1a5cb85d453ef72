import { describe, expect, it } from 'vitest';
import type { Def } from '../../compiler/src/ir/index.ts';
import { formatFixed, formatG, interpret } from '../../compiler/src/interp/index.ts';
import { Builder } from './build.ts';

// Expected strings are what glibc's printf prints.
describe('printf %g', () => {
  it.each([
    [0.1, '0.1'],
    [1e6, '1e+06'],
    [123456789, '1.23457e+08'],
    [1e-5, '1e-05'],
    [-0.0, '-0'],
    [0, '0'],
    [Infinity, 'inf'],
    [-Infinity, '-inf'],
    [NaN, 'nan'],
    [100000, '100000'],
    [0.0001, '0.0001'],
    [0.00012345678, '0.000123457'],
    [999999.5, '1e+06'],
    [999999.4, '999999'],
    [1234565, '1.23456e+06'], // an exact tie rounds half to even
    [1234575, '1.23458e+06'],
    [1000005, '1e+06'],
    [3.14159265358979, '3.14159'],
    [-2.5, '-2.5'],
    [1e100, '1e+100'],
    [5e-324, '4.94066e-324'],
    [1.7976931348623157e308, '1.79769e+308'],
    [Math.fround(0.1), '0.1'],
  ])('%g of %s is %s', (x, s) => {
    expect(formatG(x)).toBe(s);
  });

  it('honours other precisions like %.*g', () => {
    expect(formatG(2.5, 0)).toBe('2');
    expect(formatG(3.5, 1)).toBe('4');
    expect(formatG(123.456, 10)).toBe('123.456');
    expect(formatG(0.1, 17)).toBe('0.10000000000000001');
  });
});

describe('printf %.*f', () => {
  it.each([
    [3.14159, 2, '3.14'],
    [2.5, 0, '2'],
    [3.5, 0, '4'],
    [0.125, 2, '0.12'],
    [0.375, 2, '0.38'],
    [-0.001, 2, '-0.00'],
    [-0.0, 1, '-0.0'],
    [1e21, 0, '1000000000000000000000'],
    [0.1, 20, '0.10000000000000000555'],
    [1.5, -1, '1.500000'],
    [Infinity, 3, 'inf'],
    [NaN, 3, 'nan'],
  ])('%.*f of %s with %s digits is %s', (x, digits, s) => {
    expect(formatFixed(x, digits)).toBe(s);
  });
});

describe('print externs', () => {
  it('print f64 and f32 values like the C runtime', () => {
    const b = new Builder();
    const { w, f64, f32 } = b;
    const values = [0.1, 1e6, 123456789, 1e-5, -0.0, Infinity, NaN, 100000, 0.0001];
    const main = b.fn('main', [], null);
    let at = main;
    let mem: Def = main.param(0);
    const printOne = (fn: string, v: Def): void => {
      const next = b.print(at, mem, fn, v);
      const nl = b.print(next, next.param(0), 'anydsl_print_char', b.lit(b.u8, 10n));
      at = nl;
      mem = nl.param(0);
    };
    for (const v of values) printOne('anydsl_print_f64', b.lit(f64, v));
    printOne('anydsl_print_f32', b.lit(f32, 0.1));
    printOne('anydsl_print_i64', b.lit(b.i64, -5n));
    const fixed = b.call(at, b.extern('anydsl_print_f64_fixed', [f64, b.i32]), mem, [b.lit(f64, 2.675), w.litI32(2)], null);
    fixed.jump(main.param(1), [fixed.param(0)]);
    const out = interpret(b.w, main, []).stdout;
    expect(out).toBe('0.1\n1e+06\n1.23457e+08\n1e-05\n-0\ninf\nnan\n100000\n0.0001\n0.1\n-5\n2.67');
  });
});
