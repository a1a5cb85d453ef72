import { describe, expect, it } from 'vitest';
import type { Expr, FnDecl } from '../../compiler/src/syntax/ast.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { parseModule } from '../../compiler/src/syntax/parser.ts';
import { checkProgram } from '../../compiler/src/sema/check.ts';
import { allExprs, check, checkClean, preludeSource } from './helpers.ts';

function calleeDecl(exprs: Expr[], name: string): FnDecl {
  const e = exprs.find((x) => x.kind === 'path' && x.path.segments[0]!.name === name);
  if (e?.kind !== 'path' || e.res?.kind !== 'fn') throw new Error(`no fn use of ${name}`);
  return e.res.decl;
}

describe('the prelude', () => {
  it('is visible to user code', () => {
    const c = checkClean('fn main() -> () { for i in range(0, 4) { print_i32(i); } }');
    expect(calleeDecl(allExprs(c.user), 'range').span.file).toBe('prelude.impala');
  });

  it('is shadowed by user items of the same name, while its own uses stay inside it', () => {
    const c = checkClean(`
      fn range(a: i32, b: i32, body: fn(i32) -> ()) -> () { if a < b { body(a); range(a + 1, b, body) } }
      fn unroll_step(x: f32) -> f32 { x }
      fn main() -> () { for i in range(0, 4) { } let y = unroll_step(1.0f); }
    `);
    const exprs = allExprs(c.user);
    expect(calleeDecl(exprs, 'range').span.file).toBe('test.impala');
    const preludeExprs = allExprs(c.program.modules[0]!);
    expect(calleeDecl(preludeExprs, 'unroll_step').span.file).toBe('prelude.impala');
  });

  it('accepts a user extern declaration that agrees with the prelude and resolves it to the prelude decl', () => {
    const c = checkClean(`
      extern "thorin" { fn select[A, B](A, B, B) -> B; fn bitcast[D, S](S) -> D; }
      extern "C" { fn anydsl_print_i32(i32) -> (); }
      fn main() -> () { let x = select(true, 1, 2); anydsl_print_i32(x); let b = bitcast[f32](x); }
    `);
    const exprs = allExprs(c.user);
    expect(calleeDecl(exprs, 'select').span.file).toBe('prelude.impala');
    expect(calleeDecl(exprs, 'anydsl_print_i32').span.file).toBe('prelude.impala');
    expect(c.program.externs.filter((d) => d.span.file === 'test.impala')).toEqual([]);
  });

  it('rejects a user extern declaration that disagrees with the prelude', () => {
    const c = check('extern "thorin" { fn sizeof[T]() -> u8; }');
    expect(c.errors).toEqual(["1:22: declaration of 'sizeof' does not match the prelude's 'fn[T]() -> i32'"]);
  });

  it("accepts the 2018 runtime's sizeof[T]() -> i64, whose calls are i64", () => {
    const c = check('extern "thorin" { fn sizeof[T]() -> i64; } fn f() -> i64 { sizeof[f64]() * 2i64 }');
    expect(c.errors).toEqual([]);
  });

  it('lets several user modules see each other', () => {
    const sink = new DiagnosticSink();
    const lib = parseModule({ path: 'lib.impala', text: 'fn lib_fn() -> i32 { entry_value() }' }, sink);
    const entry = parseModule({ path: 'entry.impala', text: 'fn entry_value() -> i32 { 3 } fn main() -> i32 { lib_fn() }' }, sink);
    const p = checkProgram([parseModule(preludeSource, sink), lib, entry], sink);
    expect(sink.list).toEqual([]);
    expect(p.main?.span.file).toBe('entry.impala');
  });

  it('reports duplicates across user modules', () => {
    const sink = new DiagnosticSink();
    const a = parseModule({ path: 'a.impala', text: 'fn twice() -> () {}' }, sink);
    const b = parseModule({ path: 'b.impala', text: 'fn twice() -> () {}' }, sink);
    checkProgram([parseModule(preludeSource, sink), a, b], sink);
    expect(sink.list.map((d) => `${d.span?.file}:${d.span?.line}:${d.span?.col}: ${d.message}`)).toEqual([
      "b.impala:1:4: duplicate definition of 'twice'",
    ]);
  });
});

describe('a prelude of several modules', () => {
  it('puts all leading prelude modules in the outer scope', () => {
    const sink = new DiagnosticSink();
    const core = parseModule({ path: 'core.impala', text: 'fn helper() -> i32 { more() }' }, sink);
    const math = parseModule({ path: 'math.impala', text: 'fn more() -> i32 { 1 } fn sq(x: f32) -> f32 { x * x }' }, sink);
    const user = parseModule({ path: 'user.impala', text: 'fn sq(x: i32) -> i32 { x * x } fn main() -> i32 { sq(helper()) }' }, sink);
    checkProgram([core, math, user], sink, { preludeModules: 2 });
    expect(sink.list).toEqual([]);
  });
});
