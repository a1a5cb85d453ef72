// Spatial splits for the BVH builder (SBVH: Stich, Friedrich and Dietrich, "Spatial Splits
// in Bounding Volume Hierarchies", HPG 2009). At each node the best binned object split
// (bvh-kernel.mjs) competes with the best spatial split: planes through the node's box that
// cut the triangles straddling them into two references, each bounded by the part of the
// triangle on its side (the triangle clipped to the slab, not just its box cut in two),
// and a straddler stays whole on one side when that is cheaper (the paper's reference
// unsplitting). As in the paper, spatial splits are only tried where the object split's
// children overlap by more than α = 1e-5 of the root's area, and references are capped at
// 1.3× the triangles (nodes are built breadth first, so the budget is spent from the top
// down; beyond it, straddlers stay whole), so the tree stays small.
//
// Single-threaded: each node owns its list of references, so the plain build's fixed
// ranges do not apply. The result is the same binary form the plain build produces.
import { blockSlots, type BuildArrays, findSplit, makeScratch, rangeBounds } from './bvh-kernel.mjs';
import type { BinaryTree, SahConstants } from './bvh.ts';
import type { Mesh } from './mesh.ts';

const SPATIAL_BINS = 16;
const ALPHA = 1e-5;
const MAX_DUPLICATION = 1.3;

/** Growable per-reference data: box and triangle. */
class References {
  bounds: Float32Array;
  prim: Uint32Array;
  count = 0;
  constructor(capacity: number) {
    this.bounds = new Float32Array(6 * capacity);
    this.prim = new Uint32Array(capacity);
  }
  add(prim: number, box: ArrayLike<number>): number {
    if (this.count === this.prim.length) {
      const b = new Float32Array(this.bounds.length * 2);
      b.set(this.bounds);
      this.bounds = b;
      const p = new Uint32Array(this.prim.length * 2);
      p.set(this.prim);
      this.prim = p;
    }
    for (let k = 0; k < 6; k++) this.bounds[6 * this.count + k] = box[k]!;
    this.prim[this.count] = prim;
    return this.count++;
  }
}

const bits = new DataView(new ArrayBuffer(4));

/** The largest float32 ≤ x. */
function floatBelow(x: number): number {
  const f = Math.fround(x);
  if (f <= x || !Number.isFinite(f)) return f;
  bits.setFloat32(0, f);
  const i = bits.getInt32(0);
  bits.setInt32(0, f > 0 ? i - 1 : f < 0 ? i + 1 : 0x80000001);
  return bits.getFloat32(0);
}

/** The smallest float32 ≥ x. */
function floatAbove(x: number): number {
  return -floatBelow(-x);
}

/**
 * Box of triangle `prim` clipped to lo ≤ x[axis] ≤ hi and to the reference box
 * clip[o, o + 6), rounded outwards to float32 (so the stored box loses no sliver of the
 * triangle), into out; out[axis] > out[axis + 3] when nothing of the triangle is in the slab.
 */
