// The device runtime as the image host sees it: which device the `gpu` schedule runs on
// (the runtime's own choice, runtime/README.md: ANYDSL_DEVICE, auto when unset), the one
// line saying what to install when there is none, and the kernel and copy time of a library. Every
// compiled library links its own copy of the runtime, so these are asked of the library
// whose kernels run (koffi loads the same library again, which shares its state), or
// before anything is compiled, of a library holding nothing but the runtime.
import koffi from 'koffi';
import { compile } from '@anydsl/compiler';

/** The runtime functions of one loaded library. */
export interface DeviceRuntime {
  /** null when `request` can be met, else the one-line reason (what to install). */
  unavailable(request: string): string | null;
  /** The runtime device number (platform | (index << 4)) a request that can be met names. */
  pick(request: string): number;
  /** `OpenCL 0: Portable Computing Language, …` */
  name(device: number): string;
  /** Microseconds spent in kernels so far, by this library's runtime. */
  kernelMicros(): number;
  /** Microseconds spent in copies to, from and between device buffers so far (kernels they waited for not included). */
  copyMicros(): number;
}

const runtimes = new Map<string, DeviceRuntime>();

/** The runtime linked into the shared library at `path`. */
export function deviceRuntime(path: string): DeviceRuntime {
  let rt = runtimes.get(path);
  if (!rt) {
    const lib = koffi.load(path);
    const unavailable = lib.func('const char* anydsl_device_unavailable(const char* request)');
    const pick = lib.func('int32_t anydsl_device_pick(const char* request)');
    const name = lib.func('const char* anydsl_device_name(int32_t dev)');
    const kernelTime = lib.func('int64_t anydsl_get_kernel_time()');
    const copyTime = lib.func('int64_t anydsl_get_copy_time()');
    rt = {
      unavailable: (request) => unavailable(request) as string | null,
      pick: (request) => pick(request) as number,
      name: (device) => name(device) as string,
      kernelMicros: () => Number(kernelTime()),
      copyMicros: () => Number(copyTime()),
    };
    runtimes.set(path, rt);
  }
  return rt;
}

/** A library with nothing of its own, compiled once through the artifact cache: the runtime to ask before compiling kernels. */
async function probeRuntime(): Promise<DeviceRuntime> {
  const library = await compile({ sources: [{ path: 'image_device_probe.impala', text: 'extern fn image_device_probe() -> i32 { 0 }\n' }] });
  return deviceRuntime(library.path);
}

export interface GpuDevice {
  /** The runtime device number, as a Variant's `device`. */
  device: number;
  /** What the runtime calls it (`OpenCL 0: Portable Computing Language, …`). */
  name: string;
}

/**
 * The device GPU schedules run on for `request` (auto, cuda, opencl, optionally with an
 * index; ANYDSL_DEVICE when omitted, auto when that is unset). Throws the one line for the
 * user when the request cannot be met or there is no CUDA or OpenCL device at all.
 */
export async function pickGpuDevice(request?: string): Promise<GpuDevice> {
  const asked = request ?? (process.env.ANYDSL_DEVICE || 'auto');
  const named = request === undefined ? `ANYDSL_DEVICE=${asked}` : `device request "${asked}"`;
  const rt = await probeRuntime();
  const why = rt.unavailable(asked);
  if (why !== null) throw new Error(`the gpu schedule cannot run: ${named}: ${why.replace(/^device request "[^"]*": /, '')}`);
  const device = rt.pick(asked);
  if (device === 0) {
    if (asked !== 'auto') throw new Error(`the gpu schedule needs a CUDA or OpenCL device, and ${named} names the host`);
    const opencl = (rt.unavailable('opencl') ?? '').replace(/^device request "opencl": /, '');
    throw new Error(`the gpu schedule needs a CUDA or OpenCL device, and there is none (${opencl}; for CUDA, install the NVIDIA driver)`);
  }
  return { device, name: rt.name(device) };
}
