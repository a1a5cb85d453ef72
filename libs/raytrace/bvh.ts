// Our BVH builder: a binned SAH top-down build of a binary tree over the mesh's triangles,
// optionally with spatial splits (bvh-kernel.mjs; the top levels on the calling thread, the
// subtrees below them on all cores through worker threads sharing the arrays), then the
// collapse of the binary tree into 4- or 8-wide nodes (each wide node repeatedly opens its
// child with the largest surface area, as Embree's builders do, then splits leaf children
// into the places left where that lowers the SAH).
//
// Two forms of the result: `PackedBvh`, flat typed arrays (what the build produces and
// what the kernels' host should read), and `Bvh` with one `BvhNode` object per node, the
// library's interchange form, which the benchmark also builds from Embree's tree so that
// `sahCost` and `checkBvh` judge both builders the same way. A Bvh built here carries its
// packed form and makes its node objects only when they are first asked for.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { blockSlots, type BuildArrays, buildSubtree, findSplit, halfArea, makeScratch, partition, rangeBounds, splitNode } from './bvh-kernel.mjs';
import { leafWidthFor } from './layout.ts';
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
  /** The flat form, when the tree was built here (`packBvh` makes it for any tree). */
  readonly packed?: PackedBvh;
}

/**
 * A BVH in flat arrays. The children of a node are consecutive nodes
 * firstChild … firstChild + childCount - 1; a leaf (childCount 0) has the triangles
 * prims[primStart … primStart + primCount - 1].
 */
export interface PackedBvh {
  readonly arity: 2 | 4 | 8;
  readonly nodeCount: number;
  readonly root: number;
  /** 6 floats per node: minx miny minz maxx maxy maxz. */
  readonly bounds: Float32Array;
  readonly firstChild: Int32Array;
  readonly childCount: Uint8Array;
  readonly primStart: Uint32Array;
  readonly primCount: Uint32Array;
  readonly prims: Uint32Array;
}

export interface BuildOptions {
  readonly arity: 2 | 4 | 8;
  /** Most triangles in a leaf (default: one leaf block, `leafBlock`). */
  readonly maxLeafSize?: number;
  /**
   * Triangles the kernels test in one operation (default: their leaf block, 4 for BVH2/BVH4
   * and 8 for BVH8, `leafWidthFor`): the SAH charges each leaf per started block
   * (`blockSlots`), so the build prefers full blocks. 1 is the classic per-triangle SAH.
   */
  readonly leafBlock?: number;
  /** Spatial splits (SBVH, Stich et al. 2009): a triangle may be in several leaves; better trees, slower build. */
  readonly spatialSplits?: boolean;
  /** Threads to build with, this one included (default: every core, for meshes large enough to gain). */
  readonly threads?: number;
}

/** SAH constants: the cost of visiting an inner node (testing all its child boxes) and of one ray–triangle test. */
export interface SahConstants {
  readonly traversalCost: number;
  readonly intersectionCost: number;
}

/** The constants our builder optimises for and the benchmark reports with (Embree's rtcBuildBVH defaults). */
export const DEFAULT_SAH: SahConstants = { traversalCost: 1, intersectionCost: 1 };

/** Below this many triangles one thread builds the whole tree: starting the others would cost more than it gains. */
const PARALLEL_MIN_TRIANGLES = 20_000;

