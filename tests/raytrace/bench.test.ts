// The Embree reference of bench/raytrace and `trace --compare` (references.ts and
// embree_driver.cpp) judged by the brute-force tracer: every API (single rays, packets of
// 4/8/16, streams) finds the reference's hits on random and axis-parallel rays for BVH4 and BVH8,
// closest and any hit, and the tree rtcBuildBVH hands back through the callbacks is a
// valid BVH of the mesh (checkBvh) whose SAH cost our sahCost can take. Skipped where
// libembree-dev is not installed.
import { describe, expect, it } from 'vitest';
import { EMBREE_MODES, embreeBuildBvh, embreeTrace, missingEmbreePackages } from '../../bench/raytrace/references.ts';
import { checkBvh, sahCost } from '../../libs/raytrace/bvh.ts';
import { proceduralScene } from '../../libs/raytrace/procedural.ts';
import { compareHits, traceBruteForce } from '../../libs/raytrace/reference.ts';
import { randomRays } from './rays-random.ts';

const missing = await missingEmbreePackages();
const skip = missing.length > 0;
const why = skip ? ` (skipped: needs apt-get install ${missing.join(' ')})` : '';

const mesh = proceduralScene({ triangles: 600, seed: 31 });

describe('the Embree reference', () => {
  it.skipIf(skip).each([4, 8] as const)(`BVH%i: every API agrees with the brute-force tracer${why}`, async (arity) => {
    const closest = randomRays(mesh, 500, arity);
    const occlusion = randomRays(mesh, 500, arity + 100);
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
