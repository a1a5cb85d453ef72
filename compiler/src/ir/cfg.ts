// The control-flow graph core that the backend (one function's blocks) and the
// vectoriser (one loop body's blocks) share: predecessors, the dominator tree and
// the loop tree of natural loops. Each of them builds its own view of the graph,
// because they read terminators differently (the backend's calls and exits, the
// vectoriser's EXIT and lane masks), and hands it over as a `Graph`.
import { reversePostOrder } from './order.ts';

export interface Graph<N> {
  readonly entry: N;
  /** The nodes reachable from the entry in reverse post-order, the entry first. */
  readonly nodes: readonly N[];
  succs(n: N): readonly N[];
  preds(n: N): readonly N[];
}

/**
 * The graph reachable from `entry`, visiting each node once with `visit`, which
 * returns its successors (each once). Successors are visited last to first, so
 * the first successor comes first in the order (`then` before `else`), unless
 * `firstSuccessorLast`.
 */
export function graphFrom<N>(entry: N, visit: (n: N) => readonly N[], opts: { firstSuccessorLast?: boolean } = {}): Graph<N> {
  const succs = new Map<N, readonly N[]>();
  const nodes = reversePostOrder(entry, (n) => {
    const s = visit(n);
    succs.set(n, s);
    return opts.firstSuccessorLast ? [...s].reverse() : s;
  });
  const preds = predecessors(nodes, (n) => succs.get(n)!);
  return { entry, nodes, succs: (n) => succs.get(n)!, preds: (n) => preds.get(n)! };
}

/** The predecessors of each of `nodes` among them, each once, in the order of `nodes`. */
export function predecessors<N>(nodes: readonly N[], succs: (n: N) => readonly N[]): Map<N, N[]> {
  const preds = new Map<N, N[]>(nodes.map((n) => [n, []]));
  for (const n of nodes) {
    for (const s of succs(n)) {
      const ps = preds.get(s);
      if (ps && ps[ps.length - 1] !== n) ps.push(n);
    }
  }
  return preds;
}

/** The dominator tree, with pre- and post-order numbers so that dominance is interval nesting, O(1). */
export class DomTree<N> {
  private readonly pre = new Map<N, number>();
  private readonly post = new Map<N, number>();

  constructor(
    readonly entry: N,
    private readonly idoms: ReadonlyMap<N, N>,
    private readonly depths: ReadonlyMap<N, number>,
  ) {
    const children = new Map<N, N[]>();
    for (const [b, d] of idoms) {
      if (b === entry) continue;
      const kids = children.get(d);
      if (kids) kids.push(b);
      else children.set(d, [b]);
    }
    let clock = 0;
    const stack: { b: N; next: number }[] = [{ b: entry, next: 0 }];
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
  idom(b: N): N | null {
    return b === this.entry ? null : this.idoms.get(b)!;
  }

  /** Distance from the entry in the tree (the entry is 0). */
  depth(b: N): number {
    return this.depths.get(b)!;
  }

  /** Whether `a` is `b` or dominates it. */
  dominates(a: N, b: N): boolean {
    return this.pre.get(a)! <= this.pre.get(b)! && this.post.get(b)! <= this.post.get(a)!;
  }

  /** The deepest node dominating both. */
  lca(a: N, b: N): N {
    while (this.depth(a) > this.depth(b)) a = this.idom(a)!;
    while (this.depth(b) > this.depth(a)) b = this.idom(b)!;
    while (a !== b) {
      a = this.idom(a)!;
      b = this.idom(b)!;
    }
    return a;
  }
}

/** Cooper, Harvey and Kennedy's iterative algorithm over the reverse post-order. */
export function dominatorTree<N>(g: Graph<N>): DomTree<N> {
  const order = new Map(g.nodes.map((b, i) => [b, i]));
  const idom = new Map<N, N>([[g.entry, g.entry]]);
  const intersect = (a: N, b: N): N => {
    while (a !== b) {
      while (order.get(a)! > order.get(b)!) a = idom.get(a)!;
      while (order.get(b)! > order.get(a)!) b = idom.get(b)!;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const b of g.nodes) {
      if (b === g.entry) continue;
      let next: N | undefined;
      for (const p of g.preds(b)) {
        if (!idom.has(p)) continue;
        next = next === undefined ? p : intersect(p, next);
      }
      if (next !== undefined && idom.get(b) !== next) {
        idom.set(b, next);
        changed = true;
      }
    }
  }
  const depths = new Map<N, number>([[g.entry, 0]]);
  // Reverse post-order visits every idom before the nodes it dominates.
  for (const b of g.nodes) if (b !== g.entry) depths.set(b, depths.get(idom.get(b)!)! + 1);
  return new DomTree(g.entry, idom, depths);
}

export interface Loop<N> {
  readonly header: N;
  readonly blocks: ReadonlySet<N>;
  /** The innermost loop around this one. */
  readonly parent: Loop<N> | null;
  /** How many loops contain the header, this one included (1 for an outermost loop). */
  readonly depth: number;
}

/**
 * The natural loops: a back edge is an edge to a node that dominates its source,
 * and its loop is the header with every node that reaches the source without
 * passing the header; back edges to one header make one loop. Natural loops with
 * different headers are nested or disjoint, so they form a tree.
 */
export class LoopTree<N> {
  /** Outermost first: larger loops before the loops nested in them. */
  readonly loops: readonly Loop<N>[];
  /**
   * False when some retreating edge (to a node no later in reverse post-order) is
   * no back edge: a cycle with several entries, which no natural loop describes.
   */
  readonly reducible: boolean;
  private readonly innermost = new Map<N, Loop<N>>();

  constructor(g: Graph<N>, dom: DomTree<N>) {
    const order = new Map(g.nodes.map((b, i) => [b, i]));
    const bodies = new Map<N, Set<N>>();
    let reducible = true;
    for (const b of g.nodes) {
      for (const h of g.succs(b)) {
        if (order.get(h)! > order.get(b)!) continue;
        if (!dom.dominates(h, b)) {
          reducible = false;
          continue;
        }
        let body = bodies.get(h);
        if (!body) bodies.set(h, (body = new Set([h])));
        const work = [b];
        while (work.length) {
          const x = work.pop()!;
          if (body.has(x)) continue;
          body.add(x);
          work.push(...g.preds(x));
        }
      }
    }
    this.reducible = reducible;
    // Largest first, so the last loop that contains a node is its innermost one.
    const loops: Loop<N>[] = [];
    for (const [header, blocks] of [...bodies].sort((a, b) => b[1].size - a[1].size)) {
      const parent = this.innermost.get(header) ?? null;
      const loop: Loop<N> = { header, blocks, parent, depth: parent ? parent.depth + 1 : 1 };
      loops.push(loop);
      for (const b of blocks) this.innermost.set(b, loop);
    }
    this.loops = loops;
  }

  /** The innermost loop containing `b`. */
  loopOf(b: N): Loop<N> | null {
    return this.innermost.get(b) ?? null;
  }

  /** The loop whose header `b` is. */
  headedBy(b: N): Loop<N> | null {
    const l = this.innermost.get(b);
    return l && l.header === b ? l : null;
  }

  /** How many loops contain `b`. */
  depth(b: N): number {
    return this.innermost.get(b)?.depth ?? 0;
  }

  /** `inner` is `outer` or nested in it. */
  static within<N>(inner: Loop<N> | null, outer: Loop<N>): boolean {
    for (let l = inner; l; l = l.parent) if (l === outer) return true;
    return false;
  }
}
