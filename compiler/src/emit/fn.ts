// The state of emitting one function-like continuation (a fn instance, a closure,
// a `for` body): the current block and memory token, the stack frame, and the
// helpers that end blocks (jumps, branches, calls). Direct-style code becomes CPS
// here: a call ends the current block and emission continues in its return block.
import type { Continuation, Def, FnType, IRType, StoreHint, World } from '../ir/index.ts';
import type { Span } from '../syntax/diagnostics.ts';
import type { ExprOf, FnDecl, TypeParam } from '../syntax/ast.ts';
import { substType } from '../sema/type-ops.ts';
import type { LocalBinding, Type } from '../sema/types.ts';
import type { Emitter } from './emitter.ts';
import { adaptValue } from './adapt.ts';
import { Block, SsaGraph, type SsaVar } from './ssa.ts';

/** How a local is held: a plain value, an SSA variable, or a stack slot. */
export type Local =
  | { kind: 'value'; def: Def }
  | { kind: 'var'; v: SsaVar }
  | { kind: 'slot'; ptr: Def };

/** A `while` loop: `continue` jumps to its header, `break` to its exit (made on first use). */
export interface Loop {
  readonly header: Block;
  exit: Block | null;
  readonly owner: FnEmitter;
}

/** What `return`, `break` and `continue` of a fn, closure or loop denote. */
export type Target =
  | { kind: 'ret'; def: Def }
  | { kind: 'for'; brk: Def | null; cont: Def | null }
  | { kind: 'while'; loop: Loop };

export type TargetKey = FnDecl | ExprOf<'closure'> | ExprOf<'for'> | ExprOf<'while'>;

/** What a fn instance shares with the closures nested in it. */
export class Body {
  readonly graph: SsaGraph;
  readonly env = new Map<LocalBinding, Local>();
  readonly targets = new Map<TargetKey, Target>();
  readonly emitters: FnEmitter[] = [];
  /** Nested fn items that capture (function.ts's `nestedFnValue`), and whether their body is emitted. */
  readonly nestedFns = new Map<FnDecl, { cont: Continuation; emitted: boolean }>();

  constructor(world: World) {
    this.graph = new SsaGraph(world);
  }

  /** Trivial phis go and unused stack frames are dropped, once everything is emitted. */
  finalize(): void {
    const frames = new Map<Def, Def>();
    for (const fx of this.emitters) fx.unusedFrame(frames);
    this.graph.finalize(frames);
  }
}

export interface FnEmitterOptions {
  /** Stack slots may be requested (not in filters and static initialisers). */
  frame: boolean;
  /** Filters and static initialisers: `&&`, `||` and `if` become `and`, `or` and `select`. */
  pure: boolean;
}

export class FnEmitter {
  cur: Block | null;
  mem: Def;
  readonly entry: Block;
  readonly pure: boolean;
  private readonly frameDef: Def | null;
  private readonly enteredMem: Def | null;

  constructor(
    readonly em: Emitter,
    readonly body: Body,
    readonly cont: Continuation,
    readonly tmap: ReadonlyMap<TypeParam, Type>,
    readonly parent: FnEmitter | null,
    opts: FnEmitterOptions,
  ) {
    const w = em.world;
    this.pure = opts.pure;
    this.entry = body.graph.single(cont, null);
    this.cur = this.entry;
    this.mem = cont.param(0);
    if (opts.frame) {
      // Every activation enters a frame up front; `Body.finalize` removes it when no slot was made.
      const e = w.enter(this.mem);
      this.enteredMem = w.extract(e, 0);
      this.frameDef = w.extract(e, 1);
      this.mem = this.enteredMem;
    } else {
      this.enteredMem = null;
      this.frameDef = null;
    }
    body.emitters.push(this);
  }

  get world(): World {
    return this.em.world;
  }

  get reachable(): boolean {
    return this.cur !== null;
  }

  /** A source type with this instance's type arguments substituted. */
  type(t: Type): Type {
    return substType(t, this.tmap);
  }

  ir(t: Type): IRType {
    return this.em.types.lower(this.type(t));
  }

  bottom(t: IRType): Def {
    return this.world.bottom(t);
  }

  /** Without slots, the memory after `enter` is replaced by the entry's (recorded in `subst`). */
  unusedFrame(subst: Map<Def, Def>): void {
    if (this.frameDef && this.enteredMem && this.frameDef.numUses === 0) subst.set(this.enteredMem, this.cont.param(0));
  }

  // ------------------------------------------------------------ blocks

  enter(b: Block): void {
    this.cur = b;
    this.mem = b.mem;
  }

  private makeCont(name: string, valueTypes: readonly IRType[], span: Span): Continuation {
    const w = this.world;
    const c = w.continuation(w.fnType([w.mem, ...valueTypes]), name);
    c.span = span;
    return c;
  }

