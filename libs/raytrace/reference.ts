// The test oracle of the ray-tracing library: every ray against every triangle, with the
// Möller–Trumbore ray–triangle test in float64 (so the reference is more accurate than any
// float32 kernel it judges), and the agreement rule the acceptance tests, `trace --compare`
// and the benchmark use to compare hits from two tracers.
//
// Conventions (the kernels follow the same ones):
// - a ray hits triangle p at distance t when tmin ≤ t ≤ tmax and the barycentrics satisfy
//   u ≥ 0, v ≥ 0, u + v ≤ 1 (edges and corners count); a degenerate (zero-area) triangle
//   and a ray parallel to the triangle's plane never hit;
// - closest hit: the smallest t; among equal t the smallest triangle index;
// - any hit: prim is some hit triangle (the reference gives the first in index order), and
//   only hit/miss is compared;
// - a miss has prim -1 and t -1 (the text format's `-1 -1`).
import { type Mesh, sceneDiagonal } from './mesh.ts';

/** The rays the reference reads: 8 floats per ray, ox oy oz dx dy dz tmin tmax (rays.ts's `Rays`). */
export interface RayBatch {
  readonly count: number;
  readonly data: Float32Array;
}

/** What the reference writes (rays.ts's `Hits`): prim -1 and t -1 for a miss. */
export interface HitBatch {
  readonly prim: Int32Array;
  readonly t: Float32Array;
  readonly u?: Float32Array;
  readonly v?: Float32Array;
}

/** A triangle's vertex and edges in float64, precomputed once per mesh. */
export interface TriangleEdges {
  readonly count: number;
  /** 9 doubles per triangle: v0, e1 = v1 - v0, e2 = v2 - v0. */
  readonly data: Float64Array;
}

export function triangleEdges(mesh: Mesh): TriangleEdges {
  const p = mesh.positions, tri = mesh.triangles, n = mesh.triangleCount;
  const data = new Float64Array(9 * n);
  for (let i = 0; i < n; i++) {
    const a = tri[3 * i]! * 3, b = tri[3 * i + 1]! * 3, c = tri[3 * i + 2]! * 3;
    for (let k = 0; k < 3; k++) {
      data[9 * i + k] = p[a + k]!;
      data[9 * i + 3 + k] = p[b + k]! - p[a + k]!;
      data[9 * i + 6 + k] = p[c + k]! - p[a + k]!;
    }
  }
  return { count: n, data };
}

/** Result slot of `intersectTriangle`: t, u, v of the last hit. */
export interface TriangleHit {
  t: number;
  u: number;
  v: number;
}

/**
 * Möller–Trumbore in float64: whether the ray (o, d) meets triangle `i` at tmin ≤ t ≤ tmax;
 * on a hit, `out` holds t and the barycentrics of vertices 1 and 2.
 */
export function intersectTriangle(
  edges: TriangleEdges, i: number,
  ox: number, oy: number, oz: number, dx: number, dy: number, dz: number,
  tmin: number, tmax: number, out: TriangleHit,
): boolean {
  const e = edges.data, o = 9 * i;
  const e1x = e[o + 3]!, e1y = e[o + 4]!, e1z = e[o + 5]!;
  const e2x = e[o + 6]!, e2y = e[o + 7]!, e2z = e[o + 8]!;
  // p = d × e2, det = e1 · p
  const px = dy * e2z - dz * e2y, py = dz * e2x - dx * e2z, pz = dx * e2y - dy * e2x;
  const det = e1x * px + e1y * py + e1z * pz;
  if (det === 0 || !Number.isFinite(det)) return false;
  const inv = 1 / det;
  const sx = ox - e[o]!, sy = oy - e[o + 1]!, sz = oz - e[o + 2]!;
  const u = (sx * px + sy * py + sz * pz) * inv;
  if (!(u >= 0 && u <= 1)) return false;
  // q = s × e1
  const qx = sy * e1z - sz * e1y, qy = sz * e1x - sx * e1z, qz = sx * e1y - sy * e1x;
  const v = (dx * qx + dy * qy + dz * qz) * inv;
  if (!(v >= 0 && u + v <= 1)) return false;
  const t = (e2x * qx + e2y * qy + e2z * qz) * inv;
  if (!(t >= tmin && t <= tmax)) return false;
  out.t = t;
  out.u = u;
  out.v = v;
  return true;
}

