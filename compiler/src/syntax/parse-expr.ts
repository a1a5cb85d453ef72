// Expressions, blocks and statements. Binary operators are parsed by precedence climbing;
// prefix operators bind looser than postfix ones (`*p.f` is `*(p.f)`) and tighter than
// `as` (`-a as i64` is `(-a) as i64`).
import type {
  AssignOp, BinaryOp, Block, Expr, Filter, Item, MatchArm, Param, Stmt, TypeExpr, UnaryOp,
} from './ast.ts';
import { rethrowUnlessAbort, type Bare } from './cursor.ts';
import type { Span } from './diagnostics.ts';
import { freshNodeId } from './node-id.ts';
import { PatternParser } from './parse-pattern.ts';

/** Higher binds tighter; all binary operators associate to the left. */
const binaryPrecedence: ReadonlyMap<string, number> = new Map([
  ['||', 1], ['&&', 2],
  ['==', 3], ['!=', 3], ['<', 3], ['<=', 3], ['>', 3], ['>=', 3],
  ['|', 4], ['^', 5], ['&', 6], ['<<', 7], ['>>', 7], ['+', 8], ['-', 8], ['*', 9], ['/', 9], ['%', 9],
]);
const castPrecedence = 10;
const assignOps: ReadonlySet<string> = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=']);
const simplePrefixOps: ReadonlySet<string> = new Set(['-', '+', '!', '*', '++', '--']);
const blockLikeKinds: ReadonlySet<string> = new Set(['block', 'if', 'match', 'while', 'for']);

type ParamMode = 'fn' | 'closure' | 'for';

const utf8 = new TextDecoder();

export abstract class ExprParser extends PatternParser {
  /** Set in conditions and generators, where `x {` starts the body, not a struct literal (as in Rust). */
  private noStruct = false;

  protected abstract item(): Item;

  protected expr(): Expr {
    return this.nested(() => this.assignment());
  }

  private exprNode(start: Span, fields: Bare<Expr>): Expr {
    return this.node<Expr>(start, fields);
  }

  private restricted<T>(noStruct: boolean, parse: () => T): T {
    const saved = this.noStruct;
    this.noStruct = noStruct;
    try {
      return parse();
    } finally {
      this.noStruct = saved;
    }
  }

  private unrestrictedExpr(): Expr {
    return this.restricted(false, () => this.expr());
  }

  private assignment(): Expr {
    const lhs = this.binary(1);
    const t = this.tok;
    if (t.kind !== 'punct' || !assignOps.has(t.text)) return lhs;
    this.advance();
    return this.exprNode(lhs.span, { kind: 'assign', op: t.text as AssignOp, lhs, rhs: this.expr() });
  }

  private binary(minPrecedence: number): Expr {
    let lhs = this.unary();
    for (;;) {
      const t = this.tok;
      if (this.is('as') && castPrecedence >= minPrecedence) {
        this.advance();
        lhs = this.exprNode(lhs.span, { kind: 'cast', expr: lhs, target: this.type() });
        continue;
      }
      const precedence = t.kind === 'punct' ? binaryPrecedence.get(t.text) : undefined;
      if (precedence === undefined || precedence < minPrecedence) return lhs;
      this.advance();
      const rhs = this.binary(precedence + 1);
      lhs = this.exprNode(lhs.span, { kind: 'binary', op: t.text as BinaryOp, lhs, rhs });
    }
  }

  private unary(): Expr {
    return this.nested(() => this.unaryInner());
  }

  private unaryInner(): Expr {
    const start = this.tok.span;
    const t = this.tok;
    const prefix = (op: UnaryOp): Expr => this.exprNode(start, { kind: 'unary', op, operand: this.unary(), postfix: false });
    if (t.kind !== 'punct') return this.postfix(this.primary());
    if (simplePrefixOps.has(t.text)) {
      this.advance();
      return prefix(t.text as UnaryOp);
    }
    switch (t.text) {
      case '&&':
        this.split();
        return this.unaryInner();
      case '&':
        this.advance();
        return prefix(this.eat('mut') ? '&mut' : '&');
      case '~':
        this.advance();
        return this.is('[') ? this.tildeArray(start) : prefix('~');
      case '$':
        this.advance();
        return this.exprNode(start, { kind: 'hlt', expr: this.unary() });
      case '?':
        this.advance();
        return this.exprNode(start, { kind: 'known', expr: this.unary() });
      case '@@': {
        this.advance();
        const call = this.unary();
        if (call.kind !== 'call') this.sink.error(call.span, "expected a call after '@@'");
        return this.exprNode(start, { kind: 'run', call });
      }
      case '|': case '||':
        return this.closure(start, null);
      case '@':
        return this.closure(start, this.filter(false));
      default:
        return this.postfix(this.primary());
    }
  }

