// What the native GPU tests share: the variants they compile for a device, and the check
// of one kernel against the TypeScript reference (bit-exact for the integer pipelines, to
// float rounding for Harris).
import { pickGpuDevice } from '../../libs/image/device.ts';
import type { KernelSet } from '../../libs/image/host.ts';
import { BOUNDARIES, type Variant } from '../../libs/image/variants.ts';
import { referenceHarris, referenceInteger } from './reference.ts';
import { expectCloseImage, expectSameImage, randomImage } from './support.ts';

/** A single pixel, and sizes that are no multiple of the 32 × 4 blocks. */
export const GPU_SIZES = [[1, 1], [17, 5], [33, 9]] as const;
export const LARGE = [1023, 769] as const;
const OUTSIDE = 9;
const GRAY_OUTSIDE = 0.25;

const onDevice = (device: number) => (v: Omit<Variant, 'schedule' | 'device'>): Variant => ({ ...v, schedule: 'gpu', device });

/** box3 in every boundary mode, every other pipeline in one (so every mode meets a staged pipeline too): three modules of four. */
export function allPipelines(device: number): Variant[] {
  const gpu = onDevice(device);
  return [
    ...BOUNDARIES.map((boundary) => gpu({ pipeline: 'box3', type: 'u8', channels: 1, boundary })),
    gpu({ pipeline: 'gauss5', type: 'u8', channels: 3, boundary: 'clamp' }),
    gpu({ pipeline: 'unsharp', type: 'i32', channels: 1, boundary: 'const' }),
    gpu({ pipeline: 'sobel', type: 'i32', channels: 2, boundary: 'mirror' }),
    gpu({ pipeline: 'gradient', type: 'u8', channels: 1, boundary: 'repeat' }),
    gpu({ pipeline: 'harris', type: 'u8', channels: 3, boundary: 'repeat' }),
    gpu({ pipeline: 'harris', type: 'f32', channels: 1, boundary: 'mirror' }),
    gpu({ pipeline: 'heat', type: 'i32', channels: 1, boundary: 'const', iter: 3 }),
    gpu({ pipeline: 'wave', type: 'u8', channels: 3, boundary: 'clamp' }),
  ];
}

/** One module: a single-stage pipeline, the 16-bit staged Gaussian, staged Harris and wave's f64 sine (libdevice on NVVM). */
export function fourPipelines(device: number): Variant[] {
  const gpu = onDevice(device);
  return [
    gpu({ pipeline: 'box3', type: 'u8', channels: 1, boundary: 'clamp' }),
    gpu({ pipeline: 'gauss5', type: 'u8', channels: 3, boundary: 'mirror' }),
    gpu({ pipeline: 'harris', type: 'u8', channels: 3, boundary: 'repeat' }),
    gpu({ pipeline: 'wave', type: 'u8', channels: 1, boundary: 'const' }),
  ];
}

/** The variants the large image runs through: a single-stage one and a staged, float one. */
export function runsLarge(v: Variant): boolean {
  return (v.pipeline === 'box3' && v.boundary === 'mirror') || (v.pipeline === 'harris' && v.type === 'u8');
}

export function variantLabel(v: Variant): string {
  return `${v.pipeline} ${v.type}×${v.channels} ${v.boundary}`;
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