/** Every ray against every triangle: the closest hit, or with `anyHit` the first hit in index order. */
export function traceBruteForce(mesh: Mesh, rays: RayBatch, options: { anyHit: boolean }): Required<HitBatch> {
  const edges = triangleEdges(mesh);
  const n = rays.count, r = rays.data;
  const hits = { prim: new Int32Array(n), t: new Float32Array(n), u: new Float32Array(n), v: new Float32Array(n) };
  const h: TriangleHit = { t: 0, u: 0, v: 0 };
  for (let i = 0; i < n; i++) {
    const ox = r[8 * i]!, oy = r[8 * i + 1]!, oz = r[8 * i + 2]!;
    const dx = r[8 * i + 3]!, dy = r[8 * i + 4]!, dz = r[8 * i + 5]!;
    const tmin = r[8 * i + 6]!;
    let tmax = r[8 * i + 7]!;
    let best = -1, bu = 0, bv = 0;
    for (let p = 0; p < edges.count; p++) {
      // Strictly closer only, so among equal t the smallest index stays.
      if (intersectTriangle(edges, p, ox, oy, oz, dx, dy, dz, tmin, tmax, h) && (best < 0 || h.t < tmax)) {
        best = p;
        tmax = h.t;
        bu = h.u;
        bv = h.v;
        if (options.anyHit) break;
      }
    }
    hits.prim[i] = best;
    hits.t[i] = best < 0 ? -1 : tmax;
    hits.u[i] = best < 0 ? 0 : bu;
    hits.v[i] = best < 0 ? 0 : bv;
  }
  return hits;
}

/** Relative tolerance of the tie rule: two distances this close are the same hit distance. */
export const TIE_TOLERANCE = 1e-4;

export interface HitDisagreement {
  readonly ray: number;
  readonly expected: { prim: number; t: number };
  readonly actual: { prim: number; t: number };
}

/**
 * Rays on which `actual` disagrees with the reference `expected`. Closest hit: both miss,
 * or the same triangle at the same t (within TIE_TOLERANCE relative, absolute below 1),
 * or a tie: a different triangle at the same t, which the ray really meets there (checked in float64 with
 * the same tolerance on the barycentrics, since a float32 kernel may take the neighbour
 * across a shared edge). Any hit: the same hit/miss answer. A ray that grazes an edge, a
 * vertex or an end of its [tmin, tmax] is ambiguous between a float32 kernel and this float64
 * reference, so an answer the rules above reject is still accepted when some reading of the
 * boundaries within the tolerance gives it (`withinBand`).
 */
export function compareHits(
  mesh: Mesh, rays: RayBatch, expected: HitBatch, actual: HitBatch, options: { anyHit: boolean },
): HitDisagreement[] {
  const bad: HitDisagreement[] = [];
  let edges: TriangleEdges | undefined;
  let diagonal: number | undefined;
  for (let i = 0; i < rays.count; i++) {
    const ep = expected.prim[i]!, ap = actual.prim[i]!;
    const et = expected.t[i]!, at = actual.t[i]!;
    const close = sameDistance(et, at);
    let ok: boolean;
    if (options.anyHit) ok = ep >= 0 === ap >= 0;
    else if (ep === ap) ok = ep < 0 || close;
    else if (ep < 0 || ap < 0 || ap >= mesh.triangleCount) ok = false;
    else {
      edges ??= triangleEdges(mesh);
      ok = close && meetsNear(edges, ap, rays.data, i, et);
    }
    if (!ok) {
      edges ??= triangleEdges(mesh);
      diagonal ??= sceneDiagonal(mesh);
      ok = withinBand(edges, rays, i, ap, at, options.anyHit, diagonal);
    }
    if (!ok) bad.push({ ray: i, expected: { prim: ep, t: expected.t[i]! }, actual: { prim: ap, t: actual.t[i]! } });
  }
  return bad;
}

type V3 = [number, number, number];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const along = (o: V3, d: V3, t: number): V3 => [o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]];

/** The closest approach of the line o + t·d to the segment a + s·e (s in [0, 1]): distance and t. */
function lineToSegment(o: V3, d: V3, a: V3, e: V3): { dist: number; t: number } {
  const w = sub(o, a);
  const dd = dot(d, d), de = dot(d, e), ee = dot(e, e), dw = dot(d, w), ew = dot(e, w);
  const denom = dd * ee - de * de;
  const s = Math.min(1, Math.max(0, denom > 1e-300 ? (dd * ew - de * dw) / denom : 0));
  const q: V3 = [a[0] + s * e[0], a[1] + s * e[1], a[2] + s * e[2]];
  const t = dot(d, sub(q, o)) / dd;
  return { dist: Math.hypot(...sub(along(o, d, t), q)), t };
}

/** The distance of point p to the segment a + s·e. */
function pointToSegment(p: V3, a: V3, e: V3): number {
  const ee = dot(e, e);
  const s = ee > 0 ? Math.min(1, Math.max(0, dot(sub(p, a), e) / ee)) : 0;
  return Math.hypot(...sub(p, [a[0] + s * e[0], a[1] + s * e[1], a[2] + s * e[2]]));
}

/**
 * Whether the tracer's answer for ray `i` is right once the boundaries are read with a
 * tolerance, in float64 over every triangle: the ray meets a triangle *strictly* when it
 * passes through it (exactly) farther than 1e-5 of the scene's diagonal from every edge,
 * with t that far inside [tmin, tmax] (1e-4 relative); *leniently* when it passes through
 * it or within that distance of an edge, with t within the band. A closest hit must be a
 * lenient hit of its triangle at its t (the point within 1e-4 of the diagonal of the
 * triangle when the ray grazes an edge) with no strict hit clearly nearer; a miss needs no
 * strict hit. An any-hit answer needs a lenient hit, a miss no strict one.
 */
