// @ts-check
// The binned-SAH build of a binary BVH over a range of primitive references, on typed
// arrays only. Plain JavaScript so the same code runs on the main thread and in the
// builder's worker threads (bvh-worker.mjs), which load it without a TypeScript loader.
// bvh.ts drives it; bvh-kernel.d.mts gives its types to TypeScript.
//
// Storage (all arrays may live in SharedArrayBuffers, so workers fill disjoint parts):
// - refBounds: 6 floats per reference (minx miny minz maxx maxy maxz), the box of the
//   reference (a triangle, or the part of it a spatial split kept);
// - order: reference ids; a build partitions order[start, end) in place;
// - nodes: nodeBounds (6 floats), nodeA, nodeB (Int32), nodeCount (Int32) per node. An inner
//   node has nodeCount 0 and children nodeA, nodeB; a leaf has nodeCount ≥ 1 references
//   order[nodeA, nodeA + nodeCount).
// A subtree over order[start, end) (k references) uses at most 2k - 1 nodes, from nodeBase up.

/** Bins per axis: 32 on large ranges (where a split decides most), 16 below. */
export const MAX_BINS = 32;
const SMALL_RANGE = 1024;

/**
 * @typedef {{
 *   refBounds: Float32Array, order: Uint32Array,
 *   nodeBounds: Float32Array, nodeA: Int32Array, nodeB: Int32Array, nodeCount: Int32Array,
 *   maxLeafSize: number, traversalCost: number, intersectionCost: number,
 * }} BuildArrays
 */

/** Scratch of one builder thread: per-axis bins and the sweep's right-side areas. */
export function makeScratch() {
  return {
    binBounds: new Float32Array(3 * MAX_BINS * 6),
    binCount: new Int32Array(3 * MAX_BINS),
    rightArea: new Float64Array(MAX_BINS),
    /** Result of `findSplit`: axis (-1: none), bin, cost, and centroid range mapping. */
    axis: -1, bin: 0, cost: 0, cmin: 0, scale: 0,
  };
}

/** @typedef {ReturnType<typeof makeScratch>} Scratch */

/**
 * Box of order[start, end) into nodeBounds at node, and the bounds of the references'
 * centroids (doubled: min + max, no halving needed) into cb.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {number} node @param {Float64Array} cb
 */
export function rangeBounds(a, start, end, node, cb) {
  const rb = a.refBounds, order = a.order;
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  let cx0 = Infinity, cy0 = Infinity, cz0 = Infinity, cx1 = -Infinity, cy1 = -Infinity, cz1 = -Infinity;
  for (let i = start; i < end; i++) {
    const r = 6 * order[i];
    const ax = rb[r], ay = rb[r + 1], az = rb[r + 2], bx = rb[r + 3], by = rb[r + 4], bz = rb[r + 5];
    if (ax < x0) x0 = ax;
    if (ay < y0) y0 = ay;
    if (az < z0) z0 = az;
    if (bx > x1) x1 = bx;
    if (by > y1) y1 = by;
    if (bz > z1) z1 = bz;
    const cx = ax + bx, cy = ay + by, cz = az + bz;
    if (cx < cx0) cx0 = cx;
    if (cy < cy0) cy0 = cy;
    if (cz < cz0) cz0 = cz;
    if (cx > cx1) cx1 = cx;
    if (cy > cy1) cy1 = cy;
    if (cz > cz1) cz1 = cz;
  }
  const nb = a.nodeBounds, o = 6 * node;
  nb[o] = x0; nb[o + 1] = y0; nb[o + 2] = z0; nb[o + 3] = x1; nb[o + 4] = y1; nb[o + 5] = z1;
  cb[0] = cx0; cb[1] = cy0; cb[2] = cz0; cb[3] = cx1; cb[4] = cy1; cb[5] = cz1;
}

/** @param {number} dx @param {number} dy @param {number} dz */
function half(dx, dy, dz) {
  return dx * dy + dy * dz + dz * dx;
}

/**
 * The best binned SAH split of order[start, end) along any axis: scratch.axis (-1 when
 * every centroid is the same point), scratch.bin (references in bins < bin go left) and
 * scratch.cost (Σ area·count of both sides, in half-areas).
 * @param {BuildArrays} a @param {number} start @param {number} end @param {Float64Array} cb @param {Scratch} s
 */
