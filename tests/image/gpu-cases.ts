// What the native GPU tests share: the variants they compile for a device, and the check
// of one kernel against the TypeScript reference (bit-exact for the integer pipelines, to
// float rounding for Harris), which the CPU schedules, `opt` among them, are checked against
// in pipelines.test.ts.
import { pickGpuDevice } from '../../libs/image/device.ts';
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { BOUNDARIES, GPU_SCHEDULES, isFloatPipeline, type Pipeline, type Variant } from '../../libs/image/variants.ts';
import { referenceHarris, referenceInteger } from './reference.ts';
import { expectCloseImage, expectSameImage, randomImage } from './support.ts';

/** A single pixel, and sizes that are no multiple of the 32 × 4 blocks. */
export const GPU_SIZES = [[1, 1], [17, 5], [33, 9]] as const;
export const LARGE = [1023, 769] as const;
const OUTSIDE = 9;
const GRAY_OUTSIDE = 0.25;
type GpuSchedule = (typeof GPU_SCHEDULES)[number];

const onDevice = (device: number, schedule: GpuSchedule = 'gpu') => (v: Omit<Variant, 'schedule' | 'device'>): Variant => ({ ...v, schedule, device });

/**
 * The pipelines checkGpuKernel has a reference for: every pipeline of the library but the
 * ports of Halide's apps (bilateral grid, interpolation, local Laplacian), which
 * halide-apps-gpu.test.ts runs under `gpu` against their own references.
 */
export const GPU_PIPELINES: readonly Pipeline[] = ['box3', 'gauss5', 'sobel', 'unsharp', 'harris', 'gradient', 'heat', 'wave'];

/**
 * The element types and channel counts a pipeline's variants take in turn: both types the
 * integer pipelines take (gauss5 on u8 is its own 16-bit code) with one to three channels,
 * and for Harris a colour u8 image (its gray is a stage of its own) and a gray f32 one.
 */
function formats(p: Pipeline): Pick<Variant, 'type' | 'channels'>[] {
  if (isFloatPipeline(p)) return [{ type: 'u8', channels: 3 }, { type: 'f32', channels: 1 }];
  return [{ type: 'u8', channels: 1 }, { type: 'i32', channels: 2 }, { type: 'u8', channels: 3 }, { type: 'i32', channels: 1 }];
}

/**
 * `pipelines` under `gpu` in every boundary mode, the formats taking turns so that each
 * pipeline meets each of its element types; heat runs 3 steps (each one a launch per stage).
 */
export function everyMode(device: number, pipelines: readonly Pipeline[]): Variant[] {
  const gpu = onDevice(device);
  return pipelines.flatMap((pipeline) => {
    const f = formats(pipeline);
    const k = GPU_PIPELINES.indexOf(pipeline);
    return BOUNDARIES.map((boundary, j) => gpu({ pipeline, boundary, ...f[(k + j) % f.length]!, ...(pipeline === 'heat' ? { iter: 3 } : {}) }));
  });
}

/** Compiled for CUDA: one stage, staged temporaries in 16-bit and f32 and libdevice's sine under `gpu`, and shared-memory stages (one nested in another for Harris) under `gpu_shared`. */
export function cudaPipelines(device: number): Variant[] {
  const gpu = onDevice(device);
  const shared = onDevice(device, 'gpu_shared');
  return [
    gpu({ pipeline: 'box3', type: 'u8', channels: 1, boundary: 'clamp' }),
    gpu({ pipeline: 'gauss5', type: 'u8', channels: 3, boundary: 'mirror' }),
    gpu({ pipeline: 'harris', type: 'u8', channels: 3, boundary: 'repeat' }),
    gpu({ pipeline: 'wave', type: 'u8', channels: 1, boundary: 'const' }),
    shared({ pipeline: 'unsharp', type: 'i32', channels: 1, boundary: 'clamp' }),
    shared({ pipeline: 'harris', type: 'u8', channels: 3, boundary: 'mirror' }),
  ];
}

/**
 * The staged pipelines under `gpu_shared`, each boundary mode once: the 16-bit Gaussian, the
 * i32 one inside unsharp, Harris on colour (two stages, one nested in the other's blocks) and
 * on gray f32.
 */
export function sharedPipelines(device: number): Variant[] {
  const shared = onDevice(device, 'gpu_shared');
  return [
    shared({ pipeline: 'gauss5', type: 'u8', channels: 3, boundary: 'clamp' }),
    shared({ pipeline: 'unsharp', type: 'i32', channels: 2, boundary: 'mirror' }),
    shared({ pipeline: 'harris', type: 'u8', channels: 3, boundary: 'repeat' }),
    shared({ pipeline: 'harris', type: 'f32', channels: 1, boundary: 'const' }),
  ];
}

/** The variants the large image runs through: under `gpu` each pipeline once, in a mode that changes from pipeline to pipeline; every `gpu_shared` one. */
export function runsLarge(v: Variant): boolean {
  return v.schedule === 'gpu_shared' || BOUNDARIES.indexOf(v.boundary) === GPU_PIPELINES.indexOf(v.pipeline) % BOUNDARIES.length;
}

/** Compiling 16 GPU kernels (4 modules) cold on a busy 2-core machine. */
const COMPILE_TIMEOUT = 600_000;

/**
 * The tests of `variants` on OpenCL device 0 (PoCL's CPU device on a machine without a GPU):
 * compiled once, each checked against the reference at GPU_SIZES and, where runsLarge, at
 * LARGE; skipped with the reason where there is no OpenCL device. `more` adds tests on
 * the same kernels.
 */
export function describeOnOpenCL(title: string, variants: readonly Variant[], missing: string | null, more?: (kernels: () => KernelSet) => void): void {
  describe.skipIf(missing !== null)(`${title}${missing ? ` (skipped: ${missing})` : ''}`, () => {
    let kernels: KernelSet;
    beforeAll(async () => {
      kernels = await compileKernels(variants);
    }, COMPILE_TIMEOUT);

    it.each(variants.map((v) => [variantLabel(v), v] as const))('%s matches the reference', (_name, v) => {
      for (const [w, h] of GPU_SIZES) checkGpuKernel(kernels, v, w, h);
      if (runsLarge(v)) checkGpuKernel(kernels, v, ...LARGE);
    });

    more?.(() => kernels);
  });
}

export function variantLabel(v: Variant): string {
  return `${v.pipeline} ${v.type}×${v.channels} ${v.schedule} ${v.boundary}`;
}

/** Runs the variant's kernel on a random w × h image and compares with the reference. */
export function checkGpuKernel(kernels: KernelSet, v: Variant, w: number, h: number): void {
  const label = `${variantLabel(v)} ${w}×${h} on device ${v.device}`;
  const kernel = kernels.kernel(v);
  if (v.pipeline === 'harris') {
    const img = randomImage(v.type, w, h, v.channels, w * 17 + h);
    expectCloseImage(kernel.run(img, { outside: GRAY_OUTSIDE }), referenceHarris(img, v.boundary, GRAY_OUTSIDE), label);
  } else {
    const img = randomImage(v.type, w, h, v.channels, w * 131 + h);
    expectSameImage(kernel.run(img, { outside: OUTSIDE }), referenceInteger(v.pipeline, img, v.boundary, OUTSIDE, v.iter), label);
  }
}

/** null when `request` (cuda, opencl) names a device the gpu schedule can run on, else the line saying why not. */
export function deviceMissing(request: string): Promise<string | null> {
  return pickGpuDevice(request).then(
    () => null,
    (e: Error) => e.message,
  );
}
