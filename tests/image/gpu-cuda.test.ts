// The `gpu` schedule compiled for CUDA (NVVM kernels, PTX; every PTX is assembled with
// ptxas at build time where ptxas is on the PATH, so its errors fail the compilation):
// one stage, staged temporaries in 16-bit and f32, libdevice's sine, and under `gpu_shared`
// stages fused per block in shared memory (address space 3, bar.sync), one nested in another.
// Where an NVIDIA GPU is present they also run and must match the reference (Harris also the
// CPU `opt` schedule, its twin compiled only then), as the OpenCL ones do in gpu-opencl.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { checkGpuVariant, COMPILE_TIMEOUT, cudaPipelines, deviceMissing, RUN_TIMEOUT, variantLabel, withOptTwins } from './gpu-cases.ts';

/** CUDA device 0. */
const VARIANTS = cudaPipelines(1);
const missing = await deviceMissing('cuda');

describe('the gpu schedule for CUDA', () => {
  let kernels: KernelSet;
  beforeAll(async () => {
    kernels = await compileKernels(missing === null ? withOptTwins(VARIANTS) : VARIANTS);
  }, COMPILE_TIMEOUT);

  it('compiles every pipeline to NVVM kernels', () => {
    for (const v of VARIANTS) expect(kernels.kernel(v).gpu).toBeDefined();
  });

  it.skipIf(missing !== null).each(VARIANTS.map((v) => [variantLabel(v), v] as const))(
    `%s runs on CUDA 0 and matches the reference${missing ? ` (skipped: ${missing})` : ''}`,
    (_name, v) => checkGpuVariant(kernels, v),
    RUN_TIMEOUT,
  );
});
