// The shared graph analyses of ir/cfg.ts and ir/order.ts against definitions
// computed the slow, obvious way on random graphs: dominance as "every path from
// the entry passes through", natural loops from back edges, reducibility as "the
// graph without back edges has no cycle", post-order as "after what it leads to".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dominatorTree, graphFrom, LoopTree } from '../../compiler/src/ir/cfg.ts';
import { foldUp, postOrder, reversePostOrder } from '../../compiler/src/ir/order.ts';

/** A random directed graph over 0…n-1 (self loops and parallel edges included); node 0 is the entry. */
const graphs = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.array(fc.array(fc.nat(n - 1), { maxLength: 3 }), { minLength: n, maxLength: n }),
);

/** Successors without repeats, as the CFG views give them. */
const succsOf = (edges: readonly (readonly number[])[]) => (v: number): number[] => [...new Set(edges[v]!)];

/** The nodes reachable from `from` without passing `avoid`. */
function reachableAvoiding(succs: (v: number) => readonly number[], from: number, avoid: number | null): Set<number> {
  const seen = new Set<number>();
  const work = from === avoid ? [] : [from];
  while (work.length) {
    const v = work.pop()!;
    if (seen.has(v)) continue;
    seen.add(v);
    for (const s of succs(v)) if (s !== avoid) work.push(s);
  }
  return seen;
}

/** `a` dominates `b`: every path from the entry to `b` passes `a`. */
function dominatesByPaths(succs: (v: number) => readonly number[], a: number, b: number): boolean {
  return a === b || !reachableAvoiding(succs, 0, a).has(b);
}

describe('ir/cfg.ts', () => {
  it('graphFrom visits the reachable nodes in reverse post-order, the entry first, with each edge once as a predecessor', () => {
    fc.assert(
      fc.property(graphs, (edges) => {
        const succs = succsOf(edges);
        const g = graphFrom(0, succs);
        expect(new Set(g.nodes)).toEqual(reachableAvoiding(succs, 0, null));
        expect(g.nodes[0]).toBe(0);
        const at = new Map(g.nodes.map((v, i) => [v, i]));
        for (const v of g.nodes) {
          for (const s of g.succs(v)) expect(g.preds(s).filter((p) => p === v)).toHaveLength(1);
          for (const p of g.preds(v)) expect(g.succs(p)).toContain(v);
        }
        // Reverse post-order: an edge goes forward unless it closes a cycle.
        for (const v of g.nodes) {
          for (const s of g.succs(v)) if (!reachableAvoiding(succs, s, null).has(v)) expect(at.get(s)!).toBeGreaterThan(at.get(v)!);
        }
      }),
    );
  });

  it('dominatorTree agrees with dominance by paths, and idom is the closest strict dominator', () => {
    fc.assert(
      fc.property(graphs, (edges) => {
        const succs = succsOf(edges);
        const g = graphFrom(0, succs);
        const dom = dominatorTree(g);
        expect(dom.idom(0)).toBeNull();
        expect(dom.depth(0)).toBe(0);
        for (const a of g.nodes) for (const b of g.nodes) expect(dom.dominates(a, b)).toBe(dominatesByPaths(succs, a, b));
        for (const b of g.nodes) {
          if (b === 0) continue;
          const i = dom.idom(b)!;
          expect(i !== b && dominatesByPaths(succs, i, b)).toBe(true);
          for (const a of g.nodes) if (a !== b && dominatesByPaths(succs, a, b)) expect(dominatesByPaths(succs, a, i)).toBe(true);
          expect(dom.depth(b)).toBe(dom.depth(i) + 1);
        }
        for (const a of g.nodes) {
          for (const b of g.nodes) {
            const l = dom.lca(a, b);
            expect(dom.dominates(l, a) && dom.dominates(l, b)).toBe(true);
            for (const c of g.nodes) if (dom.dominates(c, a) && dom.dominates(c, b)) expect(dom.dominates(c, l)).toBe(true);
          }
        }
      }),
    );
  });

  it('LoopTree finds the natural loops of the back edges, nested by size, and tells irreducible graphs apart', () => {
    fc.assert(
      fc.property(graphs, (edges) => {
        const succs = succsOf(edges);
        const g = graphFrom(0, succs);
        const dom = dominatorTree(g);
        const tree = new LoopTree(g, dom);
        // Natural loops, directly from the definition: per header, the nodes that reach a back edge's source without passing the header.
        const bodies = new Map<number, Set<number>>();
        for (const t of g.nodes) {
          for (const h of g.succs(t)) {
            if (!dominatesByPaths(succs, h, t)) continue;
            const body = bodies.get(h) ?? new Set([h]);
            for (const v of g.nodes) if (v === t || (v !== h && reachableAvoiding(succs, v, h).has(t))) body.add(v);
            bodies.set(h, body);
          }
        }
        expect(new Map(tree.loops.map((l) => [l.header, new Set(l.blocks)]))).toEqual(bodies);
        for (const v of g.nodes) {
          const around = [...bodies.values()].filter((b) => b.has(v));
          expect(tree.depth(v)).toBe(around.length);
          const inner = tree.loopOf(v);
          if (inner) expect(inner.blocks.size).toBe(Math.min(...around.map((b) => b.size)));
          else expect(around).toEqual([]);
        }
        for (const l of tree.loops) {
          expect(tree.headedBy(l.header)).toBe(l);
          if (l.parent) expect(LoopTree.within(l, l.parent) && [...l.blocks].every((v) => l.parent!.blocks.has(v))).toBe(true);
        }
        // Reducible: without its back edges the graph has no cycle.
        const forward = (v: number): number[] => g.succs(v).filter((s) => !dominatesByPaths(succs, s, v));
        const acyclic = g.nodes.every((v) => forward(v).every((s) => !reachableAvoiding(forward, s, null).has(v)));
        expect(tree.reducible).toBe(acyclic);
      }),
    );
  });
});

