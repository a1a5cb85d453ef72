// The kernel acceptance tests of issue 11, shared by one test file per BVH arity
// (kernels-bvh2/4/8.test.ts, so that each file compiles only its own kernels) and by the
// GPU traversal's (gpu.test.ts): every traversal loop × hit kind agrees with the
// brute-force reference (every ray against every triangle, reference.ts) on small
// generated scenes, for random rays and the degenerate ones: axis-parallel, zero direction
// components, origins on triangle edges and vertices, rays aimed exactly at edges and
// vertices, tmin/tmax cutting just before or just after the reference's hit. Agreement is
// reference.ts's rule: the same triangle, or a tie (t equal within 1e-4 relative on a
// triangle the ray really meets there), and for rays that graze an edge, a vertex or the
// ends of their [tmin, tmax], any answer some reading of the boundary within that
// tolerance gives (`compareHits`' grazing band).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBvh } from '../../libs/raytrace/bvh.ts';
import { compileTracers, flatten, type Tracer, type TracerOptions, TRAVERSALS } from '../../libs/raytrace/host.ts';
import { makeMesh, type Mesh } from '../../libs/raytrace/mesh.ts';
import { proceduralScene } from '../../libs/raytrace/procedural.ts';
import { seededRandom } from '../../libs/shared/random.ts';
import { type Hits, makeHits, makeRays, type Rays } from '../../libs/raytrace/rays.ts';
import { compareHits, traceBruteForce } from '../../libs/raytrace/reference.ts';

/** The variants one file compiles: every traversal × hit kind at the default packet size, plus `extra`. */
export function variantsFor(arity: 2 | 4 | 8, extra: readonly TracerOptions[] = []): TracerOptions[] {
  return [...TRAVERSALS.flatMap((traversal) => [false, true].map((anyHit) => ({ arity, traversal, anyHit }))), ...extra];
}

function label(t: Tracer): string {
  const o = t.options;
  return `BVH${o.arity} ${o.traversal}${o.traversal === 'single' ? '' : ` ×${o.packetSize}`} ${o.anyHit ? 'any' : 'closest'}-hit`;
}

type Rng = () => number;

/** A unit-ish random direction with each component in [-1, 1). */
function randomDir(rnd: Rng): [number, number, number] {
  return [rnd() * 2 - 1, rnd() * 2 - 1, rnd() * 2 - 1];
}

function vertex(mesh: Mesh, tri: number, k: number): [number, number, number] {
  const v = mesh.triangles[3 * tri + k]! * 3;
  return [mesh.positions[v]!, mesh.positions[v + 1]!, mesh.positions[v + 2]!];
}

const lerp = (a: readonly number[], b: readonly number[], s: number) => a.map((x, k) => x + (b[k]! - x) * s) as [number, number, number];

/** A point on an edge or at a vertex of a random triangle. */
function pointOnTriangleEdge(mesh: Mesh, rnd: Rng): [number, number, number] {
  const tri = Math.floor(rnd() * mesh.triangleCount);
  const k = Math.floor(rnd() * 3);
  const s = rnd() < 0.2 ? 0 : rnd();
  return lerp(vertex(mesh, tri, k), vertex(mesh, tri, (k + 1) % 3), s);
}

/**
 * Random and degenerate rays over the scene's bounds (`count` of each kind). Kinds: random
 * origin and direction; axis-parallel; one or two zero direction components; origins on
 * triangle edges and vertices (tmin 0, so the triangle they start on may be the hit);
 * rays aimed exactly at an edge point or a vertex; and short rays (tmax in the scene).
 */
export function testRays(mesh: Mesh, seed: number, count: number): Rays {
  const rnd = seededRandom(seed);
  const b = mesh.bounds();
  const inBox = (): [number, number, number] => [0, 1, 2].map((k) => b[k]! + (b[3 + k]! - b[k]!) * (rnd() * 1.4 - 0.2)) as [number, number, number];
  const rays: number[][] = [];
  const diag = Math.hypot(b[3]! - b[0]!, b[4]! - b[1]!, b[5]! - b[2]!);
  for (let i = 0; i < count; i++) {
    // random
    rays.push([...inBox(), ...randomDir(rnd), 0, Infinity]);
    // axis-parallel, both signs
    const axis = Math.floor(rnd() * 3);
    const d: [number, number, number] = [0, 0, 0];
    d[axis] = rnd() < 0.5 ? -1 : 1;
    rays.push([...inBox(), ...d, 0, Infinity]);
    // one or two zero components
    const z = randomDir(rnd);
    z[Math.floor(rnd() * 3)] = 0;
    if (rnd() < 0.3) z[Math.floor(rnd() * 3)] = 0;
    if (z.every((c) => c === 0)) z[0] = 1;
    rays.push([...inBox(), ...z, 0, Infinity]);
    // origin on a triangle edge or vertex
    rays.push([...pointOnTriangleEdge(mesh, rnd), ...randomDir(rnd), 0, Infinity]);
    // aimed at an edge point or vertex, from outside or inside the scene
    const o = inBox();
    const target = pointOnTriangleEdge(mesh, rnd);
    rays.push([...o, ...target.map((x, k) => x - o[k]!), 0, Infinity]);
    // short, with tmin > 0
    rays.push([...inBox(), ...randomDir(rnd), rnd() * 0.05 * diag, rnd() * 0.3 * diag]);
  }
  const out = makeRays(rays.length);
  rays.forEach((r, i) => out.data.set(r, 8 * i));
  return out;
}

