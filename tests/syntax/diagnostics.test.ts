// The diagnostic sink's cap and the rendering of long source lines (issue 10): hostile
// input gets the first errors and a count, with excerpts of bounded width.
import { describe, expect, it } from 'vitest';
import { DiagnosticSink, maxErrors, renderDiagnostic, renderDiagnostics, type Span } from '../../compiler/src/syntax/diagnostics.ts';
import { parseModule } from '../../compiler/src/syntax/parser.ts';

const at = (line: number, col: number, endCol = col): Span => ({ file: 'f.impala', line, col, endLine: line, endCol });

describe('DiagnosticSink', () => {
  it('keeps the first errors with their notes and counts the rest in one last entry', () => {
    const sink = new DiagnosticSink();
    for (let i = 1; i <= maxErrors + 7; i++) {
      sink.error(at(i, 1), `error ${i}`);
      sink.note(at(i, 2), `note ${i}`);
    }
    expect(sink.errorCount).toBe(maxErrors + 7);
    expect(sink.list.filter((d) => d.severity === 'error' && d.span)).toHaveLength(maxErrors);
    expect(sink.list.filter((d) => d.severity === 'note')).toHaveLength(maxErrors);
    expect(sink.list.at(-1)).toEqual({ severity: 'error', span: null, message: '7 more errors' });
    expect(sink.list).toHaveLength(2 * maxErrors + 1);
  });

  it('forwards kept diagnostics and the dropped count to another sink', () => {
    const from = new DiagnosticSink();
    for (let i = 1; i <= maxErrors + 1; i++) from.error(at(i, 1), `error ${i}`);
    const to = new DiagnosticSink();
    to.warning(at(1, 1), 'a warning first');
    from.forwardTo(to);
    expect(to.errorCount).toBe(maxErrors + 1);
    expect(to.list[0]!.message).toBe('a warning first');
    expect(to.list.at(-1)!.message).toBe('1 more error');
  });

  it('gives the parser\'s first errors in source order when lexing and parsing both report many', () => {
    const sink = new DiagnosticSink();
    parseModule({ path: 'f.impala', text: `${'fn ) # '.repeat(200)}\n` }, sink);
    const shown = sink.list.filter((d) => d.span);
    expect(shown).toHaveLength(maxErrors);
    const cols = shown.map((d) => d.span!.col);
    expect(cols).toEqual([...cols].sort((a, b) => a - b));
    expect(cols[0]).toBeLessThan(10);
    expect(sink.list.at(-1)!.message).toMatch(/^\d+ more errors$/);
  });
});

describe('rendering', () => {
  it('shows a short line whole, with carets under the span', () => {
    const text = 'fn main() -> i32 { x }\n';
    expect(renderDiagnostic({ severity: 'error', span: at(1, 20), message: 'm' }, [{ path: 'f.impala', text }])).toBe(
      'f.impala:1 col 20: error: m\nfn main() -> i32 { x }\n                   ^',
    );
  });

  it('cuts a long line to a window around the span, marking each cut', () => {
    const text = `${'a'.repeat(5000)}XYZ${'b'.repeat(5000)}\nnext`;
    const out = renderDiagnostic({ severity: 'error', span: at(1, 5001, 5003), message: 'm' }, [{ path: 'f.impala', text }]);
    const [, excerpt, carets] = out.split('\n');
    expect(excerpt!.startsWith('…a')).toBe(true);
    expect(excerpt!.endsWith('b…')).toBe(true);
    expect(excerpt!.length).toBeLessThan(130);
    expect(excerpt!.slice(carets!.indexOf('^'), carets!.lastIndexOf('^') + 1)).toBe('XYZ');
  });

  it('shows the start of a long line for a span near its start, and the line after a byte order mark', () => {
    const text = `\ufeffx${'y'.repeat(1000)}\n`;
    const out = renderDiagnostics([{ severity: 'error', span: at(1, 1), message: 'm' }], [{ path: 'f.impala', text }]);
    const [, excerpt, carets] = out.split('\n');
    expect(excerpt!.startsWith('xyy')).toBe(true);
    expect(excerpt!.endsWith('…')).toBe(true);
    expect(carets).toBe('^');
  });
});
