// A runtime device number (platform | (index << 4), platform 1 CUDA or 2 OpenCL) checked and
// taken apart. Apart from device.ts, which loads the runtime through koffi and the compiler,
// so that the libraries' variant descriptions (pure data) can check a number without them.

/** Throws the line for a user when `device` is no CUDA or OpenCL runtime device number (platform | (index << 4), platform 1 or 2). */
export function checkGpuDeviceNumber(device: number): void {
  const platform = device & 15;
  if (!Number.isInteger(device) || device < 0 || device >= 2 ** 31 || (platform !== 1 && platform !== 2)) {
    throw new Error(`device ${device} is not a CUDA or OpenCL device (platform | (index << 4), platform 1 or 2)`);
  }
}

/**
 * A CUDA or OpenCL runtime device number taken apart: its platform (1 CUDA, 2 OpenCL), its
 * index, and the prelude accelerator that compiles kernels for it (`nvvm_accelerator(0)`,
 * `opencl_accelerator(1)`). Throws checkGpuDeviceNumber's line for any other number.
 */
export function gpuPlatform(device: number): { platform: 1 | 2; index: number; accelerator: string } {
  checkGpuDeviceNumber(device);
  const platform = (device & 15) as 1 | 2;
  const index = device >> 4;
  return { platform, index, accelerator: platform === 1 ? `nvvm_accelerator(${index})` : `opencl_accelerator(${index})` };
}
