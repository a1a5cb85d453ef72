// The `gpu` schedule natively on OpenCL (PoCL's CPU device on a machine without a GPU),
// part 1: box3, gauss5, sobel and unsharp in every boundary mode (harris, gradient, heat and
// wave are in gpu-opencl-effects.test.ts, `gpu_shared` in gpu-shared.test.ts: three files
// that compile in parallel). Compiled through the host as the apps compile them (kernels
// extracted to OpenCL C, images copied to device buffers once, temporaries of staged
// pipelines in device memory), against the TypeScript reference at a single pixel, sizes
// that are no multiple of the 32 × 4 blocks and 1023 × 769, bit-exact (Harris, in
// gpu-opencl-effects.test.ts, to 1e-5 relative and against the CPU `opt` kernel too:
// gpu-cases.ts says why). Each pipeline takes its element types in turn over the modes.
// Compiling the kernels (and PoCL building each kernel on its first launch) is what this
// file's time goes to.
import { describe, expect, it } from 'vitest';
import { pickGpuDevice } from '../../libs/shared/device.ts';
import { entryFunction, type Variant } from '../../libs/image/variants.ts';
import { describeOnOpenCL, deviceMissing, everyMode } from './gpu-cases.ts';
import { randomImage } from './support.ts';

/** OpenCL device 0, as ANYDSL_DEVICE=opencl picks it. */
const OPENCL_0 = 2;
const missing = await deviceMissing('opencl');

const VARIANTS = everyMode(OPENCL_0, ['box3', 'gauss5', 'sobel', 'unsharp']);

describeOnOpenCL('the gpu schedule on OpenCL', VARIANTS, missing, (kernels) => {
  it('reports the device and the time its kernels and copies took, which grows with each run', () => {
    const kernel = kernels().kernel(VARIANTS[0]!);
    expect(kernel.gpu!.deviceName()).toMatch(/^OpenCL 0: /);
    const [kernelsBefore, copiesBefore] = [kernel.gpu!.kernelMicros(), kernel.gpu!.copyMicros()];
    kernel.run(randomImage(VARIANTS[0]!.type, 300, 200, VARIANTS[0]!.channels, 5));
    expect(kernel.gpu!.kernelMicros()).toBeGreaterThan(kernelsBefore);
    expect(kernel.gpu!.copyMicros()).toBeGreaterThan(copiesBefore);
  });
});

describe('GPU variants', () => {
  const box3: Variant = { pipeline: 'box3', type: 'u8', channels: 1, schedule: 'gpu', boundary: 'clamp' };

  it('compile for the platform of their device, OpenCL 0 unless told', () => {
    expect(entryFunction(box3)).toContain('gpu_stages(2, 0, 32, 4)');
    expect(entryFunction({ ...box3, device: 18 })).toContain('gpu_stages(2, 1, 32, 4)');
    expect(entryFunction({ ...box3, device: 1 })).toContain('gpu_stages(1, 0, 32, 4)');
    expect(entryFunction({ ...box3, device: 1 })).toContain('with_device_images[u8, u8](1, inp, w * h * 1, out, w * h * 1,');
    expect(entryFunction({ ...box3, schedule: 'gpu_shared', device: 18 })).toContain('gpu_shared_stages(2, 1, 32, 8)');
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
