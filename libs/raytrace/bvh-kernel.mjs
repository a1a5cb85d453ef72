// @ts-check
// The top-down build of a binary BVH on typed arrays: binned SAH object splits and, where
// the arrays carry the mesh and room for more references, spatial splits (SBVH: Stich,
// Friedrich and Dietrich, "Spatial Splits in Bounding Volume Hierarchies", HPG 2009).
// Plain JavaScript so the same code runs on the main thread and in the builder's worker
// threads (bvh-worker.mjs), which load it without a TypeScript loader. bvh.ts drives it;
// bvh-kernel.d.mts gives its types to TypeScript.
//
// Storage (all arrays may live in SharedArrayBuffers, so workers fill disjoint parts):
// - references in slots: refBounds (6 floats: minx miny minz maxx maxy maxz, the box of the
//   triangle or of the part of it a spatial split kept) and refPrim (its triangle). A build
//   reorders the slots of its range in place (records, not indices: the passes read memory
//   in order, and a duplicate made by a spatial split needs no id);
// - a range is slots [start, end) followed by free slots [end, extEnd) for the duplicates
//   its spatial splits make (Embree's "extended range"). A split hands the free slots to its
//   children in proportion to their references, moving the right child's slots up to make
//   room, so subtrees never share a slot and can be built by different threads;
// - nodes: nodeBounds (6 floats), nodeA, nodeB, nodeCount (Int32) per node. An inner node
//   has nodeCount 0 and children nodeA, nodeB; a leaf has nodeCount ≥ 1 references in
//   slots [nodeA, nodeA + nodeCount). A subtree over slots [start, extEnd) (k slots) uses
//   at most 2k - 1 nodes, from nodeBase up.
//
// Centroids are kept doubled (min + max, no halving). One pass over a range bins its
// references on all three axes at once; the partition pass computes both children's boxes
// and centroid boxes as it goes, so no object split ever rescans its references for bounds.
//
// Spatial splits are looked for only where the best object split's children overlap by at
// least 1e-5 of the root's area (Stich et al.'s α) and, in nodes of more than 64 references,
// by at least 20% of the node's own area (Embree's threshold): elsewhere an object split
// cannot lose much to them, and the search costs most of the build's time. 16 spatial
// bins along the node's longest axis compete with the object split; a triangle crossing bin
// planes is cut once per plane (a segment shared by the bins on both sides), and the chosen
// split clips each straddling triangle (boxes rounded outwards to float32) or keeps it whole
// on the cheaper side (the paper's reference unsplitting). A range without free slots makes
// object splits only, at the plain build's speed.

/** Bins per axis on large ranges (where a split decides most); fewer below, where the sweep would dominate. */
export const MAX_BINS = 32;
const SPATIAL_BINS = 16;
/** Overlap of the object split's children, relative to the root's area, below which no spatial split is tried. */
const ALPHA = 1e-5;
/** ... and relative to the node's area (Embree's SPATIAL_ASPLIT_OVERLAP_THRESHOLD), above SMALL_NODE references. */
const NODE_OVERLAP = 0.2;
/** Up to this many references the spatial search is cheap and tried wherever α allows (the bunny's BVH8: SAH 25.53 → 25.15). */
const SMALL_NODE = 64;

/**
 * Triangle slots that n triangles occupy in leaves tested `block` triangles at a time (the
 * kernels' leaf blocks: a block costs one SIMD test however full it is). The SAH charges a
 * leaf, and each side of a candidate split, per slot rather than per triangle, as Embree's
 * builders do for SIMD leaves, so the build prefers full blocks. With block 1 it is the
 * classic per-triangle SAH. The one leaf cost of the object and spatial splits and sahCost.
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
 *   refBounds: Float32Array, refPrim: Uint32Array,
 *   nodeBounds: Float32Array, nodeA: Int32Array, nodeB: Int32Array, nodeCount: Int32Array,
 *   maxLeafSize: number, leafBlock: number, traversalCost: number, intersectionCost: number,
 *   positions: Float32Array | null, triangles: Uint32Array | null, rootArea: number,
 * }} BuildArrays
 */

