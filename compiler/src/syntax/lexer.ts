// Impala source text -> tokens with exact spans. A lexical error is reported to the
// sink and the lexer still produces a best-effort token, so the parser sees no hole and
// does not pile up follow-up errors.
import type { FloatSuffix, IntSuffix, PrimName } from './ast.ts';
import type { DiagnosticSink, SourceFile, Span } from './diagnostics.ts';

const keywordList = [
  'do', 'else', 'enum', 'extern', 'false', 'fn', 'for', 'with', 'if', 'match', 'impl', 'in', 'let', 'asm', 'mod',
  'priv', 'pub', 'static', 'struct', 'trait', 'true', 'type', 'typeof', 'while', 'simd', 'as', 'mut',
] as const;
export type Keyword = (typeof keywordList)[number];
const keywords: ReadonlySet<string> = new Set(keywordList);

// Longest first, so the first prefix that matches is the maximal munch.
const punctList = [
  '<<=', '>>=',
  '::', '..', '->', '=>', '@@', '==', '!=', '<=', '>=', '<<', '>>', '&&', '||', '++', '--',
  '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=',
  '(', ')', '[', ']', '{', '}', ',', ';', ':', '.', '@', '?', '$', '~', '!', '=', '<', '>', '+', '-', '*', '/',
  '%', '&', '|', '^',
] as const;
export type Punct = (typeof punctList)[number];

/**
 * Primitive type names are contextual: they are lexed as identifiers and only mean a
 * type in type position, so existing code can keep a variable called `half` or `float`.
 */
