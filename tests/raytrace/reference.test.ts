// The brute-force reference, the oracle of every tracer test: its Möller–Trumbore test
// agrees with an independent plane-and-areas computation, closest hit takes the smallest
// t (the smallest index on ties), any hit stops at a hit, tmin/tmax bound the hits,
// degenerate triangles and parallel rays never hit, a miss is -1/-1; and compareHits
// accepts ties across shared edges but nothing else.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeMesh, type Mesh } from '../../libs/raytrace/mesh.ts';
import { proceduralScene } from '../../libs/raytrace/procedural.ts';
import { seededRandom } from '../../libs/shared/random.ts';
import { compareHits, intersectTriangle, traceBruteForce, triangleEdges } from '../../libs/raytrace/reference.ts';

const rays = (...rs: number[][]) => ({ count: rs.length, data: new Float32Array(rs.flat()) });
const mesh = (...tris: number[][]): Mesh => makeMesh(new Float32Array(tris.flat()), Uint32Array.from({ length: tris.length * 3 }, (_, i) => i));

/** Where the ray meets the triangle's plane, and whether that point is inside by signed areas: independent of Möller–Trumbore. */
function planeHit(tri: number[], o: number[], d: number[]): { t: number; inside: number; conditioned: boolean } | null {
  const sub = (a: number[], b: number[]) => a.map((x, i) => x - b[i]!);
  const cross = (a: number[], b: number[]) => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
  const dot = (a: number[], b: number[]) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
  const [a, b, c] = [tri.slice(0, 3), tri.slice(3, 6), tri.slice(6, 9)];
  const n = cross(sub(b!, a!), sub(c!, a!));
  const dn = dot(d, n);
  if (dn === 0) return null;
  const t = dot(sub(a!, o), n) / dn;
  const p = o.map((x, i) => x + t * d[i]!);
  // Barycentrics by areas, signed against the normal: all ≥ 0 inside. The smallest one says how far inside.
  const w = [cross(sub(b!, p), sub(c!, p)), cross(sub(c!, p), sub(a!, p)), cross(sub(a!, p), sub(b!, p))].map((x) => dot(x, n) / dot(n, n));
  // Both computations are exact only up to rounding: a sliver triangle (area tiny against its
  // edges) or a ray almost in its plane leaves the answer to rounding, so either is right.
  const len = (x: number[]) => Math.sqrt(dot(x, x));
  const edges = Math.max(len(sub(b!, a!)), len(sub(c!, a!)), len(sub(c!, b!)));
  const conditioned = len(n) > 1e-6 * edges * edges && Math.abs(dn) > 1e-6 * len(d) * len(n);
  return { t, inside: Math.min(...w), conditioned };
}

