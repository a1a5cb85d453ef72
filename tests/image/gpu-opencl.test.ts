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
import { entryFunction, type Variant } from '../../libs/image/variants.ts';
import { allPipelines, checkGpuKernel, deviceMissing, GPU_SIZES, LARGE, runsLarge, variantLabel } from './gpu-cases.ts';
import { randomImage } from './support.ts';

/** OpenCL device 0, as ANYDSL_DEVICE=opencl picks it. */
const VARIANTS = allPipelines(2);
const missing = await deviceMissing('opencl');

describe.skipIf(missing !== null)(`the gpu schedule on OpenCL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let kernels: KernelSet;
  beforeAll(async () => {
    kernels = await compileKernels(VARIANTS);
  });

  it.each(VARIANTS.map((v) => [variantLabel(v), v] as const))('%s matches the reference', (_name, v) => {
    for (const [w, h] of GPU_SIZES) checkGpuKernel(kernels, v, w, h);
    if (runsLarge(v)) checkGpuKernel(kernels, v, ...LARGE);
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