function clippedBox(mesh: Mesh, prim: number, axis: number, lo: number, hi: number, clip: Float32Array, o: number, out: Float64Array): void {
  const p = mesh.positions, t = mesh.triangles;
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let e = 0; e < 3; e++) {
    const a = 3 * t[3 * prim + e]!, b = 3 * t[3 * prim + (e === 2 ? 0 : e + 1)]!;
    const ax = p[a]!, ay = p[a + 1]!, az = p[a + 2]!, bx = p[b]!, by = p[b + 1]!, bz = p[b + 2]!;
    const av = axis === 0 ? ax : axis === 1 ? ay : az, bv = axis === 0 ? bx : axis === 1 ? by : bz;
    for (let c = 0; c < 3; c++) {
      // c = 0: the vertex a if inside; c = 1, 2: where the edge crosses lo, hi.
      let x: number, y: number, z: number;
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
  if (out[axis]! < lo) out[axis] = lo;
  if (out[axis + 3]! > hi) out[axis + 3] = hi;
  for (let k = 0; k < 3; k++) {
    out[k] = Math.max(floatBelow(out[k]!), clip[o + k]!);
    out[k + 3] = Math.min(floatAbove(out[k + 3]!), clip[o + k + 3]!);
  }
}

/** Scratch of binStraddler: the triangle's vertices sorted along the axis, and per-bin boxes. */
const sortedTri = new Float64Array(9);
const parts = new Float64Array(6 * SPATIAL_BINS);

function swapVertices(i: number, j: number): void {
  for (let k = 0; k < 3; k++) {
    const tmp = sortedTri[3 * i + k]!;
    sortedTri[3 * i + k] = sortedTri[3 * j + k]!;
    sortedTri[3 * j + k] = tmp;
  }
}

/**
 * Grows the spatial bins first…last (width `width` from `lo` on `axis`) by the part of
 * triangle `prim` in each, within the reference box rb[o, o + 6). The triangle's cut by a
 * bin plane is a segment found once and shared by the bins on both sides (the vertices
 * sorted along the axis say which edges it joins), so a triangle over m bins costs m - 1
 * segments, not m clippings.
 */
function binStraddler(
  mesh: Mesh, prim: number, axis: number, lo: number, width: number, first: number, last: number,
  rb: Float32Array, o: number, binBounds: Float64Array,
): void {
  const p = mesh.positions, t = mesh.triangles;
  for (let v = 0; v < 3; v++) {
    const src = 3 * t[3 * prim + v]!;
    sortedTri[3 * v] = p[src]!;
    sortedTri[3 * v + 1] = p[src + 1]!;
    sortedTri[3 * v + 2] = p[src + 2]!;
  }
  // Sort the three vertices by their coordinate on the axis (v0 ≤ v1 ≤ v2).
  if (sortedTri[axis]! > sortedTri[3 + axis]!) swapVertices(0, 1);
  if (sortedTri[3 + axis]! > sortedTri[6 + axis]!) swapVertices(1, 2);
  if (sortedTri[axis]! > sortedTri[3 + axis]!) swapVertices(0, 1);
  for (let b = first; b <= last; b++) resetBox(parts, 6 * b);
  for (let v = 0; v < 3; v++) {
    let b = Math.floor((sortedTri[3 * v + axis]! - lo) / width);
    if (b < first) b = first;
    if (b > last) b = last;
    growBox(parts, 6 * b, sortedTri, 3 * v, true);
  }
  const a0 = sortedTri[axis]!, a1 = sortedTri[3 + axis]!, a2 = sortedTri[6 + axis]!;
  for (let q = first + 1; q <= last; q++) {
    const plane = lo + q * width;
    if (!(plane > a0 && plane < a2)) continue;
    // One end on the long edge v0–v2, the other on v0–v1 or v1–v2.
    const f = (plane - a0) / (a2 - a0);
    const from = plane < a1 ? 0 : 1, to = plane < a1 ? 1 : 2;
    const g = (plane - sortedTri[3 * from + axis]!) / (sortedTri[3 * to + axis]! - sortedTri[3 * from + axis]!);
    for (let k = 0; k < 3; k++) {
      const x = k === axis ? plane : sortedTri[k]! + f * (sortedTri[6 + k]! - sortedTri[k]!);
      const y = k === axis ? plane : sortedTri[3 * from + k]! + g * (sortedTri[3 * to + k]! - sortedTri[3 * from + k]!);
      const lower = x < y ? x : y, upper = x < y ? y : x;
      const below = 6 * (q - 1) + k, above = 6 * q + k;
      if (lower < parts[below]!) parts[below] = lower;
      if (upper > parts[below + 3]!) parts[below + 3] = upper;
      if (lower < parts[above]!) parts[above] = lower;
      if (upper > parts[above + 3]!) parts[above + 3] = upper;
    }
  }
  for (let b = first; b <= last; b++) {
    const q = 6 * b;
    let empty = false;
    for (let k = 0; k < 3; k++) {
      let min = parts[q + k]!, max = parts[q + 3 + k]!;
      if (rb[o + k]! > min) min = rb[o + k]!;
      if (rb[o + 3 + k]! < max) max = rb[o + 3 + k]!;
      if (k === axis) {
        const slabLo = lo + b * width, slabHi = slabLo + width;
        if (slabLo > min) min = slabLo;
        if (slabHi < max) max = slabHi;
      }
      parts[q + k] = min;
      parts[q + 3 + k] = max;
      if (min > max) empty = true;
    }
    if (!empty) growBox(binBounds, q, parts, q, false);
  }
}

function halfArea(b: ArrayLike<number>, o = 0): number {
  const dx = b[o + 3]! - b[o]!, dy = b[o + 4]! - b[o + 1]!, dz = b[o + 5]! - b[o + 2]!;
  return dx >= 0 && dy >= 0 && dz >= 0 ? dx * dy + dy * dz + dz * dx : 0;
}

/** Half-area of the union of boxes a[ao, ao + 6) and b[bo, bo + 6). */
function unionHalfArea(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  const dx = Math.max(a[ao + 3]!, b[bo + 3]!) - Math.min(a[ao]!, b[bo]!);
  const dy = Math.max(a[ao + 4]!, b[bo + 4]!) - Math.min(a[ao + 1]!, b[bo + 1]!);
  const dz = Math.max(a[ao + 5]!, b[bo + 5]!) - Math.min(a[ao + 2]!, b[bo + 2]!);
  return dx * dy + dy * dz + dz * dx;
}

function resetBox(b: Float64Array, o = 0): void {
  b[o] = Infinity; b[o + 1] = Infinity; b[o + 2] = Infinity;
  b[o + 3] = -Infinity; b[o + 4] = -Infinity; b[o + 5] = -Infinity;
}

/** Grows box b[o, o + 6) by the box c[co, co + 6), or with `point` by the point c[co, co + 3). */
function growBox(b: Float64Array, o: number, c: ArrayLike<number>, co: number, point = false): void {
  const hi = point ? co : co + 3;
  if (c[co]! < b[o]!) b[o] = c[co]!;
  if (c[co + 1]! < b[o + 1]!) b[o + 1] = c[co + 1]!;
  if (c[co + 2]! < b[o + 2]!) b[o + 2] = c[co + 2]!;
  if (c[hi]! > b[o + 3]!) b[o + 3] = c[hi]!;
  if (c[hi + 1]! > b[o + 4]!) b[o + 4] = c[hi + 1]!;
  if (c[hi + 2]! > b[o + 5]!) b[o + 5] = c[hi + 2]!;
}

/** The object-split bin of reference id. */
function objectSide(rb: Float32Array, id: number, axis: number, lo: number, scale: number): number {
  return ((rb[6 * id + axis]! + rb[6 * id + axis + 3]! - lo) * scale) | 0;
}

/** The spatial bin of coordinate x. */
function spatialBin(x: number, lo: number, width: number): number {
  const b = Math.floor((x - lo) / width);
  return b < 0 ? 0 : b >= SPATIAL_BINS ? SPATIAL_BINS - 1 : b;
}

/** Growable list of reference ids (one per child being filled). */
class IdList {
  data = new Uint32Array(64);
  length = 0;
  push(id: number): void {
    if (this.length === this.data.length) {
      const g = new Uint32Array(this.data.length * 2);
      g.set(this.data);
      this.data = g;
    }
    this.data[this.length++] = id;
  }
  take(): Uint32Array {
    const r = this.data.slice(0, this.length);
    this.length = 0;
    return r;
  }
}

interface Job {
  node: number;
  refs: Uint32Array;
}

/** A binary SBVH over the mesh in the form bvh.ts collapses. */
export function buildSpatialBinary(mesh: Mesh, maxLeafSize: number, leafBlock: number, sah: SahConstants): BinaryTree {
  const n = mesh.triangleCount;
  const budget = Math.floor(n * MAX_DUPLICATION);
  /** A side's references in the kernels' leaf blocks: the SAH's count (bvh-kernel.mjs). */
  const slots = (count: number) => blockSlots(count, leafBlock);
  const refs = new References(budget + 1);
  const box = new Float64Array(6);
  const p = mesh.positions, tri = mesh.triangles;
  for (let t = 0; t < n; t++) {
    for (let k = 0; k < 3; k++) {
      const a = p[3 * tri[3 * t]! + k]!, b = p[3 * tri[3 * t + 1]! + k]!, c = p[3 * tri[3 * t + 2]! + k]!;
      box[k] = Math.min(a, b, c);
      box[k + 3] = Math.max(a, b, c);
    }
    refs.add(t, box);
  }
  // At most 2 nodes per reference.
  let cap = 2 * budget + 2;
  let nodeBounds = new Float32Array(6 * cap), nodeA = new Int32Array(cap), nodeB = new Int32Array(cap), nodeCount = new Int32Array(cap);
  const order = new IdList();
  const scratch = makeScratch();
  const bounds = new Float64Array(12);
  const arraysFor = (ids: Uint32Array): BuildArrays => ({
    refBounds: refs.bounds, order: ids, nodeBounds, nodeA, nodeB, nodeCount, maxLeafSize, leafBlock, ...sah,
  });
  const all = Uint32Array.from({ length: n }, (_, i) => i);
  rangeBounds(arraysFor(all), 0, n, bounds, 0);
  const rootArea = halfArea(bounds);
  // Breadth first: the 1.3× budget goes to the top of the tree, where a split matters most,
  // and what the top leaves over to the levels below (sharing it among subtrees in
  // proportion to their size, as Embree does, left Crytek Sponza's SBVH 10% worse).
  const queue: (Job | undefined)[] = [{ node: 0, refs: all }];
  let nodes = 1;
  const clip = new Float64Array(6), rightPart = new Float64Array(6);
  const sides = new Float64Array(12);
  const binBounds = new Float64Array(6 * SPATIAL_BINS), rightBoxes = new Float64Array(6 * SPATIAL_BINS);
  const enter = new Int32Array(SPATIAL_BINS), exit = new Int32Array(SPATIAL_BINS), rightCost = new Float64Array(SPATIAL_BINS);
  const spatialChildren = new Float64Array(12);
  const left = new IdList(), right = new IdList();
  let head = 0;
  while (head < queue.length) {
    const { node, refs: ids } = queue[head]!;
    queue[head++] = undefined; // its references are no longer needed
    let extra = budget - refs.count;
    const k = ids.length;
    const a = arraysFor(ids);
    rangeBounds(a, 0, k, bounds, 0);
    for (let q = 0; q < 6; q++) nodeBounds[6 * node + q] = bounds[q]!;
    const area = halfArea(bounds);
    const rb = refs.bounds;

    // The object split, and how much its children overlap.
    let objectCost = Infinity;
    let objAxis = -1, objBin = 0, objLo = 0, objScale = 0;
    if (k > 1) {
      findSplit(a, 0, k, bounds, 0, scratch);
      objAxis = scratch.split[0]!;
      objBin = scratch.split[1]!;
      objLo = scratch.split[3]!;
      objScale = scratch.split[4]!;
      if (objAxis >= 0) objectCost = scratch.split[2]!;
    }
    let overlap = 0;
    if (objAxis >= 0) {
      resetBox(sides, 0);
      resetBox(sides, 6);
      for (let i = 0; i < k; i++) growBox(sides, objectSide(rb, ids[i]!, objAxis, objLo, objScale) < objBin ? 0 : 6, rb, 6 * ids[i]!);
      for (let q = 0; q < 3; q++) {
        clip[q] = Math.max(sides[q]!, sides[6 + q]!);
        clip[q + 3] = Math.min(sides[q + 3]!, sides[6 + q + 3]!);
      }
      overlap = halfArea(clip);
    }

    // The best spatial split: bins over the node's box on each axis, references entering and leaving them.
    let spatialCost = Infinity, spAxis = -1, spBin = 0, spLo = 0, spWidth = 0;
    if (k > 1 && extra > 0 && (objAxis < 0 || overlap > ALPHA * rootArea)) {
      for (let axis = 0; axis < 3; axis++) {
        const lo = bounds[axis]!, extent = bounds[axis + 3]! - lo;
        if (!(extent > 0)) continue;
        const width = extent / SPATIAL_BINS;
        for (let b = 0; b < SPATIAL_BINS; b++) resetBox(binBounds, 6 * b);
        enter.fill(0);
        exit.fill(0);
        for (let i = 0; i < k; i++) {
          const id = ids[i]!, o = 6 * id;
          const first = spatialBin(rb[o + axis]!, lo, width);
          const last = Math.max(first, spatialBin(rb[o + axis + 3]!, lo, width));
          enter[first]!++;
          exit[last]!++;
          if (first === last) growBox(binBounds, 6 * first, rb, o);
          else binStraddler(mesh, refs.prim[id]!, axis, lo, width, first, last, rb, o, binBounds);
        }
        resetBox(box);
        let count = 0;
        for (let b = SPATIAL_BINS - 1; b > 0; b--) {
          count += exit[b]!;
          growBox(box, 0, binBounds, 6 * b);
          rightBoxes.set(box, 6 * b);
          rightCost[b] = count === 0 ? -1 : halfArea(box) * slots(count);
        }
        resetBox(box);
        count = 0;
        for (let b = 1; b < SPATIAL_BINS; b++) {
          count += enter[b - 1]!;
          growBox(box, 0, binBounds, 6 * (b - 1));
          if (count === 0 || rightCost[b]! < 0) continue;
          const cost = halfArea(box) * slots(count) + rightCost[b]!;
          if (cost < spatialCost) {
            spatialCost = cost;
            spAxis = axis;
            spBin = b;
            spLo = lo;
            spWidth = width;
            spatialChildren.set(box, 0);
            spatialChildren.set(rightBoxes.subarray(6 * b, 6 * b + 6), 6);
          }
        }
      }
    }

    // Leaf, or which split.
    const best = Math.min(objectCost, spatialCost);
    const leafBetter = k <= maxLeafSize && (k === 1 || !Number.isFinite(best) || !(area > 0 && sah.traversalCost + (sah.intersectionCost * best) / area < sah.intersectionCost * slots(k)));
    if (leafBetter) {
      nodeA[node] = order.length;
      nodeCount[node] = k;
      for (let i = 0; i < k; i++) order.push(ids[i]!);
      continue;
    }
    if (!Number.isFinite(best)) {
      // Every reference has the same centroid and no plane cuts them apart: halve by position.
      for (let i = 0; i < k; i++) (i < k >> 1 ? left : right).push(ids[i]!);
    } else if (objectCost <= spatialCost) {
      for (let i = 0; i < k; i++) (objectSide(rb, ids[i]!, objAxis, objLo, objScale) < objBin ? left : right).push(ids[i]!);
    } else {
      const plane = spLo + spBin * spWidth;
      // The bins' counts are the last axis tried: count the chosen axis's sides afresh.
      let nl = 0, nr = 0;
      for (let i = 0; i < k; i++) {
        const o = 6 * ids[i]!;
        const first = spatialBin(rb[o + spAxis]!, spLo, spWidth), last = Math.max(first, spatialBin(rb[o + spAxis + 3]!, spLo, spWidth));
        if (first < spBin) nl++;
        if (last >= spBin) nr++;
      }
      const aL = halfArea(spatialChildren, 0), aR = halfArea(spatialChildren, 6);
      for (let i = 0; i < k; i++) {
        const id = ids[i]!, o = 6 * id;
        const first = spatialBin(rb[o + spAxis]!, spLo, spWidth), last = Math.max(first, spatialBin(rb[o + spAxis + 3]!, spLo, spWidth));
        if (last < spBin) {
          left.push(id);
          continue;
        }
        if (first >= spBin) {
          right.push(id);
          continue;
        }
        // A straddler: split it, or keep it whole on the cheaper side (unsplitting).
        const splitCost = aL * slots(nl) + aR * slots(nr);
        const toLeft = unionHalfArea(spatialChildren, 0, rb, o) * slots(nl) + aR * slots(nr - 1);
        const toRight = aL * slots(nl - 1) + unionHalfArea(spatialChildren, 6, rb, o) * slots(nr);
        if (extra > 0 && splitCost <= toLeft && splitCost <= toRight) {
          clippedBox(mesh, refs.prim[id]!, spAxis, plane, Infinity, rb, o, rightPart);
          clippedBox(mesh, refs.prim[id]!, spAxis, -Infinity, plane, rb, o, clip);
          const keepLeft = clip[spAxis]! <= clip[spAxis + 3]!, keepRight = rightPart[spAxis]! <= rightPart[spAxis + 3]!;
          if (keepLeft && keepRight) {
            for (let q = 0; q < 6; q++) refs.bounds[o + q] = clip[q]!;
            left.push(id);
            right.push(refs.add(refs.prim[id]!, rightPart));
            extra--;
            continue;
          }
          (keepLeft ? left : right).push(id);
        } else if (toLeft <= toRight) {
          left.push(id);
          nr--;
        } else {
          right.push(id);
          nl--;
        }
      }
    }
    if (left.length === 0 || right.length === 0) {
      // Rounding put every reference on one side: halve by position instead.
      const both = left.length > 0 ? left.take() : right.take();
      for (let i = 0; i < both.length; i++) (i < both.length >> 1 ? left : right).push(both[i]!);
    }
    if (nodes + 2 > cap) {
      cap *= 2;
      const grow = <T extends Float32Array | Int32Array>(arr: T, size: number): T => {
        const g = new (arr.constructor as new (n: number) => T)(size);
        g.set(arr);
        return g;
      };
      nodeBounds = grow(nodeBounds, 6 * cap);
      nodeA = grow(nodeA, cap);
      nodeB = grow(nodeB, cap);
      nodeCount = grow(nodeCount, cap);
    }
    const l = nodes++, r = nodes++;
    nodeA[node] = l;
    nodeB[node] = r;
    nodeCount[node] = 0;
    queue.push({ node: l, refs: left.take() }, { node: r, refs: right.take() });
  }
  const arrays: BuildArrays = {
    refBounds: refs.bounds, order: order.take(), nodeBounds, nodeA, nodeB, nodeCount, maxLeafSize, leafBlock, ...sah,
  };
  return { arrays, root: 0, refPrim: refs.prim.slice(0, refs.count) };
}
