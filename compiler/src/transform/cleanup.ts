// Cleanup: the local simplifications every other pass leaves work for, repeated
// to a fixed point.
//   - resolve partial-evaluation markers: `run(e)` and `hlt(e)` become `e`, a
//     leftover `known(e)` becomes false, and a `pe_info` call (a compile-time
//     message) just returns (the evaluator has had its chance);
//   - forget continuations that the externals cannot reach;
//   - fold branches and matches whose condition became a literal;
//   - eta-reduce forwarding continuations `k(x…) = j(x…)` to `j`;
//   - drop params of blocks that are unused or receive the same value from every
//     predecessor (trivial phis);
//   - merge a continuation into the one jump that reaches it (this is also how a
//     function with a single call site gets inlined);
// and finally sweep the primops no live code reaches, so that scopes computed
// afterwards see only live users.
import { Continuation, type Def, Param, type PrimOp, isLit } from '../ir/defs.ts';
import { MemType } from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import { isControlOperand } from '../ir/jumps.ts';
import { reachable } from '../ir/reachable.ts';
import { jumpFolded } from './mangle.ts';

export function cleanup(world: World): void {
  for (let changed = true; changed; ) {
    changed = false;
    // The last round changes nothing, so what it forgets here is all there is to forget at the end.
    const r = reachable(world);
    changed = resolveMarkers(world, r.primops) || changed;
    forgetUnreachable(world, new Set(r.continuations));
    for (const c of r.continuations) {
      if (!alive(world, c)) continue;
      changed = dropPeInfo(c) || changed;
      changed = foldBranch(world, c) || changed;
      changed = etaReduce(world, c) || changed;
    }
    // Params replaced by a phase are substituted once at its end: one replacement per
    // merge would rebuild a long chain of primops (`t += f(…)` a thousand times) per merge.
    const removed = new Map<Def, Def>();
    for (const c of r.continuations) if (alive(world, c) && removeParams(world, c, removed)) changed = true;
    world.replaceAll(removed);
    changed = mergeBlocks(world, r.continuations) || changed;
  }
  world.sweep();
}

function alive(world: World, c: Continuation): boolean {
  return world.continuations.has(c) && c.hasBody && !c.isIntrinsic;
}

function resolveMarkers(world: World, primops: readonly PrimOp[]): boolean {
  const subst = new Map<Def, Def>();
  for (const p of primops) {
    if (p.tag === 'run' || p.tag === 'hlt') subst.set(p, p.op(0));
    else if (p.tag === 'known') subst.set(p, world.litBool(false));
  }
  world.replaceAll(subst);
  return subst.size > 0;
}

/** `pe_info(mem, message, value, k)` continues at `k`: the message was for the partial evaluator. */
function dropPeInfo(c: Continuation): boolean {
  const callee = c.callee;
  if (!(callee instanceof Continuation) || callee.intrinsic !== 'pe_info') return false;
  c.jump(c.arg(c.args.length - 1), [c.arg(0)]);
  return true;
}

/** Imports and intrinsics stay registered: the World hands out the same node for them again. */
function forgetUnreachable(world: World, live: Set<Continuation>): void {
  for (const c of [...world.continuations]) {
    if (live.has(c) || c.isIntrinsic || (c.external && !c.hasBody)) continue;
    world.forget(c);
  }
}

function foldBranch(world: World, c: Continuation): boolean {
  const callee = c.callee;
  if (!(callee instanceof Continuation)) return false;
  const args = c.args;
  const foldable =
    (callee.intrinsic === 'branch' && (isLit(args[1]!) || args[2] === args[3])) ||
    (callee.intrinsic === 'match' && (isLit(args[1]!) || args.length === 3));
  if (!foldable) return false;
  jumpFolded(world, c, callee, args);
  return true;
}

/**
 * `k(x…) = j(x…)` is `j`. When `j` has no body (a return param, an import) it
 * replaces `k` only where a callee or a return continuation is expected; a branch
 * target or a value keeps the block `k`. That still turns `f(…, k)` into the tail
 * call `f(…, j)`, which makes a recursive call's return continuation static.
 */
