// The state of one `checkProgram` run and the helpers every part of the checker
// shares: annotation, mismatch reporting, coercion and the jump scopes.
import type {
  EnumDecl, Expr, ExprOf, FnDecl, Item, Pattern, StaticDecl, StructDecl, TypeAliasDecl,
} from '../syntax/ast.ts';
import type { DiagnosticSink, Span } from '../syntax/diagnostics.ts';
import { Unifier, showType } from './infer.ts';
import type { FnSig, JumpTarget } from './program.ts';
import { Frame } from './scope.ts';
import { cpsForm } from './type-ops.ts';
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
  /**
   * Values that leave their function (`markLeaving`), with the frame of that function's
   * parameters: never auto-borrowed, never `&` of a local declared from that frame on.
   */
  readonly leaving = new Map<Expr, Frame>();
  /** The parameters' frame of the fn or closure whose body is being checked. */
  fnFrame: Frame | null = null;
  /** For every local (parameters included), the `fnFrame` of the body declaring it. */
  readonly localFn = new Map<LocalBinding, Frame | null>();
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
  /**
   * Fn items declared in a block: checked where they are declared, in the session of the
   * body around them, so they see its locals and continuations (control.ts).
   */
  readonly nestedFns = new Set<FnDecl>();
  /** Nested fns that use a local or a continuation of an enclosing body. */
  readonly capturesDirectly = new Set<FnDecl>();
  /** Per nested fn, the nested fns it names from outside its own body (it captures what they capture). */
  readonly nestedUses = new Map<FnDecl, Set<FnDecl>>();
  /** Per nested fn, the latest-declared local of a block it captures (it cannot be used before that). */
  readonly capturedLet = new Map<FnDecl, { name: string; span: Span }>();
  /** Uses of nested fns, checked against `capturedLet` once all bodies are checked. */
  readonly nestedRefs: { decl: FnDecl; span: Span }[] = [];

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
   * expression) can be used at `expected`, allowing the implicit pointer coercions,
   * the auto-borrow of a value where an immutable pointer is expected (`[u8 * 12]` at
   * `&[u8]`, `S` at `&S`) and `never`. Records a coercion for emit when the
   * representation type changes (a borrow always does). `borrow` is false where the
   * value leaves the function (its result, a jump's argument): a borrow there would
   * point into a frame that is gone.
   */
  coerce(e: Expr | null, span: Span, found: Type, expected: Type, context = '', borrow = true): boolean {
    if (e && this.leaving.has(e)) borrow = false;
    const f = prune(found);
    const x = prune(expected);
    if (f.tag === 'never') return true;
    if (x.tag === 'ptr' && (f.tag === 'ptr' || f.tag === 'owned' || isStrLit(e) || (borrow && e !== null && borrowable(f)))) {
      const ok = this.coercePointer(f, x);
      if (ok === 'same') return true;
      if (ok === 'coerced') {
        if (e) this.recordCoercion(e, expected);
        return true;
      }
      this.mismatch(span, expected, found, context);
      return false;
    }
    if (!this.expect(span, found, expected, context)) return false;
    // Both spellings of a continuation of a tuple (`contParams`) are one type; emit adapts
    // a value to the other's representation where they meet.
    if (e && f.tag === 'fn' && x.tag === 'fn' && continuationsDiffer(f, x)) this.recordCoercion(e, expected);
    return true;
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
      // A string literal or a borrowed value: its own address.
      if (x.mutable || x.addrSpace !== 0) return false;
      pointee = f;
      changed = true;
    }
    const inner = this.coercePointee(pointee, x.pointee, !x.mutable);
    return inner === 'same' && changed ? 'coerced' : inner;
  }

  /**
   * Whether a pointee `f` may be seen as `x`: `[T * N]` as `[T]`, and behind an immutable
   * pointer (`deep`) also pointers as their supertypes (`&&mut T` as `&&T`, `&~T` as
   * `&&T`, `&&[T * N]` as `&&[T]`). Nothing is written through an immutable pointer, so
   * this is sound; behind `&mut` the pointee must match exactly.
   */
  private coercePointee(f: Type, x: Type, deep: boolean): 'same' | 'coerced' | false {
    const fp = prune(f);
    const xp = prune(x);
    if (fp.tag === 'array' && xp.tag === 'indefarray') return this.u.unify(fp.elem, xp.elem) ? 'coerced' : false;
    if (deep && xp.tag === 'ptr' && (fp.tag === 'ptr' || fp.tag === 'owned')) return this.coercePointer(fp, xp);
    return this.u.unify(fp, xp) ? 'same' : false;
  }

  /**
   * Marks `e`, a value that leaves its function (the body's value, a jump's argument), and
   * the branch values it is made of (the values of blocks, `if` and `match` branches): a
   * borrow of a local there would point into a frame that is gone. Marked before `e` is
   * checked, so the branches see it when they are coerced.
   */
  markLeaving(e: Expr | null): void {
    const fn = this.fnFrame;
    const todo = e && fn ? [e] : [];
    for (let x = todo.pop(); x; x = todo.pop()) {
      this.leaving.set(x, fn!);
      if (x.kind === 'block' && x.block.expr) todo.push(x.block.expr);
      else if (x.kind === 'if') {
        if (x.then.expr) todo.push(x.then.expr);
        if (x.else) todo.push(x.else);
      } else if (x.kind === 'match') todo.push(...x.arms.map((a) => a.body));
    }
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

  /**
   * Records that the nested fns `via` (a lookup crossed their boundaries) capture the
   * local `binding`, or use the nested fn `fn`.
   */
  crossed(via: readonly FnDecl[], what: { binding: LocalBinding } | { fn: FnDecl }): void {
    for (const d of via) {
      if ('fn' in what) {
        if (!this.nestedFns.has(what.fn) || what.fn === d) continue;
        let uses = this.nestedUses.get(d);
        if (!uses) this.nestedUses.set(d, (uses = new Set()));
        uses.add(what.fn);
        continue;
      }
      this.capturesDirectly.add(d);
      const b = what.binding;
      const latest = this.capturedLet.get(d);
      if ('kind' in b && b.kind === 'bind' && (!latest || before(latest.span, b.span))) this.capturedLet.set(d, { name: b.name.name, span: b.span });
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

/** Whether `a` starts before `b` in the same file. */
export function before(a: Span, b: Span): boolean {
  return a.file === b.file && (a.line < b.line || (a.line === b.line && a.col < b.col));
}

/**
 * A value known not to be a pointer, so it can be borrowed: not an open type (a literal's
 * is a number), not a type parameter (a pointer in some instance).
 */
function borrowable(t: Type): boolean {
  if (t.tag === 'var') return t.lit !== null;
  return t.tag !== 'param' && t.tag !== 'ptr' && t.tag !== 'owned' && t.tag !== 'error' && t.tag !== 'never';
}

function isStrLit(e: Expr | null): boolean {
  return e !== null && e.kind === 'lit' && e.lit.kind === 'str';
}

/** Whether fn types that unify spell a continuation of a tuple differently somewhere (`contParams`). */
function continuationsDiffer(a: Type, b: Type): boolean {
  const [p, q] = [prune(a), prune(b)];
  if (p.tag !== 'fn' || q.tag !== 'fn') return false;
  const [pp, qp] = [cpsForm(p).params, cpsForm(q).params];
  return pp.length !== qp.length || pp.some((t, i) => continuationsDiffer(t, qp[i]!));
}
