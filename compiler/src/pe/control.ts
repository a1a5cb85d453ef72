// Local control-flow facts the evaluator needs as soon as they hold, before the
// next cleanup: a branch on a condition that became a literal must not send the
// walk into the dead side (a call there may specialise forever), and a call
// returning into a block that only passes its values on returns to that block's
// target. Emission makes such blocks for calls in tail position
// (`ret(m) = join(m)`, `join(m) = return(m)`); seeing through them makes the
// return continuation of a tail-recursive call the function's own return param,
// a static argument, so `unroll_step` specialised to its body becomes a loop.
// A block only forwards while nothing else reads its params: once evaluation has
// merged code into it (`ret(m, s) = join(m, s)` with `s` printed after the
// join), returning past it would leave that code with an unbound `s`.
import { Continuation, type Def, Param, PrimOp, isLit } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import type { World } from '../ir/world.ts';
import { returnsThroughLast } from '../ir/jumps.ts';
import { jumpFolded } from '../transform/mangle.ts';
import { readsParamsOf, usedOnlyBy } from './liveness.ts';

/** Replaces a branch or match on a literal by a jump; true when `u` changed. */
export function foldBranch(world: World, u: Continuation): boolean {
  const callee = u.callee;
  if (!(callee instanceof Continuation) || (callee.intrinsic !== 'branch' && callee.intrinsic !== 'match')) return false;
  if (!isLit(u.arg(1))) return false;
  jumpFolded(world, u, callee, u.args);
  return true;
}

/**
 * Whether `u` branches on a condition that still asks `?e` of a value evaluation has not
 * made static yet. Such a `?` often becomes true a round later, once the call computing
 * `e` is inlined; specialising the calls of both sides before that is work (and budget)
 * spent on a side that then goes.
 */
export function branchesOnOpenKnown(u: Continuation): boolean {
  const callee = u.callee;
  return callee instanceof Continuation && callee.intrinsic === 'branch' && asksKnown(u.arg(1));
}

/** Whether a `known` primop is among the primops `root` is built from. */
const asksKnownOf = new WeakMap<Def, boolean>();
/** Memoised, iterative: conditions may hang off long primop chains (a counter decremented at every level). */
function asksKnown(root: Def): boolean {
  const stack: Def[] = [root];
  while (stack.length) {
    const d = stack[stack.length - 1]!;
    if (!(d instanceof PrimOp)) {
      asksKnownOf.set(d, false);
    } else if (!asksKnownOf.has(d)) {
      const missing = d.ops.filter((o) => !asksKnownOf.has(o));
      if (missing.length) {
        for (const o of missing) stack.push(o); // not push(...): a string literal has an op per byte
        continue;
      }
      asksKnownOf.set(d, d.tag === 'known' || d.ops.some((o) => asksKnownOf.get(o)));
    }
    stack.pop();
  }
  return asksKnownOf.get(root)!;
}

/** Passes the return continuation of the call ending `u` past blocks that only forward; true when `u` changed. */
export function resolveReturn(world: World, u: Continuation): boolean {
  const callee = u.callee;
  if (u.args.length === 0 || !returnsThroughLast(callee.type)) return false;
  if (callee instanceof Continuation && (callee.intrinsic === 'branch' || callee.intrinsic === 'match')) return false;
  const last = u.ops.length - 1;
  const target = forwardee(world, u.op(last));
  if (target === u.op(last)) return false;
  u.updateOp(last, target);
  return true;
}

/**
 * What `k` stands for: the end of a chain of blocks each of which passes its
 * params, in order, to the next and uses them nowhere else.
 */
function forwardee(world: World, start: Def): Def {
  const seen = new Set<Def>();
  let k = start;
  while (k instanceof Continuation && k.hasBody && !k.external && !seen.has(k)) {
    seen.add(k);
    const block = k;
    const j = block.callee;
    const forwards =
      (j instanceof Param ? j.continuation !== block : j instanceof Continuation && !j.isIntrinsic && j !== block) &&
      block.args.length === block.params.length &&
      block.args.every((a, i) => a === block.param(i)) &&
      block.params.every((p) => usedOnlyBy(world, p, block));
    if (!forwards) break;
    k = j;
  }
  return k;
}

/**
 * Whether `f`'s body only passes its params and values from outside it on to one
 * of its continuation params: a specialisation evaluated down to `return(42)`,
 * or a function that forwards. Such a body is valid at every call of `f`. A
 * closure nested in `f` (`|z| z * n` returned by `fn mk(n)`) is not from
 * outside: it reads `f`'s params from its own body, which a caller cannot bind.
 */
export function isPlainJump(f: Continuation): boolean {
  const to = f.callee;
  if (!(to instanceof Param) || to.continuation !== f) return false;
  const values = f.args.filter((a) => !ownParam(a, f));
  if (readsParamsOf(values, f)) return false;
  const mentioned = mentionedContinuations(values);
  if (mentioned.length === 0) return true;
  const scope = new Scope(f);
  return mentioned.every((c) => !scope.contains(c));
}

/** The continuations `defs` are or contain through primops. */
function mentionedContinuations(defs: readonly Def[]): Continuation[] {
  const found: Continuation[] = [];
  const seen = new Set<Def>();
  const stack = [...defs];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    if (d instanceof Continuation) found.push(d);
    else if (d instanceof PrimOp) for (const o of d.ops) stack.push(o); // a string literal has an op per byte
  }
  return found;
}

/**
 * A call of a function whose body is a plain jump is that jump, whatever the
 * number of calls: 42 goes to every caller without a copy of anything. True
 * when `u` changed.
 */
export function jumpThrough(u: Continuation, f: Continuation): boolean {
  if (!isPlainJump(f)) return false;
  const arg = (d: Def): Def => (ownParam(d, f) ? u.arg((d as Param).index) : d);
  u.jump(arg(f.callee), f.args.map(arg));
  return true;
}

function ownParam(d: Def, f: Continuation): boolean {
  return d instanceof Param && d.continuation === f;
}
