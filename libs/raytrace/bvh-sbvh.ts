// Spatial splits for the BVH builder (SBVH, Stich, Friedrich and Dietrich, "Spatial Splits
// in Bounding Volume Hierarchies", HPG 2009). At each node the best binned object split
// (bvh-kernel.mjs) competes with the best spatial split: planes through the node's box
// that cut the triangles straddling them into two references, each bounded by the part of
// the triangle on its side (the triangle clipped to the slab, not just its box cut in two).
// Spatial splits are only tried where the object split's children overlap by more than
// α = 1e-5 of the root's area, and only while the references stay under 1.3× the
// triangles, as the paper does, so the tree stays small.
//
// Single-threaded: each node owns its reference list, so the parallel build's fixed ranges
// do not apply. The result is the same binary tree form as the plain build's.
import { type BuildArrays, findSplit, makeScratch, rangeBounds } from './bvh-kernel.mjs';
import type { BinaryTree, SahConstants } from './bvh.ts';
import type { Mesh } from './mesh.ts';

const SPATIAL_BINS = 32;
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
  add(prim: number, box: ArrayLike<number>, o = 0): number {
    if (this.count === this.prim.length) {
      const b = new Float32Array(this.bounds.length * 2);
      b.set(this.bounds);
      this.bounds = b;
      const p = new Uint32Array(this.prim.length * 2);
      p.set(this.prim);
      this.prim = p;
    }
    for (let k = 0; k < 6; k++) this.bounds[6 * this.count + k] = box[o + k]!;
    this.prim[this.count] = prim;
    return this.count++;
  }
}