/** Builds a BVH of the given arity over every triangle of the mesh. */
export function buildBvh(mesh: Mesh, options: BuildOptions): Bvh {
  const arity = options.arity;
  if (arity !== 2 && arity !== 4 && arity !== 8) throw new Error(`buildBvh: arity must be 2, 4 or 8, got ${String(arity)}`);
  const leafBlock = options.leafBlock ?? leafWidthFor(arity);
  if (!(Number.isInteger(leafBlock) && leafBlock >= 1 && leafBlock <= 255)) {
    throw new Error(`buildBvh: leafBlock must be an integer from 1 to 255, got ${leafBlock}`);
  }
  const maxLeafSize = options.maxLeafSize ?? leafBlock;
  if (!(Number.isInteger(maxLeafSize) && maxLeafSize >= 1 && maxLeafSize <= 255)) {
    throw new Error(`buildBvh: maxLeafSize must be an integer from 1 to 255, got ${maxLeafSize}`);
  }
  const threads = options.threads ?? (mesh.triangleCount >= PARALLEL_MIN_TRIANGLES ? availableParallelism() : 1);
  if (!(Number.isInteger(threads) && threads >= 1)) throw new Error(`buildBvh: threads must be a positive integer, got ${threads}`);
  if (mesh.triangleCount === 0) return emptyBvh(arity);
  // A binary split costs a fraction of a wide node's visit: the collapse merges about
  // arity / 2 binary nodes into each wide one. Measured on Sibenik, this lowers the wide
  // trees' SAH cost (with the standard constants) by 1–3% over pricing each binary node fully.
  const sah = { ...DEFAULT_SAH, traversalCost: (DEFAULT_SAH.traversalCost * 2) / arity };
  const binary = buildBinary(mesh, maxLeafSize, leafBlock, threads, sah, options.spatialSplits === true);
  return bvhFromPacked(collapse(binary, arity));
}

/** A binary tree in the kernel's arrays; a leaf's references are slots [nodeA, nodeA + nodeCount). */
export interface BinaryTree {
  readonly arrays: BuildArrays;
  readonly root: number;
}

/** The box of every triangle, 6 floats each, in `out` (which may be shared memory). */
export function triangleBoxes(mesh: Mesh, out: Float32Array): Float32Array {
  const p = mesh.positions, tri = mesh.triangles, n = mesh.triangleCount;
  for (let t = 0; t < n; t++) {
    const a = tri[3 * t]! * 3, b = tri[3 * t + 1]! * 3, c = tri[3 * t + 2]! * 3;
    for (let k = 0; k < 3; k++) {
      const va = p[a + k]!, vb = p[b + k]!, vc = p[c + k]!;
      out[6 * t + k] = va < vb ? (va < vc ? va : vc) : vb < vc ? vb : vc;
      out[6 * t + 3 + k] = va > vb ? (va > vc ? va : vc) : vb > vc ? vb : vc;
    }
  }
  return out;
}

/** Float32/Int32/Uint32 array of `length` elements, in shared memory when other threads will read or write it. */
function typed<T extends Float32Array | Int32Array | Uint32Array>(
  Kind: { new (b: ArrayBufferLike): T; new (n: number): T; BYTES_PER_ELEMENT: number }, length: number, shared: boolean,
): T {
  return shared ? new Kind(new SharedArrayBuffer(length * Kind.BYTES_PER_ELEMENT)) : new Kind(length);
}

/** Slots for references: spatial splits may make up to this many times the triangles (the tree uses fewer, 1.1–1.25× on the benchmark scenes; the benchmark gives Embree's rtcBuildBVH 2×). */
export const MAX_DUPLICATION = 1.6;

function buildBinary(mesh: Mesh, maxLeafSize: number, leafBlock: number, threads: number, sah: SahConstants, spatial: boolean): BinaryTree {
  const n = mesh.triangleCount;
  const parallel = threads > 1 && n >= 256;
  // Slots: the triangles, then the free slots spatial splits may fill.
  const slots = spatial ? Math.max(n, Math.floor(n * MAX_DUPLICATION)) : n;
  // Subtree tasks use nodes [2·start, 2·extEnd); the nodes the top-level splits make follow at 2·slots.
  const maxTop = parallel ? 64 * threads : 0;
  const cap = 2 * slots + maxTop;
  const refPrim = typed(Uint32Array, slots, parallel);
  for (let i = 0; i < n; i++) refPrim[i] = i;
  // The workers read the mesh for spatial splits: a shared copy.
  let positions: Float32Array | null = null, triangles: Uint32Array | null = null;
  if (spatial) {
    positions = parallel ? typed(Float32Array, mesh.positions.length, true) : mesh.positions;
    triangles = parallel ? typed(Uint32Array, mesh.triangles.length, true) : mesh.triangles;
    if (parallel) {
      positions.set(mesh.positions);
      triangles.set(mesh.triangles);
    }
  }
  const arrays: BuildArrays = {
    refBounds: triangleBoxes(mesh, typed(Float32Array, 6 * slots, parallel)),
    refPrim,
    nodeBounds: typed(Float32Array, 6 * cap, parallel),
    nodeA: typed(Int32Array, cap, parallel),
    nodeB: typed(Int32Array, cap, parallel),
    nodeCount: typed(Int32Array, cap, parallel),
    maxLeafSize,
    leafBlock,
    traversalCost: sah.traversalCost,
    intersectionCost: sah.intersectionCost,
    positions,
    triangles,
    rootArea: 0,
  };
  const bounds = new Float64Array(12);
  rangeBounds(arrays, 0, n, bounds, 0);
  arrays.rootArea = halfArea(bounds, 0);
  if (!parallel) {
    buildSubtree(arrays, 0, n, slots, 0, bounds, makeScratch());
    return { arrays, root: 0 };
  }
  return { arrays, root: buildParallel(arrays, n, slots, bounds, threads, maxTop) };
}

