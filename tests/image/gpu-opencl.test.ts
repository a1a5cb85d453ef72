// The `gpu` schedule natively on OpenCL (PoCL's CPU device on a machine without a GPU):
// every pipeline of the image library, compiled through the host as the apps compile it
// (kernels extracted to OpenCL C, images copied to device buffers once, temporaries of
// staged pipelines in device memory), against the TypeScript reference at a single pixel,
// sizes that are no multiple of the 32 × 4 blocks, and a large image for two pipelines:
// bit-exact for the integer pipelines, to float rounding for Harris. box3 goes through
// every boundary mode and every other pipeline through one, so every mode meets a staged
// pipeline too; compiling the kernels is what this file's time goes to.
import { beforeAll, describe, expect, it } from 'vitest';
import { pickGpuDevice } from '../../libs/image/device.ts';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { BOUNDARIES, entryFunction, type Variant } from '../../libs/image/variants.ts';
import { referenceHarris, referenceInteger } from './reference.ts';
import { expectCloseImage, expectSameImage, randomImage } from './support.ts';

/** OpenCL device 0, as ANYDSL_DEVICE=opencl picks it. */
const OPENCL = 2;
const SIZES = [[1, 1], [17, 5], [33, 9]] as const;
const LARGE = [1023, 769] as const;
const OUTSIDE = 9;
const GRAY_OUTSIDE = 0.25;

const gpu = (v: Omit<Variant, 'schedule' | 'device'>): Variant => ({ ...v, schedule: 'gpu', device: OPENCL });

/** Three modules of four kernels each (the host's grouping), every pipeline and mode. */
const VARIANTS: readonly Variant[] = [
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

/** The variants the large image runs through: a single-stage one and a staged, float one. */
const large = (v: Variant): boolean => (v.pipeline === 'box3' && v.boundary === 'mirror') || (v.pipeline === 'harris' && v.type === 'u8');

const missing = await pickGpuDevice('opencl').then(
  () => null,
  (e: Error) => e.message,
);

describe.skipIf(missing !== null)(`the gpu schedule on OpenCL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let kernels: KernelSet;
  beforeAll(async () => {
    kernels = await compileKernels(VARIANTS);
  });

  function check(v: Variant, w: number, h: number): void {
    const label = `${v.pipeline} ${v.type}×${v.channels} ${v.boundary} ${w}×${h}`;
    const kernel = kernels.kernel(v);
    if (v.pipeline === 'harris') {
      const img = randomImage(v.type, w, h, v.channels, w * 17 + h);
      expectCloseImage(kernel.run(img, { outside: GRAY_OUTSIDE }), referenceHarris(img, v.boundary, GRAY_OUTSIDE), label);
    } else {
      const img = randomImage(v.type, w, h, v.channels, w * 131 + h);
      expectSameImage(kernel.run(img, { outside: OUTSIDE }), referenceInteger(v.pipeline, img, v.boundary, OUTSIDE, v.iter), label);
    }
  }

  it.each(VARIANTS.map((v) => [`${v.pipeline} ${v.type}×${v.channels} ${v.boundary}`, v] as const))('%s matches the reference', (_name, v) => {
    for (const [w, h] of SIZES) check(v, w, h);
    if (large(v)) check(v, ...LARGE);
  });

  it('reports the device and the time its kernels ran, which grows with each run', () => {
    const kernel = kernels.kernel(VARIANTS[0]!);
    expect(kernel.gpu!.deviceName()).toMatch(/^OpenCL 0: /);
    const before = kernel.gpu!.kernelMicros();
    kernel.run(randomImage('u8', 300, 200, 1, 5));
    expect(kernel.gpu!.kernelMicros()).toBeGreaterThan(before);
  });
});

describe('GPU variants', () => {
  const box3: Variant = { pipeline: 'box3', type: 'u8', channels: 1, schedule: 'gpu', boundary: 'clamp' };

  it('compile for the platform of their device, OpenCL 0 unless told', () => {
    expect(entryFunction(box3)).toContain('gpu_stages(2, 0, 32, 4)');
    expect(entryFunction({ ...box3, device: 18 })).toContain('gpu_stages(2, 1, 32, 4)');
    expect(entryFunction({ ...box3, device: 1 })).toContain('gpu_stages(1, 0, 32, 4)');
    expect(entryFunction({ ...box3, device: 1 })).toContain('with_device_images[u8, u8](1, inp, w * h * 1, out, w * h * 1,');
  });

  it('take a CUDA or OpenCL device, and only with a GPU schedule', () => {
    expect(() => entryFunction({ ...box3, device: 0 })).toThrow(/^device 0 is not a CUDA or OpenCL device/);
    expect(() => entryFunction({ ...box3, device: 19 })).toThrow(/^device 19 is not a CUDA or OpenCL device/);
    expect(() => entryFunction({ ...box3, schedule: 'opt', device: 2 })).toThrow(/^only GPU schedules run on a device, not opt$/);
  });

  it('refuse a request for a device that is not there, in one line', async () => {
    await expect(pickGpuDevice('host')).rejects.toThrow(/^the gpu schedule needs a CUDA or OpenCL device, and device request "host" names the host$/);
    await expect(pickGpuDevice('opencl:9')).rejects.toThrow(/^the gpu schedule cannot run: device request "opencl:9": /);
    await expect(pickGpuDevice('gpu')).rejects.toThrow(/^the gpu schedule cannot run: device request "gpu": expected auto, cuda, opencl or host/);
  });
});
