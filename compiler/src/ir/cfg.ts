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

const NONE = -1;

/**
 * A dominator tree, with pre- and post-order numbers so that dominance is
 * interval nesting, O(1). It may be a forest (below the virtual root of
 * `immediateDominators`): nodes of different trees dominate each other not.
 */
export class DomTree<N> {
  private readonly idoms: Int32Array;
  private readonly pre: Int32Array;
  private readonly post: Int32Array;
  private readonly depths: Int32Array;

  /** Nodes are numbered 0…n-1 by `indexOf` and `nodeAt`; `idom` is `immediateDominators`' result over them. */
  constructor(
    private readonly indexOf: (n: N) => number,
    private readonly nodeAt: (i: number) => N,
    idom: Int32Array,
  ) {
    const root = idom.length - 1;
    this.idoms = idom;
    const children: number[][] = Array.from({ length: root + 1 }, () => []);
    for (let v = 0; v < root; v++) if (idom[v] !== NONE) children[idom[v]!]!.push(v);
    this.pre = new Int32Array(root + 1);
    this.post = new Int32Array(root + 1);
    // The roots of the trees (children of the virtual root) are at depth 0.
    this.depths = new Int32Array(root + 1).fill(-1);
    let clock = 0;
    const stack: [number, number][] = [[root, 0]];
    this.pre[root] = clock++;
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const kids = children[top[0]]!;
      if (top[1] < kids.length) {
        const k = kids[top[1]++]!;
        this.pre[k] = clock++;
        this.depths[k] = this.depths[top[0]]! + 1;
        stack.push([k, 0]);
      } else {
        this.post[top[0]] = clock++;
        stack.pop();
      }
    }
  }

  /** The immediate dominator; none for the root of a tree. */
  idom(b: N): N | null {
    const d = this.idoms[this.indexOf(b)]!;
    return d === NONE || d === this.idoms.length - 1 ? null : this.nodeAt(d);
  }

  /** Distance from the root of its tree (the entry is 0). */
  depth(b: N): number {
    return this.depths[this.indexOf(b)]!;
  }

  /** Whether `a` is `b` or dominates it. */
  dominates(a: N, b: N): boolean {
    const i = this.indexOf(a);
    const j = this.indexOf(b);
    return this.pre[i]! <= this.pre[j]! && this.post[j]! <= this.post[i]!;
  }

  /** The deepest node dominating both (in one tree). */
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

/** The dominator tree of a graph: its entry is the root. */
export function dominatorTree<N>(g: Graph<N>): DomTree<N> {
  const index = new Map(g.nodes.map((b, i) => [b, i]));
  const succs = g.nodes.map((b) => g.succs(b).map((s) => index.get(s)!));
  const preds = g.nodes.map((b) => g.preds(b).map((p) => index.get(p)!));
  // The entry is node 0: the virtual root's first child, and its only one, as every other node is reached from it.
  return new DomTree((b) => index.get(b)!, (i) => g.nodes[i]!, immediateDominators(succs, preds));
}

/** The dominator forest of a graph over the numbers 0…n-1, under the virtual root of `immediateDominators`. */
export function indexDominatorTree(succs: readonly (readonly number[])[], preds: readonly (readonly number[])[]): DomTree<number> {
  return new DomTree((i) => i, (i) => i, immediateDominators(succs, preds));
}

/**
 * The immediate dominator of each node 0…n-1 of a graph (n = `succs.length`),
 * under a virtual root numbered n above every node without predecessors and
 * then, in index order, a node of each part not reached yet (a cycle nothing
 * outside enters); the root's own entry is NONE (-1). Lengauer & Tarjan with path
 * compression: Cooper, Harvey & Kennedy's iteration walks a long chain of blocks
 * once for each join into it.
 */
export function immediateDominators(succs: readonly (readonly number[])[], preds: readonly (readonly number[])[]): Int32Array {
  const n = succs.length;
  const { vertex, parent } = depthFirst(succs, preds);
  const dfnum = new Int32Array(n + 1).fill(NONE);
  vertex.forEach((v, i) => (dfnum[v] = i));
  const semi = new Int32Array(n + 1).fill(NONE);
  const ancestor = new Int32Array(n + 1).fill(NONE);
  const best = new Int32Array(n + 1).fill(NONE);
  const idom = new Int32Array(n + 1).fill(NONE);
  const samedom = new Int32Array(n + 1).fill(NONE);
  const bucket: number[][] = Array.from({ length: n + 1 }, () => []);
  const path: number[] = [];
  // The ancestor of `v` in the linked forest whose semidominator is least, compressing the path on the way.
  const lowest = (v: number): number => {
    for (let x = v; ancestor[x] !== NONE && ancestor[ancestor[x]!] !== NONE; x = ancestor[x]!) path.push(x);
    while (path.length) {
      const y = path.pop()!;
      const a = ancestor[y]!;
      const b = best[a]!;
      ancestor[y] = ancestor[a]!;
      if (dfnum[semi[b]!]! < dfnum[semi[best[y]!]!]!) best[y] = b;
    }
    return best[v]!;
  };
  for (let i = vertex.length - 1; i > 0; i--) {
    const w = vertex[i]!;
    const p = parent[w]!;
    let s = p;
    for (const v of preds[w]!) {
      const cand = dfnum[v]! <= dfnum[w]! ? v : semi[lowest(v)]!;
      if (dfnum[cand]! < dfnum[s]!) s = cand;
    }
    semi[w] = s;
    bucket[s]!.push(w);
    ancestor[w] = p;
    best[w] = w;
    for (const v of bucket[p]!) {
      const y = lowest(v);
      if (semi[y] === semi[v]) idom[v] = p;
      else samedom[v] = y;
    }
    bucket[p] = [];
  }
  for (let i = 1; i < vertex.length; i++) {
    const w = vertex[i]!;
    if (samedom[w] !== NONE) idom[w] = idom[samedom[w]!]!;
  }
  return idom;
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

/**
 * Depth-first pre-order from the virtual root (`vertex[0]`, numbered `succs.length`),
 * whose successors are the nodes without predecessors and then, in index order, a
 * node of each part the walk has not reached yet; `parent` is the tree edge into
 * each node.
 */
function depthFirst(succs: readonly (readonly number[])[], preds: readonly (readonly number[])[]): { vertex: number[]; parent: Int32Array } {
  const n = succs.length;
  const root = n;
  const vertex = [root];
  const parent = new Int32Array(n + 1).fill(NONE);
  const seen = new Uint8Array(n);
  const from = (s: number): void => {
    if (seen[s]) return;
    seen[s] = 1;
    parent[s] = root;
    vertex.push(s);
    const stack: [number, number][] = [[s, 0]];
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const ts = succs[top[0]]!;
      if (top[1] === ts.length) {
        stack.pop();
        continue;
      }
      const t = ts[top[1]++]!;
      if (seen[t]) continue;
      seen[t] = 1;
      parent[t] = top[0];
      vertex.push(t);
      stack.push([t, 0]);
    }
  };
  for (let b = 0; b < n; b++) if (preds[b]!.length === 0) from(b);
  for (let b = 0; b < n; b++) from(b);
  return { vertex, parent };
}
