// Source positions and user-facing diagnostics. Every layer reports user errors
// through a DiagnosticSink; nothing throws for a user error.

export interface SourceFile {
  path: string;
  text: string;
}

/** 1-based line and column; `endCol` is inclusive, on `endLine`. */
export interface Span {
  file: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

export type Severity = 'error' | 'warning' | 'note';

export interface Diagnostic {
  severity: Severity;
  span: Span | null;
  message: string;
}

export const noSpan: Span = { file: '<builtin>', line: 0, col: 0, endLine: 0, endCol: 0 };

export function joinSpans(a: Span, b: Span): Span {
  return { file: a.file, line: a.line, col: a.col, endLine: b.endLine, endCol: b.endCol };
}

/** Collects diagnostics so a run can report many errors at once. */
export class DiagnosticSink {
  readonly list: Diagnostic[] = [];

  error(span: Span | null, message: string): void {
    this.list.push({ severity: 'error', span, message });
  }

  warning(span: Span | null, message: string): void {
    this.list.push({ severity: 'warning', span, message });
  }

  note(span: Span | null, message: string): void {
    this.list.push({ severity: 'note', span, message });
  }

  get errorCount(): number {
    return this.list.filter((d) => d.severity === 'error').length;
  }

  get hasErrors(): boolean {
    return this.errorCount > 0;
  }
}

/** Thrown only to abort a stage after its errors were already reported to a sink. */
export class CompileError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => d.message).join('\n'));
  }
}

/**
 * Renders as `file:line col c1 - c2: error: message`, then the source line and a caret
 * line under the span (IMPALA.md, Diagnostics).
 */
export function renderDiagnostic(d: Diagnostic, sources: readonly SourceFile[]): string {
  if (!d.span || d.span.line === 0) return `${d.severity}: ${d.message}`;
  const s = d.span;
  const cols = s.endLine === s.line && s.endCol > s.col ? `${s.col} - ${s.endCol}` : `${s.col}`;
  let out = `${s.file}:${s.line} col ${cols}: ${d.severity}: ${d.message}`;
  const src = sources.find((f) => f.path === s.file);
  const lineText = src?.text.split('\n')[s.line - 1];
  if (lineText !== undefined) {
    const text = lineText.replace(/\t/g, ' ').replace(/\r$/, '');
    const width = s.endLine === s.line ? Math.max(1, s.endCol - s.col + 1) : Math.max(1, text.length - s.col + 1);
    out += `\n${text}\n${' '.repeat(Math.max(0, s.col - 1))}${'^'.repeat(width)}`;
  }
  return out;
}

export function renderDiagnostics(ds: readonly Diagnostic[], sources: readonly SourceFile[]): string {
  return ds.map((d) => renderDiagnostic(d, sources)).join('\n');
}