describe('ir/order.ts', () => {
  it('postOrder lists every node after the nodes it leads to (cycles aside), reversePostOrder from the first successor', () => {
    fc.assert(
      fc.property(graphs, (edges) => {
        const succs = succsOf(edges);
        const post = postOrder([0], succs);
        expect(new Set(post)).toEqual(reachableAvoiding(succs, 0, null));
        expect(post).toHaveLength(new Set(post).size);
        const at = new Map(post.map((v, i) => [v, i]));
        for (const v of post) for (const s of succs(v)) if (!reachableAvoiding(succs, s, null).has(v)) expect(at.get(s)!).toBeLessThan(at.get(v)!);
        const rpo = reversePostOrder(0, succs);
        expect(rpo[0]).toBe(0);
        expect(new Set(rpo)).toEqual(new Set(post));
      }),
    );
  });

  it('foldUp computes each node once from its children, also on chains too long for recursion', () => {
    fc.assert(
      fc.property(graphs, (edges) => {
        // A DAG: edges only to larger numbers. Value: the longest path from the node.
        const children = (v: number): number[] => [...new Set(edges[v]!.filter((s) => s > v))];
        const longest = (v: number): number => Math.max(0, ...children(v).map((c) => longest(c) + 1));
        const memo = new Map<number, number>();
        let calls = 0;
        const value = (v: number): number => {
          calls++;
          return Math.max(0, ...children(v).map((c) => memo.get(c)! + 1));
        };
        for (let v = 0; v < edges.length; v++) expect(foldUp(v, memo, children, value)).toBe(longest(v));
        expect(calls).toBe(edges.length);
      }),
    );
    const n = 200_000;
    const memo = new Map<number, number>();
    expect(foldUp(0, memo, (v) => (v + 1 < n ? [v + 1] : []), (v) => (v + 1 < n ? memo.get(v + 1)! + 1 : 0))).toBe(n - 1);
    expect(postOrder([0], (v) => (v + 1 < n ? [v + 1] : []))[0]).toBe(n - 1);
  });
});
