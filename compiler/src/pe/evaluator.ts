// The online partial evaluator (AnyDSL paper, §4). It walks the code the
// externals reach and looks at every call `u: f(args…)` of a continuation with a
// body:
//   - arguments whose filter folds to true, all arguments under `@@`, and
//     higher-order arguments (decide.ts) are dropped into a clone of `f`
//     (`specialiseWith`, the one mangle), memoised per (callee, dropped values);
//     inside the clone, recursive calls passing the dropped values again call the
//     clone (static arguments), so `range` stays a loop while `unroll` unfolds;
//   - a continuation with a single call site is inlined. A clone would be used
//     once and the original dropped, so this is done in place, as cleanup merges
//     blocks: its params are replaced by the arguments (folding every use) and its
//     body becomes the caller's. This is what moves a constant returned through a
//     return continuation on to the code after the call. Specialisations made in
//     a round are inlined from the next round on (see `fresh`);
//   - a function whose body evaluated to a plain jump (`return(42)`) is that jump
//     at every call (control.ts).
// The walk (see `Walk`) follows the bodies as evaluation leaves them, so new
// clones are evaluated as soon as a call reaches them and a chain of
// specialisations proceeds within one round. Rounds repeat, each starting by
// forgetting what is no longer reachable, until a round changes nothing. A
// budget of specialisations and a bound on the code they add turn a
// specialisation that never ends into a diagnostic at the call site.
//
// Cleanup itself cannot run between rounds: it resolves the `run`/`hlt`/`known`
// markers, which must survive until evaluation is over (`$a` in `range` would
// turn into a constant and `range` would unroll). The passes after the evaluator
// start with cleanup, which resolves them.
import { Continuation, type Def, isLit, litValue, Param, PrimOp } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import { isStatic, type World } from '../ir/world.ts';
import type { DiagnosticSink, Span } from '../syntax/diagnostics.ts';
import { Closedness } from '../ir/closedness.ts';
import { reachable } from '../ir/reachable.ts';
import { jumpFolded, mangleWith, specialiseWith } from '../transform/mangle.ts';
import { branchesOnOpenKnown, foldBranch, isPlainJump, jumpThrough, resolveReturn } from './control.ts';
import { type Decision, type Facts, callTarget, decide } from './decide.ts';
import { describe, paramName, spanText } from './describe.ts';
import { type Recursion, nonStaticParams, recursion } from '../ir/higher-order.ts';
import { callers, isLive, readsParamsOf, soleCaller } from './liveness.ts';
import { forwardLoads } from './memory.ts';

export interface PeOptions {
  sink: DiagnosticSink;
  /** Receives one line per specialisation (the driver prints them for `--pe-trace`). */
  trace?: (line: string) => void;
  /** Most specialisations per exported function before evaluation stops with an error (default `defaultPeBudget`). */
  budget?: number;
  /** Most continuations the specialisations may add per exported function (default `defaultPeGrowth`). */
  growth?: number;
}

export const defaultPeBudget = 100_000;
export const defaultPeGrowth = 50_000;

/**
 * Partially evaluates the program the externals reach, in place. Returns false
 * (with an error in `opts.sink`) when the budget ran out; the world is then
 * consistent but only partly evaluated.
 */
export function partialEvaluate(world: World, opts: PeOptions): boolean {
  return new Evaluator(world, opts).run();
}

type Outcome = 'same' | 'changed' | 'stopped';

class Evaluator implements Facts {
  private readonly memo = new Map<string, Continuation>();
  /** The call site each specialisation was made for: inlining it is traced like inlining a function, there. */
  private readonly sites = new Map<Continuation, Span | null>();
  /**
   * The specialisations made this round, and whether each is a top-level function
   * (the round's analysis does not know them). They are inlined from the next
   * round on: until every call of this round has been looked at, another call may
   * still find them in the memo, and a recursion that reaches one again (through
   * other functions, too) must call it instead of unfolding forever.
   */
  private readonly fresh = new Map<Continuation, boolean>();
  private readonly budget: number;
  private readonly growth: number;
  private steps = 0;
  private grown = 0;
  // Facts of the current round.
  private live = new Set<Continuation>();
  private free = new Closedness([]);
  private readonly recursionOf = new Map<Continuation, Recursion>();
  private readonly valueClosedOf = new Map<Def, boolean>();

