import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FnDecl } from '../../compiler/src/syntax/index.ts';
import { parseOk, roundTrip } from './helpers.ts';

const canonical = `
fn @(?n) pow(x: i32, n: i32) -> i32 {
    if n == 0 { 1 } else if n % 2 == 0 { let r = pow(x, n / 2); r * r } else { x * pow(x, n - 1) }
}

fn @(?a & ?b & ?s) unroll_step(a: i32, @b: i32, @s: i32, f: fn(i32) -> ()) -> () {
    if a < b { @@f(a); unroll_step(a + s, b, s, f) }
}
fn @unroll(a: i32, b: i32, f: fn(i32) -> ()) -> () { unroll_step(a, b, 1, f) }
fn @range(a: i32, b: i32, f: fn(i32) -> ()) -> () { unroll_step($a, b, 1, f) }

fn f(@(?a) a: i32, @(?a) b: i32, @(b < 5) c: i32) -> i32 { a + b + c }
`;

// Programs in the style of the AnyDSL papers: generators, schedules, continuations.
const paperStyle = `
type Loop1D = fn(i32, i32, fn(i32) -> ()) -> ();
type Loop2D = fn(i32, i32, i32, i32, fn(i32, i32) -> ()) -> ();
extern "thorin" {
    fn vectorize(i32, i32, i32, fn(i32) -> ()) -> ();
    fn parallel(num_threads: i32, lower: i32, upper: i32, body: fn(i32) -> ()) -> ();
    fn cuda(i32, (i32, i32, i32), (i32, i32, i32), fn() -> ()) -> ();
    fn reserve_shared[T](i32) -> &mut[3][T];
    fn select[T, U](T, U, U) -> U;
}
extern "device" { fn "llvm.nvvm.read.ptx.sreg.tid.x" nvvm_tid_x() -> i32; }
fn compute(out: Img, loop: Loop2D, op: BinOp) -> BinOp {
    for x, y in loop(0, 0, out.width, out.height) {
        out.set(x, y, op(x, y))
    }
    |x, y| out.get(x, y)
}
fn combine_xy(loop_x: Loop1D, loop_y: Loop1D) -> Loop2D {
    |xa, ya, xb, yb, f| loop_y(ya, yb, |y| loop_x(xa, xb, |x| f(x, y)))
}
fn tile_cuda(xs: i32, ys: i32) -> Loop2D {
    |xa, ya, xb, yb, f| {
        let (grid, block) = ((xb - xa, yb - ya, 1), (xs, ys, 1));
        cuda(0, grid, block, || f(cuda_gid_x(), cuda_gid_y()))
    }
}
fn @vec(vec_length: i32) -> Loop1D { |a, b, f| vectorize(vec_length, a, b, f) }
fn @par(num_threads: i32) -> Loop1D { |a, b, f| parallel(num_threads, a, b, f) }
fn g(a: i32, b: i32) -> () {
    for i in range(a, b) {
        if i == 23 {
            continue()
        } else if i == 42 {
            break()
        } else if i == 97 {
            return()
        }
        h(continue);
        print(i)
    }
}
fn explicit(a: i32, b: i32, ret: fn() -> !) -> ! {
    fn body(i: i32, next: fn() -> !) -> ! { next() }
    range(a, b, body, ret)
}
fn @get_42(k: fn(i32) -> !) -> ! { k(42) }
fn @bose_nelson_sort(n: i32, cmp_swp: fn(i32, i32) -> ()) -> () {
    fn @(?n) p_star(i: i32, n: i32) -> () { }
    fn @(?n1 & ?n2) p_bracket(i1: i32, n1: i32, i2: i32, n2: i32) -> () { }
    p_star(0, n)
}
fn traverse(bvh: Bvh) -> () {
    let sorting_network = match bvh.arity { 4 => bose_nelson_sort, 8 => batcher_sort, _ => no_sort };
    let stack = ~[64: i32];
    let shared = reserve_shared[f32](256);
    let v = simd[0.0f, 1.0f, 2.0f, 3.0f];
    let bits = bitcast[u32](1.0f);
    with tmp in scoped(1024) { tmp(0) = 1.0f; }
    for bench() { work() }
    while !done(stack) { step(&mut stack, $budget) }
}
`;

describe('corpus', () => {
  it('the canonical examples of the language parse', () => {
    const m = parseOk(canonical);
    expect(m.items.map((i) => (i as FnDecl).name.name)).toEqual(['pow', 'unroll_step', 'unroll', 'range', 'f']);
    const step = m.items[1] as FnDecl;
    expect(step.params.map((p) => p.filter?.kind ?? null)).toEqual([null, 'always', 'always', null]);
    expect(roundTrip(canonical)).toBe(roundTrip(roundTrip(canonical)));
  });

  it('paper-style programs parse and print back stably', () => {
    expect(parseOk(paperStyle).items).toHaveLength(14);
    expect(roundTrip(roundTrip(paperStyle))).toBe(roundTrip(paperStyle));
  });

  const dir = join(import.meta.dirname, '..', 'conformance', 'pos');
  const programs = readdirSync(dir).filter((f) => f.endsWith('.impala'));
  it.each(programs)('conformance/pos/%s parses without errors and round-trips', (name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    const printed = roundTrip(text);
    expect(roundTrip(printed)).toBe(printed);
  });
});
