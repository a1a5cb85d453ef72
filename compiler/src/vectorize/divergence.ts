// Uniform/varying analysis. The loop index is varying, and so is everything that
// depends on it: data (operands, addresses, call arguments) and control (a block
// param is varying when its block joins paths that a varying branch separated, or
// when lanes arrive there from different iterations of a loop they left at
// different times). Everything else (free variables of the body and values
// computed from them) is uniform: the same in all lanes, so it stays scalar.
//
// The analysis over-approximates where that is cheap: a loop counts as divergent
// (its lanes may leave at different iterations) as soon as it contains a varying
// branch, and a block counts as a join of a varying branch when two different
// edges into it are reachable from two different successors of the branch.
// Calling something varying that is uniform costs speed, never correctness.
import { Continuation, type Def, Param, PrimOp } from '../ir/defs.ts';
import { foldUp } from '../ir/order.ts';
import { type BodyCfg, EXIT } from './cfg.ts';
import { isLaneQuery, mathIntrinsic } from './lanes.ts';
import { type Loop, LoopForest } from './loops.ts';

export class Divergence {
  private readonly params = new Set<Param>();
  private readonly divergent = new Set<Loop>();
  private readonly branches = new Set<Continuation>();
  private memo = new Map<Continuation, Map<Def, boolean>>();

  constructor(private readonly cfg: BodyCfg, private readonly forest: LoopForest) {
    this.params.add(cfg.entry.param(1));
    for (let changed = true; changed; ) changed = this.round();
  }

  /** A block param whose value may differ between lanes. */
  paramVarying(p: Param): boolean {
    return this.params.has(p);
  }

  /** Whether some branch may send lanes different ways; if not, all control flow is uniform. */
  get branchesDiverge(): boolean {
    return this.branches.size > 0;
  }

  /** A loop whose lanes may leave it at different iterations. */
  loopDivergent(l: Loop): boolean {
    return this.divergent.has(l);
  }

  /** Whether `d`, evaluated in block `at`, may differ between lanes. */
  varyingAt(d: Def, at: Continuation): boolean {
    let memo = this.memo.get(at);
    if (!memo) this.memo.set(at, (memo = new Map()));
    const m = memo;
    // Effects are leaves: where they happen decides, not their operands.
    const operands = (x: Def): readonly Def[] => (x instanceof PrimOp && !this.cfg.home.has(x) ? x.ops : []);
    return foldUp(d, m, operands, (x) => {
      if (x instanceof Param) return this.params.has(x) || this.leavesDivergentLoop(x, at);
      if (x instanceof PrimOp && this.cfg.home.has(x)) {
        // An effect: a load is varying when its address is, where the load happens.
        const home = this.cfg.home.get(x)!;
        return (x.tag !== 'load' || this.varyingAt(x.op(1), home)) || this.leavesDivergentLoop(x, at);
      }
      if (x instanceof PrimOp) return x.ops.some((o) => m.get(o));
      return false;
    });
  }

  /** `root` is defined in a divergent loop that `at` is outside of: lanes left it at different iterations. */
  private leavesDivergentLoop(root: Def, at: Continuation): boolean {
    const home = this.cfg.home.get(root);
    if (!home) return false;
    for (let l = this.forest.loopOf(home); l; l = l.parent) if (this.divergent.has(l) && !l.blocks.has(at)) return true;
    return false;
  }

  private round(): boolean {
    this.memo = new Map();
    let changed = false;
    const mark = (p: Param | undefined): void => {
      if (p && !this.params.has(p)) {
        this.params.add(p);
        changed = true;
      }
    };
    for (const b of this.cfg.blocks) {
      const t = this.cfg.term(b);
      switch (t.kind) {
        case 'jump':
          if (t.target !== EXIT) {
            const target = t.target;
            t.args.forEach((a, j) => {
              if (this.varyingAt(a, b)) mark(target.param(j + 1));
            });
          }
          break;
        case 'branch':
        case 'match': {
          const cond = t.kind === 'branch' ? t.cond : t.value;
          if (!this.branches.has(b) && this.varyingAt(cond, b)) {
            this.branches.add(b);
            changed = true;
          }
          break;
        }
        case 'call':
          if (t.ret !== EXIT && this.callVarying(t.callee, t.args, b)) mark(t.ret.params[1]);
          break;
      }
    }
    for (const x of this.branches) for (const j of this.joins(x)) j.params.slice(1).forEach(mark);
    for (const l of this.forest.loops) {
      if (!this.divergent.has(l) && [...l.blocks].some((b) => this.branches.has(b))) {
        this.divergent.add(l);
        changed = true;
      }
    }
    for (const l of this.divergent) for (const t of this.forest.exitTargets(l)) t.params.slice(1).forEach(mark);
    return changed;
  }

  /** Whether the result of calling `callee` with `args` in block `at` may differ between lanes. */
  private callVarying(callee: Def, args: readonly Def[], at: Continuation): boolean {
    if (isLaneQuery(callee)) {
      switch (callee.intrinsic) {
        case 'lane_id':
          return true;
        case 'extract':
        case 'broadcast':
          return this.varyingAt(args[1]!, at);
        default:
          return false;
      }
    }
    if (mathIntrinsic(callee)) return args.some((a) => this.varyingAt(a, at));
    // Called once per lane: each call may answer differently.
    return true;
  }

  /**
   * Blocks where paths from different successors of the varying branch `x` meet
   * through different edges. Back edges count only towards headers of loops that
   * contain `x` (there its paths meet again in the next iteration).
   */
  private joins(x: Continuation): Continuation[] {
    const succs = this.cfg.blockSuccs(x);
    const reached = new Map<Continuation, Map<string, Set<number>>>();
    const record = (to: Continuation, from: Continuation, i: number): void => {
      let edges = reached.get(to);
      if (!edges) reached.set(to, (edges = new Map()));
      const key = `${from.gid}`;
      let by = edges.get(key);
      if (!by) edges.set(key, (by = new Set()));
      by.add(i);
    };
    const xLoop = this.forest.loopOf(x);
    succs.forEach((s, i) => {
      record(s, x, i);
      const seen = new Set<Continuation>([s]);
      const work = [s];
      while (work.length) {
        const n = work.pop()!;
        for (const t of this.cfg.blockSuccs(n)) {
          if (this.forest.isBackEdge(n, t)) {
            if (LoopForest.within(xLoop, this.forest.headedBy(t)!)) record(t, n, i);
            continue;
          }
          record(t, n, i);
          if (!seen.has(t)) {
            seen.add(t);
            work.push(t);
          }
        }
      }
    });
    const out: Continuation[] = [];
    for (const [block, edges] of reached) {
      if (edges.size < 2) continue;
      const sets = [...edges.values()];
      const only = sets[0]!.size === 1 ? [...sets[0]!][0] : undefined;
      if (only === undefined || sets.some((s) => s.size !== 1 || !s.has(only))) out.push(block);
    }
    return out;
  }
}
