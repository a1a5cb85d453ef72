// The V-cycle under the GPU schedules natively on OpenCL (PoCL's CPU device on a machine
// without a GPU): `gpu` with residual and restriction apart and merged (a work item per
// coarse cell computing the fine residuals it restricts) and `gpu_shared` merged (blocks
// computing their residual into shared memory), in two compiles (`gpu` merged alone, what
// `vcycle --schedule gpu --levels 4` compiles, so apps.test.ts finds it in the cache), against the scalar
// reference to 1e-6 at sizes that are no multiple of the blocks, down to a coarsest grid of
// one cell; the three giving the same bits; the residual falling per cycle as on the CPU.
// Each call moves the problem to the device once and the solution back once: the grids of
// every level stay in device memory for the whole cycle. PoCL builds each kernel on its first
// launch, which is most of this file's time after the compile.
import { beforeAll, describe, expect, it } from 'vitest';
import { checkVariant, compileMultigrid, compileVariant, type Multigrid, type MgVariant, multigridSources, variantName } from '../../libs/multigrid/host.ts';
import { deviceMissing } from '../image/gpu-cases.ts';
import { random } from '../random.ts';
import { residualNorm, vcycleReference } from './reference.ts';

/** OpenCL device 0, as ANYDSL_DEVICE=opencl picks it. */
const OPENCL_0 = 2;
const LEVELS = 4;
const GPU: MgVariant = { levels: LEVELS, schedule: 'gpu', merge: false, device: OPENCL_0 };
const GPU_MERGED: MgVariant = { ...GPU, merge: true };
const SHARED_MERGED: MgVariant = { ...GPU, schedule: 'gpu_shared', merge: true };
const missing = await deviceMissing('opencl');

/** A right-hand side of values in [−1, 1) from a seeded generator, and a zero initial guess. */
function problem(n: number, seed: number): { u: Float64Array; f: Float64Array } {
  const f = new Float64Array(n * n);
  const next = random(seed);
  for (let i = 0; i < n * n; i++) f[i] = next() * 2 - 1;
  return { u: new Float64Array(n * n), f };
}

describe.skipIf(missing !== null)(`the V-cycle on OpenCL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let gpu: Multigrid;
  let gpuMerged: Multigrid;
  let sharedMerged: Multigrid;
  const each = () => [gpu, gpuMerged, sharedMerged];
  beforeAll(async () => {
    const [two, merged] = await Promise.all([compileMultigrid([GPU, SHARED_MERGED]), compileVariant(GPU_MERGED)]);
    [gpu, gpuMerged, sharedMerged] = [two.get(variantName(GPU))!, merged, two.get(variantName(SHARED_MERGED))!];
  }, 900_000);

  // 8: the last restriction makes a grid of one cell; 40 and 72: no multiple of the 32 × 4 and
  // 32 × 8 blocks at any level; 128: a multiple.
  it.each([8, 40, 72, 128])('matches the scalar reference to 1e-6 with %i cells per side, merged or not', (n) => {
    const { u: start, f } = problem(n, n);
    const expected = start.slice();
    vcycleReference(expected, f, n, LEVELS, 2, 2);
    const scale = Math.max(...expected.map(Math.abs));
    expect(scale).toBeGreaterThan(0);
    for (const mg of each()) {
      const u = start.slice();
      mg.vcycle(u, f, n, 2, 2);
      const diff = Math.max(...u.map((v, i) => Math.abs(v - expected[i]!)));
      expect(diff, `${variantName(mg.variant)} at ${n}×${n}`).toBeLessThanOrEqual(1e-6 * scale);
      const norm = residualNorm(u, f, n);
      expect(Math.abs(mg.residualNorm(u, f, n) - norm)).toBeLessThanOrEqual(1e-9 * norm);
    }
  }, 600_000);

  it('gives the same bits merged and unmerged, with and without shared memory, for cycles and the finest level alone', () => {
    const n = 40;
    const runs = each().map((mg) => {
      const { u, f } = problem(n, 3);
      mg.vcycle(u, f, n, 2, 3);
      const cycles = Buffer.from(u.slice().buffer);
      mg.firstLevel(u, f, n, 2);
      return [cycles, Buffer.from(u.buffer)] as const;
    });
    for (const [cycles, first] of runs.slice(1)) {
      expect(cycles.equals(runs[0]![0])).toBe(true);
      expect(first.equals(runs[0]![1])).toBe(true);
    }
  });

  it('reduces the residual by a factor below 0.2 per cycle down to a 2 × 2 grid, as on the CPU', () => {
    const n = 16;
    for (const mg of [gpuMerged, sharedMerged]) {
      const { u, f } = problem(n, 7);
      let before = mg.residualNorm(u, f, n);
      for (let cycle = 0; cycle < 10; cycle++) {
        mg.vcycle(u, f, n, 1, 2);
        const after = mg.residualNorm(u, f, n);
        expect(after / before, `${variantName(mg.variant)}, cycle ${cycle + 1}`).toBeLessThan(0.2);
        before = after;
      }
    }
  });

  it('reports the device and the time of its kernels and copies, which grows with each call', () => {
    const mg = gpu;
    expect(mg.gpu!.deviceName()).toMatch(/^OpenCL 0: /);
    const [kernels, copies] = [mg.gpu!.kernelMicros(), mg.gpu!.copyMicros()];
    const { u, f } = problem(40, 1);
    mg.firstLevel(u, f, 40, 2);
    expect(mg.gpu!.kernelMicros()).toBeGreaterThan(kernels);
    expect(mg.gpu!.copyMicros()).toBeGreaterThan(copies);
  });
});

describe('GPU variants of the V-cycle', () => {
  const entry = (v: MgVariant) => multigridSources([v]).at(-1)!.text;

  it('compile for the platform of their device, OpenCL 0 unless told, with the field on that device', () => {
    const { device: _, ...plain } = GPU;
    expect(entry(plain)).toContain('gpu_stages(2, 0, 32, 4)');
    expect(entry(plain)).toContain('with_device_field(2, sol, rhs, n, 4, true,');
    expect(entry({ ...GPU, device: 18 })).toContain('gpu_stages(2, 1, 32, 4)');
    expect(entry({ ...SHARED_MERGED, device: 1 })).toContain('gpu_shared_stages(1, 0, 32, 8)');
    expect(variantName({ ...SHARED_MERGED, device: 1 })).toBe('vcycle_l4_gpu_shared_d1_merged');
  });

  it('take a CUDA or OpenCL device, and only with a GPU schedule', () => {
    expect(() => checkVariant({ ...GPU, device: 0 })).toThrow(/^device 0 is not a CUDA or OpenCL device/);
    expect(() => checkVariant({ ...GPU, device: 19 })).toThrow(/^device 19 is not a CUDA or OpenCL device/);
    expect(() => checkVariant({ levels: 4, schedule: 'vec', merge: true, device: 2 })).toThrow(/^only GPU schedules run on a device, not vec$/);
  });
});