/**
 * The rays again, with tmax just before (× 0.999) or just after (× 1.001) the reference's
 * closest hit, and tmin just after it for a third of them: the hit or the next one behind.
 */
export function tmaxLimited(mesh: Mesh, rays: Rays): Rays {
  const ref = traceBruteForce(mesh, rays, { anyHit: false });
  const out = makeRays(rays.count);
  out.data.set(rays.data);
  for (let i = 0; i < rays.count; i++) {
    if (ref.prim[i]! < 0) continue;
    const t = ref.t[i]!;
    if (i % 3 === 0) out.data[8 * i + 7] = t * 0.999;
    else if (i % 3 === 1) out.data[8 * i + 7] = t * 1.001;
    else out.data[8 * i + 6] = t * 1.001;
  }
  return out;
}

/**
 * A grid of quads in the plane y = 0 (each two triangles sharing a diagonal) with a
 * second grid stacked above it and a few triangles on the box's planes: many shared edges
 * and vertices, coplanar neighbours and axis-aligned faces, where the slab test meets
 * flat boxes and rays meet edges exactly.
 */
export function gridScene(cells: number): Mesh {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (const y of [0, 1.5]) {
    const base = positions.length / 3;
    for (let j = 0; j <= cells; j++) for (let i = 0; i <= cells; i++) positions.push(i, y, j);
    for (let j = 0; j < cells; j++) {
      for (let i = 0; i < cells; i++) {
        const a = base + j * (cells + 1) + i;
        triangles.push(a, a + 1, a + cells + 2, a, a + cells + 2, a + cells + 1);
      }
    }
  }
  const v = positions.length / 3;
  positions.push(0, 0, 0, 0, 1.5, 0, 0, 0, cells, cells, 0, 0, cells, 1.5, 0, cells, 1.5, cells);
  triangles.push(v, v + 1, v + 2, v + 3, v + 4, v + 5);
  return makeMesh(Float32Array.from(positions), Uint32Array.from(triangles));
}

/** One traversal under test bound to one scene: a CPU kernel with its flat scene, the GPU kernel with the scene in device memory. */
export interface SceneTracer {
  /** Names it in failures: `BVH4 packet ×8 any-hit`. */
  label: string;
  anyHit: boolean;
  /** Hits of `rays` into `hits`, barycentrics included. */
  trace(rays: Rays, hits: Hits): void;
}

/** How a scene's BVH is built for a case (the arity is the suite's). */
export interface SceneBuild {
  maxLeafSize: number;
  spatialSplits?: boolean;
}

/** The traversals under test bound to `mesh` built as `build` says, and what gives the scene back afterwards. */
export type LoadScene = (mesh: Mesh, build: SceneBuild) => { tracers: SceneTracer[]; release?: () => void };

/** Every tracer against the reference on `rays`; failures name the tracer and the first rays. */
export function expectAgreement(tracers: readonly SceneTracer[], mesh: Mesh, rays: Rays, what: string): void {
  const expected = new Map<boolean, Hits>();
  for (const tracer of tracers) {
    const anyHit = tracer.anyHit;
    const hits = makeHits(rays.count);
    hits.u = new Float32Array(rays.count);
    hits.v = new Float32Array(rays.count);
    tracer.trace(rays, hits);
    if (!expected.has(anyHit)) expected.set(anyHit, traceBruteForce(mesh, rays, { anyHit }));
    const bad = compareHits(mesh, rays, expected.get(anyHit)!, hits, { anyHit });
    if (bad.length > 0) {
      const r = bad[0]!.ray;
      const ray = Array.from(rays.data.subarray(8 * r, 8 * r + 8));
      expect.fail(`${tracer.label}, ${what}: ${bad.length} of ${rays.count} rays disagree; ray ${r} (${ray.join(' ')}): expected ${JSON.stringify(bad[0]!.expected)}, got ${JSON.stringify(bad[0]!.actual)}`);
    }
    // Misses are -1 -1; a closest hit's barycentrics lie in the triangle.
    for (let i = 0; i < rays.count; i++) {
      if (hits.prim[i]! < 0) expect(hits.t[i], `${tracer.label} miss ${i}`).toBe(-1);
      else if (!anyHit) {
        const u = hits.u[i]!, v = hits.v[i]!;
        expect(u >= -1e-6 && v >= -1e-6 && u + v <= 1 + 1e-5, `${tracer.label} barycentrics of ray ${i}: ${u} ${v}`).toBe(true);
      }
    }
  }
}

