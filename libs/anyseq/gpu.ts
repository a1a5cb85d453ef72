// The TypeScript side of the GPU schedule (gpu.impala): the entry of each GPU kernel (a
// score pass in one mode, gap model and substitution scheme, for one CUDA or OpenCL
// device), compiled with the library through `compile()` (kernels extracted to NVVM or
// OpenCL C, artifact cache), and the device choice and timings of the runtime
// (libs/shared/device.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compile, type NativeFunction, type SourceFile } from '@anydsl/compiler';
import { deviceRuntime, gpuPlatform, pickDeviceOrHost } from '../shared/device.ts';
import { type AlignParams, check32Range, checkCodes, checkParams, gapExtend, gapOpen, librarySources, type PassResult } from './host.ts';
import type { GapKind, SubstKind } from './kernels.ts';
import type { Mode } from './scoring.ts';

/** The shape of the tiles (gpu.impala's GpuTiles): work items per block, stripes of `block` rows per tile, columns per tile. */
export interface GpuTiles {
  block: number;
  stripes: number;
  tileW: number;
}

/** 64 work items per block, tiles of 256 × 256 cells. */
export const GPU_TILES: GpuTiles = { block: 64, stripes: 4, tileW: 256 };

export interface GpuKernel {
  mode: Mode;
  gaps: GapKind;
  substitution: SubstKind;
  /** The runtime device number: platform (1 CUDA, 2 OpenCL) | index << 4. */
  device: number;
}

function gpuKernelName(k: GpuKernel): string {
  const { platform, index } = gpuPlatform(k.device);
  return `gpu_${k.mode}_${k.gaps}_${k.substitution}_${platform === 1 ? 'cuda' : 'opencl'}${index}`;
}

/** The exported entry of a kernel (signature: gpu.impala's `run_pass_gpu`). */
function gpuEntryFunction(k: GpuKernel, tiles: GpuTiles = GPU_TILES): string {
  const { platform, index, accelerator: acc } = gpuPlatform(k.device);
  if (tiles.block < 1 || (tiles.block & (tiles.block - 1)) !== 0) throw new Error(`the GPU block size must be a power of two, got ${tiles.block}`);
  const name = gpuKernelName(k);
  return [
    `extern fn ${name}(q: &[u8], nq: i32, t: &[u8], nt: i32, scores: &[i32], size: i32, open: i32, ext: i32, out: &mut [i32]) -> () {`,
    `    run_pass_gpu(${acc}, runtime_device(${platform}, ${index}), GpuTiles { block: ${tiles.block}, stripes: ${tiles.stripes}, tile_w: ${tiles.tileW} },`,
    `                 mode_${k.mode}(), GapModel { affine: ${k.gaps === 'affine'}, open: open, ext: ext }, ${k.substitution === 'matrix'},`,
    `                 q, nq, t, nt, scores, size, out)`,
    `}`,
  ].join('\n');
}

/** A compiled GPU kernel: score passes on its device, and the device's times. */
export interface GpuAligner {
  readonly kernel: GpuKernel;
  score(q: Uint8Array, t: Uint8Array, params: AlignParams): PassResult;
  /** What the runtime calls the device (`OpenCL 0: Portable Computing Language, …`). */
  deviceName(): string;
  /** Microseconds spent in kernels so far (all kernels of this library). */
  kernelMicros(): number;
  /** Microseconds spent in copies to and from the device so far. */
  copyMicros(): number;
}

function makeGpuAligner(k: GpuKernel, fn: NativeFunction, libraryPath: string): GpuAligner {
  const runtime = deviceRuntime(libraryPath);
  const out = new Int32Array(4);
  const options = { mode: k.mode, gaps: k.gaps, substitution: k.substitution };
  return {
    kernel: k,
    score(q, t, params) {
      checkParams(options, params);
      checkCodes(q, params.sub, 'the query');
      checkCodes(t, params.sub, 'the target');
      check32Range(q.length, t.length, params);
      fn(q, q.length, t, t.length, params.sub.scores, params.sub.size, gapOpen(params.gaps), gapExtend(params.gaps), out);
      return { score: out[0]!, endQ: out[1]!, endT: out[2]!, width: 32 };
    },
    deviceName: () => runtime.name(k.device),
    kernelMicros: runtime.kernelMicros,
    copyMicros: runtime.copyMicros,
  };
}

/** The library files the GPU schedule builds on: the score arithmetic and the recurrences (not the CPU schedules). */
const GPU_NEEDS = ['libs/anyseq/arith.impala', 'libs/anyseq/scoring.impala'];

/** The module of `kernels`: the arithmetic and recurrences, the GPU schedule and an entry per kernel. */
export function gpuModuleSources(kernels: readonly GpuKernel[], tiles: GpuTiles = GPU_TILES): SourceFile[] {
  const unique = [...new Map(kernels.map((k) => [gpuKernelName(k), k])).values()];
  const gpu = readFileSync(fileURLToPath(new URL('gpu.impala', import.meta.url)), 'utf8');
  const entries = unique.map((k) => gpuEntryFunction(k, tiles)).join('\n\n') + '\n';
  const library = librarySources().filter((f) => GPU_NEEDS.includes(f.path));
  return [...library, { path: 'libs/anyseq/gpu.impala', text: gpu }, { path: 'anyseq_gpu_entry.impala', text: entries }];
}

/** Compiles `kernels` in one module at -O3 (cached); `tiles` other than GPU_TILES for tests of the tiling. */
export async function compileGpuAligners(kernels: readonly GpuKernel[], tiles: GpuTiles = GPU_TILES): Promise<GpuAligner[]> {
  const library = await compile({ sources: gpuModuleSources(kernels, tiles), options: { optLevel: 3 } });
  return kernels.map((k) => makeGpuAligner(k, library.fn(gpuKernelName(k)), library.path));
}

/**
 * The device `--device` names for alignment: 0 for the host (the CPU schedules), else a
 * CUDA or OpenCL device number. `request`: host, auto, cuda or opencl (with an optional
 * `:index`); ANYDSL_DEVICE when omitted, host when that is unset. auto takes the runtime's
 * choice (an NVIDIA GPU, then an OpenCL GPU, then an OpenCL CPU device) and the host where
 * there is none. Throws the one line for the user when cuda or opencl cannot be met.
 */
export async function pickAlignDevice(request?: string): Promise<number> {
  const asked = request ?? (process.env.ANYDSL_DEVICE || 'host');
  const choice = await pickDeviceOrHost(asked, `alignment on the GPU cannot run: device request "${asked}"`);
  return choice.kind === 'gpu' ? choice.device : 0;
}