/** Scratch of one builder thread. */
export function makeScratch() {
  return {
    binBounds: new Float64Array(3 * MAX_BINS * 6),
    binCount: new Int32Array(3 * MAX_BINS),
    rightArea: new Float64Array(MAX_BINS),
    /** findSplit's result: axis (-1: none), bin, cost (Σ half-area·blockSlots(count) of both sides), centroid min, scale, bins. */
    split: new Float64Array(6),
    /** partition's result: the left child's box and centroid box, then the right child's (12 + 12). */
    childBounds: new Float64Array(24),
    /** splitNode's result: the left child's start, end, extEnd, then the right child's. */
    ranges: new Int32Array(6),
    /** The spatial split: axis, bin, lower bound, bin width; its children's boxes. */
    spatial: new Float64Array(4),
    spatialChildren: new Float64Array(12),
    spatialBounds: new Float64Array(6 * SPATIAL_BINS),
    rightBoxes: new Float64Array(6 * SPATIAL_BINS),
    rightCost: new Float64Array(SPATIAL_BINS),
    enter: new Int32Array(SPATIAL_BINS),
    exit: new Int32Array(SPATIAL_BINS),
    box: new Float64Array(6),
    /** A straddling triangle's clipped halves. */
    clipLeft: new Float64Array(6),
    clipRight: new Float64Array(6),
    /** Side (0 left, 1 right) of each slot of a spatial split's range; grown on demand. */
    side: new Uint8Array(1024),
  };
}

/** @typedef {ReturnType<typeof makeScratch>} Scratch */

/**
 * Box and doubled-centroid box of slots [start, end) into out[o, o + 12).
 * @param {BuildArrays} a @param {number} start @param {number} end @param {Float64Array} out @param {number} o
 */