  constructor(readonly world: World, private readonly opts: PeOptions) {
    // Per exported function, so a library of many kernels compiles as one module as well as
    // one kernel does; a runaway specialisation still stops, just proportionally later.
    let exported = 0;
    for (const c of world.continuations) if (c.external && c.hasBody) exported++;
    const scale = Math.max(1, exported);
    this.budget = (opts.budget ?? defaultPeBudget) * scale;
    this.growth = (opts.growth ?? defaultPeGrowth) * scale;
  }

  run(): boolean {
    const finished = this.rounds();
    // Evaluating filters leaves primops over the arguments that no code uses.
    this.world.sweep();
    return finished;
  }

  private rounds(): boolean {
    for (;;) {
      this.startRound();
      let changed = false;
      const walk = new Walk(this.world);
      // Branches on a `?` not decided yet (branchesOnOpenKnown): their sides are walked only
      // once the rest of the round has changed nothing, so a `?` that the next round decides
      // does not get both sides specialised first.
      const held: Continuation[] = [];
      for (let u = walk.next(); u || (!changed && held.length > 0); u = walk.next()) {
        if (!u) {
          for (const h of held.splice(0)) walk.leave(h);
          continue;
        }
        const outcome = this.visit(u);
        if (outcome === 'stopped') return false;
        if (outcome === 'changed') {
          changed = true;
          walk.again(u);
        } else if (branchesOnOpenKnown(u)) {
          held.push(u);
        } else {
          walk.leave(u);
          // A body evaluated down to a plain jump is passed on to its callers at once (see `jumpThrough`).
          if (isPlainJump(u)) for (const c of callers(this.world, u)) walk.again(c);
        }
      }
      if (!changed) return true;
    }
  }

  /** Forgets what the externals no longer reach and recomputes the round's facts. */
  private startRound(): void {
    const r = reachable(this.world);
    this.live = new Set(r.continuations);
    for (const c of [...this.world.continuations]) {
      // Imports and intrinsics stay registered: the World hands out the same node for them again.
      if (!this.live.has(c) && !c.isIntrinsic && !(c.external && !c.hasBody)) this.world.forget(c);
    }
    this.world.sweep();
    // Loads that inlining and specialisation put next to the stores they read: `?x` of what they read is known.
    forwardLoads(this.world, r.continuations);
    // Before any specialisation copies them: the recursion of a generic body is only seen to be static this way.
    for (const c of r.continuations) if (c.hasBody) resolveReturn(this.world, c);
    this.free = new Closedness(r.continuations);
    this.recursionOf.clear();
    this.valueClosedOf.clear();
    this.fresh.clear();
  }

  // ------------------------------------------------------------ facts

  closed(c: Continuation): boolean {
    return this.live.has(c) ? this.free.isClosed(c) : (this.fresh.get(c) ?? false);
  }

  /** Iterative: dropped values may be long primop chains (a counter decremented at every level). */
  valueClosed(root: Def): boolean {
    const memo = this.valueClosedOf;
    const stack: Def[] = [root];
    while (stack.length) {
      const d = stack[stack.length - 1]!;
      if (memo.has(d)) {
        stack.pop();
        continue;
      }
      if (d instanceof Param) {
        memo.set(d, false);
      } else if (d instanceof Continuation) {
        memo.set(d, this.closed(d));
      } else {
        const missing = d.ops.filter((o) => !memo.has(o));
        if (missing.length) {
          stack.push(...missing);
          continue;
        }
        memo.set(d, d.ops.every((o) => memo.get(o)));
      }
      stack.pop();
    }
    return memo.get(root)!;
  }

  moving(c: Continuation, args: readonly Def[]): ReadonlySet<number> {
    let r = this.recursionOf.get(c);
    if (!r) this.recursionOf.set(c, (r = recursion(c)));
    return nonStaticParams(r, args);
  }

  // ------------------------------------------------------------ calls

