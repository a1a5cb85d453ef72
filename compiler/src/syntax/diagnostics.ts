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

/**
 * Errors kept in full; later ones are only counted (rustc and clang stop similarly), so
 * hostile input cannot fill memory or the terminal with diagnostics.
 */
export const maxErrors = 50;

/** Collects diagnostics so a run can report many errors at once. */
export class DiagnosticSink {
  /** At most `maxErrors` errors with their notes and warnings, then one `N more errors` entry. */
  readonly list: Diagnostic[] = [];
  private shownErrors = 0;
  private droppedErrors = 0;
  /** The last entry of `list` once errors were dropped; its message counts them. */
  private overflow: Diagnostic | null = null;

  error(span: Span | null, message: string): void {
    this.add({ severity: 'error', span, message });
  }

  warning(span: Span | null, message: string): void {
    this.add({ severity: 'warning', span, message });
  }

  note(span: Span | null, message: string): void {
    this.add({ severity: 'note', span, message });
  }

  add(d: Diagnostic): void {
    if (this.overflow || (d.severity === 'error' && this.shownErrors === maxErrors)) {
      // Warnings and notes past the cap belong to errors that are not shown.
      if (d.severity === 'error') this.countDropped(1);
      return;
    }
    if (d.severity === 'error') this.shownErrors++;
    this.list.push(d);
  }

  /** Counts `n` errors that are not shown (a sink forwarding to this one dropped them). */
  countDropped(n: number): void {
    if (n === 0) return;
    this.droppedErrors += n;
    if (!this.overflow) this.list.push((this.overflow = { severity: 'error', span: null, message: '' }));
    this.overflow.message = `${this.droppedErrors} more error${this.droppedErrors === 1 ? '' : 's'}`;
  }

  /** Adds this sink's diagnostics to `to`, in the order `list` has them now. */
  forwardTo(to: DiagnosticSink): void {
    for (const d of this.list) if (d !== this.overflow) to.add(d);
    to.countDropped(this.droppedErrors);
  }

  get errorCount(): number {
    return this.shownErrors + this.droppedErrors;
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
 * line under the span (the format README.md gives for the impala command).
 */
export function renderDiagnostic(d: Diagnostic, sources: readonly SourceFile[]): string {
  if (!d.span || d.span.line === 0) return `${d.severity}: ${d.message}`;
  const s = d.span;
  const cols = s.endLine === s.line && s.endCol > s.col ? `${s.col} - ${s.endCol}` : `${s.col}`;
  let out = `${s.file}:${s.line} col ${cols}: ${d.severity}: ${d.message}`;
  const src = sources.find((f) => f.path === s.file);
  const lineText = src ? sourceLine(src, s.line) : undefined;
  if (lineText !== undefined) {
    const full = lineText.replace(/\r$/, '');
    const width = s.endLine === s.line ? Math.max(1, s.endCol - s.col + 1) : Math.max(1, full.length - s.col + 1);
    const { text, col, carets } = excerpt(full, s.col - 1, width);
    out += `\n${text.replace(/\t/g, ' ')}\n${' '.repeat(col)}${'^'.repeat(carets)}`;
  }
  return out;
}

/** Longest source line shown whole; a longer one is cut to a window around the span. */
const maxExcerpt = 120;
/** How much of a cut line is shown before the span. */
const excerptLead = 40;

/** `line` cut to at most `maxExcerpt` characters around `col` (0-based), `…` marking each cut. */
function excerpt(line: string, col: number, width: number): { text: string; col: number; carets: number } {
  if (line.length <= maxExcerpt) return { text: line, col, carets: width };
  const start = Math.max(0, Math.min(col - excerptLead, line.length - maxExcerpt));
  const end = Math.min(line.length, start + maxExcerpt);
  const lead = start > 0 ? '…' : '';
  const text = `${lead}${line.slice(start, end)}${end < line.length ? '…' : ''}`;
  const at = col - start + lead.length;
  return { text, col: at, carets: Math.max(1, Math.min(width, end - col)) };
}

/** Line starts per source text, so rendering many diagnostics does not split a large file each time. */
const lineStarts = new WeakMap<SourceFile, number[]>();

/** Line `n` (1-based) of `src` without its newline, or undefined past the end. */
function sourceLine(src: SourceFile, n: number): string | undefined {
  let starts = lineStarts.get(src);
  if (!starts) {
    starts = [src.text.startsWith('\ufeff') ? 1 : 0]; // columns count after a byte order mark (lexer.ts)
    for (let i = src.text.indexOf('\n'); i >= 0; i = src.text.indexOf('\n', i + 1)) starts.push(i + 1);
    lineStarts.set(src, starts);
  }
  const start = starts[n - 1];
  if (start === undefined) return undefined;
  const next = starts[n];
  return src.text.slice(start, next === undefined ? src.text.length : next - 1);
}

export function renderDiagnostics(ds: readonly Diagnostic[], sources: readonly SourceFile[]): string {
  return ds.map((d) => renderDiagnostic(d, sources)).join('\n');
}