  /** `~[n: T]` (a heap array) or `~` applied to an array literal. */
  private tildeArray(start: Span): Expr {
    const bracket = this.advance().span;
    const operand = this.restricted(false, (): Expr => {
      if (this.eat(']')) return this.exprNode(bracket, { kind: 'array', elems: [] });
      const first = this.expr();
      if (!this.eat(':')) return this.arrayRest(bracket, first);
      const elemType = this.type();
      this.expect(']');
      return this.exprNode(start, { kind: 'heaparray', size: first, elemType });
    });
    if (operand.kind === 'heaparray') return operand;
    return this.exprNode(start, { kind: 'unary', op: '~', operand: this.postfix(operand), postfix: false });
  }

  private postfix(e: Expr): Expr {
    for (;;) {
      if (this.eat('(')) {
        const args = this.restricted(false, () => this.list(')', () => this.expr()));
        e = this.exprNode(e.span, { kind: 'call', callee: e, args });
      } else if (this.eat('.')) {
        e = this.exprNode(e.span, { kind: 'field', object: e, field: this.ident() });
      } else if (this.is('++') || this.is('--')) {
        const op = this.advance().text as '++' | '--';
        e = this.exprNode(e.span, { kind: 'unary', op, operand: e, postfix: true });
      } else {
        return e;
      }
    }
  }

  private primary(): Expr {
    const start = this.tok.span;
    const lit = this.literal();
    if (lit) return this.exprNode(start, { kind: 'lit', lit });
    if (this.isIdent()) return this.pathExpr(start);
    if (this.is('(')) return this.parenOrTuple(start);
    if (this.eat('[')) return this.restricted(false, () => this.arrayLiteral(start));
    if (this.is('{')) return this.exprNode(start, { kind: 'block', block: this.block() });
    if (this.is('if')) return this.ifExpr();
    if (this.is('match')) return this.matchExpr(start);
    if (this.eat('while')) return this.exprNode(start, { kind: 'while', cond: this.condition(), body: this.block() });
    if (this.is('for') || this.is('with')) return this.forExpr(start);
    if (this.eat('simd')) {
      this.expect('[');
      const elems = this.restricted(false, () => this.list(']', () => this.expr()));
      return this.exprNode(start, { kind: 'simd', elems });
    }
    if (this.is('asm')) return this.asm(start);
    return this.fail('expression');
  }

  private condition(): Expr {
    return this.restricted(true, () => this.expr());
  }

  /** Paths, `return`/`break`/`continue`, and struct literals `S { f: e }`. */
  private pathExpr(start: Span): Expr {
    const path = this.path();
    const [first] = path.segments;
    if (path.segments.length === 1 && first.typeArgs.length === 0) {
      if (first.name === 'return' || first.name === 'break' || first.name === 'continue') {
        return this.exprNode(start, { kind: first.name });
      }
    }
    // `S {}` and `S { f: ...` cannot start a block, so the lookahead only confirms it.
    if (!this.noStruct && this.is('{') && (this.is('}', 1) || (this.isIdent(1) && this.is(':', 2)))) {
      this.advance();
      const fields = this.list('}', () => {
        const name = this.ident();
        this.expect(':');
        return { name, value: this.expr() };
      });
      return this.exprNode(start, { kind: 'struct', path, fields });
    }
    return this.exprNode(start, { kind: 'path', path });
  }

  private parenOrTuple(start: Span): Expr {
    this.advance();
    return this.restricted(false, () => {
      if (this.eat(')')) return this.exprNode(start, { kind: 'tuple', elems: [] });
      const first = this.expr();
      if (this.eat(')')) return first;
      if (!this.eat(',')) this.fail("',' or ')'");
      return this.exprNode(start, { kind: 'tuple', elems: [first, ...this.list(')', () => this.expr())] });
    });
  }

  /** After `[`: `[]`, `[a, b]` or `[e, .. N]`. */
  private arrayLiteral(start: Span): Expr {
    if (this.eat(']')) return this.exprNode(start, { kind: 'array', elems: [] });
    return this.arrayRest(start, this.expr());
  }

