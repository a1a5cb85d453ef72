// A scope is everything that depends on a continuation's parameters: the
// continuations and primops nested "inside" it. What a scope uses but does not
// contain are its free variables; a scope without free params is a closed
// (top-level) function. `freeDefs` is the one walk that finds what some bodies
// use from outside: the scope's free defs (closure environments, parallel
// bodies), its free params and mentioned continuations, and what a single body
// mentions (closedness.ts).
import { Continuation, type Def, type Param, PrimOp } from './defs.ts';
import { isStatic } from './world.ts';
import { reversePostOrder } from './order.ts';

export class Scope {
  readonly defs = new Set<Def>();
  private order: Continuation[] | undefined;

  constructor(readonly entry: Continuation) {
    this.defs.add(entry);
    const queue: Def[] = [...entry.params];
    for (const p of entry.params) this.defs.add(p);
    const defs = this.defs;
    while (queue.length) {
      const d = queue.pop()!;
      for (const use of d.uses.values()) {
        const u = use.user;
        // One lookup per user: add, and see whether the set grew.
        const size = defs.size;
        if (defs.add(u).size === size) continue;
        queue.push(u);
        if (u instanceof Continuation) {
          for (const p of u.params) {
            this.defs.add(p);
            queue.push(p);
          }
        }
      }
    }
  }

  /**
   * Continuations of the scope, entry first, the rest in reverse post-order of the jump
   * graph. Computed on first use: most scopes are only asked what they contain (the
   * cloner, the higher-order rule's cycle search), and the order is the costly part.
   */
  get continuations(): readonly Continuation[] {
    this.order ??= this.reversePostOrder();
    return this.order;
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

  /** The operands of the bodies of the scope's continuations: where walks over what the scope uses start. */
  bodyOperands(): Def[] {
    const ops: Def[] = [];
    for (const c of this.continuations) ops.push(...c.ops);
    return ops;
  }

  /**
   * The outermost defs outside the scope that its bodies use (params of other
   * continuations and the primops over them; constants are looked through) and the
   * continuations outside it that they mention: what a closure of the entry captures.
   */
  freeDefs(): FreeDefs {
    return freeDefs(this.bodyOperands(), (d) => this.defs.has(d));
  }

  /**
   * Params of other continuations that this scope needs: those it uses directly, and
   * those of every continuation outside it that it mentions (jumping to a block of `f`
   * makes you part of `f` just as using one of `f`'s params does). Non-empty means the
   * entry is a closure or a block, not a top-level function.
   */
  freeParams(): Set<Param> {
    const own = this.usedOutside();
    const free = new Set<Param>(own.params);
    const reached = new Set<Continuation>();
    const work = [...own.continuations];
    while (work.length) {
      const k = work.pop()!;
      if (reached.has(k) || !k.hasBody) continue;
      reached.add(k);
      const inner = new Scope(k).usedOutside();
      for (const p of inner.params) if (!this.defs.has(p)) free.add(p);
      work.push(...inner.continuations);
    }
    return free;
  }

  /** Params of other continuations that the bodies use through primops, and the continuations outside the scope they mention. */
  private usedOutside(): { params: Set<Param>; continuations: Set<Continuation> } {
    const found = freeDefs(this.bodyOperands(), (d) => d instanceof PrimOp || this.defs.has(d));
    // Every primop is looked through, so what the walk stops at are params.
    return { params: found.defs as Set<Param>, continuations: found.continuations };
  }
}

/** What some bodies use from outside (see `freeDefs`). */
export interface FreeDefs {
  /** Params, and primops that depend on params or effects, outside: where the walk stopped. */
  readonly defs: Set<Def>;
  /** Continuations outside that the bodies mention (through primops, not through other continuations). */
  readonly continuations: Set<Continuation>;
}

/**
 * The free definitions of `roots` (body operands): walking down through the
 * primops that are `inside` and those that are static (constants, valid in any
 * function), the params and primops outside where the walk stops, and the
 * continuations outside it that it mentions. Iterative: unrolled code chains
 * thousands of primops.
 */
export function freeDefs(roots: Iterable<Def>, inside: (d: Def) => boolean): FreeDefs {
  const defs = new Set<Def>();
  const continuations = new Set<Continuation>();
  const seen = new Set<Def>();
  const stack: Def[] = [...roots];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    if (d instanceof Continuation) {
      if (!inside(d)) continuations.add(d);
    } else if (d instanceof PrimOp && (inside(d) || isStatic(d))) {
      for (const o of d.ops) if (!seen.has(o)) stack.push(o);
    } else if (!inside(d)) {
      defs.add(d);
    }
  }
  return { defs, continuations };
}
