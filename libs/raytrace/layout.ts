// The kernels' data layout (libs/raytrace/layouts.impala, `make_bvh`): `flatten` turns the
// builder's interchange BVH (bvh.ts) and the mesh into the flat SoA arrays the traversal
// loops read. Inner nodes: 6 rows of `arity` floats per node (lo.x hi.x lo.y hi.y lo.z hi.z
// of every child), so one vector load gives one bound of all children; unused child slots
// hold the empty box (+∞, −∞), which no ray enters. Leaves: blocks of `leafWidth`
// triangles, 12 rows of `leafWidth` floats each (v0, e1 = v0 − v1, e2 = v2 − v0,
// ng = e2 × e1, component by component: Embree's Möller–Trumbore layout), padded with
// all-zero triangles (ng = 0 never hits) whose prim id is −1.
import type { Bvh, BvhNode } from './bvh.ts';
import type { Mesh } from './mesh.ts';

/** Entries of a traversal stack in the kernels (traversal.impala, STACK_SIZE). */
export const STACK_SIZE = 256;

/** Blocks one leaf reference can name (4 bits of the reference, layouts.impala). */
const MAX_LEAF_BLOCKS = 16;

export interface FlatScene {
  readonly arity: 2 | 4 | 8;
  /** Triangles per leaf block: 4 for BVH2/BVH4, 8 for BVH8. */
  readonly leafWidth: 4 | 8;
  /** 6 × arity floats per inner node. */
  readonly nodes: Float32Array;
  /** arity references per inner node: an inner node's index (≥ 0) or a leaf, ~(first block << 4 | blocks − 1). */
  readonly children: Int32Array;
  /** 12 × leafWidth floats per leaf block. */
  readonly tris: Float32Array;
  /** leafWidth triangle indices per block (−1 for padding). */
  readonly ids: Int32Array;
  /** The reference traversal starts from (a leaf when the whole scene is one). */
  readonly root: number;
  /** Triangles of the mesh the scene was flattened from. */
  readonly triangleCount: number;
}

/** The leaf width the kernels of each arity test in one operation. */
export function leafWidthFor(arity: 2 | 4 | 8): 4 | 8 {
  return arity === 8 ? 8 : 4;
}

/** A typed array that grows by doubling (flatten does not know the sizes before it walks the tree). */
class Grow<A extends Float32Array | Int32Array> {
  length = 0;
  constructor(public data: A) {}
  /** Reserves `n` more zeroed elements and returns the offset of the first. */
  reserve(n: number): number {
    while (this.length + n > this.data.length) {
      const bigger = new (this.data.constructor as new (n: number) => A)(Math.max(64, 2 * this.data.length));
      bigger.set(this.data);
      this.data = bigger;
    }
    this.length += n;
    return this.length - n;
  }
  done(): A {
    return this.data.slice(0, this.length) as A;
  }
}

