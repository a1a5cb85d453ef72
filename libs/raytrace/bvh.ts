// Our BVH builder: a binned SAH top-down build of a binary tree over the mesh's
// triangles (bvh-kernel.mjs), then the collapse of that tree into 4- or 8-wide nodes
// (repeatedly opening the child with the largest surface area, as Embree does). The
// result is the library's interchange form of a BVH, `Bvh`, which the kernels' host
// flattens into their SoA layouts and which the benchmark also builds from Embree's
// tree, so `sahCost` and `checkBvh` judge both builders the same way.
import { type BuildArrays, buildSubtree, makeScratch } from './bvh-kernel.mjs';
import { emptyBounds, type Mesh, surfaceArea, triangleBounds } from './mesh.ts';

export interface BvhNode {
  /** minx, miny, minz, maxx, maxy, maxz. */
  readonly bounds: Float32Array;
  /** Node indices of the children (≤ arity); [] for a leaf. */
  readonly children: number[];
  /** Triangle indices of a leaf (empty for an inner node). */
  readonly prims: Uint32Array;
}

export interface Bvh {
  readonly arity: 2 | 4 | 8;
  readonly nodes: BvhNode[];
  readonly root: number;
}

export interface BuildOptions {
  readonly arity: 2 | 4 | 8;
  /** Most triangles in a leaf (default 4; 8 suits BVH8 kernels testing 8 at once). */
  readonly maxLeafSize?: number;
  /** Spatial splits (SBVH): a triangle may be referenced from several leaves; better trees, slower build. */
  readonly spatialSplits?: boolean;
  /** Threads to build with (default: all cores, for meshes large enough to gain). */
  readonly threads?: number;
}

/** SAH constants: the cost of visiting an inner node (testing all its child boxes) and of one ray–triangle test. */
export interface SahConstants {
  readonly traversalCost: number;
  readonly intersectionCost: number;
}

/** The constants our builder optimises for and the benchmark reports with (Embree's rtcBuildBVH defaults). */
export const DEFAULT_SAH: SahConstants = { traversalCost: 1, intersectionCost: 1 };

/** Builds a BVH of the given arity over every triangle of the mesh. */
export function buildBvh(mesh: Mesh, options: BuildOptions): Bvh {
  const arity = options.arity;
  if (arity !== 2 && arity !== 4 && arity !== 8) throw new Error(`buildBvh: arity must be 2, 4 or 8, got ${arity}`);
  const maxLeafSize = options.maxLeafSize ?? 4;
  if (!(Number.isInteger(maxLeafSize) && maxLeafSize >= 1)) throw new Error(`buildBvh: maxLeafSize must be a positive integer, got ${maxLeafSize}`);
  const n = mesh.triangleCount;
  if (n === 0) return { arity, nodes: [{ bounds: emptyBounds(), children: [], prims: new Uint32Array(0) }], root: 0 };
  const binary = buildBinary(mesh, maxLeafSize);
  return collapse(binary, arity);
}

/** A binary tree in the kernel's arrays, root at node 0; leaves reference order[nodeA, nodeA + nodeCount). */
interface BinaryTree {
  arrays: BuildArrays;
  /** Triangle of each reference; null when reference i is triangle i. */
  refPrim: Uint32Array | null;
}

