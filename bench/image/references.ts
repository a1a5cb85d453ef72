// The libraries libs/image is measured against (Halide 14, OpenCV 4.6, sharp/libvips), what
// each reproduces exactly, and the one implementation of building them, running them on an
// image and comparing outputs, shared by bench/image/run.ts and the apps' --compare.
//
// The C++ references are built from the sources next to this file against the Debian
// packages (never installed from here: a missing one is an error that names it) and cached
// under .cache/bench/image/<reference>-<hash of sources, compiler, CPU>.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { median, timeEach } from '../../libs/image/bench.ts';
import { type Image, makeImage } from '../../libs/image/image.ts';
import type { Boundary, ElementType, Pipeline } from '../../libs/image/variants.ts';
import { byFile, cacheDir, type DebianPackage, exec, GXX, gxx as buildWithGxx, missingPackages, notInstalled } from '../shared/native.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

export const REFERENCES = ['halide', 'opencv', 'sharp'] as const;
export type ReferenceName = (typeof REFERENCES)[number];

export const REFERENCE_TITLES: Record<ReferenceName, string> = {
  halide: 'Halide 14',
  opencv: 'OpenCV 4.6',
  sharp: 'sharp (libvips)',
};

/** One kernel of a reference that computes a libs/image pipeline exactly (clamp boundary). */
export interface ReferenceKernel {
  reference: ReferenceName;
  /** The name its driver knows it by. */
  kernel: string;
  pipeline: Pipeline;
  /** The element type it computes on; Harris takes the f32 gray image. */
  type: ElementType;
  /** How the reference computes it. */
  schedule: string;
}

const HALIDE_TILES = '512 × 32 tiles, 16-lane vectorize, rows of tiles in parallel';

/** The first kernel of a reference for a pipeline and type is the one --compare runs. */
export const REFERENCE_KERNELS: readonly ReferenceKernel[] = [
  { reference: 'halide', kernel: 'box3', pipeline: 'box3', type: 'i32', schedule: `blur_x inlined, ${HALIDE_TILES}` },
  { reference: 'halide', kernel: 'harris_tiled', pipeline: 'harris', type: 'f32', schedule: `${HALIDE_TILES}; products compute_at each tile (on the tile grown by 1 px)` },
  { reference: 'halide', kernel: 'harris_root', pipeline: 'harris', type: 'f32', schedule: `products compute_root; both stages in ${HALIDE_TILES}` },
  { reference: 'halide', kernel: 'harris_fused', pipeline: 'harris', type: 'f32', schedule: "Halide's apps/harris CPU schedule: 32-row strips in parallel, products store_at the strip and compute_at each row (sliding window)" },
  { reference: 'opencv', kernel: 'gauss5', pipeline: 'gauss5', type: 'u8', schedule: 'cv::GaussianBlur 5×5, σ = 0 (separable, fixed point, SIMD, parallel_for_)' },
  { reference: 'opencv', kernel: 'unsharp', pipeline: 'unsharp', type: 'u8', schedule: 'cv::GaussianBlur 5×5 then cv::addWeighted(in, 2, blurred, −1)' },
  { reference: 'opencv', kernel: 'sobel', pipeline: 'sobel', type: 'u8', schedule: 'two 16-bit cv::Sobel, cv::absdiff, saturating cv::add' },
  // libvips' integer convolution divides by the scale rounding down, which is ours' `/ 3` on
  // values ≥ 0; gauss5 rounds to nearest ((Σ + 128) / 256), which sharp's integer-only
  // offset, added after the division, cannot express.
  { reference: 'sharp', kernel: 'box3', pipeline: 'box3', type: 'u8', schedule: 'two sharp convolve passes (1 1 1 across, then down, scale 3)' },
];

/** "box3 on i32 and harris on f32": what `reference` reproduces. */
export function supportedBy(reference: ReferenceName): string {
  const byType = new Map<ElementType, Set<Pipeline>>();
  for (const k of REFERENCE_KERNELS.filter((k) => k.reference === reference)) byType.set(k.type, (byType.get(k.type) ?? new Set()).add(k.pipeline));
  return [...byType].map(([type, pipelines]) => `${[...pipelines].join(', ')} on ${type}`).join(' and ');
}

