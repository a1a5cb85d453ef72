// Patterns of `let` and `match`: `_`, bindings (`x`, `mut x`), literals (negative numbers
// included), tuples and enum variants (`E::A`, `E::B(x, _)`).
import type { Literal, Pattern } from './ast.ts';
import type { Bare } from './cursor.ts';
import { TypeParser } from './parse-type.ts';

export abstract class PatternParser extends TypeParser {
  protected pattern(): Pattern {
    return this.nested(() => this.patternInner());
  }

  private patternInner(): Pattern {
    const start = this.tok.span;
    const done = (fields: Bare<Pattern>): Pattern => this.node<Pattern>(start, fields);
    if (this.eat('mut')) return done({ kind: 'bind', name: this.ident(), mutable: true });
    const t = this.tok;
    if (t.kind === 'ident') {
      if (t.text === '_' && !this.is('::', 1)) {
        this.advance();
        return done({ kind: 'wild' });
      }
      if (!this.is('::', 1) && !this.is('(', 1) && !this.is('[', 1)) {
        return done({ kind: 'bind', name: this.ident(), mutable: false });
      }
      const path = this.path();
      const args = this.eat('(') ? this.list(')', () => this.pattern()) : null;
      return done({ kind: 'variant', path, args });
    }
    if (this.eat('(')) {
      if (this.eat(')')) return done({ kind: 'tuple', elems: [] });
      const first = this.pattern();
      if (this.eat(')')) return first;
      this.expect(',');
      const elems = [first, ...this.list(')', () => this.pattern())];
      return done({ kind: 'tuple', elems });
    }
    const negative = this.eat('-');
    const lit = this.literal();
    if (!lit || (negative && lit.kind !== 'int' && lit.kind !== 'float')) return this.fail(negative ? 'number' : 'pattern');
    if (negative && lit.kind === 'int') lit.value = -lit.value;
    if (negative && lit.kind === 'float') lit.value = -lit.value;
    return done({ kind: 'lit', lit });
  }

  /** A literal token (adjacent strings joined) or `true`/`false`; null without consuming otherwise. */
  protected literal(): Literal | null {
    const t = this.tok;
    switch (t.kind) {
      case 'int':
        this.advance();
        return { kind: 'int', value: t.value, suffix: t.suffix };
      case 'float':
        this.advance();
        return { kind: 'float', value: t.value, suffix: t.suffix };
      case 'char':
        this.advance();
        return { kind: 'char', value: t.value };
      case 'str': {
        const parts: Uint8Array[] = [];
        for (let s = this.tok; s.kind === 'str'; s = this.tok) {
          parts.push(s.value);
          this.advance();
        }
        const value = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
        parts.reduce((offset, p) => (value.set(p, offset), offset + p.length), 0);
        return { kind: 'str', value };
      }
      default:
        if (this.eat('true')) return { kind: 'bool', value: true };
        if (this.eat('false')) return { kind: 'bool', value: false };
        return null;
    }
  }
}
