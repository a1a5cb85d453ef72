// Which continuations' params a continuation or primop depends on, transitively:
// a continuation needs the params its body reads, through primops, and everything
// the continuations it uses as values need (except its own params). A continuation
// that needs nothing is closed: a top-level function. Unlike `Scope.freeParams`,
// this sees through other continuations (a block that only jumps to a block using
// its function's return param is not top-level). The interpreter uses the sets to
// capture exactly the activations a closure needs and to memoise a primop once per
// activation of what it depends on.
import { Continuation, type Def, Param, PrimOp } from './defs.ts';
import { foldUp } from './order.ts';
import { reachableFrom } from './reachable.ts';

type Conts = ReadonlySet<Continuation>;

const none: Conts = new Set();

interface Direct {
  /** Continuations whose params are read through primops. */
  readonly params: Conts;
  /** Continuations (with a body) used as values through primops. */
  readonly conts: Conts;
}

function union(sets: Iterable<Conts>): Conts {
  let result: Set<Continuation> | null = null;
  let only: Conts = none;
  for (const s of sets) {
    if (s.size === 0 || s === only) continue;
    if (only.size === 0 && !result) {
      only = s;
      continue;
    }
    result ??= new Set(only);
    for (const c of s) result.add(c);
  }
  return result ?? only;
}

export class Nesting {
  private readonly direct = new Map<PrimOp, Direct>();
  private readonly needsOf = new Map<Continuation, Set<Continuation>>();
  private readonly ownersOf = new Map<PrimOp, Conts>();

  /** Analyses everything reachable from `roots`. */
  constructor(roots: Iterable<Continuation>) {
    const conts = bodiesReachable(roots);
    const usedBy = new Map<Continuation, Continuation[]>();
    for (const c of conts) {
      const d = this.directOfOps(c.ops);
      const needs = new Set(d.params);
      needs.delete(c);
      this.needsOf.set(c, needs);
      for (const k of d.conts) {
        let users = usedBy.get(k);
        if (!users) usedBy.set(k, (users = []));
        users.push(c);
      }
    }
    // A continuation needs what the closures it builds need, except its own params: a fixpoint.
    const work = [...conts];
    while (work.length) {
      const k = work.pop()!;
      const kNeeds = this.needsOf.get(k)!;
      for (const c of usedBy.get(k) ?? []) {
        const cNeeds = this.needsOf.get(c)!;
        let grew = false;
        for (const n of kNeeds) {
          if (n !== c && !cNeeds.has(n)) {
            cNeeds.add(n);
            grew = true;
          }
        }
        if (grew) work.push(c);
      }
    }
  }

  /** Continuations whose activations a closure of `c` must capture (empty: `c` is closed). */
  needs(c: Continuation): Conts {
    return this.needsOf.get(c) ?? none;
  }

  /** Continuations whose activations determine the value of `p` (empty: a constant of the program). */
  owners(p: PrimOp): Conts {
    let o = this.ownersOf.get(p);
    if (!o) {
      const d = this.directOf(p);
      o = union([d.params, ...[...d.conts].map((k) => this.needs(k))]);
      this.ownersOf.set(p, o);
    }
    return o;
  }

  private directOfOps(ops: readonly Def[]): Direct {
    const params: Conts[] = [];
    const conts: Conts[] = [];
    for (const o of ops) {
      if (o instanceof Param) params.push(new Set([o.continuation]));
      else if (o instanceof Continuation) {
        if (o.hasBody) conts.push(new Set([o]));
      } else if (o instanceof PrimOp) {
        const d = this.directOf(o);
        params.push(d.params);
        conts.push(d.conts);
      }
    }
    return { params: union(params), conts: union(conts) };
  }

  /** Bottom-up over the primop DAG (`foldUp`: mem chains of unrolled code are long). */
  private directOf(root: PrimOp): Direct {
    const operands = (p: PrimOp): PrimOp[] => p.ops.filter((o): o is PrimOp => o instanceof PrimOp);
    return foldUp(root, this.direct, operands, (p) => this.directOfOps(p.ops));
  }
}

/** Continuations with a body reachable from `roots` through bodies and primops: the ones `Nesting` analyses. */
export function bodiesReachable(roots: Iterable<Continuation>): Continuation[] {
  return reachableFrom(roots).continuations.filter((c) => c.hasBody);
}
