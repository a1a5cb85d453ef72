// Which continuations are closed (top-level). A continuation is nested in `f` when
// its body uses one of `f`'s params, or mentions a continuation nested in `f`
// (jumping to a block of `f` makes you part of `f` just as using one of its params
// does), unless it is `f` itself. A continuation nested in nothing is closed: a
// top-level function, or a block that can live in any function.
//
// The sets of owners (the continuations a continuation is nested in) add up to the
// sum of all nesting depths: quadratic for a chain of n calls whose last block
// reads a value built from every call's result (`x = x + f(i)` n times puts the
// k-th return block k deep). Closedness only needs to know whether the set is
// empty, and that does not need the sets where every param is read only where its
// continuation dominates the reader in the graph of mentions (what well-formed
// code does): then every owner of `c` dominates `c`, the owners of `c` are a path
// of the dominator tree, and an owner that leaves the set of `t` on the way to a
// mentioning `c` is `c` itself, the deepest. The outermost owner of each
// continuation then says all there is: when it is `c`, `c` was the only one.
// Continuations that reach a param read outside that dominance (dead blocks the
// evaluator just bypassed, still reading the return param they forwarded to) are
// answered from the sets, over what they reach.
import { Continuation, type Def, Param, PrimOp } from './defs.ts';
import { foldUp } from './order.ts';
import { freeDefs } from './scope.ts';

export class Closedness {
  private readonly index = new Map<Continuation, number>();
  private readonly nested: boolean[];

  constructor(conts: Iterable<Continuation>) {
    const all: Continuation[] = [];
    for (const c of conts) {
      if (this.index.has(c)) continue;
      this.index.set(c, all.length);
      all.push(c);
    }
    this.nested = nestedFlags(all, this.index);
  }

  isClosed(c: Continuation): boolean {
    const i = this.index.get(c);
    return i === undefined || !this.nested[i];
  }
}

// ------------------------------------------------------------ by sets

/** Nested flags from the owner sets themselves: exact for a list closed under mentions. Exported as the reference for tests. */
export function nestedBySets(all: readonly Continuation[]): boolean[] {
  const owners = new Map<Continuation, Set<Continuation>>();
  const users = new Map<Continuation, Continuation[]>();
  for (const c of all) {
    const r = bodyRefs(c);
    const mine = new Set<Continuation>();
    for (const p of r.params) if (p.continuation !== c) mine.add(p.continuation);
    owners.set(c, mine);
    for (const t of r.continuations) {
      let us = users.get(t);
      if (!us) users.set(t, (us = []));
      us.push(c);
    }
  }
  // Propagate from mentioned continuations to the ones mentioning them until nothing grows.
  const work = all.filter((c) => owners.get(c)!.size > 0);
  const queued = new Set(work);
  while (work.length) {
    const c = work.pop()!;
    queued.delete(c);
    const from = owners.get(c)!;
    for (const u of users.get(c) ?? []) {
      const to = owners.get(u);
      if (!to) continue;
      const before = to.size;
      for (const o of from) if (o !== u) to.add(o);
      if (to.size > before && !queued.has(u)) {
        queued.add(u);
        work.push(u);
      }
    }
  }
  return all.map((c) => owners.get(c)!.size > 0);
}

/** Params and continuations a continuation's body mentions directly (through primops, not through other continuations). */
export function bodyRefs(c: Continuation): { params: Set<Param>; continuations: Set<Continuation> } {
  const found = freeDefs(c.ops, (d) => d instanceof PrimOp);
  // Every primop is looked through, so what the walk stops at are params.
  return { params: found.defs as Set<Param>, continuations: found.continuations };
}

// ------------------------------------------------------------ by dominance

const NONE = -1;

/** The owners of a primop's params (through primops): a path of the dominator tree, from `outermost` down to `deepest`. */
interface Owners {
  readonly deepest: number;
  readonly outermost: number;
}

const noOwners: Owners = { deepest: NONE, outermost: NONE };

function nestedFlags(all: readonly Continuation[], index: ReadonlyMap<Continuation, number>): boolean[] {
  const n = all.length;
  const mentionMemo = new Map<PrimOp, readonly Continuation[]>();
  const succs = all.map((c) => {
    const out = new Set<number>();
    for (const k of mentions(c.ops, mentionMemo)) {
      const i = index.get(k);
      if (i !== undefined) out.add(i);
    }
    return [...out];
  });
  const preds: number[][] = all.map(() => []);
  succs.forEach((ts, c) => ts.forEach((t) => preds[t]!.push(c)));
  const dom = new Dominators(succs, preds);

  const ownerMemo = new Map<PrimOp, Owners | null>();
  const leaf = (d: Def): Owners | null => {
    if (d instanceof Param) {
      const i = index.get(d.continuation);
      return i === undefined ? null : { deepest: i, outermost: i };
    }
    if (d instanceof PrimOp) return memoised(ownerMemo, d, (p) => merged(p.ops.map(leaf), dom));
    return noOwners;
  };
  // The outermost owner of each body; the continuation itself only when it is the one owner.
  const own = new Int32Array(n).fill(NONE);
  const outside: number[] = [];
  for (let x = 0; x < n; x++) {
    const o = merged(all[x]!.ops.map(leaf), dom);
    if (o === null || (o.deepest !== NONE && !dom.dominates(o.deepest, x))) outside.push(x);
    else if (o.outermost !== x) own[x] = o.outermost;
  }
  const unsure = closure(outside, preds);
  const nested = new Array<boolean>(n);
  if (unsure.length) {
    // What a continuation is nested in depends only on what it reaches.
    const region = closure(unsure, succs).sort((a, b) => a - b);
    const bySets = nestedBySets(region.map((x) => all[x]!));
    region.forEach((x, i) => (nested[x] = bySets[i]!));
  }
  // A continuation gets the outermost owner of those it mentions unless that is itself
  // (then it was their only owner). Outer owners go first, so each continuation gets
  // its outermost owner the first time one reaches it.
  const outermost = new Int32Array(n).fill(NONE);
  const byDepth: number[][] = Array.from({ length: n + 1 }, () => []);
  for (let x = 0; x < n; x++) if (nested[x] === undefined && own[x] !== NONE) byDepth[dom.depthOf(own[x]!)]!.push(x);
  for (const level of byDepth) {
    const queue: number[] = [];
    for (const x of level) {
      if (outermost[x] !== NONE) continue;
      outermost[x] = own[x]!;
      queue.push(x);
    }
    while (queue.length) {
      const t = queue.pop()!;
      const o = outermost[t]!;
      for (const c of preds[t]!) {
        if (c === o || outermost[c] !== NONE || nested[c] !== undefined) continue;
        outermost[c] = o;
        queue.push(c);
      }
    }
  }
  for (let x = 0; x < n; x++) nested[x] ??= outermost[x] !== NONE;
  return nested;
}

