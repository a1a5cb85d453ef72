// The BVH builder: structural checks (every triangle in exactly one leaf, boxes contain
// their children and triangles, arity and leaf size respected) over generated scenes and
// triangle soups of every awkward kind, for each arity, leaf size, thread count and with
// spatial splits; checkBvh itself catches each kind of broken tree; SAH quality against a
// median-split build, the block SAH (leaves charged per kernel leaf block) against the
// per-triangle one, and the SAH cost against a hand computation; and rays traced through
// the trees (a plain stack traversal here) hit what the brute-force reference hits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Bvh, type BvhNode, buildBvh, checkBvh, MAX_DUPLICATION, packBvh, type PackedBvh, sahCost } from '../../libs/raytrace/bvh.ts';
import { makeMesh, type Mesh } from '../../libs/raytrace/mesh.ts';
import { proceduralScene } from '../../libs/raytrace/procedural.ts';
import { seededRandom } from '../../libs/shared/random.ts';
import { compareHits, intersectTriangle, traceBruteForce, triangleEdges } from '../../libs/raytrace/reference.ts';

const arity = fc.constantFrom<2 | 4 | 8>(2, 4, 8);

/** Triangle soups the procedural scenes do not make: all one triangle, points, needles, huge and tiny, one plane. */
const soup = fc
  .tuple(
    fc.integer({ min: 1, max: 300 }),
    fc.constantFrom('same', 'points', 'plane', 'needles', 'scales', 'random'),
    fc.integer(),
  )
  .map(([n, kind, seed]): Mesh => {
    const r = seededRandom(seed);
    const p: number[] = [];
    for (let t = 0; t < n; t++) {
      for (let v = 0; v < 3; v++) {
        switch (kind) {
          case 'same': p.push(v === 1 ? 1 : 0, v === 2 ? 1 : 0, 0); break;
          case 'points': { const x = Math.floor(r() * 3); p.push(x, x, x); break; }
          case 'plane': p.push(r() * 10, 0, r() * 10); break;
          case 'needles': p.push(t, v === 0 ? 0 : 100, t * 0.5); break;
          case 'scales': { const s = 10 ** Math.floor(r() * 12 - 6); p.push(r() * s, r() * s, r() * s); break; }
          default: p.push(r() * 4 - 2, r() * 4 - 2, r() * 4 - 2);
        }
      }
    }
    return makeMesh(new Float32Array(p), Uint32Array.from({ length: 3 * n }, (_, i) => i));
  });

const scene = fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.integer()).map(([n, seed]) => proceduralScene({ triangles: n, seed }));

