// The device runtime as the libraries' hosts see it: which device GPU work runs on (the
// runtime's own choice, runtime/README.md: ANYDSL_DEVICE, auto when unset), the one line
// saying what to install when there is none, and the kernel and copy time of a library. The
// image library's gpu schedule, the ray tracer's and the aligner's --device all choose here,
// each passing the words of its own refusals. Every compiled library links its own copy of
// the runtime, so these are asked of the library whose kernels run (koffi loads the same
// library again, which shares its state), or before anything is compiled, of a library
// holding nothing but the runtime.
import koffi from 'koffi';
import { compile } from '@anydsl/compiler';
import { checkGpuDeviceNumber, gpuPlatform } from './device-number.ts';

export { checkGpuDeviceNumber, gpuPlatform };

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
  const library = await compile({ sources: [{ path: 'device_probe.impala', text: 'extern fn device_probe() -> i32 { 0 }\n' }] });
  return deviceRuntime(library.path);
}

export interface GpuDevice {
  /** The runtime device number, as a Variant's `device`. */
  device: number;
  /** What the runtime calls it (`OpenCL 0: Portable Computing Language, …`). */
  name: string;
}

/** Where work runs: a CUDA or OpenCL device, or the host's CPU. */
export type DeviceChoice =
  | ({ kind: 'gpu' } & GpuDevice)
  | {
      kind: 'host';
      /** `host CPU`, with why after an `auto` that found no device. */
      name: string;
      /** Why `auto` found no CUDA or OpenCL device (what to install); absent when the request named the host. */
      noGpu?: string;
    };

/** The runtime's reason without the `device request "…": ` it starts with, for callers that name the request their own way. */
function reason(line: string): string {
  return line.replace(/^device request "[^"]*": /, '');
}

/**
 * The device for `request`: auto, cuda, opencl (either optionally with an index, `opencl:1`)
 * or host. `host` (host:0) is the host's CPU, and so is `auto` where there is no CUDA or
 * OpenCL device, its name saying why; `host` is answered without compiling anything. A
 * request the runtime cannot meet throws `${refusal}: ${the runtime's reason}`: the caller
 * says in `refusal` what the device was asked for (`--device cuda`, `the gpu schedule
 * cannot run: ANYDSL_DEVICE=cuda`), the runtime says what is missing and what to install.
 */
export async function pickDeviceOrHost(request: string, refusal: string): Promise<DeviceChoice> {
  if (request === 'host') return { kind: 'host', name: 'host CPU' };
  const rt = await probeRuntime();
  const why = rt.unavailable(request);
  if (why !== null) throw new Error(`${refusal}: ${reason(why)}`);
  const device = rt.pick(request);
  if (device !== 0) return { kind: 'gpu', device, name: rt.name(device) };
  if (request !== 'auto') return { kind: 'host', name: 'host CPU' };
  // auto takes any OpenCL device, so OpenCL's reason is the one to give, CUDA's is the driver.
  const noGpu = `${reason(rt.unavailable('opencl') ?? '')}; for CUDA, install the NVIDIA driver`;
  return { kind: 'host', name: `host CPU (no GPU: ${noGpu})`, noGpu };
}

/**
 * The device GPU schedules run on for `request` (auto, cuda, opencl, optionally with an
 * index; ANYDSL_DEVICE when omitted, auto when that is unset). Throws the one line for the
 * user when the request cannot be met or there is no CUDA or OpenCL device at all.
 */
export async function pickGpuDevice(request?: string): Promise<GpuDevice> {
  const asked = request ?? (process.env.ANYDSL_DEVICE || 'auto');
  const named = request === undefined ? `ANYDSL_DEVICE=${asked}` : `device request "${asked}"`;
  const choice = await pickDeviceOrHost(asked, `the gpu schedule cannot run: ${named}`);
  if (choice.kind === 'gpu') return { device: choice.device, name: choice.name };
  const host = choice.noGpu === undefined ? `${named} names the host` : `there is none (${choice.noGpu})`;
  throw new Error(`the gpu schedule needs a CUDA or OpenCL device, and ${host}`);
}
