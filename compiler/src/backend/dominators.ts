// Dominator tree (Cooper, Harvey & Kennedy's iterative algorithm over reverse
// post-order) and loop nesting depth from natural loops, for the scheduler.
import type { Continuation } from '../ir/defs.ts';
import type { CFG } from './cfg.ts';

export class DomTree {
  /** Pre- and post-order numbers in the dominator tree: dominance is interval nesting, O(1). */
  private readonly pre = new Map<Continuation, number>();
  private readonly post = new Map<Continuation, number>();

  constructor(
    readonly entry: Continuation,
    private readonly idoms: Map<Continuation, Continuation>,
    private readonly depths: Map<Continuation, number>,
  ) {
    const children = new Map<Continuation, Continuation[]>();
    for (const [b, d] of idoms) {
      if (b === entry) continue;
      const kids = children.get(d);
      if (kids) kids.push(b);
      else children.set(d, [b]);
    }
    let clock = 0;
    const stack: { b: Continuation; next: number }[] = [{ b: entry, next: 0 }];
    this.pre.set(entry, clock++);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const kids = children.get(top.b) ?? [];
      if (top.next < kids.length) {
        const k = kids[top.next++]!;
        this.pre.set(k, clock++);
        stack.push({ b: k, next: 0 });
      } else {
        this.post.set(top.b, clock++);
        stack.pop();
      }
    }
  }

  /** The immediate dominator; the entry has none. */
  idom(b: Continuation): Continuation | null {
    return b === this.entry ? null : this.idoms.get(b)!;
  }

  depth(b: Continuation): number {
    return this.depths.get(b)!;
  }

  dominates(a: Continuation, b: Continuation): boolean {
    return this.pre.get(a)! <= this.pre.get(b)! && this.post.get(b)! <= this.post.get(a)!;
  }

  /** The deepest block dominating both. */
  lca(a: Continuation, b: Continuation): Continuation {
    while (this.depth(a) > this.depth(b)) a = this.idom(a)!;
    while (this.depth(b) > this.depth(a)) b = this.idom(b)!;
    while (a !== b) {
      a = this.idom(a)!;
      b = this.idom(b)!;
    }
    return a;
  }
}

export function dominatorTree(cfg: CFG): DomTree {
  const order = new Map(cfg.blocks.map((b, i) => [b, i]));
  const idom = new Map<Continuation, Continuation>([[cfg.entry, cfg.entry]]);
  const intersect = (a: Continuation, b: Continuation): Continuation => {
    while (a !== b) {
      while (order.get(a)! > order.get(b)!) a = idom.get(a)!;
      while (order.get(b)! > order.get(a)!) b = idom.get(b)!;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const b of cfg.blocks) {
      if (b === cfg.entry) continue;
      let next: Continuation | undefined;
      for (const p of cfg.preds.get(b)!) {
        if (!idom.has(p)) continue;
        next = next ? intersect(p, next) : p;
      }
      if (next && idom.get(b) !== next) {
        idom.set(b, next);
        changed = true;
      }
    }
  }
  const depths = new Map<Continuation, number>([[cfg.entry, 0]]);
  // Reverse post-order visits every idom before the blocks it dominates.
  for (const b of cfg.blocks) if (b !== cfg.entry) depths.set(b, depths.get(idom.get(b)!)! + 1);
  return new DomTree(cfg.entry, idom, depths);
}

/**
 * How many natural loops contain each block. A back edge is an edge to a block
 * that dominates its source; irreducible cycles have none and count as depth 0,
 * which only makes the scheduler hoist less.
 */
export function loopDepths(cfg: CFG, dom: DomTree): Map<Continuation, number> {
  const bodies = new Map<Continuation, Set<Continuation>>();
  for (const b of cfg.blocks) {
    for (const h of cfg.succs.get(b)!) {
      if (!dom.dominates(h, b)) continue;
      let body = bodies.get(h);
      if (!body) bodies.set(h, (body = new Set([h])));
      const work = [b];
      while (work.length) {
        const x = work.pop()!;
        if (body.has(x)) continue;
        body.add(x);
        work.push(...cfg.preds.get(x)!);
      }
    }
  }
  const depth = new Map<Continuation, number>(cfg.blocks.map((b) => [b, 0]));
  for (const body of bodies.values()) for (const b of body) depth.set(b, depth.get(b)! + 1);
  return depth;
}
