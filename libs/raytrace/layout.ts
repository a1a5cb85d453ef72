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

/** The kernels' layout of `bvh` over `mesh` (the BVH's leaves name the mesh's triangles). */
export function flatten(bvh: Bvh, mesh: Mesh): FlatScene {
  const arity = bvh.arity;
  const width = leafWidthFor(arity);
  const nodes: number[] = [];
  const children: number[] = [];
  const tris: number[] = [];
  const ids: number[] = [];
  let blocks = 0;
  let maxDepth = 0;

  const p = mesh.positions;
  const t = mesh.triangles;
  const pushBlock = (prims: ArrayLike<number>, from: number): void => {
    const row = new Array<number>(12 * width).fill(0);
    for (let k = 0; k < width; k++) {
      const i = from + k;
      if (i >= prims.length) {
        ids.push(-1);
        continue;
      }
      const prim = prims[i]!;
      if (!(prim >= 0 && prim < mesh.triangleCount)) throw new Error(`flatten: leaf names triangle ${prim} of ${mesh.triangleCount}`);
      ids.push(prim);
      const a = t[3 * prim]! * 3, b = t[3 * prim + 1]! * 3, c = t[3 * prim + 2]! * 3;
      const v0 = [p[a]!, p[a + 1]!, p[a + 2]!];
      const e1 = [0, 1, 2].map((j) => p[a + j]! - p[b + j]!);
      const e2 = [0, 1, 2].map((j) => p[c + j]! - p[a + j]!);
      const ng = [e2[1]! * e1[2]! - e2[2]! * e1[1]!, e2[2]! * e1[0]! - e2[0]! * e1[2]!, e2[0]! * e1[1]! - e2[1]! * e1[0]!];
      [...v0, ...e1, ...e2, ...ng].forEach((x, r) => (row[r * width + k] = x));
    }
    tris.push(...row);
    blocks++;
  };

  /** A leaf reference for `prims` (at most MAX_LEAF_BLOCKS blocks). */
  const leafRef = (prims: ArrayLike<number>): number => {
    const first = blocks;
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
    const index = children.length / arity;
    maxDepth = Math.max(maxDepth, depth);
    const base = nodes.length;
    for (let k = 0; k < 6 * arity; k++) nodes.push(0);
    for (let k = 0; k < arity; k++) children.push(0);
    for (let k = 0; k < arity; k++) {
      const box = kids[k]?.box;
      for (let axis = 0; axis < 3; axis++) {
        nodes[base + 2 * axis * arity + k] = box ? box[axis]! : Infinity;
        nodes[base + (2 * axis + 1) * arity + k] = box ? box[3 + axis]! : -Infinity;
      }
    }
    kids.forEach((kid, k) => (children[index * arity + k] = kid.ref()));
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
    nodes: Float32Array.from(nodes),
    children: Int32Array.from(children),
    tris: Float32Array.from(tris),
    ids: Int32Array.from(ids),
    root,
    triangleCount: mesh.triangleCount,
  };
}
