// The code of one vectorised iteration: the body's blocks in linear order (see
// loops.ts), each run once for all lanes under its mask, the lanes that reach it.
//
// Control flow becomes data. A block's mask is the union of the masks of the
// edges into it, an edge's mask is its source's mask restricted to the lanes that
// take it, and a block param becomes a blend of the edges' arguments, per lane
// for a varying param and by "which edge did any lane take" for a uniform one
// (its active lanes agree). Effects are masked, so both sides of a divergent
// branch run without touching memory for the other side's lanes. Lanes that
// jump to the body's return are simply in no mask any more.
//
// A loop runs while some lane is in it: its header receives the loop's params,
// the mask of the lanes still iterating, the edges already taken out of the loop
// (their masks and arguments accumulate across iterations), and the values that
// code after the loop reads, kept per lane from the iteration in which the lane
// left. Lanes that take a back edge iterate again, the others wait outside.
import { type Continuation, type Def, Param, PrimOp, litValue } from '../ir/defs.ts';
import { type IRType, TupleType } from '../ir/types.ts';
import { Builder } from './builder.ts';
import type { Calls } from './calls.ts';
import { type BodyCfg, EXIT, type Target } from './cfg.ts';
import type { Divergence } from './divergence.ts';
import { unsupported, VectorizeError } from './error.ts';
import type { Item, Loop, LoopForest } from './loops.ts';
import type { Memory } from './memory.ts';
import { isVectorType, type Simd } from './simd.ts';
import { widen } from './widen.ts';

/** What every instance of one body shares: its graph and the analyses. */
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
interface Incoming {
  readonly mask: Def;
  readonly args: readonly Def[];
}

export class Linearizer {
  private readonly b: Builder;
  /** Old def to new def, innermost loop iteration last: a loop's body does not dominate the code after it. */
  private readonly scopes: Map<Def, Def>[];
  private readonly pending = new Map<Continuation, Incoming>();
  /** Addresses of lane storage for local variables (and of their elements): accessed a whole vector at a time. */
  private readonly privates: Set<Def>;

  /**
   * Fills `start` with one iteration; `seeds` maps the body's index, its free
   * variables and its local variables' slots, whose new storage is `privates`.
   */
  constructor(private readonly info: BodyInfo, start: Continuation, seeds: ReadonlyMap<Def, Def>, privates: ReadonlySet<Def>) {
    this.b = new Builder(info.simd.world, start);
    this.scopes = [new Map(seeds)];
    this.privates = new Set(privates);
  }

  /** Emits the iteration for the lanes of `mask`; returns the builder, positioned after it. */
  run(mask: Def): Builder {
    this.pending.set(this.info.cfg.entry, { mask, args: [] });
    this.items(this.info.forest.order);
    return this.b;
  }

  private items(items: readonly Item[]): void {
    for (const item of items) {
      if (item.kind === 'block') this.block(item.block);
      else this.loop(item.loop, item.items);
    }
  }

  // ---------------------------------------------------------------- blocks

  private block(blk: Continuation): void {
    const incoming = this.pending.get(blk);
    if (!incoming) return;
    this.pending.delete(blk);
    const { cfg, simd, calls } = this.info;
    const mask = incoming.mask;
    if (blk !== cfg.entry) blk.params.slice(1).forEach((p, j) => this.bind(p, incoming.args[j]!));
    for (const e of cfg.effects(blk)) this.effect(e, mask);
    const t = cfg.term(blk);
    switch (t.kind) {
      case 'jump':
        this.edge(t.target, mask, t.args.map((a) => this.value(a)));
        break;
      case 'branch': {
        const c = this.rewrite(t.cond);
        this.edge(t.then, simd.restrict(mask, c), []);
        this.edge(t.otherwise, simd.restrictNot(mask, c), []);
        break;
      }
      case 'match': {
        const v = this.rewrite(t.value);
        let rest = mask;
        for (const [lit, target] of t.cases) {
          const hit = simd.world.cmp('eq', v, simd.isVarying(v) ? simd.splat(lit) : lit);
          this.edge(target, simd.restrict(rest, hit), []);
          rest = simd.restrictNot(rest, hit);
        }
        this.edge(t.otherwise, rest, []);
        break;
      }
      case 'call': {
        const r = calls.call(this.b, this.value(t.callee), t.args.map((a) => this.value(a)), mask);
        this.edge(t.ret, mask, r ? [r] : []);
        break;
      }
    }
  }