export function findSplit(a, start, end, cb, s) {
  const bins = end - start > SMALL_RANGE ? MAX_BINS : 16;
  const rb = a.refBounds, order = a.order, bb = s.binBounds, bc = s.binCount, right = s.rightArea;
  s.axis = -1;
  s.cost = Infinity;
  for (let axis = 0; axis < 3; axis++) {
    const lo = cb[axis], extent = cb[axis + 3] - lo;
    if (!(extent > 0)) continue;
    const scale = (bins * (1 - 1e-6)) / extent;
    const base = axis * MAX_BINS;
    for (let b = 0; b < bins; b++) {
      bc[base + b] = 0;
      const o = 6 * (base + b);
      bb[o] = Infinity; bb[o + 1] = Infinity; bb[o + 2] = Infinity;
      bb[o + 3] = -Infinity; bb[o + 4] = -Infinity; bb[o + 5] = -Infinity;
    }
    for (let i = start; i < end; i++) {
      const r = 6 * order[i];
      let b = ((rb[r + axis] + rb[r + axis + 3] - lo) * scale) | 0;
      if (b >= bins) b = bins - 1;
      bc[base + b]++;
      const o = 6 * (base + b);
      if (rb[r] < bb[o]) bb[o] = rb[r];
      if (rb[r + 1] < bb[o + 1]) bb[o + 1] = rb[r + 1];
      if (rb[r + 2] < bb[o + 2]) bb[o + 2] = rb[r + 2];
      if (rb[r + 3] > bb[o + 3]) bb[o + 3] = rb[r + 3];
      if (rb[r + 4] > bb[o + 4]) bb[o + 4] = rb[r + 4];
      if (rb[r + 5] > bb[o + 5]) bb[o + 5] = rb[r + 5];
    }
    // Right to left: area of bins [b, bins) times their count.
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity, n = 0;
    for (let b = bins - 1; b > 0; b--) {
      const o = 6 * (base + b);
      n += bc[base + b];
      if (bb[o] < x0) x0 = bb[o];
      if (bb[o + 1] < y0) y0 = bb[o + 1];
      if (bb[o + 2] < z0) z0 = bb[o + 2];
      if (bb[o + 3] > x1) x1 = bb[o + 3];
      if (bb[o + 4] > y1) y1 = bb[o + 4];
      if (bb[o + 5] > z1) z1 = bb[o + 5];
      right[b] = n === 0 ? 0 : half(x1 - x0, y1 - y0, z1 - z0) * n;
    }
    x0 = Infinity; y0 = Infinity; z0 = Infinity; x1 = -Infinity; y1 = -Infinity; z1 = -Infinity; n = 0;
    for (let b = 1; b < bins; b++) {
      const o = 6 * (base + b - 1);
      n += bc[base + b - 1];
      if (bb[o] < x0) x0 = bb[o];
      if (bb[o + 1] < y0) y0 = bb[o + 1];
      if (bb[o + 2] < z0) z0 = bb[o + 2];
      if (bb[o + 3] > x1) x1 = bb[o + 3];
      if (bb[o + 4] > y1) y1 = bb[o + 4];
      if (bb[o + 5] > z1) z1 = bb[o + 5];
      if (n === 0 || n === end - start) continue;
      const cost = half(x1 - x0, y1 - y0, z1 - z0) * n + right[b];
      if (cost < s.cost) {
        s.cost = cost;
        s.axis = axis;
        s.bin = b;
        s.cmin = lo;
        s.scale = scale;
      }
    }
  }
}

/**
 * Moves the references of order[start, end) that go left under scratch's split to the
 * front; returns the first index of the right side.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {Scratch} s
 */
export function partition(a, start, end, s) {
  const rb = a.refBounds, order = a.order, axis = s.axis, lo = s.cmin, scale = s.scale, bin = s.bin;
  const bins = end - start > SMALL_RANGE ? MAX_BINS : 16;
  let i = start, j = end - 1;
  for (;;) {
    while (i <= j) {
      const r = 6 * order[i];
      let b = ((rb[r + axis] + rb[r + axis + 3] - lo) * scale) | 0;
      if (b >= bins) b = bins - 1;
      if (b >= bin) break;
      i++;
    }
    while (i <= j) {
      const r = 6 * order[j];
      let b = ((rb[r + axis] + rb[r + axis + 3] - lo) * scale) | 0;
      if (b >= bins) b = bins - 1;
      if (b < bin) break;
      j--;
    }
    if (i >= j) return i;
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
    i++;
    j--;
  }
}

/**
 * How to divide order[start, end) whose box is at `node`: -1 for a leaf, else the index
 * where the right child's references start (order partitioned). Leaves never exceed
 * maxLeafSize; below it a leaf is chosen when its SAH cost is no higher than the split's.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {number} node @param {Float64Array} cb @param {Scratch} s
 */
export function divide(a, start, end, node, cb, s) {
  const k = end - start;
  if (k === 1) return -1;
  findSplit(a, start, end, cb, s);
  if (s.axis < 0) {
    // Every centroid is the same point: no plane separates them; halve by position in order.
    return k <= a.maxLeafSize ? -1 : start + (k >> 1);
  }
  if (k <= a.maxLeafSize) {
    const nb = a.nodeBounds, o = 6 * node;
    const area = half(nb[o + 3] - nb[o], nb[o + 4] - nb[o + 1], nb[o + 5] - nb[o + 2]);
    const splitCost = a.traversalCost + (a.intersectionCost * s.cost) / area;
    if (!(area > 0) || a.intersectionCost * k <= splitCost) return -1;
  }
  return partition(a, start, end, s);
}

/**
 * Builds the subtree of order[start, end) with nodes from nodeBase up (the subtree's root
 * is nodeBase); returns the number of nodes it used.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {number} nodeBase @param {Scratch} s
 */
export function buildSubtree(a, start, end, nodeBase, s) {
  const cb = new Float64Array(6);
  // Explicit stack of (node, start, end): depth can reach thousands on degenerate input.
  let stack = new Int32Array(3 * 256);
  let top = 0, next = nodeBase + 1;
  stack[top++] = nodeBase; stack[top++] = start; stack[top++] = end;
  while (top > 0) {
    const e = stack[--top], b = stack[--top], node = stack[--top];
    rangeBounds(a, b, e, node, cb);
    const mid = divide(a, b, e, node, cb, s);
    if (mid < 0) {
      a.nodeA[node] = b;
      a.nodeB[node] = 0;
      a.nodeCount[node] = e - b;
      continue;
    }
    const left = next, right = next + 1;
    next += 2;
    a.nodeA[node] = left;
    a.nodeB[node] = right;
    a.nodeCount[node] = 0;
    if (top + 6 > stack.length) {
      const grown = new Int32Array(stack.length * 2);
      grown.set(stack);
      stack = grown;
    }
    stack[top++] = right; stack[top++] = mid; stack[top++] = e;
    stack[top++] = left; stack[top++] = b; stack[top++] = mid;
  }
  return next - nodeBase;
}
