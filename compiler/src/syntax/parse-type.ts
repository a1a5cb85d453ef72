// Types, paths and type parameter lists.
import type { Expr, Path, PathSegment, TypeExpr, TypeParam } from './ast.ts';
import { Cursor, type Bare } from './cursor.ts';
import { primName } from './lexer.ts';
import { freshNodeId } from './node-id.ts';

export abstract class TypeParser extends Cursor {
  protected abstract expr(): Expr;

  protected type(): TypeExpr {
    return this.nested(() => this.typeInner());
  }

  private typeInner(): TypeExpr {
    const start = this.tok.span;
    const t = this.tok;
    const done = (fields: Bare<TypeExpr>): TypeExpr => this.node<TypeExpr>(start, fields);
    if (t.kind === 'ident') {
      const prim = primName(t.text);
      if (t.text === '_' || (prim && !this.is('::', 1))) {
        this.advance();
        return done(prim ? { kind: 'prim', name: prim } : { kind: 'infer' });
      }
      return done({ kind: 'path', path: this.path() });
    }
    if (this.eat('(')) {
      if (this.eat(')')) return done({ kind: 'tuple', elems: [] });
      const first = this.type();
      if (this.eat(')')) return first;
      this.expect(',');
      return done({ kind: 'tuple', elems: [first, ...this.list(')', () => this.type())] });
    }
    if (this.eat('[')) {
      const elem = this.type();
      const size = this.eat('*') ? this.intLiteral('array size') : null;
      this.expect(']');
      return done({ kind: 'array', elem, size });
    }
    if (this.eat('simd')) {
      this.expect('[');
      const elem = this.type();
      this.expect('*');
      const size = this.intLiteral('vector length');
      this.expect(']');
      return done({ kind: 'simd', elem, size });
    }
    if (this.is('&&')) this.split();
    if (this.eat('&')) {
      const mutable = this.eat('mut');
      const addrSpace = this.addrSpace();
      return done({ kind: 'ptr', pointee: this.type(), mutable, addrSpace });
    }
    if (this.eat('~')) return done({ kind: 'owned', pointee: this.type() });
    if (this.eat('fn')) {
      this.expect('(');
      const params = this.list(')', () => this.type());
      return done({ kind: 'fn', params, ret: this.fnTypeReturn() });
    }
    if (this.eat('typeof')) {
      this.expect('(');
      const expr = this.expr();
      this.expect(')');
      return done({ kind: 'typeof', expr });
    }
    return this.fail('type');
  }

  /** `-> T`, `-> !` (null), or nothing, which means `()`. */
  private fnTypeReturn(): TypeExpr | null {
    if (!this.eat('->')) return { id: freshNodeId(), span: this.prevSpan, kind: 'tuple', elems: [] };
    return this.eat('!') ? null : this.type();
  }

  /** `[N]` right after `&` or `&mut`; 0 (generic) when absent. */
  private addrSpace(): number {
    if (!(this.is('[') && this.peek(1).kind === 'int' && this.is(']', 2))) return 0;
    this.advance();
    const n = this.intLiteral('address space');
    this.advance();
    return n;
  }

  protected intLiteral(what: string): number {
    const t = this.tok;
    if (t.kind !== 'int') return this.fail(`integer literal as ${what}`);
    this.advance();
    return Number(t.value);
  }

  protected path(): Path {
    const start = this.tok.span;
    const segments = [this.segment()];
    while (this.eat('::')) segments.push(this.segment());
    return { id: freshNodeId(), span: this.spanFrom(start), segments };
  }

  private segment(): PathSegment {
    const name = this.ident();
    const typeArgs = this.eat('[') ? this.list(']', () => this.type()) : [];
    return { id: freshNodeId(), span: this.spanFrom(name.span), name: name.name, typeArgs };
  }

  /** `[T, U]` after an item name; empty when absent. */
  protected typeParams(): TypeParam[] {
    if (!this.eat('[')) return [];
    return this.list(']', () => {
      const name = this.ident();
      return { id: freshNodeId(), span: name.span, name: name.name };
    });
  }
}
