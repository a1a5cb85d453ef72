// Local control-flow facts the evaluator needs as soon as they hold, before the
// next cleanup: a branch on a condition that became a literal must not send the
// walk into the dead side (a call there may specialise forever), and a call
// returning into a block that only passes its values on returns to that block's
// target. Emission makes such blocks for calls in tail position
// (`ret(m) = join(m)`, `join(m) = return(m)`); seeing through them makes the
// return continuation of a tail-recursive call the function's own return param,
// a static argument, so `unroll_step` specialised to its body becomes a loop.
import { Continuation, type Def, Param, isLit } from '../ir/defs.ts';
import { type World, isStatic } from '../ir/world.ts';
import { returnsThroughLast } from '../transform/analysis.ts';
import { jumpFolded } from '../transform/mangle.ts';

/** Replaces a branch or match on a literal by a jump; true when `u` changed. */
export function foldBranch(world: World, u: Continuation): boolean {
  const callee = u.callee;
  if (!(callee instanceof Continuation) || (callee.intrinsic !== 'branch' && callee.intrinsic !== 'match')) return false;
  if (!isLit(u.arg(1))) return false;
  jumpFolded(world, u, callee, u.args);
  return true;
}

/** Passes the return continuation of the call ending `u` past blocks that only forward; true when `u` changed. */
export function resolveReturn(u: Continuation): boolean {
  const callee = u.callee;
  if (u.args.length === 0 || !returnsThroughLast(callee.type)) return false;
  if (callee instanceof Continuation && (callee.intrinsic === 'branch' || callee.intrinsic === 'match')) return false;
  const last = u.ops.length - 1;
  const target = forwardee(u.op(last));
  if (target === u.op(last)) return false;
  u.updateOp(last, target);
  return true;
}

/** What `k` stands for: the end of a chain of blocks each of which passes its params, in order, to the next. */
function forwardee(start: Def): Def {
  const seen = new Set<Def>();
  let k = start;
  while (k instanceof Continuation && k.hasBody && !k.external && !seen.has(k)) {
    seen.add(k);
    const block = k;
    const j = block.callee;
    const forwards =
      (j instanceof Param ? j.continuation !== block : j instanceof Continuation && !j.isIntrinsic && j !== block) &&
      block.args.length === block.params.length &&
      block.args.every((a, i) => a === block.param(i));
    if (!forwards) break;
    k = j;
  }
  return k;
}

/**
 * A call of a function whose body only passes its params and constants on to
 * one of its continuation params is that jump, whatever the number of calls:
 * a specialisation that evaluated to `return(42)` hands 42 to every caller
 * without a copy of anything. True when `u` changed.
 */
export function jumpThrough(u: Continuation, f: Continuation): boolean {
  const to = f.callee;
  const own = (d: Def): boolean => d instanceof Param && d.continuation === f;
  if (!own(to) || !f.args.every((a) => own(a) || isStatic(a))) return false;
  const arg = (d: Def): Def => (own(d) ? u.arg((d as Param).index) : d);
  u.jump(arg(to), f.args.map(arg));
  return true;
}