/**
 * Splits the top of the tree on this thread until there are about 4 tasks per thread,
 * then builds the tasks' subtrees on this thread and the workers together, largest first.
 */
function buildParallel(a: BuildArrays, n: number, slots: number, rootBounds: Float64Array, threads: number, maxTop: number): number {
  interface Range { start: number; end: number; extEnd: number; bounds: Float64Array; parent: number; side: 0 | 1; final: boolean }
  const scratch = makeScratch();
  const pending: Range[] = [{ start: 0, end: n, extEnd: slots, bounds: rootBounds, parent: -1, side: 0, final: false }];
  let top = 2 * slots, root = -1;
  const link = (r: Range, node: number) => {
    if (r.parent < 0) root = node;
    else if (r.side === 0) a.nodeA[r.parent] = node;
    else a.nodeB[r.parent] = node;
  };
  const wanted = 4 * threads, smallest = Math.max(64, n / (16 * threads));
  while (pending.length < wanted && top < 2 * slots + maxTop) {
    let pick = -1;
    for (let i = 0; i < pending.length; i++) {
      const r = pending[i]!;
      if (!r.final && r.end - r.start >= smallest && (pick < 0 || r.end - r.start > pending[pick]!.end - pending[pick]!.start)) pick = i;
    }
    if (pick < 0) break;
    const r = pending[pick]!;
    if (!splitNode(a, r.start, r.end, r.extEnd, r.bounds, 0, scratch)) {
      r.final = true; // a leaf: its task makes it one
      continue;
    }
    const node = top++;
    a.nodeBounds.set(r.bounds.subarray(0, 6), 6 * node);
    a.nodeCount[node] = 0;
    link(r, node);
    const cb = scratch.childBounds, g = scratch.ranges;
    pending.splice(pick, 1,
      { start: g[0]!, end: g[1]!, extEnd: g[2]!, bounds: cb.slice(0, 12), parent: node, side: 0, final: false },
      { start: g[3]!, end: g[4]!, extEnd: g[5]!, bounds: cb.slice(12, 24), parent: node, side: 1, final: false });
  }
  pending.sort((x, y) => y.end - y.start - (x.end - x.start));
  const tasks = new Int32Array(new SharedArrayBuffer(12 * pending.length));
  const taskBounds = new Float64Array(new SharedArrayBuffer(8 * 12 * pending.length));
  const control = new Int32Array(new SharedArrayBuffer(12));
  pending.forEach((r, t) => {
    tasks[3 * t] = r.start;
    tasks[3 * t + 1] = r.end;
    tasks[3 * t + 2] = r.extEnd;
    taskBounds.set(r.bounds.subarray(0, 12), 12 * t);
    link(r, 2 * r.start);
  });
  for (const worker of workers(threads - 1)) worker.postMessage({ arrays: a, tasks, taskBounds, control });
  for (;;) {
    const t = Atomics.add(control, 0, 1);
    if (t >= pending.length) break;
    buildSubtree(a, tasks[3 * t]!, tasks[3 * t + 1]!, tasks[3 * t + 2]!, 2 * tasks[3 * t]!, taskBounds.subarray(12 * t, 12 * t + 12), scratch);
    Atomics.add(control, 1, 1);
  }
  // Tasks a worker claimed are finished by it; wait for the last (in slices, to stay responsive to none).
  for (let done = Atomics.load(control, 1); done < pending.length; done = Atomics.load(control, 1)) {
    Atomics.wait(control, 1, done, 1000);
  }
  if (control[2] !== 0) throw new Error('buildBvh: a builder thread failed');
  return root;
}

