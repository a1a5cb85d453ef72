// The parser's token cursor: lookahead, expectations, `expected X, found Y` errors and
// the skipping that error recovery needs. A parse error is reported once, then unwinds
// with `ParseAbort` to the nearest recovery point (a list element, a statement or an
// item), which skips to a synchronisation token and carries on.
import type { Ident, Node } from './ast.ts';
import { joinSpans, type DiagnosticSink, type Span } from './diagnostics.ts';
import type { Keyword, Punct, Token } from './lexer.ts';
import { freshNodeId } from './node-id.ts';

/** Unwinds to a recovery point after an error was reported. Never escapes the parser. */
class ParseAbort {
  static readonly instance = new ParseAbort();
  private constructor() {}
}

export function rethrowUnlessAbort(e: unknown): void {
  if (!(e instanceof ParseAbort)) throw e;
}

/** A node's own fields, without the `id` and `span` that `Cursor.node` adds. */
export type Bare<N> = N extends unknown ? Omit<N, 'id' | 'span'> : never;

/**
 * Bounds recursion so hostile input gets a diagnostic, not a stack overflow. An expression
 * level costs two (500 nested parentheses fit), a closure four; every later stage handles
 * this depth on node's default stack (tests/driver/robustness.test.ts).
 */
const maxNesting = 1024;

const openers: ReadonlySet<string> = new Set(['(', '[', '{']);
const closers: ReadonlySet<string> = new Set([')', ']', '}']);

function describe(t: Token): string {
  switch (t.kind) {
    case 'eof': return 'end of file';
    case 'ident': return `identifier '${t.text}'`;
    case 'int': case 'float': case 'char': case 'str': return `literal ${t.text}`;
    default: return `'${t.text}'`;
  }
}

export abstract class Cursor {
  protected pos = 0;
  private lastErrorPos = -1;
  private nesting = 0;

  constructor(
    protected readonly tokens: Token[],
    protected readonly sink: DiagnosticSink,
  ) {}

  protected get tok(): Token {
    return this.tokens[this.pos];
  }

  protected peek(k: number): Token {
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)];
  }

  /** Span of the last consumed token. */
  protected get prevSpan(): Span {
    return this.tokens[Math.max(this.pos - 1, 0)].span;
  }

  /** From `start` to the end of the last consumed token. */
  protected spanFrom(start: Span): Span {
    return this.pos > 0 ? joinSpans(start, this.prevSpan) : start;
  }

  protected get atEof(): boolean {
    return this.tok.kind === 'eof';
  }

  /** Completes a node that started at `start` and ends at the last consumed token. */
  protected node<N extends Node>(start: Span, fields: Bare<N>): N {
    return { id: freshNodeId(), span: this.spanFrom(start), ...fields } as unknown as N;
  }

  /**
   * Splits the current `||` into two `|` tokens: in `|x||y, z| e` it ends one closure's
   * parameters and starts the next one's.
   */
  protected splitOrOr(): void {
    const { span } = this.tok;
    const bar = (col: number): Token => ({ kind: 'punct', text: '|', span: { ...span, col, endCol: col } });
    this.tokens.splice(this.pos, 1, bar(span.col), bar(span.col + 1));
  }

  protected advance(): Token {
    const t = this.tok;
    if (t.kind !== 'eof') this.pos++;
    return t;
  }

  protected is(text: Punct | Keyword, k = 0): boolean {
    const t = this.peek(k);
    return (t.kind === 'punct' || t.kind === 'keyword') && t.text === text;
  }

  protected isIdent(k = 0): boolean {
    return this.peek(k).kind === 'ident';
  }

  protected eat(text: Punct | Keyword): boolean {
    if (!this.is(text)) return false;
    this.advance();
    return true;
  }

  protected expect(text: Punct | Keyword): Token {
    if (!this.is(text)) this.fail(`'${text}'`);
    return this.advance();
  }

  protected ident(): Ident {
    const t = this.tok;
    if (t.kind !== 'ident') this.fail('identifier');
    this.advance();
    return { id: freshNodeId(), span: t.span, name: t.text };
  }

  /**
   * Replaces a two-character token by its two halves, so `&&x` reads as `& &x` and
   * `asm("" :: ...)` as two colons.
   */
  protected split(): void {
    const t = this.tok;
    if (t.kind !== 'punct' || t.text.length !== 2) return;
    const s = t.span;
    const first: Token = { kind: 'punct', text: t.text[0] as Punct, span: { ...s, endLine: s.line, endCol: s.col } };
    const second: Token = { kind: 'punct', text: t.text[1] as Punct, span: { ...s, line: s.endLine, col: s.endCol } };
    this.tokens.splice(this.pos, 1, first, second);
  }

  /** Reports `expected X, found Y` at the current token (once per token) and unwinds. */
  protected fail(expected: string): never {
    this.reportExpected(expected);
    throw ParseAbort.instance;
  }

  protected reportExpected(expected: string): void {
    this.report(`expected ${expected}, found ${describe(this.tok)}`);
  }

  /** Reports at the current token, unless an error was already reported there (a cascade). */
  private report(message: string): void {
    if (this.lastErrorPos === this.pos) return;
    this.lastErrorPos = this.pos;
    this.sink.error(this.tok.span, message);
  }

  protected nested<T>(parse: () => T): T {
    if (this.nesting >= maxNesting) {
      this.report('program is nested too deeply');
      throw ParseAbort.instance;
    }
    this.nesting++;
    try {
      return parse();
    } finally {
      this.nesting--;
    }
  }

  protected abstract atItemStart(): boolean;

  /**
   * Skips tokens, keeping brackets balanced, until `stop` holds at depth zero or a closing
   * bracket that belongs to an enclosing construct. Stray `)`/`]` are skipped when
   * `keepClosers` is false, so statement and item recovery always make progress.
   */
  private skip(stop: () => boolean, keepClosers: boolean): void {
    let depth = 0;
    while (!this.atEof) {
      const t = this.tok;
      if (depth === 0 && stop()) return;
      if (t.kind === 'punct' && openers.has(t.text)) depth++;
      else if (t.kind === 'punct' && closers.has(t.text)) {
        if (depth === 0 && (keepClosers || t.text === '}')) return;
        depth = Math.max(0, depth - 1);
      }
      this.advance();
    }
  }

  /** After an error in a statement: to just past the next `;`, or to a `}`, `let` or item. */
  protected syncStatement(): void {
    this.skip(() => this.is(';') || this.is('let') || this.atItemStart(), false);
    this.eat(';');
  }

  /** After an error in an item: to just past the next `;`, or to a `}` or the next item. */
  protected syncItem(): void {
    this.skip(() => this.is(';') || this.atItemStart(), false);
    this.eat(';');
  }

  /**
   * Parses `elem (, elem)* [,] close` after the opening bracket, recovering inside the
   * list: a broken element is skipped up to the next `,` or `close`. `commaOptional`
   * lets an element (a match arm with a block body) stand without a following comma.
   */
  protected list<T>(close: Punct, elem: () => T, commaOptional: (e: T) => boolean = () => false): T[] {
    const out: T[] = [];
    while (!this.is(close)) {
      try {
        const e = elem();
        out.push(e);
        if (this.is(close)) break;
        if (!this.eat(',') && !commaOptional(e)) this.fail(`',' or '${close}'`);
      } catch (e) {
        rethrowUnlessAbort(e);
        this.skip(() => this.is(',') || this.is(close) || (close !== '}' && this.is(';')) || this.atItemStart(), true);
        if (this.eat(',')) continue;
        if (this.is(close)) break;
        throw e;
      }
    }
    this.expect(close);
    return out;
  }
}