  /** Looks at the call ending `u`; 'changed' when its body changed and must be looked at again. */
  private visit(u: Continuation): Outcome {
    if (foldBranch(this.world, u) || resolveReturn(this.world, u) || this.reportPeInfo(u)) return 'changed';
    const target = callTarget(u);
    if (!target) return 'same';
    const decision = decide(u, target.callee, target.forced, this);
    if (decision) return this.specialise(u, decision);
    const f = target.callee;
    if (jumpThrough(u, f)) return 'changed';
    if (!this.canInline(u, f)) return 'same';
    const site = this.sites.get(f);
    if (site !== undefined || f.fnType.order > 1) this.traceLine(u, f, site ?? callSpan(u, f), [[f.params, 'single use']]);
    this.inline(u, f);
    return 'changed';
  }

  private specialise(u: Continuation, d: Decision): Outcome {
    const f = d.callee;
    const all = d.dropped.every((x) => x !== null);
    if (all && this.canInline(u, f)) {
      this.traceDecision(u, d);
      this.inline(u, f);
      return 'changed';
    }
    const key = `${f.gid}:${d.dropped.map((x) => (x ? x.gid : '_')).join(',')}`;
    let spec = all ? undefined : this.memo.get(key);
    if (!spec || !isLive(this.world, spec)) {
      if (!this.spend(u, d)) return 'stopped';
      this.traceDecision(u, d);
      this.refreshFilters(f);
      // With every param dropped the clone is the call's own copy of the body: no memo, no recursion to rewire.
      const m = all ? mangleWith(this.world, new Scope(f), d.dropped, []) : specialiseWith(this.world, f, d.dropped);
      spec = m.entry;
      this.grown += m.cloned.length + 1;
      if (all) {
        jumpFolded(this.world, u, spec.callee, spec.args);
        this.world.forget(spec);
        return 'changed';
      }
      this.memo.set(key, spec);
      this.sites.set(spec, callSpan(u, f));
      this.fresh.set(spec, this.closed(f) && d.dropped.every((x) => x === null || this.valueClosed(x)));
    }
    u.jump(spec, u.args.filter((_, i) => d.dropped[i] === null));
    return 'changed';
  }

  /**
   * Brings the filters of `f`'s scope up to date before they are copied. Filters
   * are outside the graph, so inlining this round replaced params without them;
   * a copy of a stale filter keeps a param that is gone (`?n` of `fold` inlined
   * into `r`), which the next sweep turns into a param of another scope.
   */
  private refreshFilters(f: Continuation): void {
    for (const c of new Scope(f).continuations) if (c.filter) c.filter = c.filter.map((x) => this.world.substitute(x));
  }

  /** `f` is called only by `u`, from outside `f`: the call can become `f`'s body. */
  private canInline(u: Continuation, f: Continuation): boolean {
    if (f.external || u === f || this.fresh.has(f)) return false;
    return soleCaller(this.world, f) === u && !readsParamsOf(u.args, f);
  }

  /** Inlines `f` into its only caller `u` in place. */
  private inline(u: Continuation, f: Continuation): void {
    this.world.replaceAll(new Map<Def, Def>(f.params.map((p, i) => [p, u.arg(i)])));
    jumpFolded(this.world, u, f.callee, f.args);
    this.world.forget(f);
  }

  /**
   * `pe_info(mem, message, value, k)` whose value evaluation made static: the note the user
   * asked for (once per copy of the call, so once per specialisation), then on to `k`. A value
   * that stays dynamic is left for cleanup, which drops the call silently.
   */
  private reportPeInfo(u: Continuation): boolean {
    const callee = u.callee;
    if (!(callee instanceof Continuation) || callee.intrinsic !== 'pe_info' || !isStatic(u.arg(2))) return false;
    this.opts.sink.note(u.span ?? callSpan(u, callee), `pe_info: ${stringText(u.arg(1))}: ${describe(u.arg(2))}`);
    u.jump(u.arg(3), [u.arg(0)]);
    return true;
  }

  /** Counts one specialisation; false (with the diagnostic) once the budget or the growth bound is exceeded. */
  private spend(u: Continuation, d: Decision): boolean {
    if (++this.steps <= this.budget && this.grown <= this.growth) return true;
    const f = d.callee;
    const i = d.reasons.indexOf('filter');
    const h = d.reasons.indexOf('higher-order');
    const why =
      i >= 0 ? `its filter @(${describe(this.world.substitute(f.filter![i]!))}) on '${paramName(f.param(i))}' keeps firing`
      : d.reasons.includes('@@') ? 'the @@ on this call keeps forcing it'
      : `its higher-order argument '${paramName(f.param(h))}' keeps being specialised`;
    const limit = this.steps > this.budget ? `${this.budget} specialisations` : `the specialisations added ${this.grown} continuations`;
    this.opts.sink.error(
      callSpan(u, f),
      `partial evaluation does not terminate: '${f.name || f.label}' is specialised again and again at this call, ` +
        `${why} (stopped after ${limit})`,
    );
    return false;
  }

