// Items and the entry points. `parseModule` never throws for bad input: every error is
// reported to the sink and the parser resynchronises, so one run reports many errors.
import type { Abi, Block, EnumDecl, Expr, FieldDecl, FnDecl, Item, Module, StructDecl, VariantDecl } from './ast.ts';
import { rethrowUnlessAbort } from './cursor.ts';
import { DiagnosticSink, joinSpans, type Diagnostic, type SourceFile, type Span } from './diagnostics.ts';
import { lex, type Keyword } from './lexer.ts';
import { freshNodeId } from './node-id.ts';
import { ExprParser } from './parse-expr.ts';

const abis: ReadonlySet<string> = new Set<Abi>(['C', 'device', 'thorin']);
const itemKeywords: readonly Keyword[] = ['struct', 'enum', 'type', 'static', 'extern', 'mod', 'trait', 'impl', 'pub', 'priv'];

interface FnContext {
  isPub: boolean;
  exported: boolean;
  /** Inside `extern "ABI" { }`: a declaration that ends with `;`. */
  abi: Abi | null;
  /** Trait members may omit the body. */
  bodyOptional: boolean;
}

export function parseModule(file: SourceFile, sink: DiagnosticSink): Module {
  return inSourceOrder(sink, (lexed, parsed) => new Parser(file, lexed, parsed).module());
}

/** Parses one expression that must span the whole text; null when there were errors. */
export function parseExpression(file: SourceFile, sink: DiagnosticSink): Expr | null {
  return inSourceOrder(sink, (lexed, parsed) => new Parser(file, lexed, parsed).wholeExpression());
}

/**
 * Lexing runs ahead of parsing; the user reads the errors of both in source order. Each
 * stage's sink is in source order and keeps its first errors, so the first errors of the
 * merge are among them.
 */
function inSourceOrder<T>(sink: DiagnosticSink, parse: (lexed: DiagnosticSink, parsed: DiagnosticSink) => T): T {
  const lexed = new DiagnosticSink();
  const parsed = new DiagnosticSink();
  const result = parse(lexed, parsed);
  const at = (d: Diagnostic) => (d.span ? d.span.line * 1e6 + d.span.col : 0);
  const merged = new DiagnosticSink();
  for (const d of [...lexed.list, ...parsed.list].filter((d) => d.span).sort((a, b) => at(a) - at(b))) merged.add(d);
  // Only the `N more errors` summaries have no span.
  merged.countDropped(lexed.errorCount + parsed.errorCount - merged.errorCount);
  merged.forwardTo(sink);
  return result;
}

class Parser extends ExprParser {
  constructor(
    private readonly file: SourceFile,
    lexed: DiagnosticSink,
    parsed: DiagnosticSink,
  ) {
    super(lex(file, lexed), parsed);
  }

  module(): Module {
    const start = this.tok.span;
    const items = this.itemList(false, () => this.item());
    return { id: freshNodeId(), span: joinSpans(start, this.tok.span), file: this.file.path, items };
  }

  wholeExpression(): Expr | null {
    const errors = this.sink.errorCount;
    try {
      const e = this.expr();
      if (!this.atEof) this.fail('end of expression');
      return this.sink.errorCount === errors ? e : null;
    } catch (e) {
      rethrowUnlessAbort(e);
      return null;
    }
  }

  protected atItemStart(): boolean {
    if (this.is('fn')) return this.isIdent(1) || this.is('@', 1) || this.peek(1).kind === 'str';
    return itemKeywords.some((k) => this.is(k));
  }

  /** Items up to the closing `}` (`inBraces`) or the end of the file. */
  private itemList<T>(inBraces: boolean, parse: () => T): T[] {
    const items: T[] = [];
    while (!this.atEof && !(inBraces && this.is('}'))) {
      const at = this.pos;
      // A stray `;` between items (after a fn body, as the 2018 code has them) is nothing.
      if (this.eat(';')) continue;
      if (this.is('}')) {
        this.reportExpected('item');
        this.advance();
        continue;
      }
      try {
        items.push(parse());
      } catch (e) {
        rethrowUnlessAbort(e);
        this.syncItem();
        if (this.pos === at) this.advance();
      }
    }
    return items;
  }