/** Box of triangle `prim` clipped to lo ≤ x[axis] ≤ hi, intersected with `clip` (6 floats at `o`); into out. */
function clippedBox(mesh: Mesh, prim: number, axis: number, lo: number, hi: number, clip: ArrayLike<number>, o: number, out: Float64Array): void {
  const p = mesh.positions, t = mesh.triangles;
  out.fill(Infinity, 0, 3);
  out.fill(-Infinity, 3, 6);
  const grow = (x: number, y: number, z: number) => {
    if (x < out[0]!) out[0] = x;
    if (y < out[1]!) out[1] = y;
    if (z < out[2]!) out[2] = z;
    if (x > out[3]!) out[3] = x;
    if (y > out[4]!) out[4] = y;
    if (z > out[5]!) out[5] = z;
  };
  for (let e = 0; e < 3; e++) {
    const a = 3 * t[3 * prim + e]!, b = 3 * t[3 * prim + ((e + 1) % 3)]!;
    const av = p[a + axis]!, bv = p[b + axis]!;
    if (av >= lo && av <= hi) grow(p[a]!, p[a + 1]!, p[a + 2]!);
    // Where the edge crosses either plane.
    for (const plane of [lo, hi]) {
      if ((av < plane && bv > plane) || (av > plane && bv < plane)) {
        const f = (plane - av) / (bv - av);
        grow(p[a]! + f * (p[b]! - p[a]!), p[a + 1]! + f * (p[b + 1]! - p[a + 1]!), p[a + 2]! + f * (p[b + 2]! - p[a + 2]!));
        out[axis] = Math.min(Math.max(out[axis]!, lo), hi); // the crossing is on the plane exactly
      }
    }
  }
  // Rounded outwards to float32, so the stored box never loses a sliver of the triangle.
  for (let k = 0; k < 3; k++) {
    out[k] = Math.max(floatBelow(Math.max(out[k]!, k === axis ? lo : -Infinity)), clip[o + k]!);
    out[k + 3] = Math.min(floatAbove(Math.min(out[k + 3]!, k === axis ? hi : Infinity)), clip[o + k + 3]!);
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

function halfArea(b: ArrayLike<number>, o = 0): number {
  const dx = b[o + 3]! - b[o]!, dy = b[o + 4]! - b[o + 1]!, dz = b[o + 5]! - b[o + 2]!;
  return dx >= 0 && dy >= 0 && dz >= 0 ? dx * dy + dy * dz + dz * dx : 0;
}

interface Job {
  node: number;
  refs: Uint32Array;
}

/** A binary SBVH over the mesh in the form bvh.ts collapses. */
export function buildSpatialBinary(mesh: Mesh, maxLeafSize: number, sah: SahConstants): BinaryTree {
  const n = mesh.triangleCount;
  const refs = new References(Math.ceil(n * MAX_DUPLICATION) + 16);
  const box = new Float32Array(6);
  for (let t = 0; t < n; t++) {
    const p = mesh.positions, tri = mesh.triangles;
    for (let k = 0; k < 3; k++) {
      const a = p[3 * tri[3 * t]! + k]!, b = p[3 * tri[3 * t + 1]! + k]!, c = p[3 * tri[3 * t + 2]! + k]!;
      box[k] = Math.min(a, b, c);
      box[k + 3] = Math.max(a, b, c);
    }
    refs.add(t, box);
  }
  const budget = Math.floor(n * MAX_DUPLICATION);
  // Nodes grow as needed: 2 per reference bounds them, references included.
  let cap = 2 * budget + 2;
  let nodeBounds = new Float32Array(6 * cap), nodeA = new Int32Array(cap), nodeB = new Int32Array(cap), nodeCount = new Int32Array(cap);
  const order: number[] = [];
  const scratch = makeScratch();
  const bounds = new Float64Array(12);
  const arraysFor = (ids: Uint32Array): BuildArrays => ({
    refBounds: refs.bounds, order: ids, nodeBounds, nodeA, nodeB, nodeCount, maxLeafSize, ...sah,
  });
  const all = new Uint32Array(n);
  for (let i = 0; i < n; i++) all[i] = i;
  rangeBounds(arraysFor(all), 0, n, bounds, 0);
  const rootArea = halfArea(bounds);
  const stack: Job[] = [{ node: 0, refs: all }];
  let nodes = 1;
  const clip = new Float64Array(6);
  const binBounds = new Float64Array(6 * SPATIAL_BINS), enter = new Int32Array(SPATIAL_BINS), exit = new Int32Array(SPATIAL_BINS);
  const rightArea = new Float64Array(SPATIAL_BINS);
  while (stack.length > 0) {
    const { node, refs: ids } = stack.pop()!;
    const k = ids.length;
    const a = arraysFor(ids);
    rangeBounds(a, 0, k, bounds, 0);
    for (let q = 0; q < 6; q++) nodeBounds[6 * node + q] = bounds[q]!;
    const area = halfArea(bounds);
    const makeLeaf = () => {
      nodeA[node] = order.length;
      nodeCount[node] = k;
      for (const id of ids) order.push(id);
    };
    if (k === 1) {
      makeLeaf();
      continue;
    }
    // Object split, and the overlap of its children.
    findSplit(a, 0, k, bounds, 0, scratch);
    let objectCost = scratch.split[0]! >= 0 ? scratch.split[2]! : Infinity;
    const objAxis = scratch.split[0]!, objBin = scratch.split[1]!, objLo = scratch.split[3]!, objScale = scratch.split[4]!;
    const goesLeft = (id: number) => (((refs.bounds[6 * id + objAxis]! + refs.bounds[6 * id + objAxis + 3]! - objLo) * objScale) | 0) < objBin;
    let overlap = 0;
    if (objAxis >= 0) {
      const l = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity], r = [...l];
      for (const id of ids) {
        const side = goesLeft(id) ? l : r;
        for (let q = 0; q < 3; q++) {
          side[q] = Math.min(side[q]!, refs.bounds[6 * id + q]!);
          side[q + 3] = Math.max(side[q + 3]!, refs.bounds[6 * id + q + 3]!);
        }
      }
      const o = [0, 1, 2].map((q) => Math.max(l[q]!, r[q]!)).concat([0, 1, 2].map((q) => Math.min(l[q + 3]!, r[q + 3]!)));
      overlap = halfArea(o);
    }
    // Spatial split: bins over the node's box on each axis, references entering/leaving.
    let spatialCost = Infinity, spAxis = -1, spPlane = 0;
    if ((objAxis < 0 || overlap > ALPHA * rootArea) && refs.count < budget) {
      for (let axis = 0; axis < 3; axis++) {
        const lo = bounds[axis]!, extent = bounds[axis + 3]! - lo;
        if (!(extent > 0)) continue;
        const width = extent / SPATIAL_BINS;
        binBounds.fill(Infinity);
        for (let b = 0; b < SPATIAL_BINS; b++) binBounds.fill(-Infinity, 6 * b + 3, 6 * b + 6);
        enter.fill(0);
        exit.fill(0);
        for (const id of ids) {
          const rb = refs.bounds;
          const first = Math.min(SPATIAL_BINS - 1, Math.max(0, Math.floor((rb[6 * id + axis]! - lo) / width)));
          const last = Math.min(SPATIAL_BINS - 1, Math.max(first, Math.floor((rb[6 * id + axis + 3]! - lo) / width)));
          enter[first]!++;
          exit[last]!++;
          for (let b = first; b <= last; b++) {
            if (first === last) for (let q = 0; q < 6; q++) clip[q] = rb[6 * id + q]!;
            else clippedBox(mesh, refs.prim[id]!, axis, lo + b * width, b === SPATIAL_BINS - 1 ? bounds[axis + 3]! : lo + (b + 1) * width, rb, 6 * id, clip);
            if (!(clip[axis]! <= clip[axis + 3]!)) continue;
            for (let q = 0; q < 3; q++) {
              binBounds[6 * b + q] = Math.min(binBounds[6 * b + q]!, clip[q]!);
              binBounds[6 * b + q + 3] = Math.max(binBounds[6 * b + q + 3]!, clip[q + 3]!);
            }
          }
        }
        const acc = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
        let count = 0;
        for (let b = SPATIAL_BINS - 1; b > 0; b--) {
          count += exit[b]!;
          for (let q = 0; q < 3; q++) {
            acc[q] = Math.min(acc[q]!, binBounds[6 * b + q]!);
            acc[q + 3] = Math.max(acc[q + 3]!, binBounds[6 * b + q + 3]!);
          }
          rightArea[b] = count === 0 ? 0 : halfArea(acc) * count;
        }
        acc.splice(0, 6, Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity);
        count = 0;
        for (let b = 1; b < SPATIAL_BINS; b++) {
          count += enter[b - 1]!;
          for (let q = 0; q < 3; q++) {
            acc[q] = Math.min(acc[q]!, binBounds[6 * (b - 1) + q]!);
            acc[q + 3] = Math.max(acc[q + 3]!, binBounds[6 * (b - 1) + q + 3]!);
          }
          if (count === 0 || rightArea[b] === 0) continue;
          const cost = halfArea(acc) * count + rightArea[b]!;
          if (cost < spatialCost) {
            spatialCost = cost;
            spAxis = axis;
            spPlane = lo + b * width;
          }
        }
      }
    }
    const best = Math.min(objectCost, spatialCost);
    if (!Number.isFinite(best)) {
      // Every reference has the same centroid and no plane cuts them apart: halve by position.
      if (k <= maxLeafSize) {
        makeLeaf();
        continue;
      }
      objectCost = 0;
    } else if (k <= maxLeafSize && !(area > 0 && sah.traversalCost + (sah.intersectionCost * best) / area < sah.intersectionCost * k)) {
      makeLeaf();
      continue;
    }
    const left: number[] = [], right: number[] = [];
    if (!Number.isFinite(best)) {
      for (let i = 0; i < k; i++) (i < k >> 1 ? left : right).push(ids[i]!);
    } else if (objectCost <= spatialCost) {
      for (const id of ids) (goesLeft(id) ? left : right).push(id);
    } else {
      for (const id of ids) {
        const rb = refs.bounds;
        const lo = rb[6 * id + spAxis]!, hi = rb[6 * id + spAxis + 3]!;
        if (hi <= spPlane) left.push(id);
        else if (lo >= spPlane) right.push(id);
        else {
          // Straddles the plane: this reference keeps the left part, a new one takes the right.
          clippedBox(mesh, refs.prim[id]!, spAxis, spPlane, Infinity, rb, 6 * id, clip);
          const keepRight = clip[spAxis]! <= clip[spAxis + 3]!;
          const rightBox = Float64Array.from(clip);
          clippedBox(mesh, refs.prim[id]!, spAxis, -Infinity, spPlane, refs.bounds, 6 * id, clip);
          const keepLeft = clip[spAxis]! <= clip[spAxis + 3]!;
          if (keepLeft) {
            for (let q = 0; q < 6; q++) refs.bounds[6 * id + q] = clip[q]!;
            left.push(id);
            if (keepRight) right.push(refs.add(refs.prim[id]!, rightBox));
          } else right.push(id);
        }
      }
    }
    if (left.length === 0 || right.length === 0) {
      // Float rounding put every reference on one side: halve by position instead.
      const both = left.concat(right);
      left.length = 0;
      right.length = 0;
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
    stack.push({ node: r, refs: Uint32Array.from(right) }, { node: l, refs: Uint32Array.from(left) });
  }
  const arrays: BuildArrays = {
    refBounds: refs.bounds, order: Uint32Array.from(order), nodeBounds, nodeA, nodeB, nodeCount, maxLeafSize, ...sah,
  };
  return { arrays, root: 0, refPrim: refs.prim.slice(0, refs.count) };
}