function etaReduce(world: World, k: Continuation): boolean {
  if (k.external) return false;
  const j = k.callee;
  const args = k.args;
  if (j === k || args.length !== k.params.length) return false;
  if (!args.every((a, i) => a === k.param(i) && a.numUses === 1)) return false;
  if (j instanceof Param) {
    if (j.continuation === k) return false;
  } else if (!(j instanceof Continuation) || j.isIntrinsic) {
    return false;
  }
  if (j instanceof Continuation && j.hasBody) {
    world.replace(k, j);
    world.forget(k);
    return true;
  }
  let changed = false;
  for (const { user, index } of [...k.uses.values()]) {
    if (!(user instanceof Continuation) || !isControlOperand(user, index)) continue;
    if (index !== 0 && isBranchOrMatch(user.callee)) continue;
    user.updateOp(index, j);
    changed = true;
  }
  if (k.numUses === 0) world.forget(k);
  return changed;
}

function isBranchOrMatch(d: Def): boolean {
  return d instanceof Continuation && (d.intrinsic === 'branch' || d.intrinsic === 'match');
}

/** Callers of `c` when `c` is used only as a callee; null otherwise. */
function callersOnly(c: Continuation): Continuation[] | null {
  const callers: Continuation[] = [];
  for (const { user, index } of c.uses.values()) {
    if (!(user instanceof Continuation) || index !== 0) return null;
    callers.push(user);
  }
  return callers;
}

/**
 * Removes the params of a first-order continuation (a block) that no one uses or
 * that every caller sets to the same value, ignoring a loop passing the param back
 * to itself. Memory params stay: every continuation starts with one.
 */
function removeParams(world: World, k: Continuation, subst: Map<Def, Def>): boolean {
  if (k.external || k.fnType.order !== 1) return false;
  const callers = callersOnly(k);
  if (!callers || callers.length === 0) return false;
  const replacement = new Map<number, Def>();
  for (const p of k.params) {
    if (p.type instanceof MemType) continue;
    if (p.numUses === 0) {
      replacement.set(p.index, world.bottom(p.type));
      continue;
    }
    const values = new Set<Def>();
    for (const u of callers) {
      const a = u.arg(p.index);
      if (a !== p) values.add(a);
    }
    const [v] = values;
    if (values.size === 1 && !(v instanceof Param && v.continuation === k)) replacement.set(p.index, v!);
  }
  if (replacement.size === 0) return false;
  const keptParams = k.params.filter((p) => !replacement.has(p.index));
  const fresh = world.continuation(world.fnType(keptParams.map((p) => p.type)), k.name, keptParams.map((p) => p.name));
  fresh.span = k.span;
  for (const [i, v] of replacement) subst.set(k.param(i), v);
  keptParams.forEach((p, i) => subst.set(p, fresh.param(i)));
  fresh.jump(k.callee, k.args);
  for (const u of callersOnly(k)!) u.jump(fresh, u.args.filter((_, i) => !replacement.has(i)));
  world.forget(k);
  return true;
}

/**
 * Merges each of `continuations` that one jump reaches into that jump, the params
 * replaced by the arguments once at the end; whether any was merged. Also for a pass
 * that works inside one scope (the vectoriser after inlining calls).
 */
export function mergeBlocks(world: World, continuations: Iterable<Continuation>): boolean {
  const merged = new Map<Def, Def>();
  let changed = false;
  for (const c of continuations) if (alive(world, c) && mergeIntoPredecessor(world, c, merged)) changed = true;
  world.replaceAll(merged);
  return changed;
}

/** A continuation with one use, as the callee of `u`, is `u`'s body with its params bound to `u`'s arguments. */
function mergeIntoPredecessor(world: World, k: Continuation, subst: Map<Def, Def>): boolean {
  if (k.external || k.numUses !== 1) return false;
  const [{ user: u, index }] = k.uses.values();
  if (!(u instanceof Continuation) || index !== 0 || u === k || u.args.length !== k.params.length) return false;
  if (u.args.some((a) => a instanceof Param && a.continuation === k)) return false;
  k.params.forEach((p, i) => subst.set(p, u.arg(i)));
  jumpFolded(world, u, k.callee, k.args);
  world.forget(k);
  return true;
}
