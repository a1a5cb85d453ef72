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
//
// Centroids are kept doubled (min + max, no halving). One pass over a range bins its
// references on all three axes at once; the partition pass computes both children's boxes
// and centroid boxes as it goes, so no node ever rescans its references for bounds.

/** Bins per axis on large ranges (where a split decides most); fewer below, where the sweep would dominate. */
export const MAX_BINS = 32;

/**
 * Triangle slots that n triangles occupy in leaves tested `block` triangles at a time (the
 * kernels' leaf blocks: a block costs one SIMD test however full it is). The SAH charges a
 * leaf, and each side of a candidate split, per slot rather than per triangle, as Embree's
 * builders do for SIMD leaves, so the build prefers full blocks. With block 1 it is the
 * classic per-triangle SAH. The one leaf cost of the binned build, the spatial splits and
 * sahCost.
 * @param {number} n @param {number} block
 */
export function blockSlots(n, block) {
  return Math.ceil(n / block) * block;
}

/** @param {number} k */
function binsFor(k) {
  return k > 1024 ? 32 : k > 64 ? 16 : 8;
}

/**
 * @typedef {{
 *   refBounds: Float32Array, order: Uint32Array,
 *   nodeBounds: Float32Array, nodeA: Int32Array, nodeB: Int32Array, nodeCount: Int32Array,
 *   maxLeafSize: number, leafBlock: number, traversalCost: number, intersectionCost: number,
 * }} BuildArrays
 */

/** Scratch of one builder thread. */
export function makeScratch() {
  return {
    binBounds: new Float64Array(3 * MAX_BINS * 6),
    binCount: new Int32Array(3 * MAX_BINS),
    rightArea: new Float64Array(MAX_BINS),
    /** findSplit's result: axis (-1: none), bin, cost (Σ half-area·blockSlots(count) of both sides), centroid min, scale. */
    split: new Float64Array(5),
    /** partition's result: the left child's box and centroid box, then the right child's (12 + 12). */
    childBounds: new Float64Array(24),
  };
}

/** @typedef {ReturnType<typeof makeScratch>} Scratch */

/**
 * Box and doubled-centroid box of order[start, end) into out[o, o + 12).
 * @param {BuildArrays} a @param {number} start @param {number} end @param {Float64Array} out @param {number} o
 */
export function rangeBounds(a, start, end, out, o) {
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
  out[o] = x0; out[o + 1] = y0; out[o + 2] = z0; out[o + 3] = x1; out[o + 4] = y1; out[o + 5] = z1;
  out[o + 6] = cx0; out[o + 7] = cy0; out[o + 8] = cz0; out[o + 9] = cx1; out[o + 10] = cy1; out[o + 11] = cz1;
}

/**
 * Counts a reference with box (ax, ay, az)–(bx, by, bz) in bin b and grows the bin's box.
 * @param {Float64Array} bb @param {Int32Array} bc @param {number} b
 * @param {number} ax @param {number} ay @param {number} az @param {number} bx @param {number} by @param {number} bz
 */
function addToBin(bb, bc, b, ax, ay, az, bx, by, bz) {
  bc[b]++;
  const q = 6 * b;
  if (ax < bb[q]) bb[q] = ax;
  if (ay < bb[q + 1]) bb[q + 1] = ay;
  if (az < bb[q + 2]) bb[q + 2] = az;
  if (bx > bb[q + 3]) bb[q + 3] = bx;
  if (by > bb[q + 4]) bb[q + 4] = by;
  if (bz > bb[q + 5]) bb[q + 5] = bz;
}

/**
 * The best binned SAH split of order[start, end) (centroid box at cb[o + 6, o + 12)) along
 * any axis, into s.split: axis (-1 when every centroid is the same point), bin (references
 * in bins < bin go left), cost, and the bin mapping.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {Float64Array} cb @param {number} o @param {Scratch} s
 */
