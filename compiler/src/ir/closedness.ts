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
import { type DomTree, indexDominatorTree } from './cfg.ts';
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
  // Under a virtual root above every continuation nothing mentions (and one of each cycle nothing outside enters).
  const dom = indexDominatorTree(succs, preds);

  const ownerMemo = new Map<PrimOp, Owners | null>();
  const leaf = (d: Def): Owners | null => {
    if (d instanceof Param) {
      const i = index.get(d.continuation);
      return i === undefined ? null : { deepest: i, outermost: i };
    }
    if (d instanceof PrimOp) return memoised(ownerMemo, d, (p) => merged(p.ops, leaf, dom));
    return noOwners;
  };
  // The outermost owner of each body; the continuation itself only when it is the one owner.
  const own = new Int32Array(n).fill(NONE);
  const outside: number[] = [];
  for (let x = 0; x < n; x++) {
    const o = merged(all[x]!.ops, leaf, dom);
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
  for (let x = 0; x < n; x++) if (nested[x] === undefined && own[x] !== NONE) byDepth[dom.depth(own[x]!)]!.push(x);
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

/**
 * The union of the owner paths of `ops` (`leaf` of each); null when they are not one path
 * of the dominator tree (or a param's continuation is unknown). No array of the parts:
 * this runs for every primop and body.
 */
function merged(ops: readonly Def[], leaf: (d: Def) => Owners | null, dom: DomTree<number>): Owners | null {
  let acc = noOwners;
  for (const d of ops) {
    const o = leaf(d);
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
    const outermost = dom.depth(o.outermost) < dom.depth(acc.outermost) ? o.outermost : acc.outermost;
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
