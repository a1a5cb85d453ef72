// The state of one `checkProgram` run and the helpers every part of the checker
// shares: annotation, mismatch reporting, coercion and the jump scopes.
import type {
  EnumDecl, Expr, ExprOf, FnDecl, Item, Pattern, StaticDecl, StructDecl, TypeAliasDecl,
} from '../syntax/ast.ts';
import type { DiagnosticSink, Span } from '../syntax/diagnostics.ts';
import { Unifier, showType } from './infer.ts';
import type { FnSig, JumpTarget } from './program.ts';
import { Frame } from './scope.ts';
import { prune, type LocalBinding, type Type } from './types.ts';

/** `return` of a fn or closure, or `break`/`continue` of a loop. */
export type JumpScope =
  | { kind: 'fn'; target: JumpTarget; ret: Type | null }
  | { kind: 'loop'; target: JumpTarget; breakT: Type | null; continueT: Type | null };

export class Checker {
  readonly u = new Unifier();
  /** The frame each item is declared in. */
  readonly declFrame = new Map<object, Frame>();
  readonly sigs = new Map<FnDecl, FnSig>();
  readonly staticTypes = new Map<StaticDecl, Type>();
  readonly structFields = new Map<StructDecl, Type[]>();
  readonly variantFields = new Map<EnumDecl, Type[][]>();
  readonly aliasTypes = new Map<TypeAliasDecl, Type>();
  /** Aliases and statics whose type is being computed (cycle detection). */
  readonly busy = new Set<TypeAliasDecl | StaticDecl>();
  /** Frames holding each item's type parameters. */
  readonly itemFrames = new Map<object, Frame>();
  readonly bindingTypes = new Map<LocalBinding, Type>();
  readonly patternTypes = new Map<Pattern, Type>();
  readonly coercions = new Map<Expr, Type>();
  readonly jumps = new Map<Expr, JumpTarget>();
  readonly forBodies = new Map<ExprOf<'for'>, Type>();
  /** Items still to check (bodies, initialisers, field types), in discovery order. */
  readonly worklist: Item[] = [];
  readonly fns: FnDecl[] = [];
  readonly externs: FnDecl[] = [];
  readonly statics: StaticDecl[] = [];
  /** User extern declarations that stand for the prelude's declaration of the same fn. */
  readonly externAlias = new Map<FnDecl, FnDecl>();
  /** Statics whose initialiser was already checked (to infer their type). */
  readonly checkedStatics = new Set<StaticDecl>();
  /** Unsuffixed or suffixed literals under a unary minus: their range allows one more. */
  readonly negated = new WeakSet<Expr>();

  frame: Frame;
  jumpScopes: JumpScope[] = [];

  constructor(
    readonly sink: DiagnosticSink,
    root: Frame,
  ) {
    this.frame = root;
  }

  /** Called for every item entered into a frame (see collect.ts): queues its check. */
  declared(item: Item | FnDecl, frame: Frame): void {
    this.declFrame.set(item, frame);
    this.worklist.push(item);
    if (item.kind === 'fn') (item.body ? this.fns : this.externs).push(item);
    else if (item.kind === 'static') this.statics.push(item);
  }

  error(span: Span, message: string): void {
    this.sink.error(span, message);
  }

  mismatch(span: Span, expected: Type, found: Type, context = ''): void {
    this.error(span, `mismatched types: expected '${showType(expected)}' but found '${showType(found)}'${context}`);
  }

  /** Sets `e.type` and resolves it at the end of the session. */
  annotate(e: Expr, t: Type): Type {
    e.type = t;
    this.u.site((resolve) => {
      e.type = resolve(e.type!, e.span);
    });
    return t;
  }

  /** Unifies `found` with `expected`, reporting a mismatch at `span`. */
  expect(span: Span, found: Type, expected: Type, context = ''): boolean {
    if (this.u.unify(found, expected)) return true;
    this.mismatch(span, expected, found, context);
    return false;
  }

  /**
   * Checks that a value of type `found` (the value of `e`, when there is an
   * expression) can be used at `expected`, allowing the implicit pointer coercions
   * and `never`. Records a coercion for emit when the representation type changes.
   */
  coerce(e: Expr | null, span: Span, found: Type, expected: Type, context = ''): boolean {
    const f = prune(found);
    const x = prune(expected);
    if (f.tag === 'never') return true;
    if (x.tag === 'ptr' && (f.tag === 'ptr' || f.tag === 'owned' || isStrLit(e))) {
      const ok = this.coercePointer(f, x);
      if (ok === 'same') return true;
      if (ok === 'coerced') {
        if (e) this.recordCoercion(e, expected);
        return true;
      }
      this.mismatch(span, expected, found, context);
      return false;
    }
    return this.expect(span, found, expected, context);
  }

  private coercePointer(f: Type, x: Extract<Type, { tag: 'ptr' }>): 'same' | 'coerced' | false {
    let pointee: Type;
    let changed: boolean;
    if (f.tag === 'ptr') {
      if (f.addrSpace !== x.addrSpace || (x.mutable && !f.mutable)) return false;
      pointee = f.pointee;
      changed = f.mutable !== x.mutable;
    } else if (f.tag === 'owned') {
      if (x.addrSpace !== 0) return false;
      pointee = f.pointee;
      changed = true;
    } else {
      // A string literal: its own address.
      if (x.mutable || x.addrSpace !== 0) return false;
      pointee = f;
      changed = true;
    }
    const fp = prune(pointee);
    const xp = prune(x.pointee);
    if (fp.tag === 'array' && xp.tag === 'indefarray') return this.u.unify(fp.elem, xp.elem) ? 'coerced' : false;
    if (!this.u.unify(fp, xp)) return false;
    return changed ? 'coerced' : 'same';
  }

  private recordCoercion(e: Expr, to: Type): void {
    this.coercions.set(e, to);
    this.u.site((resolve) => this.coercions.set(e, resolve(to, e.span)));
  }

  /** Requires a value that never returns (the body of a continuation). */
  expectDiverges(span: Span, found: Type): void {
    const f = prune(found);
    if (f.tag !== 'never' && f.tag !== 'error') {
      this.error(span, `mismatched types: expected '!' but found '${showType(found)}'`);
    }
  }

  /** Runs `body` with `frame` as the current frame. */
  inFrame<T>(frame: Frame, body: () => T): T {
    const saved = this.frame;
    this.frame = frame;
    try {
      return body();
    } finally {
      this.frame = saved;
    }
  }

  withJump<T>(scope: JumpScope, body: () => T): T {
    this.jumpScopes.push(scope);
    try {
      return body();
    } finally {
      this.jumpScopes.pop();
    }
  }

  /** Checks an item body in its own inference session and jump context. */
  inSession<T>(body: () => T): T {
    const savedJumps = this.jumpScopes;
    this.jumpScopes = [];
    try {
      return this.u.session(body, (span) => this.error(span, 'cannot infer a type here; add a type annotation'));
    } finally {
      this.jumpScopes = savedJumps;
    }
  }
}

function isStrLit(e: Expr | null): boolean {
  return e !== null && e.kind === 'lit' && e.lit.kind === 'str';
}