describe('structure', () => {
  it('holds on generated scenes for every arity, leaf size, leaf block and thread count', () => {
    fc.assert(
      fc.property(scene, arity, fc.integer({ min: 1, max: 8 }), fc.constantFrom(1, 2), fc.constantFrom(undefined, 1, 3, 8), (mesh, a, leaf, threads, leafBlock) => {
        const bvh = buildBvh(mesh, { arity: a, maxLeafSize: leaf, threads, leafBlock });
        const stats = checkBvh(bvh, mesh, { maxLeafSize: leaf });
        expect(stats.references).toBe(mesh.triangleCount);
      }),
      { numRuns: 40 },
    );
  });

  it('holds on degenerate triangle soups', () => {
    fc.assert(
      fc.property(soup, arity, fc.integer({ min: 1, max: 8 }), (mesh, a, leaf) => {
        checkBvh(buildBvh(mesh, { arity: a, maxLeafSize: leaf, threads: 1 }), mesh, { maxLeafSize: leaf });
      }),
      { numRuns: 80 },
    );
  });

  it('holds with spatial splits, which duplicate references but never lose a triangle', () => {
    fc.assert(
      fc.property(fc.oneof(scene.filter((m) => m.triangleCount <= 1500), soup), arity, fc.integer({ min: 1, max: 8 }), (mesh, a, leaf) => {
        const bvh = buildBvh(mesh, { arity: a, maxLeafSize: leaf, spatialSplits: true });
        const stats = checkBvh(bvh, mesh, { maxLeafSize: leaf, spatialSplits: true });
        expect(stats.references).toBeGreaterThanOrEqual(mesh.triangleCount);
        expect(stats.references).toBeLessThanOrEqual(Math.max(mesh.triangleCount, Math.floor(MAX_DUPLICATION * mesh.triangleCount)));
      }),
      { numRuns: 25 },
    );
  });

  it('is the same tree whatever the number of threads (the top splits are the same, only who builds below differs)', () => {
    // Large enough for the parallel build (20,000 triangles), with long slivers so that spatial splits happen.
    const mesh = withSlivers(proceduralScene({ triangles: 24_000, seed: 5 }), 2000, 3);
    for (const spatialSplits of [false, true]) {
      const one = packBvh(buildBvh(mesh, { arity: 4, threads: 1, spatialSplits }));
      for (const threads of [2, 3]) {
        const other = packBvh(buildBvh(mesh, { arity: 4, threads, spatialSplits }));
        expectSamePacked(other, one, `${threads} threads${spatialSplits ? ', spatial splits' : ''}`);
      }
      const two = buildBvh(mesh, { arity: 8, threads: 2, spatialSplits });
      const stats = checkBvh(two, mesh, { maxLeafSize: 8, spatialSplits });
      if (spatialSplits) expect(stats.references).toBeGreaterThan(mesh.triangleCount);
    }
  });

  it('builds a single leaf for one triangle and an empty leaf for none', () => {
    const one = proceduralScene({ triangles: 1, seed: 1 });
    const bvh = buildBvh(one, { arity: 4 });
    expect(bvh.nodes).toHaveLength(1);
    expect(Array.from(bvh.nodes[0]!.prims)).toEqual([0]);
    const none = makeMesh(new Float32Array(0), new Uint32Array(0));
    const empty = buildBvh(none, { arity: 8 });
    checkBvh(empty, none);
    expect(empty.nodes[0]!.prims).toHaveLength(0);
  });

  it('rejects bad options', () => {
    const mesh = proceduralScene({ triangles: 10, seed: 1 });
    expect(() => buildBvh(mesh, { arity: 3 as 4 })).toThrow('arity must be 2, 4 or 8');
    expect(() => buildBvh(mesh, { arity: 4, maxLeafSize: 0 })).toThrow('maxLeafSize');
    expect(() => buildBvh(mesh, { arity: 4, threads: 0 })).toThrow('threads');
    expect(() => buildBvh(mesh, { arity: 4, leafBlock: 0 })).toThrow('leafBlock');
  });
});

/** Every array of two packed trees is equal. */
function expectSamePacked(actual: PackedBvh, expected: PackedBvh, what: string): void {
  expect(actual.nodeCount, what).toBe(expected.nodeCount);
  for (const key of ['bounds', 'firstChild', 'childCount', 'primStart', 'primCount', 'prims'] as const) {
    expect(Buffer.compare(Buffer.from(actual[key].buffer, actual[key].byteOffset, actual[key].byteLength), Buffer.from(expected[key].buffer, expected[key].byteOffset, expected[key].byteLength)), `${what}: ${key}`).toBe(0);
  }
}

/** The mesh and `count` long thin triangles across its box (which object splits cannot separate). */
function withSlivers(mesh: Mesh, count: number, seed: number): Mesh {
  const r = seededRandom(seed);
  const b = mesh.bounds();
  const p = Array.from(mesh.positions);
  const t = Array.from(mesh.triangles);
  const at = (k: number) => b[k]! + r() * (b[k + 3]! - b[k]!);
  for (let i = 0; i < count; i++) {
    const v = p.length / 3;
    const a = [at(0), at(1), at(2)], c = [at(0), at(1), at(2)];
    p.push(...a, ...c, a[0]! + 0.01, a[1]! + 0.02, a[2]!);
    t.push(v, v + 1, v + 2);
  }
  return makeMesh(new Float32Array(p), Uint32Array.from(t));
}

/** A copy of a tree's nodes that can be broken. */
function nodesOf(bvh: Bvh): BvhNode[] {
  return bvh.nodes.map((n) => ({ bounds: n.bounds.slice(), children: [...n.children], prims: n.prims.slice() }));
}