  private effect(e: PrimOp, mask: Def): void {
    const { memory } = this.info;
    switch (e.tag) {
      case 'load': {
        const ptr = this.rewrite(e.op(1));
        if (this.privates.has(ptr)) this.bind(e, memory.loadLanes(this.b, ptr));
        else this.bind(e, memory.load(this.b, ptr, (e.type as TupleType).elems[1]!, mask));
        return;
      }
      case 'store': {
        const ptr = this.rewrite(e.op(1));
        const value = this.value(e.op(2));
        if (this.privates.has(ptr)) memory.storeLanes(this.b, ptr, value, mask);
        else memory.store(this.b, ptr, value, mask);
        return;
      }
      case 'enter':
        // The frame's slots were replaced by lane storage in the vector loop's frame.
        return;
      default:
        return unsupported(`a '${e.tag}' inside the body`);
    }
  }

  /** Adds the lanes of `mask` taking an edge to `target` with `args` (already vectorised). */
  private edge(target: Target, mask: Def, args: readonly Def[]): void {
    if (target === EXIT || this.info.simd.isNone(mask)) return;
    const { simd } = this.info;
    const w = simd.world;
    const params = target.params.slice(1);
    const vals = args.map((a, j) => this.coerce(params[j]!, a));
    const old = this.pending.get(target);
    if (!old) {
      this.pending.set(target, { mask, args: vals });
      return;
    }
    const blended = vals.map((v, j) => {
      if (this.info.div.paramVarying(params[j]!)) return simd.blend(mask, v, old.args[j]!);
      return w.select(simd.any(mask), v, old.args[j]!);
    });
    this.pending.set(target, { mask: simd.or(old.mask, mask), args: blended });
  }

  /** `v` as a value of the (old) block param `p`: splatted when `p` is varying. */
  private coerce(p: Param, v: Def): Def {
    if (this.info.div.paramVarying(p)) return this.info.simd.splat(v);
    if (this.info.simd.isVarying(v)) throw new VectorizeError(`internal: varying value for the uniform param ${p.label}`);
    return v;
  }

  /** The vectorised type of an old block param. */
  private paramType(p: Param): IRType {
    return this.info.div.paramVarying(p) ? this.info.simd.vectorType(p.type) : p.type;
  }

  // ---------------------------------------------------------------- loops

