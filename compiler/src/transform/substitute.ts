// Replacing defs everywhere. `World.replace` rebuilds a primop user once per use,
// each time from the original user, so a primop that uses the replaced def both
// directly and through another primop (`mul(add(i, 1), i)`) keeps the old def.
// This rebuilds each affected primop once, operands first, with all
// substitutions applied, and only the primops that still feed a continuation
// (dead primops stay registered as users of live defs; rebuilding them would only
// make more garbage).
import { Continuation, type Def, PrimOp } from '../ir/defs.ts';
import type { World } from '../ir/world.ts';

/** Replaces every key of `subst` by its value in all live primops and continuation bodies. */
export function substitute(world: World, subst: ReadonlyMap<Def, Def>): void {
  const map = new Map(subst);
  const resolve = (d: Def): Def => {
    let r = d;
    for (let n = 0; map.has(r) && n <= map.size; n++) r = map.get(r)!;
    return r;
  };
  // Everything that transitively uses a key, split into primops and continuation bodies.
  const affected = new Set<PrimOp>();
  const bodies = new Set<Continuation>();
  const stack: Def[] = [...map.keys()];
  while (stack.length) {
    for (const { user } of stack.pop()!.uses.values()) {
      if (user instanceof Continuation) bodies.add(user);
      else if (user instanceof PrimOp && !affected.has(user)) {
        affected.add(user);
        stack.push(user);
      }
    }
  }
  for (const p of liveInOperandOrder(affected)) {
    if (map.has(p)) continue;
    const ops = p.ops.map(resolve);
    if (ops.some((o, i) => o !== p.op(i))) map.set(p, world.rebuild(p, ops));
  }
  for (const c of bodies) {
    c.ops.forEach((o, i) => {
      const r = resolve(o);
      if (r !== o) c.updateOp(i, r);
    });
  }
}

/** The primops of `set` that reach a continuation through their users, operands before users. */
function liveInOperandOrder(set: Set<PrimOp>): PrimOp[] {
  const live = new Map<PrimOp, boolean>();
  const isLive = (root: PrimOp): boolean => {
    // Iterative post-order over users: a primop is live when some user is a continuation or a live primop.
    const work: [PrimOp, boolean][] = [[root, false]];
    while (work.length) {
      const [p, expanded] = work.pop()!;
      if (live.has(p)) continue;
      const users = [...p.uses.values()].map((u) => u.user);
      if (!expanded) {
        if (users.some((u) => u instanceof Continuation)) {
          live.set(p, true);
          continue;
        }
        work.push([p, true]);
        for (const u of users) if (u instanceof PrimOp && set.has(u) && !live.has(u)) work.push([u, false]);
        continue;
      }
      live.set(p, users.some((u) => u instanceof PrimOp && live.get(u) === true));
    }
    return live.get(root)!;
  };
  const order: PrimOp[] = [];
  const placed = new Set<PrimOp>();
  for (const start of set) {
    if (placed.has(start) || !isLive(start)) continue;
    const work: [PrimOp, boolean][] = [[start, false]];
    while (work.length) {
      const [p, expanded] = work.pop()!;
      if (expanded) {
        order.push(p);
        continue;
      }
      if (placed.has(p)) continue;
      placed.add(p);
      work.push([p, true]);
      for (const o of p.ops) if (o instanceof PrimOp && set.has(o) && !placed.has(o) && isLive(o)) work.push([o, false]);
    }
  }
  return order;
}