describe('checkBvh finds each kind of broken tree', () => {
  const mesh = proceduralScene({ triangles: 500, seed: 3 });
  const good = buildBvh(mesh, { arity: 4, threads: 1 });
  const leaf = good.nodes.findIndex((n) => n.children.length === 0 && n.prims.length >= 2);
  const inner = good.nodes.findIndex((n, i) => i !== good.root && n.children.length > 0);
  const broken = (edit: (nodes: BvhNode[]) => BvhNode[] | void, a: 2 | 4 | 8 = 4): Bvh => {
    const nodes = nodesOf(good);
    return { arity: a, nodes: edit(nodes) ?? nodes, root: good.root };
  };
  it.each<[string, () => Bvh, RegExp]>([
    ['a triangle missing', () => broken((n) => { n[leaf] = { ...n[leaf]!, prims: n[leaf]!.prims.slice(1) }; }), /is in no leaf/],
    ['a triangle twice', () => broken((n) => { const other = n.findIndex((x, i) => i !== leaf && x.children.length === 0 && x.prims.length < 4); n[other] = { ...n[other]!, prims: Uint32Array.from([...n[other]!.prims, n[leaf]!.prims[0]!]) }; }), /in 2 leaves|outside its leaf/],
    ['a leaf box too small', () => broken((n) => { n[leaf]!.bounds[3] = n[leaf]!.bounds[0]!; }), /outside its leaf/],
    ['a child outside its parent', () => broken((n) => { n[inner]!.bounds[4]! += 1; }), /not inside its parent/],
    ['too many children', () => broken(() => undefined, 2), /children, arity 2/],
    ['a node shared', () => broken((n) => { n[good.root]!.children[1] = n[good.root]!.children[0]!; }), /reached twice/],
    ['a node unreachable', () => broken((n) => [...n, { bounds: n[0]!.bounds, children: [], prims: new Uint32Array(0) }]), /not reachable|is empty/],
    ['a leaf too large', () => broken((n) => { n[leaf] = { ...n[leaf]!, prims: Uint32Array.from([...n[leaf]!.prims, ...n[leaf]!.prims]) }; }), /more than 4|in 2 leaves/],
    ['an inner node with one child', () => broken((n) => { n[inner]!.children.length = 1; }), /single child|in no leaf/],
    ['a child index out of range', () => broken((n) => { n[inner]!.children[0] = 10 ** 6; }), /not a node/],
  ])('%s', (_name, make, message) => {
    expect(() => checkBvh(good, mesh, { maxLeafSize: 4 })).not.toThrow();
    expect(() => checkBvh(make(), mesh, { maxLeafSize: 4 })).toThrow(message);
  });
});

