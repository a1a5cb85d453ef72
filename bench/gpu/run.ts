// The GPU benchmark (issue 12): blur (box3), the 5 × 5 Gaussian and Harris of libs/image on
// an NVIDIA GPU under both GPU schedules (`gpu`: stages through device memory; `gpu_shared`:
// stages fused per block in shared memory), against Halide 14's CUDA target on the same GPU
// and the same input (halide_cuda.cpp: the algorithms of bench/image's Halide generator with
// GPU schedules in the style of Halide's apps). u8 images of 3 channels, clamp boundary.
//
// Prints per pipeline the medians of two times: kernels (ours: the device time of the kernels,
// CUDA events; Halide: the pipeline on an input already on the GPU up to a device sync) and
// end to end (the input copied to the GPU, the pipeline, the output copied back, as an app
// sees it), the ratio Halide / ours of each (> 1: ours is faster), ours' copies apart, and
// whether the outputs agree (bit for bit for u8, 1e-5 of the output's scale for Harris' f32).
//
// Where there is no NVIDIA GPU (no libcuda.so.1, or no CUDA device) it prints one line saying
// so and exits 0. `--build` builds everything the run needs without a GPU: the Halide objects
// and their driver (needing nothing but the NVIDIA driver where they run) and our CUDA kernels
// (PTX, checked by ptxas where it is installed).
//
//   npm run bench:gpu -- [--size 3840x2160] [--runs 30] [--build]
//
//   --size WxH   the input image (default 3840x2160), u8 with 3 channels, random pixels
//   --runs N     timed runs after a warm-up (default 30), medians reported
//   --build      build the Halide CUDA objects, their driver and our CUDA kernels, then stop
//                (no GPU needed)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../../libs/image/bench.ts';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { type Image, makeImage, randomImage } from '../../libs/image/image.ts';
import type { Variant } from '../../libs/image/variants.ts';
import { pickDeviceOrHost } from '../../libs/shared/device.ts';
import { benchArgs, benchFail, runBench } from '../shared/cli.ts';
import { byFile, cacheDir, exec, GXX, gxx, installMissing } from '../shared/native.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const HALIDE_INCLUDE = '/usr/include/halide14';
const PIPELINES = ['box3', 'gauss5', 'harris'] as const;
type BenchPipeline = (typeof PIPELINES)[number];
const SCHEDULES = ['gpu', 'gpu_shared'] as const;
const CHANNELS = 3;
/** CUDA device 0 as the runtime numbers it (platform 1 | index 0 << 4). */
const CUDA_0 = 1;

const cli = benchArgs(import.meta.url, {
  size: { type: 'string', default: '3840x2160' },
  runs: { type: 'string', default: '30' },
  build: { type: 'boolean', default: false },
});
const size = /^(\d+)x(\d+)$/.exec(cli.size!);
const [width, height] = [Number(size?.[1]), Number(size?.[2])];
if (!size || width < 1 || height < 1) benchFail(import.meta.url, `--size must be WxH with positive numbers, not '${cli.size}'`);
const runs = Number(cli.runs);
if (!/^\d+$/.test(cli.runs!) || runs < 1) benchFail(import.meta.url, `--runs must be a positive integer, not '${cli.runs}'`);

interface Times {
  kernels: number[];
  endToEnd: number[];
  /** Ours only: the copies in and out (the runtime's copy time). */
  copies?: number[];
}

async function main(): Promise<number> {
  if (!cli.build) {
    const missing = await cudaMissing();
    if (missing !== null) {
      console.log(`bench:gpu: ${missing}`);
      return 0;
    }
  }
  const halide = await buildHalide();
  if (!halide) return 1;
  console.log('compiling our kernels for CUDA (PTX checked by ptxas where present)');
  const variants = PIPELINES.flatMap((pipeline) => SCHEDULES.map((schedule) => variant(pipeline, schedule)));
  const kernels = await compileKernels(variants);
  if (cli.build) {
    console.log(`built: the Halide reference ${halide} and our kernels for ${variants.length} variants`);
    return 0;
  }
  // Pixels from a fixed seed, the same every run.
  const input = randomImage('u8', width, height, CHANNELS, 1);
  console.log(`device: ${kernels.kernel(variants[0]!).gpu!.deviceName()}; ${width}×${height} u8 ×${CHANNELS}, clamp boundary, medians of ${runs} runs after a warm-up`);
  const rows: string[][] = [];
  for (const pipeline of PIPELINES) {
    const ref = await runHalide(halide, pipeline, input, runs);
    const ours = SCHEDULES.map((schedule) => runOurs(kernels, variant(pipeline, schedule), input, runs));
    for (const [i, schedule] of SCHEDULES.entries()) {
      const o = ours[i]!;
      rows.push([
        pipeline,
        schedule,
        ms(o.times.kernels),
        ms(o.times.copies!),
        ms(o.times.endToEnd),
        ms(ref.times.kernels),
        ms(ref.times.endToEnd),
        ratio(ref.times.kernels, o.times.kernels),
        ratio(ref.times.endToEnd, o.times.endToEnd),
        agreement(o.output, ref.output),
      ]);
    }
  }
  printTable(['pipeline', 'ours', 'ours kernels ms', 'ours copies ms', 'ours end to end ms', 'Halide kernels ms', 'Halide end to end ms', 'kernels Halide/ours', 'end to end Halide/ours', 'outputs'], rows);
  return 0;
}

