// A scope is everything that depends on a continuation's parameters: the
// continuations and primops nested "inside" it. What a scope uses but does not
// contain are its free variables; a scope without free params is a closed
// (top-level) function.
import { Continuation, type Def, Param, PrimOp } from './defs.ts';
import { isStatic } from './world.ts';
import { reversePostOrder } from './order.ts';

export class Scope {
  readonly defs = new Set<Def>();
  /** Continuations of the scope, entry first, the rest in reverse post-order of the jump graph. */
  readonly continuations: Continuation[];

  constructor(readonly entry: Continuation) {
    this.defs.add(entry);
    const queue: Def[] = [...entry.params];
    for (const p of entry.params) this.defs.add(p);
    while (queue.length) {
      const d = queue.pop()!;
      for (const use of d.uses.values()) {
        const u = use.user;
        if (this.defs.has(u)) continue;
        this.defs.add(u);
        queue.push(u);
        if (u instanceof Continuation) {
          for (const p of u.params) {
            this.defs.add(p);
            queue.push(p);
          }
        }
      }
    }
    this.continuations = this.reversePostOrder();
  }

  contains(d: Def): boolean {
    return this.defs.has(d);
  }

  /** Continuations of this scope reachable from `c`'s body operands (callee and arguments). */
  successors(c: Continuation): Continuation[] {
    return c.ops.filter((o): o is Continuation => o instanceof Continuation && o !== this.entry && this.defs.has(o));
  }

  private reversePostOrder(): Continuation[] {
    const rpo = reversePostOrder(this.entry, (c) => this.successors(c));
    const seen = new Set(rpo);
    // Continuations only referenced from primops or as values are still part of the scope.
    for (const d of this.defs) if (d instanceof Continuation && !seen.has(d)) rpo.push(d);
    return rpo;
  }

  /**
   * Params of other continuations that this scope needs: those it uses directly, and
   * those of every continuation outside it that it mentions (jumping to a block of `f`
   * makes you part of `f` just as using one of `f`'s params does). Non-empty means the
   * entry is a closure or a block, not a top-level function.
   */
  freeParams(): Set<Param> {
    const free = new Set<Param>(this.directFreeParams());
    const reached = new Set<Continuation>();
    const work = [...this.freeContinuations()];
    while (work.length) {
      const k = work.pop()!;
      if (reached.has(k) || !k.hasBody) continue;
      reached.add(k);
      const inner = new Scope(k);
      for (const p of inner.directFreeParams()) if (!this.defs.has(p)) free.add(p);
      work.push(...inner.freeContinuations());
    }
    return free;
  }

  /** Params of other continuations used by this scope's defs, through primops only. */
  directFreeParams(): Set<Param> {
    const free = new Set<Param>();
    const seen = new Set<Def>();
    const work: Def[] = [];
    for (const d of this.defs) work.push(...d.ops);
    while (work.length) {
      const d = work.pop()!;
      if (seen.has(d) || this.defs.has(d)) continue;
      seen.add(d);
      if (d instanceof Param) free.add(d);
      else if (d instanceof PrimOp && !isStatic(d)) work.push(...d.ops);
    }
    return free;
  }

  /** Continuations this scope references that are not in it (called functions, other closures). */
  freeContinuations(): Set<Continuation> {
    const free = new Set<Continuation>();
    const seen = new Set<Def>();
    const work: Def[] = [];
    for (const d of this.defs) work.push(...d.ops);
    while (work.length) {
      const d = work.pop()!;
      if (seen.has(d) || this.defs.has(d)) continue;
      seen.add(d);
      if (d instanceof Continuation) free.add(d);
      else if (d instanceof PrimOp) work.push(...d.ops);
    }
    return free;
  }
}

/** Continuations with a body whose scope has no free params: the top-level functions. */
export function topLevelContinuations(conts: Iterable<Continuation>): Continuation[] {
  const result: Continuation[] = [];
  for (const c of conts) if (c.hasBody && new Scope(c).freeParams().size === 0) result.push(c);
  return result;
}