function withinBand(edges: TriangleEdges, rays: RayBatch, i: number, prim: number, t: number, anyHit: boolean, diagonal: number): boolean {
  const r = Array.from(rays.data.subarray(8 * i, 8 * i + 8));
  const o: V3 = [r[0]!, r[1]!, r[2]!], d: V3 = [r[3]!, r[4]!, r[5]!];
  const tmin = r[6]!, tmax = r[7]!;
  const near = 1e-5 * diagonal;
  const tBand = (x: number) => TIE_TOLERANCE * Math.abs(x) + 1e-6 * diagonal;
  const inRange = (x: number) => x >= tmin - tBand(x) && x <= tmax + tBand(x);
  let strict = Infinity;
  let anyLenient = false;
  let primOk = false;
  const e = edges.data;
  for (let p = 0; p < edges.count; p++) {
    const k = 9 * p;
    const v0: V3 = [e[k]!, e[k + 1]!, e[k + 2]!];
    const e1: V3 = [e[k + 3]!, e[k + 4]!, e[k + 5]!];
    const e2: V3 = [e[k + 6]!, e[k + 7]!, e[k + 8]!];
    const v1: V3 = [v0[0] + e1[0], v0[1] + e1[1], v0[2] + e1[2]];
    const sides: [V3, V3][] = [[v0, e1], [v0, e2], [v1, sub(e2, e1)]];
    // Through the triangle, exactly (Möller–Trumbore in float64).
    const pv: V3 = [d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]];
    const det = dot(e1, pv);
    let through = NaN;
    if (det !== 0) {
      const sv = sub(o, v0);
      const u = dot(sv, pv) / det;
      const qv: V3 = [sv[1] * e1[2] - sv[2] * e1[1], sv[2] * e1[0] - sv[0] * e1[2], sv[0] * e1[1] - sv[1] * e1[0]];
      const v = dot(d, qv) / det;
      if (u >= 0 && v >= 0 && u + v <= 1) through = dot(e2, qv) / det;
    }
    const grazes = sides.map(([a, s]) => lineToSegment(o, d, a, s)).filter((c) => c.dist <= near && inRange(c.t));
    if (through === through && grazes.length === 0 && through >= tmin + tBand(through) && through <= tmax - tBand(through)) {
      strict = Math.min(strict, through);
    }
    const lenient = (through === through && inRange(through)) || grazes.length > 0;
    anyLenient ||= lenient;
    if (p === prim && lenient) {
      const point = along(o, d, t);
      primOk = (through === through && Math.abs(through - t) <= tBand(t)) || (inRange(t) && sides.some(([a, s]) => pointToSegment(point, a, s) <= 10 * near));
    }
  }
  if (anyHit) return prim >= 0 ? anyLenient : strict === Infinity;
  if (prim < 0) return strict === Infinity;
  return primOk && t <= strict + tBand(strict);
}

/** Distances equal within TIE_TOLERANCE relative (absolute below 1, where float32 rounding of t is absolute). */
function sameDistance(a: number, b: number): boolean {
  return Math.abs(a - b) <= TIE_TOLERANCE * Math.max(Math.abs(a), 1);
}

/** Whether ray `i` meets triangle `p` near distance t, with the tie tolerance on the barycentrics. */
function meetsNear(edges: TriangleEdges, p: number, r: Float32Array, i: number, t: number): boolean {
  const e = edges.data, o = 9 * p;
  const dx = r[8 * i + 3]!, dy = r[8 * i + 4]!, dz = r[8 * i + 5]!;
  const e1x = e[o + 3]!, e1y = e[o + 4]!, e1z = e[o + 5]!;
  const e2x = e[o + 6]!, e2y = e[o + 7]!, e2z = e[o + 8]!;
  const px = dy * e2z - dz * e2y, py = dz * e2x - dx * e2z, pz = dx * e2y - dy * e2x;
  const det = e1x * px + e1y * py + e1z * pz;
  if (det === 0) return false;
  const inv = 1 / det;
  const sx = r[8 * i]! - e[o]!, sy = r[8 * i + 1]! - e[o + 1]!, sz = r[8 * i + 2]! - e[o + 2]!;
  const u = (sx * px + sy * py + sz * pz) * inv;
  const qx = sy * e1z - sz * e1y, qy = sz * e1x - sx * e1z, qz = sx * e1y - sy * e1x;
  const v = (dx * qx + dy * qy + dz * qz) * inv;
  const tt = (e2x * qx + e2y * qy + e2z * qz) * inv;
  const eps = TIE_TOLERANCE;
  return u >= -eps && v >= -eps && u + v <= 1 + eps && sameDistance(tt, t);
}
