// Whole-world facts the transformations share: what is reachable from the
// externals, which continuations are closed (top-level), and which operand
// positions of a jump are control flow rather than values.
import { Continuation, type Def, Param, PrimOp } from '../ir/defs.ts';
import { FnType } from '../ir/types.ts';
import type { World } from '../ir/world.ts';

export interface Reachable {
  /** Continuations reachable from the externals through bodies and primop operands. */
  readonly continuations: Continuation[];
  readonly primops: PrimOp[];
}

/** Everything reachable from the exported continuations (bodies, then primop operands). */
export function reachable(world: World): Reachable {
  const roots = [...world.continuations].filter((c) => c.external && c.hasBody);
  const seen = new Set<Def>();
  const continuations: Continuation[] = [];
  const primops: PrimOp[] = [];
  const stack: Def[] = [...roots];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    if (d instanceof Continuation) continuations.push(d);
    else if (d instanceof PrimOp) primops.push(d);
    if (d instanceof Continuation || d instanceof PrimOp) for (const o of d.ops) if (!seen.has(o)) stack.push(o);
  }
  return { continuations, primops };
}

/** Params and continuations a continuation's body mentions directly (through primops, not through other continuations). */
function bodyRefs(c: Continuation): { params: Set<Param>; continuations: Set<Continuation> } {
  const params = new Set<Param>();
  const continuations = new Set<Continuation>();
  const seen = new Set<Def>();
  const stack: Def[] = [...c.ops];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    if (d instanceof Param) params.add(d);
    else if (d instanceof Continuation) continuations.add(d);
    else for (const o of d.ops) stack.push(o);
  }
  return { params, continuations };
}

/**
 * Which continuations are closed. A continuation is nested in `f` when its body
 * uses one of `f`'s params, or mentions a continuation nested in `f` (jumping to a
 * block of `f` makes you part of `f` just as using one of its params does), unless
 * it is `f` itself. A continuation nested in nothing is closed: a top-level
 * function, or a block that can live in any function. The sets hold the
 * continuations whose params are needed, not the params, which keeps them small.
 */
export class Closedness {
  private readonly owners = new Map<Continuation, Set<Continuation>>();

  constructor(conts: Iterable<Continuation>) {
    const users = new Map<Continuation, Continuation[]>();
    const all = [...conts];
    for (const c of all) {
      const r = bodyRefs(c);
      const mine = new Set<Continuation>();
      for (const p of r.params) if (p.continuation !== c) mine.add(p.continuation);
      this.owners.set(c, mine);
      for (const t of r.continuations) {
        let us = users.get(t);
        if (!us) users.set(t, (us = []));
        us.push(c);
      }
    }
    // Propagate from mentioned continuations to the ones mentioning them until nothing grows.
    const work = all.filter((c) => this.owners.get(c)!.size > 0);
    const queued = new Set(work);
    while (work.length) {
      const c = work.pop()!;
      queued.delete(c);
      const from = this.owners.get(c)!;
      for (const u of users.get(c) ?? []) {
        const to = this.owners.get(u);
        if (!to) continue;
        const before = to.size;
        for (const o of from) if (o !== u) to.add(o);
        if (to.size > before && !queued.has(u)) {
          queued.add(u);
          work.push(u);
        }
      }
    }
  }

  isClosed(c: Continuation): boolean {
    return (this.owners.get(c)?.size ?? 0) === 0;
  }
}

/** The name this analysis had first; passes written against it keep working. */
export { Closedness as FreeParams };

/**
 * Whether body operand `index` of `user` (0 = callee) is a control-flow position:
 * the callee, a branch or match target, or the return continuation of a call
 * (the last argument when the callee's type ends in a continuation). Everything
 * else passes a value.
 */
export function isControlOperand(user: Continuation, index: number): boolean {
  if (index === 0) return true;
  const callee = user.callee;
  const arg = index - 1;
  if (callee instanceof Continuation && callee.intrinsic === 'branch') return arg === 2 || arg === 3;
  if (callee instanceof Continuation && callee.intrinsic === 'match') return arg === 2 || (arg >= 4 && arg % 2 === 0);
  return arg === user.ops.length - 2 && returnsThroughLast(callee.type);
}

/** A continuation type whose last param is itself a continuation: the callee returns through it. */
export function returnsThroughLast(t: Def['type']): boolean {
  return t instanceof FnType && t.params.length > 0 && t.params[t.params.length - 1] instanceof FnType;
}

/** The return param of a continuation: its last param when that is a continuation. */
export function isReturnParam(d: Def): d is Param {
  return d instanceof Param && d.continuation.retParam === d;
}