describe('intersectTriangle', () => {
  it('agrees with the plane-and-areas computation away from edges', () => {
    const coord = fc.double({ min: -10, max: 10, noNaN: true });
    const v3 = fc.tuple(coord, coord, coord);
    fc.assert(
      fc.property(v3, v3, v3, v3, v3, (a, b, c, o, d) => {
        const tri = [...a, ...b, ...c].map(Math.fround);
        const m = mesh(tri);
        const ref = planeHit(tri, o.map(Math.fround), d.map(Math.fround));
        const h = { t: 0, u: 0, v: 0 };
        const r = rays([...o, ...d, -Infinity, Infinity]).data;
        const hit = intersectTriangle(triangleEdges(m), 0, r[0]!, r[1]!, r[2]!, r[3]!, r[4]!, r[5]!, -Infinity, Infinity, h);
        if (ref === null || !ref.conditioned || !Number.isFinite(ref.t) || Math.abs(ref.inside) < 1e-6) return; // parallel, a sliver or on an edge: either answer
        expect(hit).toBe(ref.inside > 0);
        if (hit) expect(h.t).toBeCloseTo(ref.t, Math.max(0, 6 - Math.ceil(Math.log10(Math.abs(ref.t) + 1))));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts edges and corners as hits and respects tmin ≤ t ≤ tmax inclusively', () => {
    const m = mesh([0, 0, 0, 1, 0, 0, 0, 1, 0]);
    const e = triangleEdges(m);
    const h = { t: 0, u: 0, v: 0 };
    const at = (x: number, y: number, tmin = 0, tmax = Infinity) => intersectTriangle(e, 0, x, y, -2, 0, 0, 1, tmin, tmax, h);
    expect(at(0.5, 0)).toBe(true); // edge
    expect(at(0, 0)).toBe(true); // corner
    expect(at(0.5, 0.5)).toBe(true); // hypotenuse
    expect(at(0.6, 0.6)).toBe(false);
    expect(at(-0.01, 0.5)).toBe(false);
    expect(at(0.2, 0.2, 2, 2)).toBe(true);
    expect(h.t).toBe(2);
    expect(at(0.2, 0.2, 0, 1.999)).toBe(false);
    expect(at(0.2, 0.2, 2.001)).toBe(false);
  });

  it('never hits a degenerate triangle or with a ray in the triangle\'s plane', () => {
    const m = mesh([0, 0, 0, 0, 0, 0, 1, 1, 0], [0, 0, 0, 1, 1, 1, 2, 2, 2], [1, 1, 1, 1, 1, 1, 1, 1, 1], [0, 0, 0, 1, 0, 0, 0, 1, 0]);
    const hits = traceBruteForce(m, rays([0.2, 0.2, -1, 0, 0, 1, 0, Infinity], [0.5, 0.5, -1, 0.5, 0.5, 1, 0, Infinity], [-1, 0.1, 0, 1, 0, 0, 0, Infinity]), { anyHit: false });
    expect(Array.from(hits.prim)).toEqual([3, -1, -1]);
  });
});

describe('traceBruteForce', () => {
  // Three parallel squares' halves at z = 1, 2, 3 and a duplicate of the first.
  const stack = mesh(
    [0, 0, 3, 1, 0, 3, 0, 1, 3],
    [0, 0, 1, 1, 0, 1, 0, 1, 1],
    [0, 0, 2, 1, 0, 2, 0, 1, 2],
    [0, 0, 1, 1, 0, 1, 0, 1, 1],
  );

  it('finds the closest hit, the smallest index among equal t, and misses as -1 -1', () => {
    const h = traceBruteForce(stack, rays([0.2, 0.2, 0, 0, 0, 1, 0, Infinity], [0.2, 0.2, 5, 0, 0, -1, 0, Infinity], [2, 2, 0, 0, 0, 1, 0, Infinity], [0.2, 0.2, 0, 0, 0, 1, 1.5, Infinity], [0.2, 0.2, 0, 0, 0, 1, 0, 0.5]), { anyHit: false });
    expect(Array.from(h.prim)).toEqual([1, 0, -1, 2, -1]);
    expect(Array.from(h.t)).toEqual([1, 2, -1, 2, -1]);
    expect(h.u[0]).toBeCloseTo(0.2, 6);
    expect(h.v[0]).toBeCloseTo(0.2, 6);
  });

  it('any hit reports a hit triangle, or -1', () => {
    const h = traceBruteForce(stack, rays([0.2, 0.2, 0, 0, 0, 1, 0, Infinity], [2, 2, 0, 0, 0, 1, 0, Infinity], [0.2, 0.2, 0, 0, 0, 1, 2.5, Infinity]), { anyHit: true });
    expect(h.prim[0]).toBeGreaterThanOrEqual(0);
    expect(h.prim[1]).toBe(-1);
    expect(h.prim[2]).toBe(0);
  });

  it('closest hit is the minimum over every triangle hit, any hit agrees on hit or miss', () => {
    const m = proceduralScene({ triangles: 300, seed: 2 });
    const r = seededRandom(3);
    const data: number[] = [];
    for (let i = 0; i < 200; i++) data.push(r() * 20 - 10, r() * 6, r() * 20 - 10, r() - 0.5, r() - 0.5, r() - 0.5, 0, i % 3 ? Infinity : r() * 4);
    const rs = { count: 200, data: new Float32Array(data) };
    const closest = traceBruteForce(m, rs, { anyHit: false });
    const any = traceBruteForce(m, rs, { anyHit: true });
    const e = triangleEdges(m);
    const h = { t: 0, u: 0, v: 0 };
    for (let i = 0; i < 200; i++) {
      const d = rs.data.subarray(8 * i);
      let best = Infinity;
      for (let p = 0; p < m.triangleCount; p++) {
        if (intersectTriangle(e, p, d[0]!, d[1]!, d[2]!, d[3]!, d[4]!, d[5]!, d[6]!, d[7]!, h)) best = Math.min(best, h.t);
      }
      expect(closest.t[i]).toBe(best === Infinity ? -1 : Math.fround(best));
      expect(any.prim[i]! >= 0).toBe(best !== Infinity);
    }
    expect(closest.prim.filter((p) => p >= 0).length).toBeGreaterThan(20);
  });
});

describe('compareHits', () => {
  // Two triangles sharing the edge x + y = 1 of the unit square.
  const square = mesh([0, 0, 0, 1, 0, 0, 0, 1, 0], [1, 0, 0, 1, 1, 0, 0, 1, 0]);
  const rs = rays([0.5, 0.5, -1, 0, 0, 1, 0, Infinity], [0.2, 0.2, -1, 0, 0, 1, 0, Infinity], [5, 5, -1, 0, 0, 1, 0, Infinity]);
  const expected = traceBruteForce(square, rs, { anyHit: false });
  const hits = (prim: number[], t: number[]) => ({ prim: Int32Array.from(prim), t: Float32Array.from(t) });

  it('accepts the reference itself and the other triangle across a shared edge at the same t', () => {
    expect(Array.from(expected.prim)).toEqual([0, 0, -1]);
    expect(compareHits(square, rs, expected, expected, { anyHit: false })).toEqual([]);
    expect(compareHits(square, rs, expected, hits([1, 0, -1], [1, 1, -1]), { anyHit: false })).toEqual([]);
  });

  it('rejects a triangle the ray does not meet, a wrong t, a hit for a miss and a miss for a hit', () => {
    const bad = compareHits(square, rs, expected, hits([0, 1, 0], [1.01, 1, 1]), { anyHit: false });
    expect(bad.map((b) => b.ray)).toEqual([0, 1, 2]);
    expect(compareHits(square, rs, expected, hits([0, -1, -1], [1, -1, -1]), { anyHit: false }).map((b) => b.ray)).toEqual([1]);
  });

  it('accepts the answers a ray grazing an edge can get in float32, and no more', () => {
    // Ray 0 runs exactly along the shared edge: a kernel may slip between the two triangles.
    expect(compareHits(square, rs, expected, hits([-1, 0, -1], [-1, 1, -1]), { anyHit: false })).toEqual([]);
    // A ray just outside the square's outer edge may take it or miss; one well outside may not hit.
    const edge = rays([1 + 1e-9, 0.5, -1, 0, 0, 1, 0, Infinity], [1.2, 0.5, -1, 0, 0, 1, 0, Infinity]);
    const misses = traceBruteForce(square, edge, { anyHit: false });
    expect(compareHits(square, edge, misses, hits([1, -1], [1, -1]), { anyHit: false })).toEqual([]);
    expect(compareHits(square, edge, misses, hits([1, 1], [1, 1]), { anyHit: false }).map((b) => b.ray)).toEqual([1]);
  });

  it('with any hit compares hit or miss only', () => {
    expect(compareHits(square, rs, expected, hits([1, 1, -1], [9, 9, -1]), { anyHit: true })).toEqual([]);
    expect(compareHits(square, rs, expected, hits([1, -1, 0], [1, -1, 1]), { anyHit: true }).map((b) => b.ray)).toEqual([1, 2]);
  });
});
