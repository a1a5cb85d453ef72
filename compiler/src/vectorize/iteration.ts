// The state of the code for one vectorised iteration, shared by the two ways of
// emitting the body's control flow (linearize.ts for divergent code, uniform.ts
// for code whose branches all lanes take alike): the builder, the vectorised
// value of every old def reached so far, and the lanes on their way to each block
// not emitted yet, with the arguments they bring.
import { type Continuation, type Def, Param, PrimOp, type StoreHint, litValue } from '../ir/defs.ts';
import type { IRType, TupleType } from '../ir/types.ts';
import type { Builder } from './builder.ts';
import type { Calls } from './calls.ts';
import { type BodyCfg, EXIT, type Target, type Terminator } from './cfg.ts';
import type { Divergence } from './divergence.ts';
import { unsupported, VectorizeError } from './error.ts';
import type { Loop, LoopForest } from './loops.ts';
import type { Memory } from './memory.ts';
import type { Simd } from './simd.ts';
import { widen } from './widen.ts';

/** What every iteration of one body shares: its graph and the analyses. */
export interface BodyInfo {
  readonly cfg: BodyCfg;
  readonly forest: LoopForest;
  readonly div: Divergence;
  readonly simd: Simd;
  readonly memory: Memory;
  readonly calls: Calls;
  /** Per loop, the roots (block params, effects) defined in it that blocks outside it read. */
  readonly liveOut: ReadonlyMap<Loop, readonly Def[]>;
}

/** The lanes that took the edges into a block so far, and the blended arguments. */
export interface Incoming {
  readonly mask: Def;
  readonly args: readonly Def[];
}

export class Iteration {
  /** Old def to new def, innermost last: a loop's body does not dominate the code after the loop. */
  private readonly scopes: Map<Def, Def>[];
  /** Addresses of lane storage for local variables (and of their elements): accessed a whole vector at a time. */
  private readonly privates: Set<Def>;
  readonly pending = new Map<Continuation, Incoming>();

  /**
   * `seeds` maps the body's index, its free variables and its local variables'
   * slots, whose new storage is `privates`.
   */
  constructor(readonly info: BodyInfo, readonly b: Builder, seeds: ReadonlyMap<Def, Def>, privates: ReadonlySet<Def>) {
    this.scopes = [new Map(seeds)];
    this.privates = new Set(privates);
  }

  pushScope(): void {
    this.scopes.push(new Map());
  }

  popScope(): void {
    this.scopes.pop();
  }

  // ---------------------------------------------------------------- blocks

  /** Binds the params of block `blk` (not the entry) to `args`. */
  bindParams(blk: Continuation, args: readonly Def[]): void {
    blk.params.slice(1).forEach((p, j) => this.bind(p, args[j]!));
  }

  /** Runs the effects of `blk` in the lanes of `mask`; `live`: some lane is known to be active. */
  effects(blk: Continuation, mask: Def, live: boolean): void {
    const { memory } = this.info;
    for (const e of this.info.cfg.effects(blk)) {
      switch (e.tag) {
        case 'load': {
          const ptr = this.rewrite(e.op(1));
          if (this.privates.has(ptr)) this.bind(e, memory.loadLanes(this.b, ptr));
          else this.bind(e, memory.load(this.b, ptr, (e.type as TupleType).elems[1]!, mask, live));
          break;
        }
        case 'store': {
          const ptr = this.rewrite(e.op(1));
          const value = this.value(e.op(2));
          if (this.privates.has(ptr)) memory.storeLanes(this.b, ptr, value, mask);
          else memory.store(this.b, ptr, value, mask, live, e.payload as StoreHint | undefined);
          break;
        }
        case 'enter':
          // The frame's slots were replaced by lane storage in the vector loop's frame.
          break;
        default:
          unsupported(`a '${e.tag}' inside the body`);
      }
    }
  }

  /** Makes the call that ends a block, in the lanes of `mask`; returns its result (null for none). */
  call(t: Extract<Terminator, { kind: 'call' }>, mask: Def): Def | null {
    return this.info.calls.call(this.b, this.value(t.callee), t.args.map((a) => this.value(a)), mask);
  }

  /** Adds the lanes of `mask` taking an edge to `target` with `args` (already vectorised) to its incoming lanes. */
  arrive(target: Target, mask: Def, args: readonly Def[]): void {
    const { simd } = this.info;
    if (target === EXIT || simd.isNone(mask)) return;
    const old = this.pending.get(target);
    this.pending.set(target, old ? this.merge(target, old, mask, args) : { mask, args: this.coerceAll(target, args) });
  }

