// Which operand positions of a jump are control flow rather than values, and
// the return continuations of the calling convention (README: "Calls").
import { Continuation, type Def, Param } from './defs.ts';
import { FnType } from './types.ts';

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

/** True when `c` is used other than in a control-flow position: as a primop operand or as a plain call argument. */
export function hasValueUse(c: Continuation): boolean {
  for (const { user, index } of c.uses.values()) {
    if (!(user instanceof Continuation) || !isControlOperand(user, index)) return true;
  }
  return false;
}

/** A continuation type whose last param is itself a continuation: the callee returns through it. */
export function returnsThroughLast(t: Def['type']): boolean {
  return t instanceof FnType && t.params.length > 0 && t.params[t.params.length - 1] instanceof FnType;
}

/** The return param of a continuation: its last param when that is a continuation. */
export function isReturnParam(d: Def): d is Param {
  return d instanceof Param && d.continuation.retParam === d;
}