const primNames: ReadonlyMap<string, PrimName> = new Map<string, PrimName>([
  ...(['bool', 'i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'f16', 'f32', 'f64'] as const).map(
    (p) => [p, p] as [string, PrimName],
  ),
  ['int', 'i32'], ['uint', 'u32'], ['half', 'f16'], ['float', 'f32'], ['double', 'f64'],
]);

export function primName(ident: string): PrimName | null {
  return primNames.get(ident) ?? null;
}

const intSuffixes: ReadonlySet<string> = new Set<IntSuffix>(['i', 'u', 'i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64']);
const floatSuffixes: ReadonlySet<string> = new Set<FloatSuffix>(['h', 'f', 'f16', 'f32', 'f64']);

export type Token =
  | { kind: 'ident'; text: string; span: Span }
  | { kind: 'keyword'; text: Keyword; span: Span }
  | { kind: 'punct'; text: Punct; span: Span }
  | { kind: 'int'; text: string; span: Span; value: bigint; suffix: IntSuffix | FloatSuffix | null }
  | { kind: 'float'; text: string; span: Span; value: number; suffix: FloatSuffix | null }
  /** `value` is the byte. */
  | { kind: 'char'; text: string; span: Span; value: number }
  /** `value` holds the UTF-8 bytes after escapes, without a terminating NUL. */
  | { kind: 'str'; text: string; span: Span; value: Uint8Array }
  | { kind: 'eof'; text: ''; span: Span };

export type TokenKind = Token['kind'];

/** Operators by their first character, longest first. */
const punctsByFirst: ReadonlyMap<string, readonly Punct[]> = punctList.reduce((m, p) => {
  m.set(p[0], [...(m.get(p[0]) ?? []), p]);
  return m;
}, new Map<string, Punct[]>());

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isHexDigit = (c: string | undefined): boolean =>
  c !== undefined && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
const isIdentStart = (c: string | undefined): boolean =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_');
const isIdentChar = (c: string | undefined): boolean => isIdentStart(c) || isDigit(c);

const radixPrefixes: ReadonlyMap<string, number> = new Map([['x', 16], ['o', 8], ['b', 2]]);

const simpleEscapes: ReadonlyMap<string, number> = new Map([
  ['0', 0], ['n', 10], ['t', 9], ['r', 13], ["'", 39], ['"', 34], ['\\', 92],
]);

const utf8Encoder = new TextEncoder();

export function lex(file: SourceFile, sink: DiagnosticSink): Token[] {
  return new Lexer(file, sink).run();
}

class Lexer {
  private readonly text: string;
  private readonly lineStarts: number[] = [0];
  private readonly tokens: Token[] = [];
  private i = 0;

  constructor(
    private readonly file: SourceFile,
    private readonly sink: DiagnosticSink,
  ) {
    this.text = file.text;
    // Editors on Windows start UTF-8 files with a byte order mark; it is not part of the program.
    // Columns count from after it, as the editor shows them.
    if (this.text.startsWith('\ufeff')) this.i = this.lineStarts[0] = 1;
    for (let k = 0; k < this.text.length; k++) if (this.text[k] === '\n') this.lineStarts.push(k + 1);
  }

  run(): Token[] {
    const t = this.text;
    while (this.i < t.length) {
      const c = t[this.i];
      const start = this.i;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') this.i++;
      else if (c === '/' && t[start + 1] === '/') this.lineComment();
      else if (c === '/' && t[start + 1] === '*') this.blockComment();
      else if (isDigit(c) || (c === '.' && isDigit(t[start + 1]) && !this.afterOperand())) this.tokens.push(this.number());
      else if (isIdentStart(c)) this.word();
      else if (c === "'") this.tokens.push(this.charLit());
      else if (c === '"') this.tokens.push(this.strLit());
      else if (!this.punct()) {
        const cp = t.codePointAt(start) ?? 0;
        this.i += cp > 0xffff ? 2 : 1;
        if (this.junk?.end === start) this.junk.end = this.i;
        else {
          this.reportJunk();
          this.junk = { start, end: this.i };
        }
      }
    }
    this.reportJunk();
    this.tokens.push({ kind: 'eof', text: '', span: this.span(this.i, this.i) });
    return this.tokens;
  }

  /**
   * Whether the last token can end an operand: then `.0` is a field (`pair.0`), otherwise
   * a float literal (`.5`, as the 2018 code writes).
   */
  private afterOperand(): boolean {
    const last = this.tokens[this.tokens.length - 1];
    if (!last) return false;
    return last.kind === 'ident' || last.kind === 'int' || last.kind === 'float' || last.kind === 'str' || last.kind === 'char' ||
      (last.kind === 'punct' && (last.text === ')' || last.text === ']' || last.text === '}'));
  }

  /** Span of the source range [start, end); an empty range gets a one-column span. */
  private span(start: number, end: number): Span {
    const a = this.pos(start);
    const b = end > start ? this.pos(end - 1) : a;
    return { file: this.file.path, line: a.line, col: a.col, endLine: b.line, endCol: b.col };
  }

  private pos(offset: number): { line: number; col: number } {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - this.lineStarts[lo] + 1 };
  }

  /** A run of unexpected characters, reported as one error (a line of junk is one mistake). */
  private junk: { start: number; end: number } | null = null;

  private reportJunk(): void {
    if (!this.junk) return;
    const { start, end } = this.junk;
    this.junk = null;
    const chars = [...this.text.slice(start, Math.min(end, start + 40))];
    const shown = chars
      .slice(0, 20)
      .map((c) => {
        const cp = c.codePointAt(0)!;
        return cp < 0x20 || cp === 0x7f ? `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` : c;
      })
      .join('');
    const more = chars.length > 20 || end > start + 40 ? '…' : '';
    this.error(start, end, `unexpected character${chars.length > 1 ? 's' : ''} '${shown}${more}'`);
  }

  private error(start: number, end: number, message: string): void {
    this.sink.error(this.span(start, end), message);
  }

  private lineComment(): void {
    while (this.i < this.text.length && this.text[this.i] !== '\n') this.i++;
  }

  private blockComment(): void {
    const start = this.i;
    const t = this.text;
    let depth = 0;
    while (this.i < t.length) {
      if (t[this.i] === '/' && t[this.i + 1] === '*') {
        depth++;
        this.i += 2;
      } else if (t[this.i] === '*' && t[this.i + 1] === '/') {
        depth--;
        this.i += 2;
        if (depth === 0) return;
      } else this.i++;
    }
    this.error(start, start + 2, 'unterminated block comment');
  }

  private word(): void {
    const start = this.i;
    while (isIdentChar(this.text[this.i])) this.i++;
    const text = this.text.slice(start, this.i);
    const span = this.span(start, this.i);
    if (keywords.has(text)) this.tokens.push({ kind: 'keyword', text: text as Keyword, span });
    else this.tokens.push({ kind: 'ident', text, span });
  }

  private punct(): boolean {
    const t = this.text;
    for (const p of punctsByFirst.get(t[this.i]) ?? []) {
      if (t.startsWith(p, this.i)) {
        const start = this.i;
        this.i += p.length;
        this.tokens.push({ kind: 'punct', text: p, span: this.span(start, this.i) });
        return true;
      }
    }
    return false;
  }

  private number(): Token {
    const t = this.text;
    const start = this.i;
    const radix = t[start] === '0' ? radixPrefixes.get(t[start + 1] ?? '') ?? 10 : 10;
    if (radix !== 10) this.i += 2;
    const digitsStart = this.i;
    const accepts = radix === 16 ? isHexDigit : isDigit;
    while (accepts(t[this.i]) || t[this.i] === '_') this.i++;
    const digits = t.slice(digitsStart, this.i).replace(/_/g, '');
    // `.5`: a float literal may start at its decimal point, as in the 2018 code.
    let validDigits = digits !== '' || t[start] === '.';
    if (!validDigits) this.error(start, this.i, `missing digits after integer base prefix '${t.slice(start, start + 2)}'`);
    for (let k = digitsStart; k < this.i; k++) {
      if (t[k] !== '_' && parseInt(t[k], 16) >= radix) {
        this.error(k, k + 1, `invalid digit '${t[k]}' in ${radix === 8 ? 'octal' : 'binary'} literal`);
        validDigits = false;
      }
    }
    const isFloat = radix === 10 && this.fractionAndExponent();
    const suffixStart = this.i;
    while (isIdentChar(t[this.i])) this.i++;
    const suffix = t.slice(suffixStart, this.i);
    const text = t.slice(start, this.i);
    const span = this.span(start, this.i);
    if (isFloat) {
      const ok = suffix === '' || floatSuffixes.has(suffix);
      if (!ok) this.error(suffixStart, this.i, `invalid suffix '${suffix}' on float literal`);
      const value = Number(t.slice(start, suffixStart).replace(/_/g, ''));
      return { kind: 'float', text, span, value, suffix: ok && suffix !== '' ? (suffix as FloatSuffix) : null };
    }
    const ok = suffix === '' || intSuffixes.has(suffix) || (radix === 10 && floatSuffixes.has(suffix));
    if (!ok) this.error(suffixStart, this.i, `invalid suffix '${suffix}' on integer literal`);
    let value = validDigits ? BigInt(radix === 10 ? digits : `0${t[start + 1]}${digits}`) : 0n;
    if (value >> 64n !== 0n) {
      this.error(start, suffixStart, 'integer literal is too large for 64 bits');
      value = BigInt.asUintN(64, value);
    }
    return { kind: 'int', text, span, value, suffix: ok && suffix !== '' ? (suffix as IntSuffix | FloatSuffix) : null };
  }

  /**
   * After decimal digits (or none, for `.5`): `.5`, `.` followed by a float suffix (`2.f`), a bare `2.`, and
   * an exponent. `0..4` and `1.max` keep the integer and leave the dot to the parser.
   */
  private fractionAndExponent(): boolean {
    const t = this.text;
    let isFloat = false;
    if (t[this.i] === '.' && t[this.i + 1] !== '.') {
      const after = t[this.i + 1];
      if (isDigit(after)) {
        this.i++;
        while (isDigit(t[this.i]) || t[this.i] === '_') this.i++;
        isFloat = true;
      } else if (isIdentStart(after)) {
        let end = this.i + 1;
        while (isIdentChar(t[end])) end++;
        if (floatSuffixes.has(t.slice(this.i + 1, end))) {
          this.i++;
          return true;
        }
      } else {
        this.i++;
        isFloat = true;
      }
    }
    if (t[this.i] === 'e' || t[this.i] === 'E') {
      // The exponent's digits may be separated by `_` from the start (`1.7e_4`, as the 2018 code writes).
      const digitsStart = this.i + (t[this.i + 1] === '+' || t[this.i + 1] === '-' ? 2 : 1);
      let end = digitsStart;
      while (isDigit(t[end]) || t[end] === '_') end++;
      if (/[0-9]/.test(t.slice(digitsStart, end))) {
        this.i = end;
        isFloat = true;
      }
    }
    return isFloat;
  }

  /** Appends one character of a char or string literal body, escapes resolved; false at a bad escape. */
  private literalChar(bytes: number[]): boolean {
    const t = this.text;
    const start = this.i;
    if (t[start] === '\\') {
      const e = t[start + 1];
      const value = e === undefined || e === '\n' ? undefined : simpleEscapes.get(e);
      if (value === undefined) {
        this.i += e === undefined || e === '\n' ? 1 : e.codePointAt(0)! > 0xffff ? 3 : 2;
        this.error(start, this.i, `unknown escape sequence '${t.slice(start, this.i)}'`);
        return false;
      }
      this.i += 2;
      bytes.push(value);
      return true;
    }
    const cp = t.codePointAt(start)!;
    const ch = String.fromCodePoint(cp);
    this.i += ch.length;
    bytes.push(...utf8Encoder.encode(ch));
    return true;
  }

  private charLit(): Token {
    const t = this.text;
    const start = this.i++;
    const done = (value: number): Token => ({
      kind: 'char', text: t.slice(start, this.i), span: this.span(start, this.i), value,
    });
    if (t[this.i] === "'") {
      this.i++;
      this.error(start, this.i, 'empty character literal');
      return done(0);
    }
    if (this.i >= t.length || t[this.i] === '\n') {
      this.error(start, this.i, 'unterminated character literal');
      return done(0);
    }
    const bytes: number[] = [];
    const ok = this.literalChar(bytes);
    if (t[this.i] === "'") {
      this.i++;
      if (ok && bytes.length !== 1) this.error(start, this.i, 'character literal is not a single byte (u8)');
      return done(bytes.length === 1 ? bytes[0] : 0);
    }
    const close = t.indexOf("'", this.i);
    const eol = t.indexOf('\n', this.i);
    if (close >= 0 && (eol < 0 || close < eol)) {
      this.i = close + 1;
      this.error(start, this.i, 'character literal must contain exactly one character');
    } else {
      this.error(start, this.i, 'unterminated character literal');
    }
    return done(0);
  }

  private strLit(): Token {
    const t = this.text;
    const start = this.i++;
    const bytes: number[] = [];
    while (this.i < t.length && t[this.i] !== '"' && t[this.i] !== '\n') this.literalChar(bytes);
    if (t[this.i] === '"') this.i++;
    else this.error(start, this.i, 'unterminated string literal');
    return { kind: 'str', text: t.slice(start, this.i), span: this.span(start, this.i), value: Uint8Array.from(bytes) };
  }
}