  private arrayRest(start: Span, first: Expr): Expr {
    if (this.eat(']')) return this.exprNode(start, { kind: 'array', elems: [first] });
    if (!this.eat(',')) this.fail("',' or ']'");
    if (this.eat('..')) {
      const count = this.intLiteral('repeat count');
      this.expect(']');
      return this.exprNode(start, { kind: 'repeat', value: first, count });
    }
    return this.exprNode(start, { kind: 'array', elems: [first, ...this.list(']', () => this.expr())] });
  }

  /** An `else if` chain is collected in a loop, so long chains do not nest the parser. */
  private ifExpr(): Expr {
    const links: { start: Span; cond: Expr; then: Block }[] = [];
    let otherwise: Expr | null = null;
    for (;;) {
      const start = this.expect('if').span;
      links.push({ start, cond: this.condition(), then: this.block() });
      if (!this.eat('else')) break;
      if (this.is('if')) continue;
      if (!this.is('{')) this.fail("'if' or '{'");
      otherwise = this.exprNode(this.tok.span, { kind: 'block', block: this.block() });
      break;
    }
    for (let k = links.length - 1; k >= 0; k--) {
      const { start, cond, then } = links[k];
      otherwise = this.exprNode(start, { kind: 'if', cond, then, else: otherwise });
    }
    return otherwise!;
  }

  private matchExpr(start: Span): Expr {
    this.advance();
    const scrutinee = this.condition();
    this.expect('{');
    const arms = this.restricted(false, () =>
      this.list('}', () => this.arm(), (arm) => blockLikeKinds.has(arm.body.kind)));
    return this.exprNode(start, { kind: 'match', scrutinee, arms });
  }

  private arm(): MatchArm {
    const start = this.tok.span;
    const pattern = this.pattern();
    this.expect('=>');
    const body = this.atBlockLike() ? this.primary() : this.expr();
    return this.node<MatchArm>(start, { pattern, body });
  }

  /** `for x, y in gen(args) [filter] { }`, `for gen(args) { }`, `with x in gen(args) { }`. */
  private forExpr(start: Span): Expr {
    const isWith = this.advance().text === 'with';
    const params: Param[] = [];
    if (this.is('mut') || (this.isIdent() && (this.is(',', 1) || this.is(':', 1) || this.is('in', 1)))) {
      do params.push(this.param('for'));
      while (this.eat(','));
      this.expect('in');
    }
    const generator = this.condition();
    if (generator.kind !== 'call') {
      this.sink.error(generator.span, `expected a call as the generator of '${isWith ? 'with' : 'for'}'`);
    }
    const filter = this.filter(false);
    return this.exprNode(start, { kind: 'for', params, generator, filter, body: this.block(), isWith });
  }

  private closure(start: Span, filter: Filter | null): Expr {
    let params: Param[] = [];
    const bars = this.tok;
    const noParams = this.eat('||');
    if (!noParams) {
      this.expect('|');
      params = this.list('|', () => {
        const p = this.param('closure');
        // `|x||y, z| e` is `|x| |y, z| e`.
        if (this.is('||')) this.splitOrOr();
        return p;
      });
    }
    const { retType, diverges } = this.returnType();
    // `f(a, ||)`: the 2018 code passes a closure doing nothing as a bare `||` before `)`.
    const body = noParams && retType === null && !diverges && this.is(')')
      ? this.exprNode(bars.span, { kind: 'tuple', elems: [] })
      : this.expr();
    return this.exprNode(start, { kind: 'closure', params, retType, diverges, filter, body });
  }

  /** An optional `-> T` or `-> !` of a function or closure. */
  protected returnType(): { retType: TypeExpr | null; diverges: boolean } {
    if (!this.eat('->')) return { retType: null, diverges: false };
    if (this.eat('!')) return { retType: null, diverges: true };
    return { retType: this.type(), diverges: false };
  }

  /** `asm("template" : outputs : inputs : clobbers : options)`; empty sections may be `::`. */
  private asm(start: Span): Expr {
    this.advance();
    this.expect('(');
    const template = this.stringLiteral('assembler template');
    const outputs = this.asmColon() ? this.asmOperands() : [];
    const inputs = this.asmColon() ? this.asmOperands() : [];
    const clobbers = this.asmColon() ? this.asmStrings() : [];
    const options = this.asmColon() ? this.asmStrings() : [];
    this.expect(')');
    return this.exprNode(start, { kind: 'asm', template, outputs, inputs, clobbers, options });
  }