/** The builder's worker threads, started on first use and kept (unreferenced, so they never hold the process open). */
const pool: Worker[] = [];

function workers(count: number): Worker[] {
  while (pool.length < count) {
    const worker = new Worker(new URL('./bvh-worker.mjs', import.meta.url));
    worker.unref();
    // A worker that cannot start leaves its share to the others; the main thread takes every unclaimed task.
    worker.on('error', () => pool.splice(pool.indexOf(worker), 1));
    pool.push(worker);
  }
  return pool.slice(0, count);
}

/**
 * The binary tree as a packed BVH of the given arity: each wide node opens its largest
 * inner child until it has `arity` children; nodes are numbered breadth first, so the
 * children of a node are consecutive, and leaves' triangles are stored in the same order.
 * Child places still free then go to splitting leaf children, the one that lowers the SAH
 * most first, while a split lowers it: the wide node is visited anyway, so the parts cost
 * only their boxes' areas (the binary build, which prices every split as a node visit,
 * kept them whole). Embree's wide builders likewise fill each node with as many children as
 * they can.
 */
function collapse(tree: BinaryTree, arity: 2 | 4 | 8): PackedBvh {
  const a = tree.arrays;
  const { nodeBounds, nodeA, nodeB, nodeCount, refPrim } = a;
  // Wide nodes ≤ binary nodes + the leaves split here (≤ references); the binary tree has
  // 2·leaves − 1 nodes, leaves ≤ references.
  let references = 0, binaryNodes = 0;
  for (let stack = [tree.root]; stack.length > 0;) {
    const b = stack.pop()!;
    binaryNodes++;
    if (nodeCount[b]! > 0) references += nodeCount[b]!;
    else stack.push(nodeA[b]!, nodeB[b]!);
  }
  const cap = binaryNodes + references;
  const bounds = new Float32Array(6 * cap);
  const firstChild = new Int32Array(cap);
  const childCount = new Uint8Array(cap);
  const primStart = new Uint32Array(cap);
  const primCount = new Uint32Array(cap);
  const prims = new Uint32Array(references);
  // Leaves split here: slots start, count and box; child code −1 − index (a binary node's code is its index).
  let partStart = new Int32Array(256), partCount = new Int32Array(256), partBounds = new Float64Array(6 * 256);
  let parts = 0;
  const leafStart = (c: number) => (c >= 0 ? nodeA[c]! : partStart[-1 - c]!);
  const leafCount = (c: number) => (c >= 0 ? nodeCount[c]! : partCount[-1 - c]!);
  const scratch = makeScratch(), box = new Float64Array(12);
  const block = a.leafBlock;
  /** How much splitting leaf c lowers Σ half-area · block slots (its best object split; 0: none). */
  const splitGain = (c: number): number => {
    const k = leafCount(c);
    if (k < 2) return 0;
    const start = leafStart(c);
    rangeBounds(a, start, start + k, box, 0);
    findSplit(a, start, start + k, box, 0, scratch);
    return scratch.split[0]! < 0 ? 0 : halfArea(box, 0) * blockSlots(k, block) - scratch.split[2]!;
  };
  // Queue of (wide node, child code) pairs; wide nodes are created in queue order.
  const queue = new Int32Array(2 * cap);
  let head = 0, tail = 0, count = 1, primsUsed = 0;
  queue[tail++] = 0;
  queue[tail++] = tree.root;
  const open = new Int32Array(arity), openArea = new Float64Array(arity), gain = new Float64Array(arity);
  const innerArea = (c: number) => (c >= 0 && nodeCount[c] === 0 ? surfaceArea(nodeBounds, 6 * c) : -1);
  while (head < tail) {
    const wide = queue[head++]!, code = queue[head++]!;
    if (code >= 0) for (let k = 0; k < 6; k++) bounds[6 * wide + k] = nodeBounds[6 * code + k]!;
    else for (let k = 0; k < 6; k++) bounds[6 * wide + k] = partBounds[6 * (-1 - code) + k]!;
    if (code < 0 || nodeCount[code]! > 0) {
      const start = leafStart(code), size = leafCount(code);
      primStart[wide] = primsUsed;
      primCount[wide] = size;
      for (let i = start, end = start + size; i < end; i++) prims[primsUsed++] = refPrim[i]!;
      continue;
    }
    let m = 2;
    open[0] = nodeA[code]!;
    open[1] = nodeB[code]!;
    openArea[0] = innerArea(open[0]!);
    openArea[1] = innerArea(open[1]!);
    gain.fill(-1);
    while (m < arity) {
      let best = -1, bestArea = -1;
      for (let i = 0; i < m; i++) {
        if (openArea[i]! > bestArea) {
          best = i;
          bestArea = openArea[i]!;
        }
      }
      let first: number, second: number;
      if (best >= 0) {
        const c = open[best]!;
        first = nodeA[c]!;
        second = nodeB[c]!;
      } else {
        // Only leaves: split the one whose split gains most, if any gains.
        let bestGain = 0;
        for (let i = 0; i < m; i++) {
          if (gain[i]! < 0) gain[i] = splitGain(open[i]!);
          if (gain[i]! > bestGain) {
            best = i;
            bestGain = gain[i]!;
          }
        }
        if (best < 0) break;
        const c = open[best]!, start = leafStart(c), k = leafCount(c);
        splitGain(c); // the chosen split, into the scratch again
        const mid = partition(a, start, start + k, scratch, -1);
        if (parts + 2 > partStart.length) {
          partStart = grown(partStart);
          partCount = grown(partCount);
          partBounds = grown(partBounds);
        }
        first = -1 - parts;
        second = -2 - parts;
        partStart[parts] = start;
        partCount[parts] = mid - start;
        partStart[parts + 1] = mid;
        partCount[parts + 1] = start + k - mid;
        for (let q = 0; q < 6; q++) {
          partBounds[6 * parts + q] = scratch.childBounds[q]!;
          partBounds[6 * parts + 6 + q] = scratch.childBounds[12 + q]!;
        }
        parts += 2;
      }
      // The opened node's children take its place, keeping the binary tree's left-to-right order.
      for (let i = m; i > best + 1; i--) {
        open[i] = open[i - 1]!;
        openArea[i] = openArea[i - 1]!;
        gain[i] = gain[i - 1]!;
      }
      open[best] = first;
      open[best + 1] = second;
      openArea[best] = innerArea(first);
      openArea[best + 1] = innerArea(second);
      gain[best] = -1;
      gain[best + 1] = -1;
      m++;
    }
    firstChild[wide] = count;
    childCount[wide] = m;
    for (let i = 0; i < m; i++) {
      queue[tail++] = count++;
      queue[tail++] = open[i]!;
    }
  }
  return {
    arity,
    nodeCount: count,
    root: 0,
    bounds: bounds.slice(0, 6 * count),
    firstChild: firstChild.slice(0, count),
    childCount: childCount.slice(0, count),
    primStart: primStart.slice(0, count),
    primCount: primCount.slice(0, count),
    prims,
  };
}