/** A binary tree split at the object median of the longest axis of the centroids' box: the baseline our SAH must beat. */
function medianSplitBvh(mesh: Mesh, maxLeaf: number): Bvh {
  const nodes: BvhNode[] = [];
  const box = (ids: number[]) => {
    const b = new Float32Array([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
    for (const t of ids) {
      for (let v = 0; v < 3; v++) {
        const p = mesh.triangles[3 * t + v]! * 3;
        for (let k = 0; k < 3; k++) {
          b[k] = Math.min(b[k]!, mesh.positions[p + k]!);
          b[k + 3] = Math.max(b[k + 3]!, mesh.positions[p + k]!);
        }
      }
    }
    return b;
  };
  const centroid = (t: number, k: number) => [0, 1, 2].reduce((s, v) => s + mesh.positions[mesh.triangles[3 * t + v]! * 3 + k]!, 0);
  const build = (ids: number[]): number => {
    const index = nodes.length;
    nodes.push({ bounds: box(ids), children: [], prims: new Uint32Array(0) });
    if (ids.length <= maxLeaf) {
      nodes[index] = { ...nodes[index]!, prims: Uint32Array.from(ids) };
      return index;
    }
    const extent = [0, 1, 2].map((k) => Math.max(...ids.map((t) => centroid(t, k))) - Math.min(...ids.map((t) => centroid(t, k))));
    const axis = extent.indexOf(Math.max(...extent));
    const sorted = [...ids].sort((x, y) => centroid(x, axis) - centroid(y, axis));
    const half = sorted.length >> 1;
    const children = [build(sorted.slice(0, half)), build(sorted.slice(half))];
    nodes[index] = { ...nodes[index]!, children };
    return index;
  };
  build(Array.from({ length: mesh.triangleCount }, (_, i) => i));
  return { arity: 2, nodes, root: 0 };
}

describe('quality', () => {
  it('the SAH build costs no more than a median-split build of the same leaf size', () => {
    for (const seed of [1, 2, 3]) {
      const mesh = proceduralScene({ triangles: 4000, seed });
      const median = sahCost(medianSplitBvh(mesh, 4), mesh);
      const ours = sahCost(buildBvh(mesh, { arity: 2, maxLeafSize: 4, leafBlock: 1 }), mesh);
      expect(ours, `seed ${seed}`).toBeLessThanOrEqual(median);
    }
  });

  it('spatial splits pay off where long diagonal triangles overlap, and cost at most 2% more elsewhere', () => {
    // Long thin triangles in every direction: object splits' children overlap wherever they cut.
    const r = seededRandom(8);
    const p: number[] = [];
    for (let t = 0; t < 1000; t++) {
      const a = [r() * 10, r() * 10, r() * 10];
      const d = [r() - 0.5, r() - 0.5, r() - 0.5].map((x) => x * 8);
      p.push(...a, a[0]! + d[0]!, a[1]! + d[1]!, a[2]! + d[2]!, a[0]! + 0.05, a[1]! + 0.05, a[2]!);
    }
    const slivers = makeMesh(new Float32Array(p), Uint32Array.from({ length: 3000 }, (_, i) => i));
    // Costed as built: per block of 4 triangles, BVH4's leaf block.
    const cost = (bvh: Bvh, mesh: Mesh) => sahCost(bvh, mesh, undefined, 4);
    const plain = cost(buildBvh(slivers, { arity: 4 }), slivers);
    const spatial = cost(buildBvh(slivers, { arity: 4, spatialSplits: true }), slivers);
    expect(spatial).toBeLessThan(0.99 * plain);
    for (const seed of [1, 2, 3]) {
      const mesh = proceduralScene({ triangles: 4000, seed });
      const ours = cost(buildBvh(mesh, { arity: 4 }), mesh);
      expect(cost(buildBvh(mesh, { arity: 4, spatialSplits: true }), mesh), `seed ${seed}`).toBeLessThanOrEqual(1.02 * ours);
    }
  });

  it('wider trees cost less with the same constants (fewer inner nodes to visit)', () => {
    const mesh = proceduralScene({ triangles: 5000, seed: 9 });
    const [c2, c4, c8] = ([2, 4, 8] as const).map((a) => sahCost(buildBvh(mesh, { arity: a, maxLeafSize: 4, leafBlock: 1 }), mesh));
    expect(c4).toBeLessThan(c2!);
    expect(c8).toBeLessThan(c4!);
  });

  it('the block SAH fills the kernels\' leaf blocks, and costs less by its own measure', () => {
    for (const [a, block] of [[4, 4], [8, 8]] as const) {
      for (const seed of [1, 2]) {
        const mesh = proceduralScene({ triangles: 4000, seed });
        for (const spatialSplits of [false, true]) {
          const what = `BVH${a}, seed ${seed}${spatialSplits ? ', spatial splits' : ''}`;
          const perTriangle = buildBvh(mesh, { arity: a, maxLeafSize: 8, leafBlock: 1, spatialSplits });
          const perBlock = buildBvh(mesh, { arity: a, maxLeafSize: 8, spatialSplits });
          const fill = (bvh: Bvh) => {
            const st = checkBvh(bvh, mesh, { maxLeafSize: 8, spatialSplits });
            return st.references / st.leaves;
          };
          expect(fill(perBlock), what).toBeGreaterThan(1.2 * fill(perTriangle));
          expect(sahCost(perBlock, mesh, undefined, block), what).toBeLessThan(sahCost(perTriangle, mesh, undefined, block));
        }
      }
    }
  });

  it('sahCost matches a hand computation on a small tree', () => {
    const b = (x0: number, x1: number) => new Float32Array([x0, 0, 0, x1, 1, 1]);
    const mesh = proceduralScene({ triangles: 3, seed: 1 });
    const tree: Bvh = {
      arity: 2,
      root: 0,
      nodes: [
        { bounds: b(0, 4), children: [1, 2], prims: new Uint32Array(0) },
        { bounds: b(0, 1), children: [], prims: Uint32Array.from([0, 1]) },
        { bounds: b(2, 4), children: [], prims: Uint32Array.from([2]) },
      ],
    };
    // Areas: root 2(4 + 1 + 4) = 18, left 2(1 + 1 + 1) = 6, right 2(2 + 1 + 2) = 10.
    expect(sahCost(tree, mesh, { traversalCost: 1, intersectionCost: 1 })).toBeCloseTo((18 + 2 * 6 + 10) / 18, 12);
    expect(sahCost(tree, mesh, { traversalCost: 3, intersectionCost: 0.5 })).toBeCloseTo((3 * 18 + 0.5 * (2 * 6 + 10)) / 18, 12);
    // Per started block: 2 triangles take a block of 4 slots, so does 1; 4 triangles still one block of 4, 5 two.
    expect(sahCost(tree, mesh, { traversalCost: 1, intersectionCost: 1 }, 4)).toBeCloseTo((18 + 4 * 6 + 4 * 10) / 18, 12);
    expect(sahCost(tree, mesh, { traversalCost: 1, intersectionCost: 1 }, 2)).toBeCloseTo((18 + 2 * 6 + 2 * 10) / 18, 12);
  });

  it('packBvh keeps what a tree costs and reaches', () => {
    const mesh = proceduralScene({ triangles: 800, seed: 4 });
    const built = buildBvh(mesh, { arity: 8 });
    const plain: Bvh = { arity: 8, nodes: built.nodes, root: built.root };
    const packed = packBvh(plain);
    expect(packed.nodeCount).toBe(built.nodes.length);
    expect(sahCost({ ...plain, packed } as Bvh, mesh)).toBeCloseTo(sahCost(built, mesh), 12);
    expect(Array.from(packed.prims).sort((x, y) => x - y)).toEqual(Array.from({ length: 800 }, (_, i) => i));
  });
});

/** Closest hits by a plain stack traversal of the tree (every box the ray meets, every triangle in those leaves). */
function traceTree(bvh: Bvh, mesh: Mesh, rays: { count: number; data: Float32Array }) {
  const edges = triangleEdges(mesh);
  const prim = new Int32Array(rays.count), t = new Float32Array(rays.count);
  const h = { t: 0, u: 0, v: 0 };
  for (let i = 0; i < rays.count; i++) {
    const r = rays.data.subarray(8 * i, 8 * i + 8);
    let best = -1, tmax = r[7]!;
    const stack = [bvh.root];
    while (stack.length > 0) {
      const node = bvh.nodes[stack.pop()!]!;
      let t0 = r[6]!, t1 = tmax;
      for (let k = 0; k < 3; k++) {
        const inv = 1 / r[3 + k]!;
        let near = (node.bounds[k]! - r[k]!) * inv, far = (node.bounds[k + 3]! - r[k]!) * inv;
        if (near > far) [near, far] = [far, near];
        if (Number.isNaN(near)) { near = -Infinity; far = Infinity; } // origin on the slab's plane of a parallel ray
        t0 = Math.max(t0, near);
        t1 = Math.min(t1, far);
      }
      if (t0 > t1 * (1 + 1e-6)) continue;
      stack.push(...node.children);
      for (const p of node.prims) {
        if (intersectTriangle(edges, p, r[0]!, r[1]!, r[2]!, r[3]!, r[4]!, r[5]!, r[6]!, tmax, h) && (best < 0 || h.t < tmax || (h.t === tmax && p < best))) {
          best = p;
          tmax = h.t;
        }
      }
    }
    prim[i] = best;
    t[i] = best < 0 ? -1 : tmax;
  }
  return { prim, t };
}

function randomRays(mesh: Mesh, count: number, seed: number) {
  const r = seededRandom(seed);
  const b = mesh.bounds();
  const data = new Float32Array(8 * count);
  for (let i = 0; i < count; i++) {
    const o = [0, 1, 2].map((k) => b[k]! + (b[k + 3]! - b[k]!) * (r() * 1.4 - 0.2));
    const target = mesh.triangles[3 * Math.floor(r() * mesh.triangleCount)]! * 3;
    const d = [0, 1, 2].map((k) => mesh.positions[target + k]! - o[k]! + (r() - 0.5) * 0.5);
    if (i % 7 === 0) d[i % 3] = 0; // axis-parallel planes
    data.set([...o, ...d, 0, i % 5 === 0 ? r() * 5 : Infinity], 8 * i);
  }
  return { count, data };
}

describe('rays through the trees hit what every-ray-against-every-triangle hits', () => {
  it.each([
    ['BVH2', { arity: 2 as const }],
    ['BVH4, leaves of 8', { arity: 4 as const, maxLeafSize: 8 }],
    ['BVH8 with spatial splits', { arity: 8 as const, spatialSplits: true }],
    ['BVH4 with spatial splits, leaves of 1', { arity: 4 as const, maxLeafSize: 1, spatialSplits: true }],
  ])('%s', (_name, options) => {
    for (const seed of [11, 12]) {
      const mesh = proceduralScene({ triangles: 1500, seed });
      const rays = randomRays(mesh, 400, seed);
      const expected = traceBruteForce(mesh, rays, { anyHit: false });
      const actual = traceTree(buildBvh(mesh, options), mesh, rays);
      expect(compareHits(mesh, rays, expected, actual, { anyHit: false })).toEqual([]);
      expect(expected.prim.filter((p) => p >= 0).length).toBeGreaterThan(100);
    }
  });
});
