// Halide's app pipelines under the GPU schedules natively on OpenCL (PoCL's CPU device on a
// machine without a GPU), against their TypeScript references bit for bit: under `gpu`, the
// bilateral grid (its grid stages and data-dependent slice as kernels, the grid in device
// memory), interpolate and the local Laplacian (their pyramid levels as kernels over device
// buffers), each in every boundary mode, the element types taking turns over the modes;
// under `gpu_shared` the bilateral grid, whose grid stages are then produced whole (the
// pyramids have no stage to fuse). At a single pixel, sizes that are no multiple of the
// blocks, and 1023 × 769. One module; PoCL compiles each kernel on its first launch, and
// the references at 1023 × 769 are the rest of the time.
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { BOUNDARIES, type Variant } from '../../libs/image/variants.ts';
import { deviceMissing } from './gpu-cases.ts';
import { referenceBilateral, referenceInterpolate, referenceLocalLaplacian } from './reference-apps.ts';
import { expectSameImage, randomImage } from './support.ts';

/** OpenCL device 0, as ANYDSL_DEVICE=opencl picks it. */
const DEVICE = 2;
const FORMATS = {
  bilateral: [{ type: 'u8', channels: 3 }, { type: 'f32', channels: 1 }],
  interpolate: [{ type: 'f32', channels: 4 }, { type: 'u8', channels: 2 }],
  local_laplacian: [{ type: 'u8', channels: 3 }, { type: 'f32', channels: 1 }],
} as const satisfies Record<string, readonly Pick<Variant, 'type' | 'channels'>[]>;
const VARIANTS: Variant[] = [
  ...(['bilateral', 'interpolate', 'local_laplacian'] as const).flatMap((pipeline) =>
    BOUNDARIES.map((boundary, i): Variant => ({ pipeline, ...FORMATS[pipeline][i % 2]!, schedule: 'gpu', boundary, device: DEVICE })),
  ),
  { pipeline: 'bilateral', type: 'f32', channels: 1, schedule: 'gpu_shared', boundary: 'clamp', device: DEVICE },
];
const REFERENCES = { bilateral: referenceBilateral, interpolate: referenceInterpolate, local_laplacian: referenceLocalLaplacian } as const;
const missing = await deviceMissing('opencl');

describe.skipIf(missing !== null)(`Halide's app pipelines under the GPU schedules on OpenCL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let kernels: KernelSet;
  beforeAll(async () => {
    kernels = await compileKernels(VARIANTS);
  }, 600_000);

  it.each(VARIANTS.map((v) => [`${v.pipeline} ${v.type}×${v.channels} ${v.schedule} ${v.boundary}`, v] as const))('%s matches the reference', (_label, v) => {
    const reference = REFERENCES[v.pipeline as keyof typeof REFERENCES];
    for (const [w, h] of [[1, 1], [17, 5], [33, 9], [1023, 769]] as const) {
      const outside = v.type === 'u8' ? 60 : 0.4;
      const img = randomImage(v.type, w, h, v.channels, w * 3 + h);
      expectSameImage(kernels.kernel(v).run(img, { outside }), reference(img, v.boundary, outside), `${v.schedule} ${w}×${h}`);
    }
  }, 600_000);
});
