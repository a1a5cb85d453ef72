// Small wrappers so syntax tests read as source text in, printed tree or diagnostics out.
import {
  DiagnosticSink, lex, parseExpression, parseModule, printExpr, printModule,
  type Diagnostic, type Expr, type Module, type Token,
} from '../../compiler/src/syntax/index.ts';

export function parse(text: string): { module: Module; diagnostics: Diagnostic[] } {
  const sink = new DiagnosticSink();
  const module = parseModule({ path: 'test.impala', text }, sink);
  return { module, diagnostics: sink.list };
}

/** Parses a module that must be free of errors. */
export function parseOk(text: string): Module {
  const { module, diagnostics } = parse(text);
  if (diagnostics.length) throw new Error(diagnostics.map((d) => `${d.span?.line}:${d.span?.col} ${d.message}`).join('\n'));
  return module;
}

export function expr(text: string): Expr {
  const sink = new DiagnosticSink();
  const e = parseExpression({ path: 'test.impala', text }, sink);
  if (!e) throw new Error(sink.list.map((d) => d.message).join('\n'));
  return e;
}

/** The fully parenthesised form of one expression. */
export function paren(text: string): string {
  return printExpr(expr(text));
}

/** A module printed back; for forms that are easiest to check as text. */
export function roundTrip(text: string): string {
  return printModule(parseOk(text));
}

/** `line:col message` of every diagnostic of a module. */
export function errors(text: string): string[] {
  return parse(text).diagnostics.map((d) => `${d.span?.line}:${d.span?.col} ${d.message}`);
}

export function tokens(text: string): { tokens: Token[]; diagnostics: Diagnostic[] } {
  const sink = new DiagnosticSink();
  return { tokens: lex({ path: 'test.impala', text }, sink), diagnostics: sink.list };
}

/** The body's trailing expression of the first function. */
export function tail(text: string): Expr {
  const item = parseOk(text).items[0];
  if (item.kind !== 'fn' || !item.body?.expr) throw new Error('no trailing expression');
  return item.body.expr;
}