function buildBinary(mesh: Mesh, maxLeafSize: number): BinaryTree {
  const n = mesh.triangleCount;
  const p = mesh.positions, tri = mesh.triangles;
  const refBounds = new Float32Array(6 * n);
  for (let t = 0; t < n; t++) {
    const a = tri[3 * t]! * 3, b = tri[3 * t + 1]! * 3, c = tri[3 * t + 2]! * 3;
    for (let k = 0; k < 3; k++) {
      const va = p[a + k]!, vb = p[b + k]!, vc = p[c + k]!;
      refBounds[6 * t + k] = va < vb ? (va < vc ? va : vc) : vb < vc ? vb : vc;
      refBounds[6 * t + 3 + k] = va > vb ? (va > vc ? va : vc) : vb > vc ? vb : vc;
    }
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const cap = 2 * n;
  const arrays: BuildArrays = {
    refBounds,
    order,
    nodeBounds: new Float32Array(6 * cap),
    nodeA: new Int32Array(cap),
    nodeB: new Int32Array(cap),
    nodeCount: new Int32Array(cap),
    maxLeafSize,
    traversalCost: DEFAULT_SAH.traversalCost,
    intersectionCost: DEFAULT_SAH.intersectionCost,
  };
  const t0 = performance.now();
  buildSubtree(arrays, 0, n, 0, makeScratch());
  if (process.env.BVH_TIME) console.error(`binary build ${(performance.now() - t0).toFixed(0)} ms`);
  return { arrays, refPrim: null };
}

/** The binary tree as a Bvh of the given arity: each wide node opens its largest inner child until it has `arity` children. */
function collapse(tree: BinaryTree, arity: 2 | 4 | 8): Bvh {
  const { nodeBounds, nodeA, nodeB, nodeCount, order } = tree.arrays;
  const nodes: BvhNode[] = [];
  const area = (i: number) => surfaceArea(nodeBounds, 6 * i);
  // Each wide node is created with placeholder children, filled once the binary nodes it opens are known.
  const emit = (bin: number): number => {
    const index = nodes.length;
    const bounds = nodeBounds.slice(6 * bin, 6 * bin + 6);
    if (nodeCount[bin]! > 0) {
      const start = nodeA[bin]!;
      const prims = new Uint32Array(nodeCount[bin]!);
      const refPrim = tree.refPrim;
      for (let i = 0; i < prims.length; i++) prims[i] = refPrim ? refPrim[order[start + i]!]! : order[start + i]!;
      nodes.push({ bounds, children: [], prims });
      return index;
    }
    const open = [nodeA[bin]!, nodeB[bin]!];
    while (open.length < arity) {
      let best = -1, bestArea = -1;
      for (let i = 0; i < open.length; i++) {
        const c = open[i]!;
        if (nodeCount[c] === 0 && area(c) > bestArea) {
          best = i;
          bestArea = area(c);
        }
      }
      if (best < 0) break;
      const c = open[best]!;
      open.splice(best, 1, nodeA[c]!, nodeB[c]!);
    }
    const children: number[] = [];
    nodes.push({ bounds, children, prims: new Uint32Array(0) });
    for (const c of open) children.push(emit(c));
    return index;
  };
  const root = emit(0);
  return { arity, nodes, root };
}

/**
 * The SAH cost of a tree: Σ over inner nodes of traversalCost · area(node) plus Σ over
 * leaves of intersectionCost · triangles · area(leaf), divided by the root's area. Any
 * Bvh (ours, Embree's as the benchmark reads it) is costed the same way.
 */
export function sahCost(bvh: Bvh, _mesh: Mesh, constants: SahConstants = DEFAULT_SAH): number {
  const rootArea = surfaceArea(bvh.nodes[bvh.root]!.bounds);
  if (!(rootArea > 0)) return 0;
  let sum = 0;
  for (const node of bvh.nodes) {
    const a = surfaceArea(node.bounds);
    sum += node.children.length > 0 ? constants.traversalCost * a : constants.intersectionCost * node.prims.length * a;
  }
  return sum / rootArea;
}

export interface BvhStats {
  readonly nodes: number;
  readonly innerNodes: number;
  readonly leaves: number;
  readonly depth: number;
  readonly maxLeafSize: number;
  /** Triangle references in leaves (more than the triangles when spatial splits duplicated some). */
  readonly references: number;
}

/**
 * Structural checks of a tree over `mesh`; throws an Error naming the first violation:
 * every node reached once from the root, no more children than the arity and at least 2
 * per inner node, every child's box inside its parent's, every leaf non-empty (unless the
 * mesh is) and no larger than `maxLeafSize`, every triangle in exactly one leaf (at least
 * one with `spatialSplits`, where a leaf's box need only overlap the triangle's) and inside
 * its leaf's box otherwise.
 */
export function checkBvh(bvh: Bvh, mesh: Mesh, options: { maxLeafSize?: number; spatialSplits?: boolean } = {}): BvhStats {
  const fail = (msg: string): never => {
    throw new Error(`checkBvh: ${msg}`);
  };
  const { nodes, arity } = bvh;
  if (!(bvh.root >= 0 && bvh.root < nodes.length)) fail(`root ${bvh.root} is not a node (${nodes.length} nodes)`);
  const seen = new Uint8Array(nodes.length);
  const uses = new Uint32Array(mesh.triangleCount);
  const triBox = new Float32Array(6);
  let inner = 0, leaves = 0, depth = 0, biggest = 0, references = 0;
  const stack: [number, number][] = [[bvh.root, 1]];
  while (stack.length > 0) {
    const [index, d] = stack.pop()!;
    if (seen[index]) fail(`node ${index} is reached twice`);
    seen[index] = 1;
    depth = Math.max(depth, d);
    const node = nodes[index]!;
    const b = node.bounds;
    if (node.children.length > 0) {
      inner++;
      if (node.prims.length > 0) fail(`inner node ${index} also has triangles`);
      if (node.children.length > arity) fail(`node ${index} has ${node.children.length} children, arity ${arity}`);
      if (node.children.length < 2) fail(`inner node ${index} has a single child`);
      for (const c of node.children) {
        if (!(Number.isInteger(c) && c >= 0 && c < nodes.length)) fail(`node ${index} has child ${c}, not a node`);
        if (!contains(b, nodes[c]!.bounds)) fail(`node ${c}'s box is not inside its parent ${index}'s`);
        stack.push([c, d + 1]);
      }
      continue;
    }
    leaves++;
    references += node.prims.length;
    biggest = Math.max(biggest, node.prims.length);
    if (node.prims.length === 0 && mesh.triangleCount > 0) fail(`leaf ${index} is empty`);
    if (options.maxLeafSize !== undefined && node.prims.length > options.maxLeafSize) {
      fail(`leaf ${index} has ${node.prims.length} triangles, more than ${options.maxLeafSize}`);
    }
    for (const t of node.prims) {
      if (t >= mesh.triangleCount) fail(`leaf ${index} names triangle ${t} of ${mesh.triangleCount}`);
      uses[t]!++;
      triangleBounds(mesh, t, triBox);
      const inside = options.spatialSplits ? overlaps(b, triBox) : contains(b, triBox);
      if (!inside) fail(`triangle ${t} is outside its leaf ${index}'s box`);
    }
  }
  for (let t = 0; t < uses.length; t++) {
    if (uses[t] === 0) fail(`triangle ${t} is in no leaf`);
    if (uses[t]! > 1 && !options.spatialSplits) fail(`triangle ${t} is in ${uses[t]} leaves`);
  }
  const unreachable = seen.indexOf(0);
  if (unreachable >= 0) fail(`node ${unreachable} is not reachable from the root`);
  return { nodes: nodes.length, innerNodes: inner, leaves, depth, maxLeafSize: biggest, references };
}

function contains(outer: Float32Array, inner: Float32Array): boolean {
  return (
    inner[0]! >= outer[0]! && inner[1]! >= outer[1]! && inner[2]! >= outer[2]! &&
    inner[3]! <= outer[3]! && inner[4]! <= outer[4]! && inner[5]! <= outer[5]!
  );
}

function overlaps(a: Float32Array, b: Float32Array): boolean {
  return a[0]! <= b[3]! && b[0]! <= a[3]! && a[1]! <= b[4]! && b[1]! <= a[4]! && a[2]! <= b[5]! && b[2]! <= a[5]!;
}