  private asmColon(): boolean {
    if (this.is('::')) this.split();
    return this.eat(':');
  }

  private asmOperands(): { constraint: string; expr: Expr }[] {
    const out: { constraint: string; expr: Expr }[] = [];
    while (this.tok.kind === 'str') {
      const constraint = this.stringLiteral('constraint');
      this.expect('(');
      out.push({ constraint, expr: this.unrestrictedExpr() });
      this.expect(')');
      if (!this.eat(',')) break;
    }
    return out;
  }

  private asmStrings(): string[] {
    const out: string[] = [];
    while (this.tok.kind === 'str') {
      out.push(this.stringLiteral('string'));
      if (!this.eat(',')) break;
    }
    return out;
  }

  protected stringLiteral(what: string): string {
    const lit = this.tok.kind === 'str' ? this.literal() : null;
    if (lit?.kind !== 'str') return this.fail(what);
    return utf8.decode(lit.value);
  }

  /** `@` (always), `@(expr)`, and with `allowKnown` the parameter form `@?`. */
  protected filter(allowKnown: boolean): Filter | null {
    if (!this.is('@')) return null;
    const start = this.advance().span;
    if (this.eat('(')) {
      const expr = this.unrestrictedExpr();
      this.expect(')');
      return { kind: 'expr', expr, span: this.spanFrom(start) };
    }
    if (allowKnown && this.eat('?')) return { kind: 'known', span: this.spanFrom(start) };
    return { kind: 'always', span: start };
  }

  /**
   * `fn` parameters are `[filter] [mut] name: T` or a bare type (declarations such as
   * `fn f(i32) -> ()`); closure and `for` parameters may omit the type.
   */
  protected param(mode: ParamMode): Param {
    const start = this.tok.span;
    const filter = mode === 'for' ? null : this.filter(true);
    const mutable = this.eat('mut');
    if (mode === 'fn' && !mutable && !(this.isIdent() && this.is(':', 1))) {
      return this.node<Param>(start, { name: null, mutable, type: this.type(), filter });
    }
    const name = this.ident();
    let type: TypeExpr | null = null;
    if (mode === 'fn') this.expect(':');
    if (mode === 'fn' || this.eat(':')) type = this.type();
    return this.node<Param>(start, { name, mutable, type, filter });
  }

  private atBlockLike(): boolean {
    return this.is('{') || this.is('if') || this.is('match') || this.is('while') || this.is('for') || this.is('with');
  }

  protected block(): Block {
    const start = this.expect('{').span;
    return this.nested(() => this.restricted(false, () => {
      const stmts: Stmt[] = [];
      let tail: Expr | null = null;
      while (!this.is('}') && !this.atEof) {
        const at = this.pos;
        try {
          const stmt = this.statement();
          if (stmt === 'empty') continue;
          if (stmt.kind !== 'tail') {
            stmts.push(stmt);
            continue;
          }
          tail = stmt.expr;
          break;
        } catch (e) {
          rethrowUnlessAbort(e);
          this.syncStatement();
          if (this.pos === at) this.advance();
        }
      }
      this.expect('}');
      return { id: freshNodeId(), span: this.spanFrom(start), stmts, expr: tail };
    }));
  }

  /**
   * One statement, or the block's trailing expression. A block-like expression (if, match,
   * while, for, block) at the start of a statement ends there and needs no `;`.
   */
  private statement(): Stmt | { kind: 'tail'; expr: Expr } | 'empty' {
    const start = this.tok.span;
    if (this.eat(';')) return 'empty';
    if (this.eat('let')) {
      const pattern = this.pattern();
      const type = this.eat(':') ? this.type() : null;
      const init = this.eat('=') ? this.expr() : null;
      if (!this.eat(';')) this.fail(init ? "';'" : type ? "'=' or ';'" : "':', '=' or ';'");
      return this.node<Stmt>(start, { kind: 'let', pattern, type, init });
    }
    if (this.atItemStart()) return this.node<Stmt>(start, { kind: 'item', item: this.item() });
    const blockLike = this.atBlockLike();
    const expr = blockLike ? this.primary() : this.expr();
    if (this.eat(';')) return this.node<Stmt>(start, { kind: 'expr', expr, semi: true });
    if (this.is('}')) return { kind: 'tail', expr };
    if (!blockLike) this.fail("';' or '}'");
    return this.node<Stmt>(start, { kind: 'expr', expr, semi: false });
  }
}