  /** `old` joined by the lanes of `mask` with `args`. */
  merge(target: Continuation, old: Incoming, mask: Def, args: readonly Def[]): Incoming {
    const { simd, div } = this.info;
    const params = target.params.slice(1);
    const blended = this.coerceAll(target, args).map((v, j) => {
      // A uniform param has one value in all lanes that arrive, so any arriving lane's edge decides.
      if (div.paramVarying(params[j]!)) return simd.blend(mask, v, old.args[j]!);
      return simd.world.select(simd.any(mask), v, old.args[j]!);
    });
    return { mask: simd.or(old.mask, mask), args: blended };
  }

  /** No lanes yet on the way to `t`. */
  nothingTo(t: Continuation): Incoming {
    const w = this.info.simd.world;
    return { mask: this.info.simd.none, args: t.params.slice(1).map((p) => w.bottom(this.paramType(p))) };
  }

  /** `args` as values of the params of `target`: splatted for varying params. */
  coerceAll(target: Continuation, args: readonly Def[]): Def[] {
    const { simd, div } = this.info;
    return args.map((v, j) => {
      const p = target.param(j + 1);
      if (div.paramVarying(p)) return simd.splat(v);
      if (simd.isVarying(v)) throw new VectorizeError(`internal: varying value for the uniform param ${p.label}`);
      return v;
    });
  }

  /** The vectorised type of an old block param. */
  paramType(p: Param): IRType {
    return this.info.div.paramVarying(p) ? this.info.simd.vectorType(p.type) : p.type;
  }

  /** A live-out value is varying if it is, or if lanes can leave a loop around its definition at different times. */
  liveOutType(root: Def, loop: Loop): IRType {
    const { cfg, forest, div, simd } = this.info;
    const home = cfg.home.get(root)!;
    const t = root instanceof PrimOp ? (root.type as TupleType).elems[1]! : root.type;
    let varying = div.varyingAt(root, home);
    for (let l = forest.loopOf(home); l && !varying; l = l === loop ? null : l.parent) varying = div.loopDivergent(l);
    return varying ? simd.vectorType(t) : t;
  }

  // ---------------------------------------------------------------- values

  /** The vectorised `d`, which is used as a value: the address of a local variable must not escape. */
  value(d: Def): Def {
    const v = this.rewrite(d);
    if (this.privates.has(v)) unsupported('a body in which the address of a local variable escapes');
    return v;
  }

  lookup(d: Def): Def | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const v = this.scopes[i]!.get(d);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  bind(old: Def, neu: Def): void {
    this.scopes[this.scopes.length - 1]!.set(old, neu);
  }

  /** The vectorised value of the old `root`. Iterative: unrolled code makes deep primop chains. */
  rewrite(root: Def): Def {
    const { cfg } = this.info;
    const stack: Def[] = [root];
    while (stack.length) {
      const d = stack[stack.length - 1]!;
      if (this.lookup(d) !== undefined) {
        stack.pop();
        continue;
      }
      if (d instanceof PrimOp && d.tag === 'extract' && d.op(0) instanceof PrimOp && cfg.home.has(d.op(0)) && litValue(d.op(1)) === 1n) {
        // The value of an effect, bound when the effect ran.
        const v = this.lookup(d.op(0));
        if (v === undefined) throw new VectorizeError(`internal: ${d.op(0).label} is read before it runs`);
        this.bind(d, v);
        stack.pop();
        continue;
      }
      if (!(d instanceof PrimOp) || !cfg.scope.contains(d)) {
        if (cfg.isBlock(d)) throw new VectorizeError(`internal: block ${d.label} used as a value`);
        if (cfg.scope.contains(d) || d instanceof Param) throw new VectorizeError(`internal: ${d.label} is used before it is defined`);
        // Shared with the code around the body: literals, globals, functions.
        this.bind(d, d);
        stack.pop();
        continue;
      }
      const missing = d.ops.filter((o) => this.lookup(o) === undefined);
      if (missing.length) {
        stack.push(...missing);
        continue;
      }
      stack.pop();
      this.bind(d, this.primop(d, d.ops.map((o) => this.lookup(o)!)));
    }
    return this.lookup(root)!;
  }

  /** `p` rebuilt on vectorised operands; an element of lane storage is lane storage. */
  private primop(p: PrimOp, ops: readonly Def[]): Def {
    const { simd } = this.info;
    if (!ops.some((o) => this.privates.has(o))) return widen(simd, p, ops);
    if (p.tag !== 'lea' || !this.privates.has(ops[0]!) || simd.isVarying(ops[1]!)) {
      unsupported('a body in which the address of a local variable escapes or is indexed per lane');
    }
    const element = simd.world.lea(ops[0]!, ops[1]!);
    this.privates.add(element);
    return element;
  }
}