/** A copy of the array with twice the length. */
function grown<T extends Int32Array | Float64Array>(array: T): T {
  const copy = new (array.constructor as new (n: number) => T)(2 * array.length);
  copy.set(array);
  return copy;
}

function emptyBvh(arity: 2 | 4 | 8): Bvh {
  const b = emptyBounds();
  return bvhFromPacked({
    arity, nodeCount: 1, root: 0, bounds: b, firstChild: new Int32Array(1), childCount: new Uint8Array(1),
    primStart: new Uint32Array(1), primCount: new Uint32Array(1), prims: new Uint32Array(0),
  });
}

/** A Bvh over a packed tree; its node objects are made on first access to `nodes`. */
export function bvhFromPacked(packed: PackedBvh): Bvh {
  let nodes: BvhNode[] | undefined;
  return {
    arity: packed.arity,
    root: packed.root,
    packed,
    get nodes(): BvhNode[] {
      nodes ??= unpack(packed);
      return nodes;
    },
  };
}

const NO_PRIMS = new Uint32Array(0);

function unpack(p: PackedBvh): BvhNode[] {
  const nodes: BvhNode[] = new Array(p.nodeCount);
  for (let i = 0; i < p.nodeCount; i++) {
    const children: number[] = [];
    for (let c = 0; c < p.childCount[i]!; c++) children.push(p.firstChild[i]! + c);
    const prims = children.length > 0 ? NO_PRIMS : p.prims.subarray(p.primStart[i]!, p.primStart[i]! + p.primCount[i]!);
    nodes[i] = { bounds: p.bounds.subarray(6 * i, 6 * i + 6), children, prims };
  }
  return nodes;
}