/** The kernel of `reference` that computes `pipeline` on `type` exactly; a one-line error naming what it supports otherwise. */
export function referenceKernel(reference: ReferenceName, pipeline: Pipeline, type: ElementType, boundary: Boundary): ReferenceKernel {
  const kernel = REFERENCE_KERNELS.find((k) => k.reference === reference && k.pipeline === pipeline && k.type === type);
  if (!kernel || boundary !== 'clamp') {
    const what = kernel ? `the ${boundary} boundary` : `${pipeline} on ${type}`;
    throw new Error(`${REFERENCE_TITLES[reference]} cannot reproduce ${what}; it reproduces ${supportedBy(reference)}, with the clamp boundary only`);
  }
  return kernel;
}

// ------------------------------------------------------------ packages

const HALIDE_INCLUDE = '/usr/include/halide14';

const works = async (cmd: string, args: string[]): Promise<boolean> => (await exec(cmd, args)).ok;

const PACKAGES: Record<ReferenceName, DebianPackage[]> = {
  halide: [GXX, byFile('libhalide14-0-dev', path.join(HALIDE_INCLUDE, 'Halide.h'))],
  opencv: [
    GXX,
    { apt: 'pkg-config', present: () => works('pkg-config', ['--version']) },
    { apt: 'libopencv-dev', present: () => works('pkg-config', ['--exists', 'opencv4']) },
  ],
  // An npm dependency of the image library, so present wherever the apps run.
  sharp: [],
};

/** The Debian packages `reference` needs that are not installed. */
export const missingReferencePackages = (reference: ReferenceName): Promise<string[]> => missingPackages(PACKAGES[reference]);

/** The Debian packages of the references `names`. */
export const referencePackages = (names: readonly ReferenceName[]): DebianPackage[] => names.flatMap((n) => PACKAGES[n]);

// ------------------------------------------------------------ building

const CXX_FLAGS = ['-O3', '-std=c++17', `-I${here}`];
const local = (files: readonly string[]): string[] => files.map((f) => path.join(here, f));
const imageCacheDir = (group: string, sources: readonly string[], extra: string) => cacheDir(`image/${group}`, local(sources), extra);
const gxx = (dir: string, exe: string, args: readonly string[]) => buildWithGxx(dir, exe, [...CXX_FLAGS, ...args]);

/** A C++ tool of this directory built (and cached) on its own, e.g. the memory bandwidth probe. */
export async function buildTool(exe: string, source: string, flags: readonly string[] = []): Promise<string> {
  const dir = await imageCacheDir(exe, ['driver_common.h', source], flags.join(' '));
  return gxx(dir, exe, [path.join(here, source), ...flags]);
}

// ------------------------------------------------------------ running

interface PlaneRun {
  times: number[];
  output: Image;
  /** What the reference said about itself (threads, version), if anything. */
  log: string;
}

interface Prepared {
  /** The reference as the notes name it: version, target, threads. */
  about: string;
  /** Runs `kernel` on a one-channel image `runs` times after a warm-up. */
  run(kernel: string, plane: Image, runs: number, onRun?: (done: number) => void): Promise<PlaneRun>;
}

