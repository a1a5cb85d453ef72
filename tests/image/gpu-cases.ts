// What the native GPU tests share: the variants they compile for a device, and the check
// of one kernel at every size, 1023 × 769 included, against the TypeScript reference, and
// for Harris also against the CPU `opt` schedule's kernel of the same variant (compiled
// beside it): bit-exact for the integer pipelines, to 1e-5 relative for Harris's f32
// (expectF32Close says why).
//
// Why `opt` is compared directly only for Harris: the integer reference is exact, and
// pipelines.test.ts, box3.test.ts and effects.test.ts hold `opt` to it bit for bit in every
// boundary mode at 1023 × 769, so a GPU kernel equal to the reference is equal to `opt`;
// for f32 agreement within a bound is not transitive. Compiling an `opt` twin costs about
// what the GPU variant costs (the partial evaluator and clang; measured by
// `impala --time-passes`), so twins of all 36 variants would double these files' compile
// time, while the reference at 1023 × 769 takes about a second of CPU per variant.
import { beforeAll, describe, expect, it } from 'vitest';
import { pickGpuDevice } from '../../libs/shared/device.ts';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import type { Image } from '../../libs/image/image.ts';
import { BOUNDARIES, GPU_SCHEDULES, isFloatPipeline, type Pipeline, type Variant } from '../../libs/image/variants.ts';
import { referenceHarris, referenceInteger } from './reference.ts';
import { expectSameImage, randomImage } from './support.ts';

/** A single pixel, sizes that are no multiple of the 32 × 4 blocks, and the large image of the issue's acceptance. */
export const GPU_SIZES = [[1, 1], [17, 5], [33, 9], [1023, 769]] as const;
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

/** The CPU kernel a GPU variant must agree with: `opt` on the same pipeline, element type, channels, boundary mode and frame. */
export function optTwin(v: Variant): Variant {
  const { device: _device, ...cpu } = v;
  return { ...cpu, schedule: 'opt' };
}

/** `variants` and the `opt` twins of the f32 ones (Harris), which checkGpuKernel compares with `opt`, for one compileKernels. */
export function withOptTwins(variants: readonly Variant[]): Variant[] {
  return [...variants, ...variants.filter((v) => isFloatPipeline(v.pipeline)).map(optTwin)];
}

/** Compiling 16 GPU kernels and up to 4 `opt` twins (at most 5 modules) cold on a busy 2-core machine. */
export const COMPILE_TIMEOUT = 900_000;
/** One variant's runs, PoCL building its kernels on their first launch included. */
export const RUN_TIMEOUT = 300_000;

/**
 * The tests of `variants` on OpenCL device 0 (PoCL's CPU device on a machine without a GPU):
 * compiled once with their `opt` twins, each checked by checkGpuVariant; skipped with the
 * reason where there is no OpenCL device. `more` adds tests on the same kernels.
 */
export function describeOnOpenCL(title: string, variants: readonly Variant[], missing: string | null, more?: (kernels: () => KernelSet) => void): void {
  describe.skipIf(missing !== null)(`${title}${missing ? ` (skipped: ${missing})` : ''}`, () => {
    let kernels: KernelSet;
    beforeAll(async () => {
      kernels = await compileKernels(withOptTwins(variants));
    }, COMPILE_TIMEOUT);

    // PoCL compiles each kernel on its first launch, inside the test: minutes on a busy machine.
    it.each(variants.map((v) => [variantLabel(v), v] as const))('%s matches the reference (and Harris opt)', (_name, v) => checkGpuVariant(kernels, v), RUN_TIMEOUT);

    more?.(() => kernels);
  });
}

export function variantLabel(v: Variant): string {
  return `${v.pipeline} ${v.type}×${v.channels} ${v.schedule} ${v.boundary}`;
}

/** checkGpuKernel at every size of GPU_SIZES. */
export function checkGpuVariant(kernels: KernelSet, v: Variant): void {
  for (const [w, h] of GPU_SIZES) checkGpuKernel(kernels, v, w, h);
}

/**
 * Runs the variant's kernel on a random w × h image and compares it with the TypeScript
 * reference and, for Harris, with what its `opt` twin (compiled in the same set by
 * withOptTwins) computes on the CPU.
 */
export function checkGpuKernel(kernels: KernelSet, v: Variant, w: number, h: number): void {
  const label = `${variantLabel(v)} ${w}×${h} on device ${v.device}`;
  if (v.pipeline === 'harris') {
    const img = randomImage(v.type, w, h, v.channels, w * 17 + h);
    const out = kernels.kernel(v).run(img, { outside: GRAY_OUTSIDE });
    expectF32Close(out, referenceHarris(img, v.boundary, GRAY_OUTSIDE), `${label} against the reference`);
    expectF32Close(out, kernels.kernel(optTwin(v)).run(img, { outside: GRAY_OUTSIDE }), `${label} against opt`);
  } else {
    const img = randomImage(v.type, w, h, v.channels, w * 131 + h);
    expectSameImage(kernels.kernel(v).run(img, { outside: OUTSIDE }), referenceInteger(v.pipeline, img, v.boundary, OUTSIDE, v.iter), label);
  }
}

/** The smallest normal f32, 2⁻¹²⁶. */
const F32_MIN_NORMAL = 2 ** -126;

/**
 * f32 images that agree to 1e-5 relative, element by element (the issue's bound), with no
 * other slack than the smallest normal f32 in absolute terms, for a device that flushes
 * denormal results to zero. The GPU kernels compute the same f32 operations in the same
 * order as `opt` and the reference (no fma contraction, correctly rounded division and
 * square root: backend/opencl.ts, runtime/opencl.c, NVVM's .rn instructions), so on
 * PoCL they agree exactly; the bound leaves room for a GPU whose float rounding differs in
 * the last bits, and is relative because Harris's responses span many orders of magnitude.
 */
export function expectF32Close(actual: Image, expected: Image, label: string): void {
  expect([actual.width, actual.height, actual.channels, actual.type], label).toEqual([expected.width, expected.height, expected.channels, 'f32']);
  const i = actual.data.findIndex((v, k) => {
    const e = expected.data[k]!;
    return !(Math.abs(v - e) <= 1e-5 * Math.abs(e) + F32_MIN_NORMAL);
  });
  if (i >= 0) {
    const p = Math.floor(i / actual.channels);
    expect.fail(`${label}: element (x ${p % actual.width}, y ${Math.floor(p / actual.width)}) is ${actual.data[i]}, expected ${expected.data[i]} (1e-5 relative)`);
  }
}

/** null when `request` (cuda, opencl) names a device the gpu schedule can run on, else the line saying why not. */
export function deviceMissing(request: string): Promise<string | null> {
  return pickGpuDevice(request).then(
    () => null,
    (e: Error) => e.message,
  );
}