export function rangeBounds(a, start, end, out, o) {
  const rb = a.refBounds;
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  let cx0 = Infinity, cy0 = Infinity, cz0 = Infinity, cx1 = -Infinity, cy1 = -Infinity, cz1 = -Infinity;
  for (let r = 6 * start, stop = 6 * end; r < stop; r += 6) {
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
 * Half the surface area of box b[o, o + 6) (0 for an empty box).
 * @param {ArrayLike<number>} b @param {number} o
 */
export function halfArea(b, o) {
  const dx = b[o + 3] - b[o], dy = b[o + 4] - b[o + 1], dz = b[o + 5] - b[o + 2];
  return dx >= 0 && dy >= 0 && dz >= 0 ? dx * dy + dy * dz + dz * dx : 0;
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
 * The best binned SAH object split of slots [start, end) (centroid box at cb[o + 6, o + 12))
 * along any axis, into s.split: axis (-1 when every centroid is the same point), bin
 * (references in bins < bin go left), cost, and the bin mapping.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {Float64Array} cb @param {number} o @param {Scratch} s
 */
export function findSplit(a, start, end, cb, o, s) {
  const bins = binsFor(end - start);
  const rb = a.refBounds, bb = s.binBounds, bc = s.binCount, right = s.rightArea, split = s.split;
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
  for (let r = 6 * start, stop = 6 * end; r < stop; r += 6) {
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
  split[5] = bins;
}

/**
 * Half-area of the overlap of the children of the object split findSplit found, from its bins.
 * @param {Scratch} s
 */
function objectOverlap(s) {
  const bb = s.binBounds, split = s.split;
  const base = split[0] * MAX_BINS, bin = split[1], bins = split[5], box = s.box;
  box[0] = -Infinity; box[1] = -Infinity; box[2] = -Infinity; box[3] = Infinity; box[4] = Infinity; box[5] = Infinity;
  for (let side = 0; side < 2; side++) {
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let b = side === 0 ? 0 : bin, stop = side === 0 ? bin : bins; b < stop; b++) {
      const q = 6 * (base + b);
      if (bb[q] < x0) x0 = bb[q];
      if (bb[q + 1] < y0) y0 = bb[q + 1];
      if (bb[q + 2] < z0) z0 = bb[q + 2];
      if (bb[q + 3] > x1) x1 = bb[q + 3];
      if (bb[q + 4] > y1) y1 = bb[q + 4];
      if (bb[q + 5] > z1) z1 = bb[q + 5];
    }
    if (x0 > box[0]) box[0] = x0;
    if (y0 > box[1]) box[1] = y0;
    if (z0 > box[2]) box[2] = z0;
    if (x1 < box[3]) box[3] = x1;
    if (y1 < box[4]) box[4] = y1;
    if (z1 < box[5]) box[5] = z1;
  }
  return halfArea(box, 0);
}

/**
 * Swaps the references in slots i and j.
 * @param {Float32Array} rb @param {Uint32Array} rp @param {number} i @param {number} j
 */
function swap(rb, rp, i, j) {
  const p = rp[i];
  rp[i] = rp[j];
  rp[j] = p;
  const x = 6 * i, y = 6 * j;
  for (let k = 0; k < 6; k++) {
    const t = rb[x + k];
    rb[x + k] = rb[y + k];
    rb[y + k] = t;
  }
}

/**
 * Moves the references of slots [start, end) that go left under s.split (or, with
 * mid ≥ 0, the first mid - start references as they are) to the front; returns the first
 * slot of the right side and leaves both children's boxes and centroid boxes in
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
  const rb = a.refBounds, rp = a.refPrim, split = s.split, cb = s.childBounds;
  const axis = split[0], bin = split[1], lo = split[3], scale = split[4];
  for (let q = 0; q < 24; q += 6) {
    cb[q] = Infinity; cb[q + 1] = Infinity; cb[q + 2] = Infinity;
    cb[q + 3] = -Infinity; cb[q + 4] = -Infinity; cb[q + 5] = -Infinity;
  }
  let i = start, j = end - 1;
  for (;;) {
    while (i <= j) {
      const r = 6 * i;
      if ((((rb[r + axis] + rb[r + axis + 3] - lo) * scale) | 0) >= bin) break;
      grow(cb, 0, rb, r);
      i++;
    }
    while (i <= j) {
      const r = 6 * j;
      if ((((rb[r + axis] + rb[r + axis + 3] - lo) * scale) | 0) < bin) break;
      grow(cb, 12, rb, r);
      j--;
    }
    if (i >= j) return i;
    // Slot i goes right, slot j left.
    grow(cb, 12, rb, 6 * i);
    grow(cb, 0, rb, 6 * j);
    swap(rb, rp, i, j);
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

/**
 * Splits the range slots [start, end) with free slots up to extEnd, whose box and centroid
 * box are boxes[o, o + 12), or decides it is a leaf (returns false). A split leaves the
 * children's ranges in s.ranges and their boxes in s.childBounds. Leaves never exceed
 * maxLeafSize; below it a leaf is made when its SAH cost (intersectionCost per block slot)
 * is no higher than the best split's.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {number} extEnd
 * @param {Float64Array} boxes @param {number} o @param {Scratch} s
 */
export function splitNode(a, start, end, extEnd, boxes, o, s) {
  const k = end - start;
  if (k <= 1) return false;
  const maxLeaf = a.maxLeafSize, split = s.split;
  findSplit(a, start, end, boxes, o, s);
  const area = halfArea(boxes, o);
  const objectCost = split[0] >= 0 ? split[2] : Infinity;
  let spatialCost = Infinity;
  if (extEnd > end && a.positions !== null) {
    const overlap = split[0] >= 0 ? objectOverlap(s) : Infinity;
    if (overlap > ALPHA * a.rootArea && (k <= SMALL_NODE || overlap >= NODE_OVERLAP * area)) spatialCost = findSpatialSplit(a, start, end, boxes, o, s);
  }
  const best = objectCost < spatialCost ? objectCost : spatialCost;
  if (k <= maxLeaf) {
    if (!(best < Infinity)) return false; // every centroid in one point and no plane between: a leaf
    const ci = a.intersectionCost;
    if (!(area > 0 && a.traversalCost + (ci * best) / area < ci * blockSlots(k, a.leafBlock))) return false;
  }
  let mid, used = end;
  if (!(best < Infinity)) mid = partition(a, start, end, s, start + (k >> 1)); // halve by position
  else if (objectCost <= spatialCost) mid = partition(a, start, end, s, -1);
  else {
    used = spatialPartition(a, start, end, extEnd, s);
    mid = s.ranges[0];
  }
  // The free slots left go to the children in proportion to the surface area of their
  // references: large triangles are the ones later spatial splits cut (shared in proportion
  // to the number of references, as Embree does, the children of Crytek Sponza's busy top
  // levels ran out while others left theirs unused: SAH 51.3 against 47.2).
  const free = extEnd - used;
  let leftFree = 0;
  if (free > 0) {
    const rb = a.refBounds;
    let wl = 0, wr = 0;
    for (let i = start; i < mid; i++) wl += halfArea(rb, 6 * i);
    for (let i = mid; i < used; i++) wr += halfArea(rb, 6 * i);
    leftFree = wl + wr > 0 ? Math.floor((free * wl) / (wl + wr)) : Math.floor((free * (mid - start)) / (used - start));
  }
  if (leftFree > 0) {
    a.refBounds.copyWithin(6 * (mid + leftFree), 6 * mid, 6 * used);
    a.refPrim.copyWithin(mid + leftFree, mid, used);
  }
  const r = s.ranges;
  r[0] = start; r[1] = mid; r[2] = mid + leftFree;
  r[3] = mid + leftFree; r[4] = used + leftFree; r[5] = extEnd;
  return true;
}

const LEAF = -1;

/**
 * Builds the subtree of slots [start, end) (free slots up to extEnd) whose box and
 * centroid box are bounds[0, 12), with nodes from nodeBase up (the subtree's root is
 * nodeBase); returns the number of nodes it used.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {number} extEnd
 * @param {number} nodeBase @param {Float64Array} bounds @param {Scratch} s
 */
export function buildSubtree(a, start, end, extEnd, nodeBase, bounds, s) {
  // Explicit stack of (node, start, end, extEnd) and the range's 12 bounds: depth can reach
  // thousands on degenerate input.
  let stack = new Int32Array(4 * 64);
  let boxes = new Float64Array(12 * 64);
  let top = 0, next = nodeBase + 1;
  stack[0] = nodeBase; stack[1] = start; stack[2] = end; stack[3] = extEnd;
  boxes.set(bounds.subarray(0, 12), 0);
  top = 1;
  const nb = a.nodeBounds, cb = s.childBounds, ranges = s.ranges;
  while (top > 0) {
    top--;
    const node = stack[4 * top], b = stack[4 * top + 1], e = stack[4 * top + 2], x = stack[4 * top + 3];
    const o = 12 * top;
    for (let k = 0; k < 6; k++) nb[6 * node + k] = boxes[o + k];
    if (!splitNode(a, b, e, x, boxes, o, s)) {
      a.nodeA[node] = b;
      a.nodeB[node] = LEAF;
      a.nodeCount[node] = e - b;
      continue;
    }
    const left = next, right = next + 1;
    next += 2;
    a.nodeA[node] = left;
    a.nodeB[node] = right;
    a.nodeCount[node] = 0;
    if (top + 2 > stack.length / 4) {
      const grown = new Int32Array(stack.length * 2);
      grown.set(stack);
      stack = grown;
      const grownBoxes = new Float64Array(boxes.length * 2);
      grownBoxes.set(boxes);
      boxes = grownBoxes;
    }
    // Right below left, so the left subtree is built first.
    for (let side = 1; side >= 0; side--) {
      stack[4 * top] = side === 0 ? left : right;
      stack[4 * top + 1] = ranges[3 * side];
      stack[4 * top + 2] = ranges[3 * side + 1];
      stack[4 * top + 3] = ranges[3 * side + 2];
      for (let q = 0; q < 12; q++) boxes[12 * top + q] = cb[12 * side + q];
      top++;
    }
  }
  return next - nodeBase;
}

// ---- Spatial splits ----

const bits = new DataView(new ArrayBuffer(4));

/**
 * The largest float32 ≤ x.
 * @param {number} x
 */
function floatBelow(x) {
  const f = Math.fround(x);
  if (f <= x || !Number.isFinite(f)) return f;
  bits.setFloat32(0, f);
  const i = bits.getInt32(0);
  bits.setInt32(0, f > 0 ? i - 1 : f < 0 ? i + 1 : 0x80000001);
  return bits.getFloat32(0);
}

/**
 * The smallest float32 ≥ x.
 * @param {number} x
 */
function floatAbove(x) {
  return -floatBelow(-x);
}

/**
 * The spatial bin of coordinate x.
 * @param {number} x @param {number} lo @param {number} width
 */
function spatialBin(x, lo, width) {
  const b = Math.floor((x - lo) / width);
  return b < 0 ? 0 : b >= SPATIAL_BINS ? SPATIAL_BINS - 1 : b;
}

/**
 * @param {Float64Array} b @param {number} o
 */
function resetBox(b, o) {
  b[o] = Infinity; b[o + 1] = Infinity; b[o + 2] = Infinity;
  b[o + 3] = -Infinity; b[o + 4] = -Infinity; b[o + 5] = -Infinity;
}

/**
 * Grows box b[o, o + 6) by the box c[co, co + 6).
 * @param {Float64Array} b @param {number} o @param {ArrayLike<number>} c @param {number} co
 */
function growBox(b, o, c, co) {
  if (c[co] < b[o]) b[o] = c[co];
  if (c[co + 1] < b[o + 1]) b[o + 1] = c[co + 1];
  if (c[co + 2] < b[o + 2]) b[o + 2] = c[co + 2];
  if (c[co + 3] > b[o + 3]) b[o + 3] = c[co + 3];
  if (c[co + 4] > b[o + 4]) b[o + 4] = c[co + 4];
  if (c[co + 5] > b[o + 5]) b[o + 5] = c[co + 5];
}

/**
 * Half-area of the union of boxes a[ao, ao + 6) and b[bo, bo + 6).
 * @param {ArrayLike<number>} a @param {number} ao @param {ArrayLike<number>} b @param {number} bo
 */
function unionHalfArea(a, ao, b, bo) {
  const dx = Math.max(a[ao + 3], b[bo + 3]) - Math.min(a[ao], b[bo]);
  const dy = Math.max(a[ao + 4], b[bo + 4]) - Math.min(a[ao + 1], b[bo + 1]);
  const dz = Math.max(a[ao + 5], b[bo + 5]) - Math.min(a[ao + 2], b[bo + 2]);
  return dx * dy + dy * dz + dz * dx;
}

/**
 * Grows the spatial bins first…last (width `width` from `lo` on `axis`) by the part of the
 * triangle of slot `slot` in each, within the reference's box. Walking the bins in order,
 * the triangle's cut by each bin plane is a segment found once and shared by the bins on
 * both sides (the vertices sorted along the axis say which edges it joins), so a triangle
 * over m bins costs m - 1 segments, not m clippings. Coordinates are (u: the axis, v, w).
 * @param {BuildArrays} a @param {number} slot @param {number} axis @param {number} lo @param {number} width
 * @param {number} first @param {number} last @param {Float64Array} bins
 */
function binStraddler(a, slot, axis, lo, width, first, last, bins) {
  const p = /** @type {Float32Array} */ (a.positions), t = /** @type {Uint32Array} */ (a.triangles);
  const rb = a.refBounds, o = 6 * slot, prim = a.refPrim[slot];
  const va = axis === 0 ? 1 : 0, wa = axis === 2 ? 1 : 2;
  const i0 = 3 * t[3 * prim], i1 = 3 * t[3 * prim + 1], i2 = 3 * t[3 * prim + 2];
  let u0 = p[i0 + axis], v0 = p[i0 + va], w0 = p[i0 + wa];
  let u1 = p[i1 + axis], v1 = p[i1 + va], w1 = p[i1 + wa];
  let u2 = p[i2 + axis], v2 = p[i2 + va], w2 = p[i2 + wa];
  let tmp;
  // Sort the vertices along the axis: u0 ≤ u1 ≤ u2.
  if (u0 > u1) { tmp = u0; u0 = u1; u1 = tmp; tmp = v0; v0 = v1; v1 = tmp; tmp = w0; w0 = w1; w1 = tmp; }
  if (u1 > u2) { tmp = u1; u1 = u2; u2 = tmp; tmp = v1; v1 = v2; v2 = tmp; tmp = w1; w1 = w2; w2 = tmp; }
  if (u0 > u1) { tmp = u0; u0 = u1; u1 = tmp; tmp = v0; v0 = v1; v1 = tmp; tmp = w0; w0 = w1; w1 = tmp; }
  const ru0 = rb[o + axis], ru1 = rb[o + axis + 3], rv0 = rb[o + va], rv1 = rb[o + va + 3], rw0 = rb[o + wa], rw1 = rb[o + wa + 3];
  // The part in the current bin: (u, v, w) box; starts with the segment on its lower plane.
  let bu0 = Infinity, bu1 = -Infinity, bv0 = Infinity, bv1 = -Infinity, bw0 = Infinity, bw1 = -Infinity;
  let next = 0; // the next vertex (in u order) not yet in a bin
  for (let b = first; b <= last; b++) {
    const below = lo + b * width, above = below + width;
    for (; next < 3; next++) {
      const u = next === 0 ? u0 : next === 1 ? u1 : u2;
      if (b < last && !(u < above)) break;
      const v = next === 0 ? v0 : next === 1 ? v1 : v2, w = next === 0 ? w0 : next === 1 ? w1 : w2;
      if (u < bu0) bu0 = u;
      if (u > bu1) bu1 = u;
      if (v < bv0) bv0 = v;
      if (v > bv1) bv1 = v;
      if (w < bw0) bw0 = w;
      if (w > bw1) bw1 = w;
    }
    // The cut by the upper plane: one end on the long edge 0–2, the other on 0–1 or 1–2.
    let cv0 = Infinity, cv1 = -Infinity, cw0 = Infinity, cw1 = -Infinity, cut = false;
    if (b < last && above > u0 && above < u2) {
      cut = true;
      const f = (above - u0) / (u2 - u0);
      const xv = v0 + f * (v2 - v0), xw = w0 + f * (w2 - w0);
      let yv, yw;
      if (above < u1) {
        const g = (above - u0) / (u1 - u0);
        yv = v0 + g * (v1 - v0); yw = w0 + g * (w1 - w0);
      } else {
        const g = (above - u1) / (u2 - u1);
        yv = v1 + g * (v2 - v1); yw = w1 + g * (w2 - w1);
      }
      cv0 = xv < yv ? xv : yv; cv1 = xv < yv ? yv : xv;
      cw0 = xw < yw ? xw : yw; cw1 = xw < yw ? yw : xw;
      if (above < bu0) bu0 = above;
      if (above > bu1) bu1 = above;
      if (cv0 < bv0) bv0 = cv0;
      if (cv1 > bv1) bv1 = cv1;
      if (cw0 < bw0) bw0 = cw0;
      if (cw1 > bw1) bw1 = cw1;
    }
    // Within the reference's box and the bin's slab.
    const lu = Math.max(bu0, ru0, below), hu = Math.min(bu1, ru1, above);
    const lv = bv0 > rv0 ? bv0 : rv0, hv = bv1 < rv1 ? bv1 : rv1;
    const lw = bw0 > rw0 ? bw0 : rw0, hw = bw1 < rw1 ? bw1 : rw1;
    if (lu <= hu && lv <= hv && lw <= hw) {
      const q = 6 * b;
      if (lu < bins[q + axis]) bins[q + axis] = lu;
      if (hu > bins[q + axis + 3]) bins[q + axis + 3] = hu;
      if (lv < bins[q + va]) bins[q + va] = lv;
      if (hv > bins[q + va + 3]) bins[q + va + 3] = hv;
      if (lw < bins[q + wa]) bins[q + wa] = lw;
      if (hw > bins[q + wa + 3]) bins[q + wa + 3] = hw;
    }
    // The next bin starts with the cut.
    if (cut) {
      bu0 = above; bu1 = above; bv0 = cv0; bv1 = cv1; bw0 = cw0; bw1 = cw1;
    } else {
      bu0 = Infinity; bu1 = -Infinity; bv0 = Infinity; bv1 = -Infinity; bw0 = Infinity; bw1 = -Infinity;
    }
  }
}

/**
 * The best spatial split of slots [start, end) (box at boxes[o, o + 6)) on the box's longest axis: its cost (as
 * findSplit's), with axis, bin and mapping in s.spatial and the children's boxes in
 * s.spatialChildren; Infinity when none.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {Float64Array} boxes @param {number} o @param {Scratch} s
 */
function findSpatialSplit(a, start, end, boxes, o, s) {
  const rb = a.refBounds, block = a.leafBlock;
  const binBounds = s.spatialBounds, rightBoxes = s.rightBoxes, rightCost = s.rightCost, enter = s.enter, exit = s.exit, box = s.box;
  // The node's longest axis only: on the benchmark scenes the trees are as good (Crytek
  // Sponza's BVH4 0.7% worse, Conference's 0.7% better) and the spatial binning, most of the
  // build's time, takes a third.
  const ex = boxes[o + 3] - boxes[o], ey = boxes[o + 4] - boxes[o + 1], ez = boxes[o + 5] - boxes[o + 2];
  const axis = ex >= ey && ex >= ez ? 0 : ey >= ez ? 1 : 2;
  const lo = boxes[o + axis], extent = boxes[o + axis + 3] - lo;
  if (!(extent > 0)) return Infinity;
  const width = extent / SPATIAL_BINS;
  for (let b = 0; b < SPATIAL_BINS; b++) resetBox(binBounds, 6 * b);
  enter.fill(0);
  exit.fill(0);
  for (let i = start; i < end; i++) {
    const r = 6 * i;
    const first = spatialBin(rb[r + axis], lo, width);
    let last = spatialBin(rb[r + axis + 3], lo, width);
    if (last < first) last = first;
    enter[first]++;
    exit[last]++;
    if (first === last) growBox(binBounds, 6 * first, rb, r);
    else binStraddler(a, i, axis, lo, width, first, last, binBounds);
  }
  resetBox(box, 0);
  let count = 0;
  for (let b = SPATIAL_BINS - 1; b > 0; b--) {
    count += exit[b];
    growBox(box, 0, binBounds, 6 * b);
    rightBoxes.set(box, 6 * b);
    rightCost[b] = count === 0 ? -1 : halfArea(box, 0) * blockSlots(count, block);
  }
  resetBox(box, 0);
  count = 0;
  let best = Infinity;
  for (let b = 1; b < SPATIAL_BINS; b++) {
    count += enter[b - 1];
    growBox(box, 0, binBounds, 6 * (b - 1));
    if (count === 0 || rightCost[b] < 0) continue;
    const cost = halfArea(box, 0) * blockSlots(count, block) + rightCost[b];
    if (cost < best) {
      best = cost;
      s.spatial[0] = axis;
      s.spatial[1] = b;
      s.spatial[2] = lo;
      s.spatial[3] = width;
      s.spatialChildren.set(box, 0);
      s.spatialChildren.set(rightBoxes.subarray(6 * b, 6 * b + 6), 6);
    }
  }
  return best;
}

/**
 * Box of the triangle of slot `slot` clipped to lo ≤ x[axis] ≤ hi and to the reference's
 * box, rounded outwards to float32 (so the stored box loses no sliver of the triangle),
 * into out; out[axis] > out[axis + 3] when nothing of the triangle is in the slab.
 * @param {BuildArrays} a @param {number} slot @param {number} axis @param {number} lo @param {number} hi @param {Float64Array} out
 */
function clippedBox(a, slot, axis, lo, hi, out) {
  const p = /** @type {Float32Array} */ (a.positions), t = /** @type {Uint32Array} */ (a.triangles);
  const prim = a.refPrim[slot], clip = a.refBounds, o = 6 * slot;
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let e = 0; e < 3; e++) {
    const va = 3 * t[3 * prim + e], vb = 3 * t[3 * prim + (e === 2 ? 0 : e + 1)];
    const ax = p[va], ay = p[va + 1], az = p[va + 2], bx = p[vb], by = p[vb + 1], bz = p[vb + 2];
    const av = axis === 0 ? ax : axis === 1 ? ay : az, bv = axis === 0 ? bx : axis === 1 ? by : bz;
    for (let c = 0; c < 3; c++) {
      // c = 0: the vertex a if inside; c = 1, 2: where the edge crosses lo, hi.
      let x, y, z;
      if (c === 0) {
        if (!(av >= lo && av <= hi)) continue;
        x = ax; y = ay; z = az;
      } else {
        const plane = c === 1 ? lo : hi;
        if (!((av < plane && bv > plane) || (av > plane && bv < plane))) continue;
        const f = (plane - av) / (bv - av);
        x = ax + f * (bx - ax); y = ay + f * (by - ay); z = az + f * (bz - az);
      }
      if (x < x0) x0 = x;
      if (y < y0) y0 = y;
      if (z < z0) z0 = z;
      if (x > x1) x1 = x;
      if (y > y1) y1 = y;
      if (z > z1) z1 = z;
    }
  }
  out[0] = x0; out[1] = y0; out[2] = z0; out[3] = x1; out[4] = y1; out[5] = z1;
  // A crossing lies on its plane exactly, whatever rounding made of it.
  if (out[axis] < lo) out[axis] = lo;
  if (out[axis + 3] > hi) out[axis + 3] = hi;
  for (let k = 0; k < 3; k++) {
    out[k] = Math.max(floatBelow(out[k]), clip[o + k]);
    out[k + 3] = Math.min(floatAbove(out[k + 3]), clip[o + k + 3]);
  }
}

/**
 * Performs the spatial split findSpatialSplit found on slots [start, end): references on
 * one side stay whole; a straddler is clipped into a left part (in its slot) and a right
 * part (in the next free slot, while there is one), or kept whole on the side where it
 * costs less. Then the slots are partitioned, left first. Returns the end of the used
 * slots; s.ranges[0] is the first right slot and s.childBounds has both children's boxes.
 * @param {BuildArrays} a @param {number} start @param {number} end @param {number} extEnd @param {Scratch} s
 */
function spatialPartition(a, start, end, extEnd, s) {
  const rb = a.refBounds, rp = a.refPrim, block = a.leafBlock;
  const axis = s.spatial[0], bin = s.spatial[1], lo = s.spatial[2], width = s.spatial[3];
  const plane = lo + bin * width, children = s.spatialChildren;
  if (s.side.length < extEnd - start) s.side = new Uint8Array(2 * (extEnd - start));
  const side = s.side;
  let nl = 0, nr = 0;
  for (let r = 6 * start, stop = 6 * end; r < stop; r += 6) {
    const first = spatialBin(rb[r + axis], lo, width), last = Math.max(first, spatialBin(rb[r + axis + 3], lo, width));
    if (first < bin) nl++;
    if (last >= bin) nr++;
  }
  const aL = halfArea(children, 0), aR = halfArea(children, 6);
  const clipLeft = s.clipLeft, clipRight = s.clipRight;
  let used = end;
  for (let i = start; i < end; i++) {
    const r = 6 * i;
    const first = spatialBin(rb[r + axis], lo, width), last = Math.max(first, spatialBin(rb[r + axis + 3], lo, width));
    if (last < bin) {
      side[i - start] = 0;
      continue;
    }
    if (first >= bin) {
      side[i - start] = 1;
      continue;
    }
    // A straddler: split it, or keep it whole on the cheaper side (unsplitting).
    const splitCost = aL * blockSlots(nl, block) + aR * blockSlots(nr, block);
    const toLeft = unionHalfArea(children, 0, rb, r) * blockSlots(nl, block) + aR * blockSlots(nr - 1, block);
    const toRight = aL * blockSlots(nl - 1, block) + unionHalfArea(children, 6, rb, r) * blockSlots(nr, block);
    if (used < extEnd && splitCost <= toLeft && splitCost <= toRight) {
      clippedBox(a, i, axis, plane, Infinity, clipRight);
      clippedBox(a, i, axis, -Infinity, plane, clipLeft);
      const keepLeft = clipLeft[axis] <= clipLeft[axis + 3], keepRight = clipRight[axis] <= clipRight[axis + 3];
      if (keepLeft && keepRight) {
        for (let q = 0; q < 6; q++) rb[r + q] = clipLeft[q];
        side[i - start] = 0;
        for (let q = 0; q < 6; q++) rb[6 * used + q] = clipRight[q];
        rp[used] = rp[i];
        side[used - start] = 1;
        used++;
        continue;
      }
      side[i - start] = keepLeft ? 0 : 1;
    } else if (toLeft <= toRight) {
      side[i - start] = 0;
      nr--;
    } else {
      side[i - start] = 1;
      nl--;
    }
  }
  // Left slots to the front.
  let i = start, j = used - 1;
  for (;;) {
    while (i <= j && side[i - start] === 0) i++;
    while (i <= j && side[j - start] === 1) j--;
    if (i >= j) break;
    swap(rb, rp, i, j);
    side[i - start] = 0;
    side[j - start] = 1;
    i++;
    j--;
  }
  // Rounding may put every reference on one side: halve by position instead.
  const mid = i === start || i === used ? start + ((used - start) >> 1) : i;
  rangeBounds(a, start, mid, s.childBounds, 0);
  rangeBounds(a, mid, used, s.childBounds, 12);
  s.ranges[0] = mid;
  return used;
}
