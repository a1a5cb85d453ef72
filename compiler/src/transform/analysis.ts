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

/** Which continuations are closed; `FreeParams` is the name this analysis had first. */
export { Closedness, Closedness as FreeParams } from '../ir/closedness.ts';

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
