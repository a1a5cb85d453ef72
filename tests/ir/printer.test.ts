import { describe, expect, it } from 'vitest';
import { printScope, printWorld } from '../../compiler/src/ir/printer.ts';
import { Scope } from '../../compiler/src/ir/scope.ts';
import { Builder } from '../interp/build.ts';

function program(): { b: Builder; text: string } {
  const b = new Builder();
  const { w, i32, u8 } = b;
  // fn main(n: i32) -> i32 { if n < 10 { print_i32(n + 1); n } else { 0 } }
  const main = b.fn('main', [i32], i32);
  main.external = true;
  main.cc = 'C';
  const [mem, n, ret] = main.params;
  n!.name = 'n';
  const small = b.block('small');
  const big = b.block('big');
  w.branch(main, mem!, w.cmp('lt', n!, w.litI32(10)), small, big);
  const after = b.print(small, small.param(0), 'anydsl_print_i32', w.arith('add', n!, w.litI32(1)));
  after.jump(ret!, [after.param(0), n!]);
  const str = w.global(w.definiteArray(u8, [...'ok"\n\0'].map((c) => b.lit(u8, BigInt(c.charCodeAt(0))))), false, 'msg');
  const bytes = w.types.ptr(w.types.indefiniteArray(u8));
  const printed = b.call(big, b.extern('anydsl_print_string', [bytes]), big.param(0), [w.bitcast(bytes, str)], null);
  printed.jump(ret!, [printed.param(0), w.litI32(0)]);
  return { b, text: printWorld(w) };
}

describe('printWorld', () => {
  it('lists imports, then each top-level function with its blocks', () => {
    const { text } = program();
    expect(text).toMatch(/^import "C" anydsl_print_i32: fn\(mem, i32, fn\(mem\)\)$/m);
    expect(text).toMatch(/^fn main_\d+ extern "C" \{$/m);
    expect(text).toMatch(/^ {2}main_\d+\(%p_\d+: mem, %n_\d+: i32, %p_\d+: fn\(mem, i32\)\):$/m);
    expect(text).toMatch(/^ {4}%lt_\d+: bool = lt %n_\d+, 10$/m);
    expect(text).toMatch(/^ {4}branch\(%p_\d+, %lt_\d+, small_\d+, big_\d+\)$/m);
    expect(text.match(/^fn /gm)).toHaveLength(1);
    expect(text).toMatch(/^ {4}%add_\d+: i32 = add %n_\d+, 1$/m);
    expect(text).toMatch(/^ {4}anydsl_print_i32\(%p_\d+, %add_\d+, after_anydsl_print_i32_\d+\)$/m);
    expect(text).toMatch(/^ {4}%definite_array_\d+: \[5 x u8\] = definite_array "ok\\"\\x0a\\x00"$/m);
    expect(text).toMatch(/^ {4}%global_\d+: \[5 x u8\]\* = global "msg" %definite_array_\d+$/m);
  });

  it('prints a primop before the first block that uses it, once', () => {
    const { text } = program();
    const lines = text.split('\n');
    const def = lines.findIndex((l) => /%add_\d+: i32 = add/.test(l));
    const use = lines.findIndex((l) => /anydsl_print_i32\(.*%add_/.test(l));
    expect(def).toBeGreaterThan(0);
    expect(use).toBeGreaterThan(def);
    expect(lines.filter((l) => /= add /.test(l))).toHaveLength(1);
    const small = lines.findIndex((l) => /^ {2}small_\d+\(/.test(l));
    expect(small).toBeLessThan(def);
  });

  it('is deterministic', () => {
    const { b, text } = program();
    expect(printWorld(b.w)).toBe(text);
  });

  it('prints literals of other types with a suffix', () => {
    const b = new Builder();
    const { w } = b;
    const f = b.fn('f', [b.f32], b.f32);
    const sum = w.arith('add', f.param(1), b.lit(b.f32, 0.1));
    f.jump(f.param(2), [f.param(0), w.select(w.cmp('gt', sum, b.lit(b.f32, 1)), sum, b.lit(b.f32, -0))]);
    const text = printScope(new Scope(f));
    expect(text).toMatch(/= add %p_\d+, 0\.1f32$/m);
    expect(text).toMatch(/= select %gt_\d+, %add_\d+, -0f32$/m);
    const g = b.fn('g', [], b.i64);
    g.jump(g.param(1), [g.param(0), b.lit(b.i64, -3n)]);
    expect(printScope(new Scope(g))).toMatch(/^ {4}%p_\d+\(%p_\d+, -3i64\)$/m);
  });
});