/** The kernels' layout of `bvh` over `mesh` (the BVH's leaves name the mesh's triangles). */
export function flatten(bvh: Bvh, mesh: Mesh): FlatScene {
  const arity = bvh.arity;
  const width = leafWidthFor(arity);
  const nodes = new Grow(new Float32Array(0));
  const children = new Grow(new Int32Array(0));
  const tris = new Grow(new Float32Array(0));
  const ids = new Grow(new Int32Array(0));
  let maxDepth = 0;

  const p = mesh.positions;
  const t = mesh.triangles;
  /** One block of `width` triangles from prims[from…], padded with zeros and id −1. */
  const pushBlock = (prims: ArrayLike<number>, from: number): void => {
    const row = tris.reserve(12 * width);
    const id = ids.reserve(width);
    const out = tris.data;
    for (let k = 0; k < width; k++) {
      const i = from + k;
      if (i >= prims.length) {
        ids.data[id + k] = -1;
        continue;
      }
      const prim = prims[i]!;
      if (!(prim >= 0 && prim < mesh.triangleCount)) throw new Error(`flatten: leaf names triangle ${prim} of ${mesh.triangleCount}`);
      ids.data[id + k] = prim;
      const a = t[3 * prim]! * 3, b = t[3 * prim + 1]! * 3, c = t[3 * prim + 2]! * 3;
      const e1x = p[a]! - p[b]!, e1y = p[a + 1]! - p[b + 1]!, e1z = p[a + 2]! - p[b + 2]!;
      const e2x = p[c]! - p[a]!, e2y = p[c + 1]! - p[a + 1]!, e2z = p[c + 2]! - p[a + 2]!;
      const o = row + k;
      out[o] = p[a]!;
      out[o + width] = p[a + 1]!;
      out[o + 2 * width] = p[a + 2]!;
      out[o + 3 * width] = e1x;
      out[o + 4 * width] = e1y;
      out[o + 5 * width] = e1z;
      out[o + 6 * width] = e2x;
      out[o + 7 * width] = e2y;
      out[o + 8 * width] = e2z;
      out[o + 9 * width] = e2y * e1z - e2z * e1y;
      out[o + 10 * width] = e2z * e1x - e2x * e1z;
      out[o + 11 * width] = e2x * e1y - e2y * e1x;
    }
  };

  /** A leaf reference for `prims` (at most MAX_LEAF_BLOCKS blocks). */
  const leafRef = (prims: ArrayLike<number>): number => {
    const first = ids.length / width;
    const count = Math.max(1, Math.ceil(prims.length / width));
    for (let k = 0; k < count; k++) pushBlock(prims, k * width);
    return ~((first << 4) | (count - 1));
  };

  const primBounds = (prims: ArrayLike<number>): Float32Array => {
    const box = new Float32Array([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
    for (let i = 0; i < prims.length; i++) {
      for (let v = 0; v < 3; v++) {
        const o = t[3 * prims[i]! + v]! * 3;
        for (let j = 0; j < 3; j++) {
          box[j] = Math.min(box[j]!, p[o + j]!);
          box[3 + j] = Math.max(box[3 + j]!, p[o + j]!);
        }
      }
    }
    return box;
  };

  /** Allocates an inner node with these (box, reference maker) children and returns its index. */
  const innerNode = (kids: { box: Float32Array; ref: () => number }[], depth: number): number => {
    maxDepth = Math.max(maxDepth, depth);
    const base = nodes.reserve(6 * arity);
    const index = children.reserve(arity) / arity;
    for (let k = 0; k < arity; k++) {
      const box = kids[k]?.box;
      for (let axis = 0; axis < 3; axis++) {
        nodes.data[base + 2 * axis * arity + k] = box ? box[axis]! : Infinity;
        nodes.data[base + (2 * axis + 1) * arity + k] = box ? box[3 + axis]! : -Infinity;
      }
    }
    // The children's own nodes come after this one (depth first), so their references are filled in afterwards.
    kids.forEach((kid, k) => {
      const ref = kid.ref();
      children.data[index * arity + k] = ref;
    });
    return index;
  };

  /** A leaf too big for one reference becomes a subtree of leaves that are not. */
  const bigLeaf = (prims: ArrayLike<number>, depth: number): number => {
    const perLeaf = MAX_LEAF_BLOCKS * width;
    if (prims.length <= perLeaf) return leafRef(prims);
    const all = Array.from(prims);
    const per = Math.max(perLeaf, Math.ceil(all.length / arity));
    const parts: number[][] = [];
    for (let i = 0; i < all.length; i += per) parts.push(all.slice(i, i + per));
    return innerNode(parts.map((part) => ({ box: primBounds(part), ref: () => bigLeaf(part, depth + 1) })), depth);
  };

  const refOf = (node: BvhNode, depth: number): number => {
    if (node.children.length === 0) return bigLeaf(node.prims, depth);
    if (node.children.length > arity) throw new Error(`flatten: a node has ${node.children.length} children in a BVH of arity ${arity}`);
    const kids = node.children
      .map((c) => bvh.nodes[c]!)
      .filter((c) => c.children.length > 0 || c.prims.length > 0)
      .map((c) => ({ box: c.bounds, ref: () => refOf(c, depth + 1) }));
    return innerNode(kids, depth);
  };

  const root = refOf(bvh.nodes[bvh.root]!, 0);
  // Each level of inner nodes leaves at most arity − 1 entries behind on the stack.
  const needed = (maxDepth + 1) * (arity - 1) + 1;
  if (needed > STACK_SIZE) {
    throw new Error(`flatten: the BVH is ${maxDepth + 1} inner nodes deep, the kernels' stack holds ${STACK_SIZE} entries (${needed} needed)`);
  }
  return {
    arity,
    leafWidth: width,
    nodes: nodes.done(),
    children: children.done(),
    tris: tris.done(),
    ids: ids.done(),
    root,
    triangleCount: mesh.triangleCount,
  };
}