export function findSplit(a, start, end, cb, o, s) {
  const bins = binsFor(end - start);
  const rb = a.refBounds, order = a.order, bb = s.binBounds, bc = s.binCount, right = s.rightArea, split = s.split;
  const block = a.leafBlock;
  const lx = cb[o + 6], ly = cb[o + 7], lz = cb[o + 8];
  const ex = cb[o + 9] - lx, ey = cb[o + 10] - ly, ez = cb[o + 11] - lz;
  const f = bins * (1 - 1e-6);
  // An axis without extent bins everything into bin 0 and never offers a split.
  const sx = ex > 0 ? f / ex : 0, sy = ey > 0 ? f / ey : 0, sz = ez > 0 ? f / ez : 0;
  // Only the bins in use: at the bottom of the tree, clearing all would cost more than the binning.
  for (let axis = 0; axis < 3; axis++) {
    for (let b = axis * MAX_BINS; b < axis * MAX_BINS + bins; b++) {
      bc[b] = 0;
      const q = 6 * b;
      bb[q] = Infinity; bb[q + 1] = Infinity; bb[q + 2] = Infinity;
      bb[q + 3] = -Infinity; bb[q + 4] = -Infinity; bb[q + 5] = -Infinity;
    }
  }
  for (let i = start; i < end; i++) {
    const r = 6 * order[i];
    const ax = rb[r], ay = rb[r + 1], az = rb[r + 2], bx = rb[r + 3], by = rb[r + 4], bz = rb[r + 5];
    let b = ((ax + bx - lx) * sx) | 0;
    addToBin(bb, bc, b >= bins ? bins - 1 : b, ax, ay, az, bx, by, bz);
    b = ((ay + by - ly) * sy) | 0;
    addToBin(bb, bc, MAX_BINS + (b >= bins ? bins - 1 : b), ax, ay, az, bx, by, bz);
    b = ((az + bz - lz) * sz) | 0;
    addToBin(bb, bc, 2 * MAX_BINS + (b >= bins ? bins - 1 : b), ax, ay, az, bx, by, bz);
  }
  const total = end - start;
  let bestAxis = -1, bestBin = 0, bestCost = Infinity;
  for (let axis = 0; axis < 3; axis++) {
    if (!((axis === 0 ? ex : axis === 1 ? ey : ez) > 0)) continue;
    const base = axis * MAX_BINS;
    // Right to left: half-area of bins [b, bins) times their count in block slots.
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity, n = 0;
    for (let b = bins - 1; b > 0; b--) {
      const q = 6 * (base + b);
      n += bc[base + b];
      if (bb[q] < x0) x0 = bb[q];
      if (bb[q + 1] < y0) y0 = bb[q + 1];
      if (bb[q + 2] < z0) z0 = bb[q + 2];
      if (bb[q + 3] > x1) x1 = bb[q + 3];
      if (bb[q + 4] > y1) y1 = bb[q + 4];
      if (bb[q + 5] > z1) z1 = bb[q + 5];
      const dx = x1 - x0, dy = y1 - y0, dz = z1 - z0;
      right[b] = n === 0 ? 0 : (dx * dy + dy * dz + dz * dx) * blockSlots(n, block);
    }
    x0 = Infinity; y0 = Infinity; z0 = Infinity; x1 = -Infinity; y1 = -Infinity; z1 = -Infinity; n = 0;
    for (let b = 1; b < bins; b++) {
      const q = 6 * (base + b - 1);
      n += bc[base + b - 1];
      if (bb[q] < x0) x0 = bb[q];
      if (bb[q + 1] < y0) y0 = bb[q + 1];
      if (bb[q + 2] < z0) z0 = bb[q + 2];
      if (bb[q + 3] > x1) x1 = bb[q + 3];
      if (bb[q + 4] > y1) y1 = bb[q + 4];
      if (bb[q + 5] > z1) z1 = bb[q + 5];
      if (n === 0 || n === total) continue;
      const dx = x1 - x0, dy = y1 - y0, dz = z1 - z0;
      const cost = (dx * dy + dy * dz + dz * dx) * blockSlots(n, block) + right[b];
      if (cost < bestCost) {
        bestCost = cost;
        bestAxis = axis;
        bestBin = b;
      }
    }
  }
  split[0] = bestAxis;
  split[1] = bestBin;
  split[2] = bestCost;
  split[3] = bestAxis === 0 ? lx : bestAxis === 1 ? ly : lz;
  split[4] = bestAxis === 0 ? sx : bestAxis === 1 ? sy : sz;
}

/**
 * Moves the references of order[start, end) that go left under s.split (or, with
 * mid ≥ 0, the first mid - start references as they are) to the front; returns the first
 * index of the right side and leaves both children's boxes and centroid boxes in
 * s.childBounds (left 0…11, right 12…23). Each reference is classified once and grows its
 * side's boxes there, so no second pass computes them.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {Scratch} s @param {number} mid
 */
export function partition(a, start, end, s, mid) {
  if (mid >= 0) {
    rangeBounds(a, start, mid, s.childBounds, 0);
    rangeBounds(a, mid, end, s.childBounds, 12);
    return mid;
  }
  const rb = a.refBounds, order = a.order, split = s.split, cb = s.childBounds;
  const axis = split[0], bin = split[1], lo = split[3], scale = split[4];
  for (let q = 0; q < 24; q += 6) {
    cb[q] = Infinity; cb[q + 1] = Infinity; cb[q + 2] = Infinity;
    cb[q + 3] = -Infinity; cb[q + 4] = -Infinity; cb[q + 5] = -Infinity;
  }
  let i = start, j = end - 1;
  for (;;) {
    while (i <= j) {
      const r = 6 * order[i];
      if ((((rb[r + axis] + rb[r + axis + 3] - lo) * scale) | 0) >= bin) break;
      grow(cb, 0, rb, r);
      i++;
    }
    while (i <= j) {
      const r = 6 * order[j];
      if ((((rb[r + axis] + rb[r + axis + 3] - lo) * scale) | 0) < bin) break;
      grow(cb, 12, rb, r);
      j--;
    }
    if (i >= j) return i;
    // order[i] goes right, order[j] left.
    const t = order[i];
    grow(cb, 12, rb, 6 * t);
    grow(cb, 0, rb, 6 * order[j]);
    order[i] = order[j];
    order[j] = t;
    i++;
    j--;
  }
}