/** The nodes reachable from `start` along `edges`, `start` included. */
function closure(start: readonly number[], edges: readonly (readonly number[])[]): number[] {
  const seen = new Set(start);
  const stack = [...start];
  while (stack.length) {
    for (const y of edges[stack.pop()!]!) {
      if (seen.has(y)) continue;
      seen.add(y);
      stack.push(y);
    }
  }
  return [...seen];
}

/** The union of owner paths; null when they are not one path of the dominator tree (or a param's continuation is unknown). */
function merged(parts: readonly (Owners | null)[], dom: Dominators): Owners | null {
  let acc = noOwners;
  for (const o of parts) {
    if (o === null) return null;
    if (o.deepest === NONE || o === acc) continue;
    if (acc.deepest === NONE) {
      acc = o;
      continue;
    }
    let deepest: number;
    if (dom.dominates(acc.deepest, o.deepest)) deepest = o.deepest;
    else if (dom.dominates(o.deepest, acc.deepest)) deepest = acc.deepest;
    else return null;
    const outermost = dom.depthOf(o.outermost) < dom.depthOf(acc.outermost) ? o.outermost : acc.outermost;
    acc = { deepest, outermost };
  }
  return acc;
}

/** Continuations a body mentions through primops (not through other continuations). */
function mentions(ops: readonly Def[], memo: Map<PrimOp, readonly Continuation[]>): Continuation[] {
  const out: Continuation[] = [];
  for (const o of ops) {
    if (o instanceof Continuation) out.push(o);
    else if (o instanceof PrimOp) out.push(...memoised(memo, o, (p) => union(p.ops.map((d) => mentionsOfOp(d, memo)))));
  }
  return out;
}

function mentionsOfOp(d: Def, memo: Map<PrimOp, readonly Continuation[]>): readonly Continuation[] {
  if (d instanceof Continuation) return [d];
  return d instanceof PrimOp ? memo.get(d)! : [];
}

/** Shares the one non-empty part: primop chains mention nothing, or the same few continuations. */
function union(parts: readonly (readonly Continuation[])[]): readonly Continuation[] {
  const nonEmpty = parts.filter((p) => p.length > 0);
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? [];
  return [...new Set(nonEmpty.flat())];
}

/** `compute` of `root` after that of every primop below it, memoised (`foldUp` over the primop DAG). */
function memoised<T>(memo: Map<PrimOp, T>, root: PrimOp, compute: (p: PrimOp) => T): T {
  return foldUp(root, memo, primopOperands, compute);
}

function primopOperands(p: PrimOp): PrimOp[] {
  return p.ops.filter((o): o is PrimOp => o instanceof PrimOp);
}

/**
 * Dominator tree of the mention graph under a virtual root above every
 * continuation nothing mentions (and one of each cycle nothing outside enters).
 * Lengauer & Tarjan with path compression: Cooper, Harvey & Kennedy's iteration
 * walks the whole chain of blocks for each call of a function from that chain.
 */
class Dominators {
  private readonly depth: Int32Array;
  private readonly pre: Int32Array;
  private readonly post: Int32Array;

  constructor(succs: readonly (readonly number[])[], preds: readonly (readonly number[])[]) {
    const n = succs.length;
    const root = n;
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
    const children: number[][] = Array.from({ length: n + 1 }, () => []);
    for (let i = 1; i < vertex.length; i++) children[idom[vertex[i]!]!]!.push(vertex[i]!);
    this.depth = new Int32Array(n + 1);
    this.pre = new Int32Array(n + 1);
    this.post = new Int32Array(n + 1);
    let clock = 0;
    const stack: [number, number][] = [[root, 0]];
    this.pre[root] = clock++;
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const kids = children[top[0]]!;
      if (top[1] < kids.length) {
        const k = kids[top[1]++]!;
        this.pre[k] = clock++;
        this.depth[k] = this.depth[top[0]]! + 1;
        stack.push([k, 0]);
      } else {
        this.post[top[0]] = clock++;
        stack.pop();
      }
    }
  }

  /** Whether `a` is `b` or dominates it. */
  dominates(a: number, b: number): boolean {
    return this.pre[a]! <= this.pre[b]! && this.post[b]! <= this.post[a]!;
  }

  depthOf(a: number): number {
    return this.depth[a]!;
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