/** Runs a C++ driver (`driver <kernel> <w> <h> <runs> <in> <out>`, times as JSON on stdout) on one plane. */
async function runDriver(exe: string, kernel: string, plane: Image, runs: number, onRun?: (done: number) => void): Promise<PlaneRun> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'image-reference-'));
  try {
    const inFile = path.join(tmp, 'in.raw');
    const outFile = path.join(tmp, 'out.raw');
    await writeFile(inFile, rawBytes(plane));
    // The driver flushes each time as it ends; a number is complete once a separator follows.
    const r = await exec(exe, [kernel, String(plane.width), String(plane.height), String(runs), inFile, outFile], (stdout) => onRun?.((stdout.match(/[\d.]+(?=[,\]])/g) ?? []).length));
    const name = `${path.basename(exe)} ${kernel}`;
    if (!r.ok) throw new Error(`${name} failed: ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
    const json = r.stdout.split('\n').find((l) => l.startsWith('{'));
    if (!json) throw new Error(`${name} printed no times`);
    const output = makeImage(plane.type, plane.width, plane.height, 1);
    new Uint8Array(output.data.buffer).set((await readFile(outFile)).subarray(0, output.data.byteLength));
    return { times: (JSON.parse(json) as { ms: number[] }).ms, output, log: r.stderr.trim().split('\n').join('; ') };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function prepareHalide(onStep?: (step: string) => void): Promise<Prepared> {
  const header = statSync(path.join(HALIDE_INCLUDE, 'Halide.h'));
  const dir = await imageCacheDir('halide', ['driver_common.h', 'halide_pipelines.cpp', 'halide_driver.cpp'], `${header.size}/${header.mtimeMs}`);
  const targetFile = path.join(dir, 'halide_target.txt');
  // Written last, so its presence means the driver is complete.
  if (!existsSync(targetFile)) {
    onStep?.('building the Halide reference kernels (about a minute, cached afterwards)');
    const generator = await gxx(dir, 'halide_pipelines', [`-I${HALIDE_INCLUDE}`, path.join(here, 'halide_pipelines.cpp'), '-lHalide14', '-lpthread', '-ldl']);
    const gen = await mkdtemp(path.join(dir, 'generated-'));
    try {
      const r = await exec(generator, [gen]);
      if (!r.ok) {
        await writeFile(`${generator}.log`, r.stdout + r.stderr);
        throw new Error(`the Halide generator failed; its output is in ${path.relative(process.cwd(), `${generator}.log`)}`);
      }
      const libs = ['box3', 'harris_tiled', 'harris_root', 'harris_fused'].map((k) => path.join(gen, `halide_${k}.a`));
      await gxx(dir, 'halide_driver', [`-I${HALIDE_INCLUDE}`, `-I${gen}`, path.join(here, 'halide_driver.cpp'), ...libs, '-lpthread', '-ldl']);
      await writeFile(`${targetFile}.${process.pid}`, r.stdout.trim());
      await rename(`${targetFile}.${process.pid}`, targetFile);
    } finally {
      await rm(gen, { recursive: true, force: true });
    }
  }
  const driver = path.join(dir, 'halide_driver');
  return {
    about: `Halide 14, target ${readFileSync(targetFile, 'utf8')}`,
    run: (kernel, plane, runs, onRun) => runDriver(driver, kernel, plane, runs, onRun),
  };
}

async function prepareOpenCV(): Promise<Prepared> {
  const version = (await exec('pkg-config', ['--modversion', 'opencv4'])).stdout.trim();
  const flags = (await exec('pkg-config', ['--cflags', '--libs', 'opencv4'])).stdout.trim().split(/\s+/);
  const dir = await imageCacheDir('opencv', ['driver_common.h', 'opencv_driver.cpp'], version);
  const driver = await gxx(dir, 'opencv_driver', [path.join(here, 'opencv_driver.cpp'), ...flags]);
  return {
    about: `OpenCV ${version}`,
    run: (kernel, plane, runs, onRun) => runDriver(driver, kernel, plane, runs, onRun),
  };
}

const SHARP_ROW = [0, 0, 0, 1, 1, 1, 0, 0, 0];
const SHARP_COLUMN = [0, 1, 0, 0, 1, 0, 0, 1, 0];

function prepareSharp(): Prepared {
  return {
    about: `sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}, ${sharp.concurrency()} thread${sharp.concurrency() === 1 ? '' : 's'})`,
    async run(kernel, plane, runs, onRun) {
      if (kernel !== 'box3') throw new Error(`sharp has no kernel '${kernel}'`);
      const { width, height } = plane;
      // Convolve takes 3 × 3 kernels at least; `b-w` keeps one channel instead of sharp's sRGB output.
      const pass = (data: Buffer, weights: number[]) =>
        sharp(data, { raw: { width, height, channels: 1 } }).convolve({ width: 3, height: 3, kernel: weights, scale: 3 }).toColourspace('b-w').raw().toBuffer();
      const input = Buffer.from(rawBytes(plane));
      let result = Buffer.alloc(0);
      const times = await timeEach(runs, async () => (result = await pass(await pass(input, SHARP_ROW), SHARP_COLUMN)), onRun);
      const output = makeImage('u8', width, height, 1);
      output.data.set(result);
      return { times, output, log: '' };
    },
  };
}

const prepared = new Map<ReferenceName, Promise<Prepared>>();

/**
 * Checks that `reference` is installed and builds what it needs (cached); `onStep` hears
 * about steps that take long. A missing package is an error naming it.
 */
export function prepareReference(reference: ReferenceName, onStep?: (step: string) => void): Promise<Prepared> {
  let p = prepared.get(reference);
  if (!p) {
    p = (async () => {
      const missing = await missingReferencePackages(reference);
      if (missing.length) throw notInstalled(REFERENCE_TITLES[reference], missing);
      return reference === 'halide' ? prepareHalide(onStep) : reference === 'opencv' ? prepareOpenCV() : prepareSharp();
    })();
    // A failure is not remembered: the packages may be installed by the next call.
    p.catch(() => prepared.delete(reference));
    prepared.set(reference, p);
  }
  return p;
}

export interface ReferenceRun {
  output: Image;
  /** Per run, the time for all channels. */
  times: number[];
  medianMs: number;
  about: string;
  log: string;
}

/**
 * Runs `k` on `input` channel by channel (the references take one plane), `runs` times
 * after a warm-up each; `onProgress` hears after every run.
 */
export async function runReference(k: ReferenceKernel, input: Image, runs: number, onProgress?: (done: number, total: number) => void): Promise<ReferenceRun> {
  if (input.type !== k.type) throw new Error(`${REFERENCE_TITLES[k.reference]} ${k.kernel} takes ${k.type} images, not ${input.type}`);
  const ref = await prepareReference(k.reference);
  const { width: w, height: h, channels: ch } = input;
  const output = makeImage(input.type, w, h, ch);
  const times = new Array<number>(runs).fill(0);
  const logs = new Set<string>();
  for (let c = 0; c < ch; c++) {
    const plane = makeImage(input.type, w, h, 1);
    for (let i = 0; i < w * h; i++) plane.data[i] = input.data[i * ch + c]!;
    const r = await ref.run(k.kernel, plane, runs, (done) => onProgress?.(c * runs + done, ch * runs));
    for (let i = 0; i < w * h; i++) output.data[i * ch + c] = r.output.data[i]!;
    r.times.forEach((t, i) => (times[i]! += t));
    if (r.log) logs.add(r.log);
  }
  return { output, times, medianMs: median(times), about: ref.about, log: [...logs].join('; ') };
}

function rawBytes(img: Image): Buffer {
  return Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
}

/** The gray image Harris computes on, in f32 the way gray_u8 in pipelines.impala forms it (Rec. 601 weights, alpha ignored). */
export function grayPlane(img: Image): Image {
  const { width: w, height: h, channels: ch } = img;
  const out = makeImage('f32', w, h, 1);
  const f = Math.fround;
  const v = (i: number, c: number) => f(img.data[i * ch + c]! * f(1 / 255));
  for (let i = 0; i < w * h; i++) {
    out.data[i] = ch < 3 ? v(i, 0) : f(f(f(f(0.299) * v(i, 0)) + f(f(0.587) * v(i, 1))) + f(f(0.114) * v(i, 2)));
  }
  return out;
}

// ------------------------------------------------------------ comparison

export interface Agreement {
  ok: boolean;
  /** Elements outside the tolerance. */
  mismatches: number;
  detail: string;
}

/**
 * Integers must match bit for bit. For f32 the tolerance is 1e-5 relative to the largest
 * reference value: Harris' det − k·trace² cancels to near zero on flat areas, where a
 * different but equally valid rounding (FMA contraction, summation order) changes
 * tiny values by more than 1e-5 of themselves; those per-element outliers are counted in
 * the detail, not hidden.
 */
export function compareOutputs(ours: Image, ref: Image): Agreement {
  const shape = (img: Image) => `${img.width}×${img.height}×${img.channels} ${img.type}`;
  if (shape(ours) !== shape(ref)) return { ok: false, mismatches: ours.data.length, detail: `ours is ${shape(ours)}, the reference ${shape(ref)}` };
  const a = ours.data;
  const b = ref.data;
  const float = ours.type === 'f32';
  let scale = 0;
  for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(b[i]!));
  let mismatches = 0;
  let elementOutliers = 0;
  let maxDiff = 0;
  let first = -1;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const diff = Math.abs(x - y);
    let bad = x !== y;
    if (float) {
      if (!(diff <= maxDiff)) maxDiff = Number.isNaN(diff) ? Infinity : diff;
      if (!(diff <= 1e-5 * Math.max(Math.abs(x), Math.abs(y)))) elementOutliers++;
      bad = !(diff <= 1e-5 * scale);
    }
    if (bad) {
      mismatches++;
      if (first < 0) first = i;
    }
  }
  const ch = ours.channels;
  const p = Math.floor(first / ch);
  const where = `(${p % ours.width}, ${Math.floor(p / ours.width)}${ch > 1 ? `, channel ${first % ch}` : ''})`;
  const at = first < 0 ? '' : `, first at ${where}: ours ${a[first]} reference ${b[first]}`;
  const detail = float
    ? `${mismatches} of ${a.length} beyond 1e-5 of max |reference| (${scale.toExponential(2)}); max |difference| ${maxDiff.toExponential(2)}; ${elementOutliers} elements differ by more than 1e-5 of their own value${at}`
    : `${mismatches} of ${a.length} differ${at}`;
  return { ok: mismatches === 0, mismatches, detail };
}