  protected item(): Item {
    return this.nested(() => {
      const start = this.tok.span;
      const isPub = this.eat('pub');
      if (!isPub) this.eat('priv');
      if (this.is('fn')) return this.fn(start, { isPub, exported: false, abi: null, bodyOptional: false });
      if (this.eat('extern')) {
        if (this.is('fn')) return this.fn(start, { isPub, exported: true, abi: null, bodyOptional: false });
        return this.externBlock(start);
      }
      if (this.eat('static')) {
        const mutable = this.eat('mut');
        const name = this.ident();
        const type = this.eat(':') ? this.type() : null;
        // `static mut x: T;` (typed, no initialiser) starts zeroed; sema requires `mut` for it.
        let init: Expr | null = null;
        if (!(type && this.is(';'))) {
          this.expect('=');
          init = this.expr();
        }
        this.expect(';');
        return this.node<Item>(start, { kind: 'static', name, mutable, type, init, isPub });
      }
      if (this.eat('struct')) return this.struct(start, isPub);
      if (this.eat('enum')) return this.enum(start, isPub);
      if (this.eat('type')) {
        const name = this.ident();
        const typeParams = this.typeParams();
        this.expect('=');
        const type = this.type();
        this.expect(';');
        return this.node<Item>(start, { kind: 'typealias', name, typeParams, type, isPub });
      }
      if (this.eat('mod')) {
        const name = this.ident();
        const items = this.braced(() => this.itemList(true, () => this.item()));
        return this.node<Item>(start, { kind: 'mod', name, items, isPub });
      }
      if (this.eat('trait')) {
        const name = this.ident();
        const typeParams = this.typeParams();
        const items = this.braced(() => this.itemList(true, () => this.member(true)));
        return this.node<Item>(start, { kind: 'trait', name, typeParams, items });
      }
      if (this.eat('impl')) return this.impl(start);
      return this.fail('item');
    });
  }

  private braced<T>(parse: () => T): T {
    this.expect('{');
    const result = parse();
    this.expect('}');
    return result;
  }

  /** An item inside a trait or impl. */
  private member(bodyOptional: boolean): Item {
    if (!this.is('fn') && !(this.is('pub') && this.is('fn', 1))) return this.item();
    const start = this.tok.span;
    const isPub = this.eat('pub');
    return this.fn(start, { isPub, exported: false, abi: null, bodyOptional });
  }

  private fn(start: Span, ctx: FnContext): FnDecl {
    this.expect('fn');
    const filter = this.filter(false);
    const linkName = this.tok.kind === 'str' ? this.stringLiteral('link name') : null;
    const name = this.ident();
    const typeParams = this.typeParams();
    this.expect('(');
    const params = this.list(')', () => this.param('fn'));
    const { retType, diverges } = this.returnType();
    let body: Block | null = null;
    if (ctx.abi !== null) this.expect(';');
    else if (!(ctx.bodyOptional && this.eat(';'))) body = this.block();
    return this.node<FnDecl>(start, {
      kind: 'fn', name, linkName, typeParams, params, retType, diverges, filter, body,
      exported: ctx.exported, abi: ctx.abi, isPub: ctx.isPub,
    });
  }

  private externBlock(start: Span): Item {
    const abiTok = this.tok;
    const abiName = this.stringLiteral("'fn' or an ABI string");
    let abi: Abi = 'C';
    if (abis.has(abiName)) abi = abiName as Abi;
    else this.sink.error(abiTok.span, `expected ABI "C", "device" or "thorin", found ${abiTok.text}`);
    const fns = this.braced(() => this.itemList(true, () => {
      const fnStart = this.tok.span;
      const isPub = this.eat('pub');
      return this.fn(fnStart, { isPub, exported: false, abi, bodyOptional: false });
    }));
    return this.node<Item>(start, { kind: 'extern', abi, fns });
  }

  private struct(start: Span, isPub: boolean): StructDecl {
    const name = this.ident();
    const typeParams = this.typeParams();
    this.expect('{');
    const fields = this.list('}', () => {
      const fieldStart = this.tok.span;
      const fieldPub = this.eat('pub');
      const fieldName = this.ident();
      this.expect(':');
      return this.node<FieldDecl>(fieldStart, { name: fieldName, type: this.type(), isPub: fieldPub });
    });
    return this.node<StructDecl>(start, { kind: 'struct', name, typeParams, fields, isPub });
  }

  private enum(start: Span, isPub: boolean): EnumDecl {
    const name = this.ident();
    const typeParams = this.typeParams();
    this.expect('{');
    const variants = this.list('}', () => {
      const variantName = this.ident();
      const fields = this.eat('(') ? this.list(')', () => this.type()) : [];
      return this.node<VariantDecl>(variantName.span, { name: variantName, fields });
    });
    return this.node<EnumDecl>(start, { kind: 'enum', name, typeParams, variants, isPub });
  }

  /** `impl[T] Trait[T] for Type { }` or `impl Type { }`. */
  private impl(start: Span): Item {
    const typeParams = this.is('[') && this.isIdent(1) && (this.is(',', 2) || this.is(']', 2)) ? this.typeParams() : [];
    const first = this.type();
    const forType = this.eat('for') ? this.type() : null;
    const items = this.braced(() => this.itemList(true, () => this.member(false)));
    return this.node<Item>(start, {
      kind: 'impl', typeParams, trait: forType ? first : null, forType: forType ?? first, items,
    });
  }
}