  // ------------------------------------------------------------ trace

  private traceDecision(u: Continuation, d: Decision): void {
    if (!this.opts.trace) return;
    const groups = new Map<string, Param[]>();
    d.callee.params.forEach((p, i) => {
      const why = d.reasons[i];
      if (!why) return;
      let ps = groups.get(why);
      if (!ps) groups.set(why, (ps = []));
      ps.push(p);
    });
    this.traceLine(u, d.callee, callSpan(u, d.callee), [...groups].map(([why, ps]) => [ps, why]));
  }

  /** `specialise f at file:line:col: args [a, b] = 3, x (filter); args [return] = k (higher-order)` */
  private traceLine(
    u: Continuation,
    f: Continuation,
    site: Span | null,
    groups: readonly (readonly [readonly Param[], string])[],
  ): void {
    if (!this.opts.trace) return;
    const parts = groups.map(([ps, why]) => {
      const names = ps.map(paramName).join(', ');
      const values = ps.map((p) => describe(u.arg(p.index))).join(', ');
      return `args [${names}] = ${values} (${why})`;
    });
    this.opts.trace(`specialise ${f.name || f.label} at ${spanText(site)}: ${parts.join('; ')}`);
  }
}

/**
 * Where the call ending `u` is in the source: emission gives the block a call
 * returns to the span of the call; a tail call has only its block's span.
 */
/** The text of a string literal passed as `&[u8]` (its global, maybe behind a bitcast); '…' for anything else. */
function stringText(d: Def): string {
  let g = d;
  if (g instanceof PrimOp && g.tag === 'bitcast') g = g.op(0);
  const bytes = g instanceof PrimOp && g.tag === 'global' ? g.op(0) : undefined;
  if (!(bytes instanceof PrimOp && bytes.tag === 'definite_array' && bytes.ops.every(isLit))) return '…';
  const codes = bytes.ops.map((b) => Number(litValue(b)));
  return Buffer.from(codes[codes.length - 1] === 0 ? codes.slice(0, -1) : codes).toString('utf8');
}

function callSpan(u: Continuation, f: Continuation): Span | null {
  const last = u.args[u.args.length - 1];
  return (last instanceof Continuation ? last.span : null) ?? u.span ?? f.span;
}

/**
 * The order of evaluation: from the externals along the bodies as they are
 * after evaluation, so a generic body is only evaluated where code still calls
 * it (a function called only with static arguments never has its own body
 * specialised, which would not terminate for `fn @f(n) { … f(n - 1) … }`). A
 * body that changed is looked at again before the walk moves past it.
 */
class Walk {
  private readonly stack: Continuation[] = [];
  /** Defs whose operands were searched for continuations this round: each primop once. */
  private readonly seen = new Set<Def>();

  constructor(private readonly world: World) {
    for (const c of world.continuations) if (c.external && c.hasBody) this.push(c);
  }

  next(): Continuation | undefined {
    for (let u = this.stack.pop(); u; u = this.stack.pop()) if (isLive(this.world, u)) return u;
    return undefined;
  }

  again(u: Continuation): void {
    this.stack.push(u);
  }

  /** `u` is done: go on with the continuations its body mentions. */
  leave(u: Continuation): void {
    const defs: Def[] = [...u.ops];
    while (defs.length) {
      const d = defs.pop()!;
      if (d instanceof Continuation) this.push(d);
      else if (d instanceof PrimOp && !this.seen.has(d)) {
        this.seen.add(d);
        for (const o of d.ops) defs.push(o); // not push(...): a string literal has an op per byte
      }
    }
  }

  private push(c: Continuation): void {
    if (this.seen.has(c) || !c.hasBody || c.isIntrinsic) return;
    this.seen.add(c);
    this.stack.push(c);
  }
}
