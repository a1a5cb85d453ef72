import { describe, expect, it } from 'vitest';
import { someType } from '../../compiler/src/sema/type-ops.ts';
import { allExprs, check, checkClean, preludeSource } from './helpers.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { parseModule } from '../../compiler/src/syntax/parser.ts';
import { checkProgram } from '../../compiler/src/sema/check.ts';

const program = `
fn @(?n) pow(x: i32, n: i32) -> i32 {
    if n == 0 { 1 } else if n % 2 == 0 { let r = pow(x, n / 2); r * r } else { x * pow(x, n - 1) }
}
fn f(@(?a) a: i32, @(?a) b: i32, @(b < 5) c: i32) -> i32 { a + b + c }
fn @(?a & ?b & ?s) unroll_step2(a: i32, @b: i32, @s: i32, f: fn(i32) -> ()) -> () {
    if a < b { @@f(a); unroll_step2(a + s, b, s, f) }
}
struct S[T] { x: T, y: i32 }
enum E[T] { A, B(T, i32) }
type V = [f32 * 4];
mod m { pub fn g(x: f32) -> f32 { x * 2.0f } pub struct P { a: i64 } }
static mut COUNTER: i32 = 0;
static K = 42u8;
fn id[T](x: T) -> T { x }
fn sum(a: &[f32], n: i32) -> f32 { a(n) + a(0) }
fn k(c: fn(i32) -> !) -> ! { c(1) }
fn get_42(ret: fn(i32) -> !) -> ! { ret(42) }
extern fn exported(x: f32) -> f32 { x + 1.0f }
fn main() -> i32 {
    let s = S { x: 1.5f, y: 2 };
    let s2 = S[i64] { x: 3, y: 4 };
    let e = E::B(1.0, 2);
    let v = match e { E::A => 0, E::B(_, y) => y };
    let arr = [1.0f, 2.0f, 3.0f];
    let z = sum(&arr, 1);
    let mut q: u8 = 3;
    q += 1;
    let a = id(3i64) + 1;
    let b = id[f32](2.0f);
    let w = m::g(b) + z;
    let pp = m::P { a: 4 };
    let t = (1, 2.0, true);
    let t0 = t(0) + t(2) as i32;
    COUNTER = COUNTER + 1;
    let mut total = 0;
    for i in range(0, 10) {
        if i == 3 { continue() }
        if i == 8 { break() }
        if i == 9 { return(1) }
        total += i;
    }
    while total > 0 { total--; }
    let clos = |x: i32| x * 2;
    let y = clos(3);
    let vv = simd[1.0f, 2.0f, 3.0f, 4.0f];
    let vs = vv * vv;
    let lane = vs(2);
    let bits = bitcast[u32](lane);
    let size = sizeof[f64]();
    let sel = select(true, 1, 2);
    let ret = return;
    let p2 = &mut total;
    *p2 = 3;
    let h: V = [1.0f, .. 4];
    let heap = ~[10: f32];
    let known = ?y;
    let hidden = $y;
    let neg = -128i8;
    print_string("hello");
    if false { get_42(|r| ret(r)) }
    let u = pow(2, 4) + f(3, 4, 5) + v + s.y + s2.y + (s2.x as i32) + sel + size + (K as i32) + t0 + y;
    u
}
`;

describe('well-typed programs', () => {
  it('check without errors', () => {
    checkClean(program);
  });

  it('annotate every expression with a type free of inference variables', () => {
    const c = checkClean(program);
    const exprs = allExprs(c.user);
    expect(exprs.length).toBeGreaterThan(200);
    for (const e of exprs) {
      expect(e.type, `expr at ${e.span.line}:${e.span.col}`).toBeDefined();
      expect(someType(e.type!, (t) => t.tag === 'var'), `expr at ${e.span.line}:${e.span.col}`).toBe(false);
    }
  });

  it('check the prelude on its own without errors', () => {
    const sink = new DiagnosticSink();
    checkProgram([parseModule(preludeSource, sink)], sink);
    expect(sink.list).toEqual([]);
  });

  it('list fns, externs, exports, statics and main', () => {
    const c = checkClean(program);
    const names = (ds: { name: { name: string } }[]) => ds.map((d) => d.name.name);
    expect(c.program.main?.name.name).toBe('main');
    expect(names(c.program.exports)).toEqual(['exported']);
    expect(names(c.program.statics)).toEqual(['COUNTER', 'K']);
    expect(names(c.program.fns)).toContain('pow');
    expect(names(c.program.fns)).toContain('g');
    expect(names(c.program.externs)).toContain('bitcast');
    // The prelude comes first.
    expect(c.program.fns[0]!.span.file).toBe('prelude.impala');
  });

  it('reports nothing for a program without main', () => {
    const c = check('fn f() -> () {}');
    expect(c.errors).toEqual([]);
    expect(c.program.main).toBeNull();
  });
});
