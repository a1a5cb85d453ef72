// The Embree reference of bench/raytrace and `trace --compare` (references.ts and
// embree_driver.cpp) judged by the brute-force tracer: every API (single rays, packets of
// 4/8/16, streams) finds the reference's hits on random and awkward rays for BVH4 and BVH8,
// closest and any hit, and the tree rtcBuildBVH hands back through the callbacks is a
// valid BVH of the mesh (checkBvh) whose SAH cost our sahCost can take. Skipped where
// libembree-dev is not installed.
import { describe, expect, it } from 'vitest';
import { EMBREE_MODES, embreeBuildBvh, embreeTrace, missingEmbreePackages } from '../../bench/raytrace/references.ts';
import { checkBvh, sahCost } from '../../libs/raytrace/bvh.ts';
import { proceduralScene } from '../../libs/raytrace/procedural.ts';
import type { Rays } from '../../libs/raytrace/rays.ts';
import { compareHits, traceBruteForce } from '../../libs/raytrace/reference.ts';
import { random } from '../random.ts';

const missing = await missingEmbreePackages();
const skip = missing.length > 0;
const why = skip ? ` (skipped: needs apt-get install ${missing.join(' ')})` : '';

const mesh = proceduralScene({ triangles: 600, seed: 31 });

/**
 * Random rays through the scene's box, a third with a finite tmax, some axis-parallel. Not
 * rays aimed exactly at vertices or edges: Embree's Möller–Trumbore test is not watertight
 * there and may take a hit the float64 reference misses, which says nothing about the driver.
 */
function rays(count: number, seed: number): Rays {
  const next = random(seed);
  const b = mesh.bounds();
  const data = new Float32Array(count * 8);
  const at = (k: number, grow: number) => b[k]! - grow + (b[k + 3]! - b[k]! + 2 * grow) * next();
  for (let i = 0; i < count; i++) {
    const o = [at(0, 3), at(1, 3), at(2, 3)];
    let d = [at(0, 0) - o[0]!, at(1, 0) - o[1]!, at(2, 0) - o[2]!];
    if (i % 7 === 0) d = d.map((x, k) => (k === i % 3 ? x : 0));
    data.set([o[0]!, o[1]!, o[2]!, d[0]!, d[1]!, d[2]!, 0, i % 3 === 0 ? 0.2 + next() : Infinity], i * 8);
  }
  return { count, data };
}

describe('the Embree reference', () => {
  it.skipIf(skip).each([4, 8] as const)(`BVH%i: every API agrees with the brute-force tracer${why}`, async (arity) => {
    const closest = rays(500, arity);
    const occlusion = rays(500, arity + 100);
    const result = await embreeTrace(mesh, [{ rays: closest, anyHit: false, coherent: true }, { rays: occlusion, anyHit: true }], { arity, modes: EMBREE_MODES, runs: 1, threads: 2 });
    expect(result.config).toContain(`tri_accel=bvh${arity}.triangle4`);
    expect(result.bytes).toBeGreaterThan(0);
    const expected = [traceBruteForce(mesh, closest, { anyHit: false }), traceBruteForce(mesh, occlusion, { anyHit: true })];
    for (const mode of EMBREE_MODES) {
      expect(compareHits(mesh, closest, expected[0]!, result.jobs[0]!.modes[mode]!.hits, { anyHit: false }), `${mode} closest`).toEqual([]);
      expect(compareHits(mesh, occlusion, expected[1]!, result.jobs[1]!.modes[mode]!.hits, { anyHit: true }), `${mode} any`).toEqual([]);
      expect(result.jobs[0]!.modes[mode]!.ms).toHaveLength(1);
    }
  });

  it.skipIf(skip).each([2, 4, 8] as const)(`rtcBuildBVH's BVH%i is a valid tree of the mesh${why}`, async (arity) => {
    for (const quality of ['medium', 'high'] as const) {
      const { bvh, buildMs } = await embreeBuildBvh(mesh, { arity, maxLeafSize: 4, traversalCost: 1, intersectionCost: 1, quality, threads: 2, builds: 2 });
      expect(buildMs).toHaveLength(2);
      expect(bvh.arity).toBe(arity);
      const stats = checkBvh(bvh, mesh, { maxLeafSize: 4, spatialSplits: quality === 'high' });
      if (quality === 'medium') expect(stats.references).toBe(mesh.triangleCount);
      expect(sahCost(bvh, mesh)).toBeGreaterThan(1);
    }
  });
});
