// Replaces several defs at once, rebuilding (and refolding) each primop that
// depends on them exactly once. Replacing them one by one with World.replace
// rebuilds a node once per changed path to it, which is exponential on the
// memory chains of a long block (every load feeds both the next load and a value).
import { Continuation, type Def, PrimOp, type World } from '../ir/index.ts';

/** `subst` maps old defs to new ones; a new def may itself be a key (followed transitively). */
export function replaceAll(w: World, subst: ReadonlyMap<Def, Def>): void {
  if (subst.size === 0) return;
  const affected = new Set<PrimOp>();
  const users = new Set<Continuation>();
  const work = [...subst.keys()];
  while (work.length) {
    const d = work.pop()!;
    for (const { user } of d.uses.values()) {
      if (user instanceof Continuation) users.add(user);
      else if (user instanceof PrimOp && !affected.has(user)) {
        affected.add(user);
        work.push(user);
      }
    }
  }
  const memo = new Map<Def, Def>();
  const resolve = (d: Def): Def => {
    let r = d;
    for (let s = subst.get(r); s !== undefined; s = subst.get(r)) r = s;
    return r;
  };
  /** The new version of `root`, building operands first without recursion (chains are long). */
  const renew = (root: Def): Def => {
    const stack: Def[] = [root];
    while (stack.length) {
      const d = stack[stack.length - 1]!;
      if (memo.has(d)) {
        stack.pop();
        continue;
      }
      const r = resolve(d);
      if (r !== d) {
        if (!memo.has(r)) {
          stack.push(r);
          continue;
        }
        memo.set(d, memo.get(r)!);
      } else if (d instanceof PrimOp && affected.has(d)) {
        const pending = d.ops.filter((o) => !memo.has(o));
        if (pending.length) {
          stack.push(...pending);
          continue;
        }
        const ops = d.ops.map((o) => memo.get(o)!);
        memo.set(d, ops.every((o, i) => o === d.op(i)) ? d : w.rebuild(d, ops));
      } else {
        memo.set(d, d);
      }
      stack.pop();
    }
    return memo.get(root)!;
  };
  for (const c of users) {
    c.ops.forEach((o, i) => {
      const n = renew(o);
      if (n !== o) c.updateOp(i, n);
    });
  }
}