/** The rays of `mesh` against the reference through every tracer `load` binds to it, the scene released afterwards. */
function expectSceneAgreement(load: LoadScene, mesh: Mesh, build: SceneBuild, cases: readonly (readonly [Rays, string])[]): void {
  const { tracers, release } = load(mesh, build);
  try {
    for (const [rays, what] of cases) expectAgreement(tracers, mesh, rays, what);
  } finally {
    release?.();
  }
}

/**
 * The agreement cases for traversals of one arity with leaves of up to `leaf` triangles:
 * a procedural scene and a grid (random and degenerate rays, then tmin/tmax cut at the
 * hit), tiny scenes, leaves of many blocks, and generated scenes, builds and rays
 * (fast-check, `runs` of them from `seed`). `load` is called inside the tests, so it may
 * use tracers compiled in a `beforeAll`.
 */
export function agreementCases(arity: 2 | 4 | 8, leaf: number, load: LoadScene, fast: { runs: number; seed: number }): void {
  it('procedural scene: random and degenerate rays, then tmin/tmax cut at the reference hit', () => {
    const mesh = proceduralScene({ triangles: 900, seed: 11 + arity });
    const rays = testRays(mesh, 5, 60);
    expectSceneAgreement(load, mesh, { maxLeafSize: leaf }, [
      [rays, 'random and degenerate rays'],
      [tmaxLimited(mesh, rays), 'tmin/tmax at the hit'],
    ]);
  });

  it('grid of shared edges and axis-aligned faces', () => {
    const mesh = gridScene(6);
    const rays = testRays(mesh, 9, 50);
    expectSceneAgreement(load, mesh, { maxLeafSize: leaf }, [
      [rays, 'grid scene'],
      [tmaxLimited(mesh, rays), 'grid scene, tmin/tmax at the hit'],
    ]);
  });

  it('tiny scenes: one triangle (the root is a leaf), one block, big leaves split for the layout', () => {
    for (const triangles of [1, 3, leaf + 1]) {
      const mesh = proceduralScene({ triangles, seed: triangles });
      expectSceneAgreement(load, mesh, { maxLeafSize: leaf }, [[testRays(mesh, triangles, 20), `${triangles} triangle(s)`]]);
    }
    // Leaves of 200 triangles: more blocks than one leaf reference holds.
    const mesh = proceduralScene({ triangles: 400, seed: 3 });
    expectSceneAgreement(load, mesh, { maxLeafSize: 200 }, [[testRays(mesh, 4, 20), 'leaves of 200 triangles']]);
  });

  it('generated scenes, builds and rays (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        (triangles, sceneSeed, raySeed, maxLeafSize, spatialSplits) => {
          const mesh = proceduralScene({ triangles, seed: sceneSeed, degenerateFraction: 0.05 });
          const what = `${triangles} triangles (seed ${sceneSeed}), leaves ≤ ${maxLeafSize}${spatialSplits ? ', spatial splits' : ''}`;
          expectSceneAgreement(load, mesh, { maxLeafSize, spatialSplits }, [[testRays(mesh, raySeed, 8), what]]);
        },
      ),
      { numRuns: fast.runs, seed: fast.seed },
    );
  });
}

/** The CPU kernels bound to the mesh's BVH of `arity`, flattened. */
function cpuScene(tracers: readonly Tracer[], arity: 2 | 4 | 8, mesh: Mesh, build: SceneBuild): { tracers: SceneTracer[] } {
  const scene = flatten(buildBvh(mesh, { arity, ...build }), mesh);
  return { tracers: tracers.map((t) => ({ label: label(t), anyHit: t.options.anyHit, trace: (rays, hits) => t.trace(scene, rays, hits) })) };
}

/** The whole acceptance suite for one arity. */
export function kernelSuite(arity: 2 | 4 | 8, extra: readonly TracerOptions[] = []): void {
  describe(`BVH${arity} traversal kernels against the brute-force reference`, () => {
    let tracers: Tracer[];
    // Compiling the kernels (cached after the first run) takes minutes on a busy machine with a cold cache.
    beforeAll(async () => {
      tracers = await compileTracers(variantsFor(arity, extra));
    }, 900_000);
    const leaf = arity === 8 ? 8 : 4;

    agreementCases(arity, leaf, (mesh, build) => cpuScene(tracers, arity, mesh, build), { runs: 12, seed: 0x11 * arity });

    it('traces with any number of threads and refuses a scene of another arity', () => {
      const mesh = proceduralScene({ triangles: 300, seed: 5 });
      const scene = flatten(buildBvh(mesh, { arity, maxLeafSize: leaf }), mesh);
      const rays = testRays(mesh, 6, 40);
      const tracer = tracers[0]!;
      const one = makeHits(rays.count);
      const all = makeHits(rays.count);
      tracer.trace(scene, rays, one, { threads: 1 });
      tracer.trace(scene, rays, all, { threads: 0 });
      expect(Array.from(all.prim)).toEqual(Array.from(one.prim));
      const other = arity === 4 ? 8 : 4;
      const wrong = flatten(buildBvh(mesh, { arity: other }), mesh);
      expect(() => tracer.trace(wrong, rays, makeHits(rays.count))).toThrow(/cannot trace a scene flattened for BVH/);
    });
  });
}