/** null where a CUDA device is there, else the line saying there is nothing to measure and why (no libcuda.so.1, no device). */
async function cudaMissing(): Promise<string | null> {
  return pickDeviceOrHost('cuda', 'nothing to measure without an NVIDIA GPU').then(
    () => null,
    (e: Error) => e.message,
  );
}

function variant(pipeline: BenchPipeline, schedule: (typeof SCHEDULES)[number]): Variant {
  return { pipeline, schedule, boundary: 'clamp', type: 'u8', channels: CHANNELS, device: CUDA_0 };
}

/** The Halide generator, its objects and the driver linking them, built once per source and Halide version; null after saying why not. */
async function buildHalide(): Promise<string | null> {
  const missing = await installMissing('bench:gpu', [GXX, byFile('libhalide14-0-dev', path.join(HALIDE_INCLUDE, 'Halide.h'))]);
  if (missing.length) {
    console.error(`bench:gpu: the Halide reference needs ${missing.join(' ')}`);
    return null;
  }
  const sources = ['halide_cuda.cpp', '../image/halide_pipelines.cpp', 'halide_cuda_driver.cpp', '../image/driver_common.h'].map((f) => path.join(here, f));
  const version = (await exec('dpkg-query', ['-W', '-f', '${Version}', 'libhalide14-0-dev'])).stdout;
  const dir = await cacheDir('gpu/halide-cuda', sources, version);
  const driver = path.join(dir, 'halide_cuda_driver');
  if (existsSync(driver)) return driver;
  console.log('building the Halide CUDA reference (a few minutes, cached afterwards)');
  const flags = ['-std=c++17', '-O2', `-I${HALIDE_INCLUDE}`];
  const generator = await gxx(dir, 'halide_cuda', [...flags, sources[0]!, '-lHalide14', '-lpthread', '-ldl']);
  const objects = path.join(dir, 'objects');
  if (!existsSync(path.join(objects, 'halide_runtime.o'))) {
    await exec('mkdir', ['-p', objects]);
    const r = await exec(generator, [objects]);
    if (!r.ok) {
      console.error(`bench:gpu: the Halide CUDA generator failed: ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
      return null;
    }
  }
  const archives = [...PIPELINES.map((p) => path.join(objects, `${p}.a`)), path.join(objects, 'halide_runtime.o')];
  return gxx(dir, 'halide_cuda_driver', [...flags, `-I${path.join(here, '..', 'image')}`, `-I${objects}`, sources[2]!, ...archives, '-lpthread', '-ldl']);
}

function outputFor(pipeline: BenchPipeline, input: Image): Image {
  return pipeline === 'harris' ? makeImage('f32', input.width, input.height, 1) : makeImage('u8', input.width, input.height, CHANNELS);
}

/** Ours: kernels and copies from the runtime's timers, end to end around the call. */
function runOurs(kernels: KernelSet, v: Variant, input: Image, runs: number): { times: Times; output: Image } {
  const kernel = kernels.kernel(v);
  const output = outputFor(v.pipeline as BenchPipeline, input);
  const gpu = kernel.gpu!;
  kernel.run(input, { output });
  const times: Times = { kernels: [], endToEnd: [], copies: [] };
  for (let i = 0; i < runs; i++) {
    const [kernelsBefore, copiesBefore] = [gpu.kernelMicros(), gpu.copyMicros()];
    const start = performance.now();
    kernel.run(input, { output });
    times.endToEnd.push(performance.now() - start);
    times.kernels.push((gpu.kernelMicros() - kernelsBefore) / 1000);
    times.copies!.push((gpu.copyMicros() - copiesBefore) / 1000);
  }
  return { times, output };
}

async function runHalide(driver: string, pipeline: BenchPipeline, input: Image, runs: number): Promise<{ times: Times; output: Image }> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bench-gpu-'));
  try {
    const [inFile, outFile] = [path.join(tmp, 'in.raw'), path.join(tmp, 'out.raw')];
    await writeFile(inFile, input.data);
    const r = await exec(driver, [pipeline, String(input.width), String(input.height), String(runs), inFile, outFile]);
    if (!r.ok) throw new Error(`the Halide CUDA driver failed on ${pipeline}: ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
    const json = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { ms?: number[]; kernel_ms?: number[] });
    const output = outputFor(pipeline, input);
    new Uint8Array(output.data.buffer).set((await readFile(outFile)).subarray(0, output.data.byteLength));
    return { times: { endToEnd: json.find((j) => j.ms)?.ms ?? [], kernels: json.find((j) => j.kernel_ms)?.kernel_ms ?? [] }, output };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** "same" when the outputs agree (bit for bit for integers, 1e-5 of the scale for f32), else how far apart they are. */
function agreement(ours: Image, ref: Image): string {
  let scale = 0;
  for (const v of ref.data) scale = Math.max(scale, Math.abs(v));
  let worst = 0;
  let differing = 0;
  for (let i = 0; i < ours.data.length; i++) {
    const d = Math.abs(ours.data[i]! - ref.data[i]!);
    if (d > 0) differing++;
    worst = Math.max(worst, d);
  }
  if (ours.type === 'f32') return worst <= 1e-5 * scale ? 'same (1e-5)' : `DIFFER: max ${(worst / scale).toExponential(1)} of the scale`;
  return differing === 0 ? 'same' : `DIFFER: ${differing} values, max ${worst}`;
}

const ms = (xs: readonly number[]): string => median(xs).toFixed(3);
const ratio = (ref: readonly number[], ours: readonly number[]): string => `${(median(ref) / median(ours)).toFixed(2)}×`;

function printTable(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (c: string[]): string => `| ${c.map((s, i) => s.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

await runBench(import.meta.url, main);
