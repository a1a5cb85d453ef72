// Who still uses a continuation while the evaluator rewrites the world. Primops
// are hash-consed and never deleted, and a continuation the rewrites cut off
// stays registered until the next round forgets it, so `numUses` overcounts.
// A use counts when it comes from a registered continuation with a body, or
// from a primop that such a continuation uses. Dead but registered code still
// counts, so the answer errs towards "used elsewhere": never inline wrongly.
import { Continuation, type Def, newestParam, Param, PrimOp } from '../ir/defs.ts';
import type { World } from '../ir/world.ts';

export function isLive(world: World, c: Continuation): boolean {
  return world.continuations.has(c) && c.hasBody;
}

/** The one continuation that calls `f` (directly or as `@@f`) when that is `f`'s only live use; else null. */
export function soleCaller(world: World, f: Continuation): Continuation | null {
  const callers: Continuation[] = [];
  const seen = new Set<Def>();
  const onlyCalls = (d: Def): boolean => {
    for (const { user, index } of d.uses.values()) {
      if (user instanceof Continuation) {
        if (!isLive(world, user)) continue;
        if (index !== 0 || callers.length) return false;
        callers.push(user);
      } else if (d === f && user instanceof PrimOp && user.tag === 'run') {
        if (!onlyCalls(user)) return false;
      } else if (primopIsLive(world, user as PrimOp, seen)) {
        return false;
      }
    }
    return true;
  };
  return onlyCalls(f) ? (callers[0] ?? null) : null;
}

/** Whether no live code but `user`'s body uses `d` directly: dead primops over `d` do not count. */
export function usedOnlyBy(world: World, d: Def, user: Continuation): boolean {
  const seen = new Set<Def>();
  for (const { user: u } of d.uses.values()) {
    if (u === user) continue;
    if (u instanceof Continuation ? isLive(world, u) : primopIsLive(world, u as PrimOp, seen)) return false;
  }
  return true;
}

/** The live continuations that call `f` (directly or as `@@f`). */
export function callers(world: World, f: Continuation): Continuation[] {
  const result: Continuation[] = [];
  const collect = (d: Def): void => {
    for (const { user, index } of d.uses.values()) {
      if (user instanceof Continuation) {
        if (index === 0 && isLive(world, user)) result.push(user);
      } else if (d === f && user instanceof PrimOp && user.tag === 'run') {
        collect(user);
      }
    }
  };
  collect(f);
  return result;
}

function primopIsLive(world: World, root: PrimOp, seen: Set<Def>): boolean {
  const stack: Def[] = [root];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    for (const { user } of d.uses.values()) {
      if (!(user instanceof Continuation)) stack.push(user);
      else if (isLive(world, user)) return true;
    }
  }
  return false;
}

/** Whether one of `defs` reads a param of `f` through primops: `u: f(args…)` with such args is inside `f`. */
export function readsParamsOf(defs: readonly Def[], f: Continuation): boolean {
  // Without the bound every call of a chain of inlined calls walks the whole chain
  // of primops before it: quadratic in the length of the chain.
  const oldest = Math.min(...f.params.map((p) => p.gid));
  const seen = new Set<Def>();
  const stack = defs.filter((d) => newestParam(d) >= oldest);
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    if (d instanceof Param && d.continuation === f) return true;
    if (d instanceof PrimOp) for (const o of d.ops) if (newestParam(o) >= oldest) stack.push(o);
  }
  return false;
}