/** The packed form of any Bvh (the one it carries, or one made from its nodes, renumbered breadth first). */
export function packBvh(bvh: Bvh): PackedBvh {
  if (bvh.packed) return bvh.packed;
  const nodes = bvh.nodes;
  const n = nodes.length;
  const bounds = new Float32Array(6 * n), firstChild = new Int32Array(n), childCount = new Uint8Array(n);
  const primStart = new Uint32Array(n), primCount = new Uint32Array(n);
  const prims: number[] = [];
  const queue = [bvh.root];
  let count = 1;
  for (let head = 0; head < queue.length; head++) {
    const node = nodes[queue[head]!]!;
    bounds.set(node.bounds.subarray(0, 6), 6 * head);
    if (node.children.length === 0) {
      primStart[head] = prims.length;
      primCount[head] = node.prims.length;
      for (const t of node.prims) prims.push(t);
      continue;
    }
    firstChild[head] = count;
    childCount[head] = node.children.length;
    for (const c of node.children) queue.push(c);
    count += node.children.length;
  }
  return {
    arity: bvh.arity, nodeCount: queue.length, root: 0, bounds: bounds.slice(0, 6 * queue.length),
    firstChild: firstChild.slice(0, queue.length), childCount: childCount.slice(0, queue.length),
    primStart: primStart.slice(0, queue.length), primCount: primCount.slice(0, queue.length), prims: Uint32Array.from(prims),
  };
}

/**
 * The SAH cost of a tree: Σ over inner nodes of traversalCost · area(node) plus Σ over
 * leaves of intersectionCost · triangles · area(leaf), divided by the root's area (so the
 * root's own visit counts traversalCost). Any Bvh (ours, Embree's as the benchmark reads
 * it) is costed the same way. The cost depends on the boxes and leaf sizes only; the mesh
 * is the tree's, named for symmetry with checkBvh. With `leafBlock` > 1 a leaf counts its
 * triangles in started blocks (`blockSlots`, what the builder optimises); the default 1 is
 * the classic per-triangle cost, the one comparable with trees built for other leaf layouts.
 */
export function sahCost(bvh: Bvh, _mesh: Mesh, constants: SahConstants = DEFAULT_SAH, leafBlock = 1): number {
  const p = packBvh(bvh);
  const rootArea = surfaceArea(p.bounds, 6 * p.root);
  if (!(rootArea > 0)) return 0;
  let sum = 0;
  for (let i = 0; i < p.nodeCount; i++) {
    const a = surfaceArea(p.bounds, 6 * i);
    sum += p.childCount[i]! > 0 ? constants.traversalCost * a : constants.intersectionCost * blockSlots(p.primCount[i]!, leafBlock) * a;
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
 * mesh is) and no larger than `maxLeafSize`, every triangle in exactly one leaf and inside
 * its box (with `spatialSplits`: in at least one leaf, each leaf's box overlapping it).
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