  /** A merge point entered by direct jumps (`jumpTo`); params: mem, then `valueTypes`. */
  join(name: string, valueTypes: readonly IRType[], span: Span): Block {
    return this.body.graph.join(this.makeCont(name, valueTypes, span));
  }

  /** A block with the single predecessor `pred` (a branch target, a call's return block). */
  single(name: string, valueTypes: readonly IRType[], pred: Block | null, span: Span): Block {
    return this.body.graph.single(this.makeCont(name, valueTypes, span), pred);
  }

  /** Ends the current block with a jump to the join `target`. */
  jumpTo(target: Block, args: readonly Def[]): void {
    const from = this.cur;
    if (!from) return;
    // A join's param has the type of the joined expression; a fn value may have the other spelling.
    const types = (target.cont.type as FnType).params;
    from.cont.jump(target.cont, [this.mem, ...args.map((a, i) => adaptValue(this.world, a, types[i + 1]!))]);
    this.body.graph.addPred(target, from);
    this.cur = null;
  }

  /** Ends the current block with a two-way branch on a non-constant `cond`; returns the targets. */
  branch(cond: Def, span: Span): [Block, Block] {
    const from = this.cur!;
    const yes = this.single('then', [], from, span);
    const no = this.single('else', [], from, span);
    this.world.branch(from.cont, this.mem, cond, yes.cont, no.cont);
    this.cur = null;
    return [yes, no];
  }

  /** Seals `b` and continues there, or drops it and stays unreachable when nothing enters it. */
  continueAt(b: Block): boolean {
    this.body.graph.seal(b);
    if (b.preds.length === 0) {
      this.world.forget(b.cont);
      this.cur = null;
      return false;
    }
    this.enter(b);
    return true;
  }

  // ------------------------------------------------------------ calls and jumps

  /**
   * Calls `callee` (a returning function) with a fresh return block as its last
   * argument and continues in that block; returns the result.
   */
  call(callee: Def, args: readonly Def[], span: Span): Def {
    const from = this.cur!;
    const ft = callee.type as FnType;
    const retT = ft.params[ft.params.length - 1] as FnType;
    const rb = this.single('ret', retT.params.slice(1), from, span);
    from.cont.jump(callee, [this.mem, ...args, rb.cont]);
    this.enter(rb);
    return this.received(rb);
  }

  /**
   * The value a return block receives: the unit value for none, a tuple for several
   * (a CPS callee `fn(A, fn(X, Y) -> !) -> !` called in direct style returns `(X, Y)`).
   */
  received(rb: Block): Def {
    const vals = rb.cont.params.slice(1);
    return vals.length === 1 ? vals[0]! : this.world.tuple(vals);
  }

  /** Ends the current block by passing control to the continuation value `k`. */
  jumpValue(k: Def, args: readonly Def[]): void {
    const from = this.cur;
    if (!from) return;
    from.cont.jump(k, [this.mem, ...args]);
    this.cur = null;
  }

  /** Passes `v` to the return continuation `ret`, which takes no value for `()`. */
  returnTo(ret: Def, v: Def): void {
    this.jumpValue(ret, (ret.type as FnType).params.length > 1 ? [v] : []);
  }

  // ------------------------------------------------------------ variables and memory

  read(v: SsaVar): Def {
    return this.cur ? this.body.graph.read(v, this.cur) : this.bottom(v.type);
  }

  write(v: SsaVar, d: Def): void {
    if (this.cur) this.body.graph.write(v, this.cur, d);
  }

  load(ptr: Def): Def {
    const w = this.world;
    const l = w.load(this.mem, ptr);
    this.mem = w.extract(l, 0);
    return w.extract(l, 1);
  }

  store(ptr: Def, v: Def, hint?: StoreHint): void {
    this.mem = this.world.store(this.mem, ptr, v, hint);
  }

  /**
   * Heap memory through the `alloc` primop; the result points to `allocated`: a `T`
   * for `~e` (count 1), or an indefinite array `[T]` of `count` elements for `~[n: T]`.
   */
  alloc(allocated: IRType, count: Def): Def {
    const w = this.world;
    const a = w.alloc(this.mem, allocated, count);
    this.mem = w.extract(a, 0);
    return w.extract(a, 1);
  }

  /** A fresh stack slot of this activation; in a pure context (no frame), the expression is not pure. */
  slot(t: IRType): Def {
    if (!this.frameDef) throw new NotPure();
    return this.world.slot(this.frameDef, t);
  }
}

/** An expression emitted without a frame (a filter, a static initialiser) needed one: evalPure reports it as not pure. */
export class NotPure extends Error {}