/**
 * Grows the box and doubled-centroid box at out[o, o + 12) by reference box rb[r, r + 6).
 * @param {Float64Array} out @param {number} o @param {Float32Array} rb @param {number} r
 */
function grow(out, o, rb, r) {
  const ax = rb[r], ay = rb[r + 1], az = rb[r + 2], bx = rb[r + 3], by = rb[r + 4], bz = rb[r + 5];
  if (ax < out[o]) out[o] = ax;
  if (ay < out[o + 1]) out[o + 1] = ay;
  if (az < out[o + 2]) out[o + 2] = az;
  if (bx > out[o + 3]) out[o + 3] = bx;
  if (by > out[o + 4]) out[o + 4] = by;
  if (bz > out[o + 5]) out[o + 5] = bz;
  const cx = ax + bx, cy = ay + by, cz = az + bz;
  if (cx < out[o + 6]) out[o + 6] = cx;
  if (cy < out[o + 7]) out[o + 7] = cy;
  if (cz < out[o + 8]) out[o + 8] = cz;
  if (cx > out[o + 9]) out[o + 9] = cx;
  if (cy > out[o + 10]) out[o + 10] = cy;
  if (cz > out[o + 11]) out[o + 11] = cz;
}

const LEAF = -2, SAH = -1;

/**
 * Builds the subtree of order[start, end) whose box and centroid box are bounds[0, 12),
 * with nodes from nodeBase up (the subtree's root is nodeBase); returns the number of
 * nodes it used. Leaves never exceed maxLeafSize; below it a leaf is made when its SAH
 * cost (intersectionCost per block slot) is no higher than the best split's.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {number} nodeBase @param {Float64Array} bounds @param {Scratch} s
 */
export function buildSubtree(a, start, end, nodeBase, bounds, s) {
  // Explicit stack of (node, start, end) and the range's 12 bounds: depth can reach
  // thousands on degenerate input.
  let stack = new Int32Array(3 * 64);
  let boxes = new Float64Array(12 * 64);
  let top = 0, next = nodeBase + 1;
  stack[0] = nodeBase; stack[1] = start; stack[2] = end;
  boxes.set(bounds.subarray(0, 12), 0);
  top = 1;
  const nb = a.nodeBounds, cb = s.childBounds, split = s.split;
  const ct = a.traversalCost, ci = a.intersectionCost, maxLeaf = a.maxLeafSize, block = a.leafBlock;
  while (top > 0) {
    top--;
    const node = stack[3 * top], b = stack[3 * top + 1], e = stack[3 * top + 2];
    const o = 12 * top;
    for (let k = 0; k < 6; k++) nb[6 * node + k] = boxes[o + k];
    const k = e - b;
    // LEAF, or where the right child starts: SAH (partition by the split found), or a given index.
    let mid = LEAF;
    if (k > 1) {
      findSplit(a, b, e, boxes, o, s);
      if (split[0] < 0) {
        // Every centroid is the same point: no plane separates them; halve by position.
        if (k > maxLeaf) mid = b + (k >> 1);
      } else if (k > maxLeaf) mid = SAH;
      else {
        const dx = boxes[o + 3] - boxes[o], dy = boxes[o + 4] - boxes[o + 1], dz = boxes[o + 5] - boxes[o + 2];
        const area = dx * dy + dy * dz + dz * dx;
        if (area > 0 && ct + (ci * split[2]) / area < ci * blockSlots(k, block)) mid = SAH;
      }
    }
    if (mid === LEAF) {
      a.nodeA[node] = b;
      a.nodeB[node] = 0;
      a.nodeCount[node] = k;
      continue;
    }
    mid = partition(a, b, e, s, mid);
    const left = next, right = next + 1;
    next += 2;
    a.nodeA[node] = left;
    a.nodeB[node] = right;
    a.nodeCount[node] = 0;
    if (top + 2 > stack.length / 3) {
      const grown = new Int32Array(stack.length * 2);
      grown.set(stack);
      stack = grown;
      const grownBoxes = new Float64Array(boxes.length * 2);
      grownBoxes.set(boxes);
      boxes = grownBoxes;
    }
    // Right below left, so the left subtree is built first.
    stack[3 * top] = right; stack[3 * top + 1] = mid; stack[3 * top + 2] = e;
    for (let q = 0; q < 12; q++) boxes[12 * top + q] = cb[12 + q];
    top++;
    stack[3 * top] = left; stack[3 * top + 1] = b; stack[3 * top + 2] = mid;
    for (let q = 0; q < 12; q++) boxes[12 * top + q] = cb[q];
    top++;
  }
  return next - nodeBase;
}