  private loop(loop: Loop, items: readonly Item[]): void {
    const { simd, forest } = this.info;
    const w = simd.world;
    const header = loop.header;
    const entry = this.pending.get(header);
    if (!entry) return;
    this.pending.delete(header);
    const exits = forest.exitTargets(loop);
    const live = this.info.liveOut.get(loop) ?? [];
    const headerParams = header.params.slice(1);
    const exitAccs = exits.map((t) => this.pending.get(t) ?? this.nothingTo(t));
    const liveTypes = live.map((r) => this.liveOutType(r, loop));
    const liveVarying = liveTypes.map(isVectorType);

    // loop(mem, header params…, lanes still iterating, (exit mask, exit args…)…, live-out values…)
    const layout: IRType[] = [
      ...headerParams.map((p) => this.paramType(p)),
      simd.maskType,
      ...exits.flatMap((t) => [simd.maskType, ...t.params.slice(1).map((p) => this.paramType(p))]),
      ...liveTypes,
    ];
    const test = this.b.block('loop', layout);
    this.b.jump(test, [
      ...entry.args,
      entry.mask,
      ...exitAccs.flatMap((a) => [a.mask, ...a.args]),
      ...liveTypes.map((t) => w.bottom(t)),
    ]);
    const params = test.params.slice(1);
    let at = 0;
    const take = (n: number): Def[] => params.slice(at, (at += n));
    const headerVals = take(headerParams.length);
    const iterating = take(1)[0]!;
    const exitVals = exits.map((t) => {
      const [m, ...args] = take(t.params.length);
      return { mask: m!, args };
    });
    const liveVals = take(live.length);

    const body = this.b.block('loop_body');
    const after = this.b.block('loop_exit');
    w.branch(test, test.param(0), simd.any(iterating), body, after);

    this.b.enter(body);
    this.scopes.push(new Map());
    exits.forEach((t, j) => this.pending.set(t, exitVals[j]!));
    this.pending.set(header, { mask: iterating, args: headerVals });
    this.items(items);
    const back = this.pending.get(header);
    this.pending.delete(header);
    const again = back?.mask ?? simd.none;
    const leaving = simd.andNot(iterating, again);
    const kept = live.map((r, j) => {
      const now = this.lookup(r) ?? w.bottom(liveTypes[j]!);
      if (liveVarying[j]) return simd.blend(leaving, now, liveVals[j]!);
      if (simd.isVarying(now)) throw new VectorizeError(`internal: varying value for the uniform live-out ${r.label}`);
      return w.select(simd.any(leaving), now, liveVals[j]!);
    });
    this.b.jump(test, [
      ...(back?.args ?? headerVals),
      again,
      ...exits.flatMap((t) => {
        const a = this.pending.get(t)!;
        return [a.mask, ...a.args];
      }),
      ...kept,
    ]);
    this.scopes.pop();

    this.b.enter(after);
    exits.forEach((t, j) => this.pending.set(t, exitVals[j]!));
    live.forEach((r, j) => this.bind(r, liveVals[j]!));
  }

  /** No lanes yet on the way to `t`. */
  private nothingTo(t: Continuation): Incoming {
    const w = this.info.simd.world;
    return { mask: this.info.simd.none, args: t.params.slice(1).map((p) => w.bottom(this.paramType(p))) };
  }

  /** A live-out value is varying if it is, or if lanes can leave a loop around its definition at different times. */
  private liveOutType(root: Def, loop: Loop): IRType {
    const { cfg, forest, div, simd } = this.info;
    const home = cfg.home.get(root)!;
    const t = root instanceof PrimOp ? (root.type as TupleType).elems[1]! : root.type;
    let varying = div.varyingAt(root, home);
    for (let l = forest.loopOf(home); l && !varying; l = l === loop ? null : l.parent) varying = div.loopDivergent(l);
    return varying ? simd.vectorType(t) : t;
  }

  // ---------------------------------------------------------------- values

  /** The vectorised `d`, which is used as a value: the address of a local variable must not escape. */
  private value(d: Def): Def {
    const v = this.rewrite(d);
    if (this.privates.has(v)) unsupported('a body in which the address of a local variable escapes');
    return v;
  }

  private lookup(d: Def): Def | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const v = this.scopes[i]!.get(d);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  private bind(old: Def, neu: Def): void {
    this.scopes[this.scopes.length - 1]!.set(old, neu);
  }

  /** The vectorised value of the old `root`. Iterative: unrolled code makes deep primop chains. */
  private rewrite(root: Def): Def {
    const { cfg, simd } = this.info;
    const stack: Def[] = [root];
    while (stack.length) {
      const d = stack[stack.length - 1]!;
      if (this.lookup(d) !== undefined) {
        stack.pop();
        continue;
      }
      if (d instanceof PrimOp && d.tag === 'extract' && cfg.home.has(d.op(0)) && litValue(d.op(1)) === 1n) {
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
