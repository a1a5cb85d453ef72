// Parses and checks Impala snippets for the sema tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Expr, Module } from '../../compiler/src/syntax/ast.ts';
import { DiagnosticSink, type SourceFile } from '../../compiler/src/syntax/diagnostics.ts';
import { parseModule } from '../../compiler/src/syntax/parser.ts';
import { checkProgram, type Program } from '../../compiler/src/sema/check.ts';
import { typeToString, type LocalBinding } from '../../compiler/src/sema/types.ts';

const preludePath = fileURLToPath(new URL('../../compiler/lib/prelude.impala', import.meta.url));
export const preludeSource: SourceFile = { path: 'prelude.impala', text: readFileSync(preludePath, 'utf8') };

/** A tiny prelude for tests that must not depend on the real one. */
export const miniPrelude: SourceFile = {
  path: 'mini-prelude.impala',
  text: `
extern "thorin" {
    fn bitcast[D, S](S) -> D;
    fn select[T, U](T, U, U) -> U;
    fn sizeof[T]() -> i32;
    fn undef[T]() -> T;
}
fn @range(a: i32, b: i32, f: fn(i32) -> ()) -> () { if a < b { f(a); range(a + 1, b, f) } }
`,
};

export interface Checked {
  program: Program;
  user: Module;
  /** Diagnostics as `line:col: message`, in report order. */
  errors: string[];
}

/** Checks `src` after `prelude` (the real one unless given); parse errors fail the test. */
export function check(src: string, prelude: SourceFile = preludeSource): Checked {
  const user: SourceFile = { path: 'test.impala', text: src };
  const parseSink = new DiagnosticSink();
  const modules = [parseModule(prelude, parseSink), parseModule(user, parseSink)];
  if (parseSink.hasErrors) throw new Error(`parse errors: ${parseSink.list.map((d) => d.message).join('; ')}`);
  const sink = new DiagnosticSink();
  const program = checkProgram(modules, sink);
  const errors = sink.list.map((d) => `${d.span?.file === 'test.impala' ? '' : `${d.span?.file}:`}${d.span?.line}:${d.span?.col}: ${d.message}`);
  return { program, user: modules[1]!, errors };
}

/** Checks a program that must be free of errors. */
export function checkClean(src: string, prelude?: SourceFile): Checked {
  const c = check(src, prelude);
  if (c.errors.length) throw new Error(`unexpected errors:\n${c.errors.join('\n')}`);
  return c;
}

const typeKeys = new Set(['type', 'retType', 'target', 'elemType', 'typeArgs', 'trait', 'forType']);

/** Every expression of a module (including those in filters and `typeof`). */
export function allExprs(m: Module): Expr[] {
  const out: Expr[] = [];
  const visit = (v: unknown, mode: 'expr' | 'type' | 'pattern'): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x, mode);
      return;
    }
    if (typeof v !== 'object' || v === null || v instanceof Uint8Array) return;
    const o = v as Record<string, unknown>;
    if ('tag' in o) return; // a sema Type
    if (mode === 'expr' && 'id' in o && 'kind' in o && 'span' in o && isExprKind(o.kind as string, o)) out.push(o as unknown as Expr);
    for (const [k, x] of Object.entries(o)) {
      if (k === 'res' || k === 'span') continue;
      // Declared fields (struct and variant declarations) hold types; a struct literal's hold values.
      const isType = typeKeys.has(k) || (k === 'fields' && !('path' in o));
      visit(x, k === 'pattern' ? 'pattern' : isType ? 'type' : k === 'expr' ? 'expr' : mode);
    }
  };
  visit(m.items, 'expr');
  return out;
}

const exprKinds = new Set([
  'lit', 'path', 'call', 'field', 'tuple', 'array', 'repeat', 'heaparray', 'simd', 'struct', 'unary', 'binary', 'assign',
  'cast', 'if', 'match', 'while', 'for', 'block', 'closure', 'return', 'break', 'continue', 'run', 'hlt', 'known', 'asm',
]);

function isExprKind(kind: string, o: Record<string, unknown>): boolean {
  // A struct declaration shares its kind with struct literals.
  return exprKinds.has(kind) && (kind !== 'struct' || 'path' in o);
}

/** The types of the expressions whose source text starts at `line:col`, outermost first. */
export function typesAt(m: Module, line: number, col: number): string[] {
  return allExprs(m)
    .filter((e) => e.span.line === line && e.span.col === col)
    .map((e) => (e.type ? typeToString(e.type) : '<none>'));
}

/** The type of the binding named `name` (a pattern or a parameter). */
export function bindingType(c: Checked, name: string): string {
  const found: LocalBinding[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (typeof v !== 'object' || v === null || v instanceof Uint8Array || 'tag' in v) return;
    const o = v as Record<string, unknown>;
    const isBinding = o.kind === 'bind' || ('filter' in o && 'mutable' in o);
    if (isBinding && (o.name as { name: string } | null)?.name === name) found.push(o as unknown as LocalBinding);
    for (const [k, x] of Object.entries(o)) if (k !== 'res' && k !== 'span') visit(x);
  };
  visit(c.user.items);
  if (found.length !== 1) throw new Error(`expected one binding '${name}', found ${found.length}`);
  return typeToString(c.program.bindingType(found[0]!));
}
