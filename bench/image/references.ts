// The libraries libs/image is measured against (Halide 14, OpenCV 4.6, sharp/libvips), what
// each reproduces exactly, and the one implementation of building them, running them on an
// image and comparing outputs, shared by bench/image/run.ts and the apps' --compare.
//
// The C++ references are built from the sources next to this file against the Debian
// packages (never installed from here: a missing one is an error that names it) and cached
// under .cache/bench/image/<reference>-<hash of sources, compiler, CPU>.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { median, timeEach } from '../../libs/image/bench.ts';
import { type Image, makeImage } from '../../libs/image/image.ts';
import { type Boundary, type ElementType, isUnitPipeline, type Pipeline } from '../../libs/image/variants.ts';
import { byFile, cacheDir, type DebianPackage, exec, GXX, gxx as buildWithGxx, missingPackages, notInstalled } from '../shared/native.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

export const REFERENCES = ['halide', 'opencv', 'sharp'] as const;
export type ReferenceName = (typeof REFERENCES)[number];

export const REFERENCE_TITLES: Record<ReferenceName, string> = {
  halide: 'Halide 14',
  opencv: 'OpenCV 4.6',
  sharp: 'sharp (libvips)',
};

/** The schedules each Halide pipeline is compiled with (halide_pipelines.cpp). */
export const HALIDE_SCHEDULES = ['app', 'adams2019', 'li2018', 'mullapudi2016', 'same'] as const;
export type HalideSchedule = (typeof HALIDE_SCHEDULES)[number];

/** A Halide schedule as a table names it. */
export const HALIDE_SCHEDULE_TITLES: Record<HalideSchedule, string> = {
  app: 'app schedule',
  adams2019: 'Adams2019',
  li2018: 'Li2018',
  mullapudi2016: 'Mullapudi2016',
  same: 'same as ours',
};

/** One kernel of a reference that computes a libs/image pipeline exactly (clamp boundary). */
export interface ReferenceKernel {
  reference: ReferenceName;
  /** The name its driver knows it by. */
  kernel: string;
  pipeline: Pipeline;
  /** The element type of the input it computes on; Harris from u8 (any channels) or the f32 gray image. */
  type: ElementType;
  /** Halide only: the schedule it is compiled with. */
  halide?: HalideSchedule;
  /** How the reference computes it. */
  schedule: string;
}

const OURS_TILES = '512 × 32 tiles, 16 lanes (32 in 16-bit arithmetic), rows of tiles in parallel, channels of a row of tiles one after another';
const AUTOSCHEDULED = 'for the image size (rounded up to a multiple of 512) and this CPU (cores, last-level cache)';

/** What Halide's app schedule of each pipeline is (halide_pipelines.cpp has it in code). */
const HALIDE_APP: Partial<Record<Pipeline, string>> = {
  box3: "apps/blur: 32-row strips in parallel, vectorised, blur_x stored per strip and computed per vector (sliding window), in 16-bit arithmetic for u8",
  gauss5: "apps/blur's schedule (Halide has no gauss5 app): the horizontal pass stored per strip of 32 rows, computed per vector",
  unsharp: 'apps/unsharp: the vertical pass computed per output row, rows in parallel, vectorised',
  sobel: "apps/blur's strips (no sobel app; nothing to stage): 32-row strips in parallel, vectorised",
  harris: 'apps/harris: 32-row strips in parallel, gray, Ix, Iy stored per strip and computed per row (sliding windows), Ix computed with Iy',
  bilateral: 'apps/bilateral_grid (CPU): the histogram per row of blurz on the stack, the three grid blurs whole, parallel and 8 wide, the output parallel over rows',
  interpolate: 'apps/interpolate: every level downsampled and interpolated whole in parallel strips of 8 rows, vectorised; the output with its channels unrolled',
  local_laplacian: 'apps/local_laplacian: remap and gray whole, the first pyramid levels whole in parallel strips, the output in strips of 64 rows with its fine levels slid down each strip',
};

/**
 * Ours runs box3, gauss5, unsharp and sobel on all interleaved channels of a row as one plane
 * (`handle_boundaries_interleaved`); Halide's `same` kernels keep one channel at a time, the
 * layout ours had before, with the same tiles, lanes and staging.
 */
const CHANNEL_AT_A_TIME = "(one channel at a time: ours now runs the interleaved channels as one plane)";

const HALIDE_SAME: Partial<Record<Pipeline, string>> = {
  box3: `blur_x inlined, strips of 32 whole rows in parallel, 16 lanes (32 in 16-bit arithmetic), channels of a strip one after another ${CHANNEL_AT_A_TIME}`,
  gauss5: `${OURS_TILES}; the horizontal pass per tile on the tile grown by 2 rows ${CHANNEL_AT_A_TIME}`,
  unsharp: `${OURS_TILES}; the horizontal pass per tile on the tile grown by 2 rows ${CHANNEL_AT_A_TIME}`,
  sobel: `inlined, ${OURS_TILES} ${CHANNEL_AT_A_TIME}`,
  // Ours' opt for Harris is now apps/harris' shape (the app schedule's column, in strips of 64
  // rows); this kernel stays ours' former opt, since changing it regenerates every Halide kernel.
  harris: `ours' former opt: ${OURS_TILES}; the products (and the gray from u8) per tile on the tile grown by 1 px`,
};

/** The ports of Halide's apps have no `same` kernel: ours computes them level by level in a way a Halide schedule does not express. */
function halideKernels(pipeline: Pipeline, types: readonly ElementType[]): ReferenceKernel[] {
  const schedules = HALIDE_SCHEDULES.filter((h) => h !== 'same' || HALIDE_SAME[pipeline] !== undefined);
  return types.flatMap((type) =>
    schedules.map((halide) => ({
      reference: 'halide' as const,
      kernel: `${pipeline}_${type}_${halide}`,
      pipeline,
      type,
      halide,
      schedule: halide === 'app' ? HALIDE_APP[pipeline]! : halide === 'same' ? HALIDE_SAME[pipeline]! : `the ${HALIDE_SCHEDULE_TITLES[halide]} autoscheduler ${AUTOSCHEDULED}`,
    })),
  );
}

/**
 * Every kernel of every reference. Halide has each pipeline under each of HALIDE_SCHEDULES
 * on interleaved images of 1 to 4 channels; OpenCV filters interleaved colour images in one call.
 */
export const REFERENCE_KERNELS: readonly ReferenceKernel[] = [
  ...(['box3', 'gauss5', 'unsharp', 'sobel'] as const).flatMap((p) => halideKernels(p, ['u8', 'i32'])),
  ...halideKernels('harris', ['u8', 'f32']),
  ...(['bilateral', 'interpolate', 'local_laplacian'] as const).flatMap((p) => halideKernels(p, ['u8'])),
  { reference: 'opencv', kernel: 'gauss5', pipeline: 'gauss5', type: 'u8', schedule: 'cv::GaussianBlur 5×5, σ = 0 (separable, fixed point, SIMD, parallel_for_)' },
  { reference: 'opencv', kernel: 'unsharp', pipeline: 'unsharp', type: 'u8', schedule: 'cv::GaussianBlur 5×5 then cv::addWeighted(in, 2, blurred, −1)' },
  { reference: 'opencv', kernel: 'sobel', pipeline: 'sobel', type: 'u8', schedule: 'two 16-bit cv::Sobel, cv::absdiff, saturating cv::add' },
  // libvips' integer convolution divides by the scale rounding down, which is ours' `/ 3` on
  // values ≥ 0; gauss5 rounds to nearest ((Σ + 128) / 256), which sharp's integer-only
  // offset, added after the division, cannot express.
  { reference: 'sharp', kernel: 'box3', pipeline: 'box3', type: 'u8', schedule: 'two sharp convolve passes (1 1 1 across, then down, scale 3), one channel at a time' },
];

/** "box3 on i32 and harris on f32": what `reference` reproduces. */
export function supportedBy(reference: ReferenceName): string {
  const byType = new Map<ElementType, Set<Pipeline>>();
  for (const k of REFERENCE_KERNELS.filter((k) => k.reference === reference)) byType.set(k.type, (byType.get(k.type) ?? new Set()).add(k.pipeline));
  return [...byType].map(([type, pipelines]) => `${[...pipelines].join(', ')} on ${type}`).join(' and ');
}

/**
 * The kernels of `reference` that compute `pipeline` on `type` exactly (Halide: one per
 * schedule); a one-line error naming what it supports otherwise.
 */
export function referenceKernels(reference: ReferenceName, pipeline: Pipeline, type: ElementType, boundary: Boundary): ReferenceKernel[] {
  const kernels = REFERENCE_KERNELS.filter((k) => k.reference === reference && k.pipeline === pipeline && k.type === type);
  if (kernels.length === 0 || boundary !== 'clamp') {
    const what = kernels.length ? `the ${boundary} boundary` : `${pipeline} on ${type}`;
    throw new Error(`${REFERENCE_TITLES[reference]} cannot reproduce ${what}; it reproduces ${supportedBy(reference)}, with the clamp boundary only`);
  }
  return kernels;
}

/** "Halide 14 (Adams2019)": a kernel as a table or a line names it. */
export const kernelTitle = (k: ReferenceKernel): string => `${REFERENCE_TITLES[k.reference]}${k.halide ? ` (${HALIDE_SCHEDULE_TITLES[k.halide]})` : ''}`;

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

interface KernelRun {
  times: number[];
  output: Image;
  /** What the reference said about itself (threads, version), if anything. */
  log: string;
}

/** How a reference is run besides its kernel, input and runs. */
export interface RunOptions {
  /** Hears after every run: the runs done and the runs in all. */
  onProgress?: (done: number, total: number) => void;
  /** Hears about kernels built first. */
  onStep?: (step: string) => void;
  /** Halide: the minutes a kernel's generation may take (DEFAULT_HALIDE_LIMIT_MINUTES; 0: no limit). */
  halideLimitMinutes?: number;
}

interface Prepared {
  /** The reference as the notes name it: version, target, threads. */
  about: string;
  /** Whether it takes an interleaved image of several channels in one call (otherwise one plane at a time). */
  interleaved: boolean;
  /** Runs `k` on `input` `runs` times after a warm-up; `onRun` hears after every run. */
  run(k: ReferenceKernel, input: Image, runs: number, onRun: ((done: number) => void) | undefined, options: RunOptions): Promise<KernelRun>;
}

/** The output a kernel writes for `input`: Harris one f32 channel, the others the input's type and channels. */
function outputFor(k: ReferenceKernel, input: Image): Image {
  return k.pipeline === 'harris' ? makeImage('f32', input.width, input.height, 1) : makeImage(input.type, input.width, input.height, input.channels);
}

/**
 * The last line a tool wrote to stderr, for a one-line error. Halide hands its error
 * handler messages without a newline, one per failed run, so a message repeated back to
 * back is shown once.
 */
export function lastLine(stderr: string): string {
  const line = stderr.trim().split('\n').slice(-1)[0] ?? '';
  return line.replace(/(.{20,}?)\1+/g, '$1; ').replace(/; $/, '');
}

/** Runs a C++ driver with `args(in.raw, out.raw)`, which prints the times as JSON on stdout, and reads back `output`. */
async function runDriver(exe: string, args: (inFile: string, outFile: string) => string[], input: Image, output: Image, onRun?: (done: number) => void): Promise<KernelRun> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'image-reference-'));
  try {
    const inFile = path.join(tmp, 'in.raw');
    const outFile = path.join(tmp, 'out.raw');
    await writeFile(inFile, rawBytes(input));
    const argv = args(inFile, outFile);
    // The driver flushes each time as it ends; a number is complete once a separator follows.
    const r = await exec(exe, argv, { onStdout: (stdout) => onRun?.((stdout.match(/[\d.]+(?=[,\]])/g) ?? []).length) });
    const name = `${path.basename(exe)} ${argv[0]}`;
    if (!r.ok) throw new Error(`${name} failed: ${lastLine(r.stderr)}`);
    const json = r.stdout.split('\n').find((l) => l.startsWith('{'));
    if (!json) throw new Error(`${name} printed no times`);
    new Uint8Array(output.data.buffer).set((await readFile(outFile)).subarray(0, output.data.byteLength));
    return { times: (JSON.parse(json) as { ms: number[] }).ms, output, log: r.stderr.trim().split('\n').join('; ') };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * The autoschedulers' estimate of an image dimension: rounded up to a multiple of 512, so
 * photos of similar sizes share kernels; a smaller one exactly, since the tiles an
 * autoscheduler picks for a larger estimate may not fit it (Adams2019 shifts tails inwards).
 */
const estimate = (n: number): number => (n < 512 ? n : Math.ceil(n / 512) * 512);

/**
 * The autoschedulers' machine parameters: the cores, and the last-level cache the CPU
 * reports, at most 32 MiB: a virtual machine reports the whole socket's L3 (here 508 MiB),
 * while its cores share one core complex's (32 MiB on Zen 4).
 */
export async function machineParams(): Promise<{ cores: number; llc: number }> {
  const reported = Number((await exec('getconf', ['LEVEL3_CACHE_SIZE'])).stdout.trim());
  const llc = Number.isFinite(reported) && reported > 0 ? Math.min(reported, 32 << 20) : 32 << 20;
  return { cores: os.cpus().length, llc };
}

/**
 * How long generating one Halide kernel may take unless told otherwise: Adams2019's beam
 * search on the local Laplacian and on interpolate (hundreds of stages) ran past 28 minutes
 * per kernel without finishing on the 2-core machine, while the slowest of the others,
 * Mullapudi2016 on the bilateral grid, took 5 minutes there at the lowest priority under load.
 */
export const DEFAULT_HALIDE_LIMIT_MINUTES = 10;

/** The minutes a `--halide-limit` flag gives (bench/image's run.ts and camera.ts): from 0 (no limit), fractions allowed. */
export function parseHalideLimit(text: string): number {
  const minutes = Number(text);
  if (text.trim() === '' || !Number.isFinite(minutes) || minutes < 0) throw new Error(`--halide-limit must be a number of minutes (0: no limit), not '${text}'`);
  return minutes;
}

/**
 * A Halide kernel whose generation (an autoscheduler's search, mostly) did not finish within
 * the limit: the generator (or camera.ts's just-in-time compile) was killed and no kernel was
 * cached. The generator's log records the limit it was killed at, and a later run with a limit
 * no higher reads the same verdict from it without starting again; a higher limit tries again.
 */
export class GenerationTimeout extends Error {
  constructor(
    message: string,
    readonly minutes: number,
  ) {
    super(message);
  }

  /** What a table's row reads for such a kernel (run.ts, camera.ts). */
  get verdict(): string {
    return `did not finish in ${this.minutes} min`;
  }
}

/**
 * The line a generator's log ends with when it did not produce a kernel: killed at the limit
 * of `killedAfter` minutes, or stopped by itself (`failed`: its exit status or signal), which
 * it would do again, since the same generator runs the same search on the same arguments
 * (Adams2019's schedule for interpolate, which Halide 14 then refuses to compile, took 7.5
 * minutes).
 */
export function outcomeLine(outcome: { killedAfter: number } | { failed: string }): string {
  return 'killedAfter' in outcome
    ? `\nkilled after ${outcome.killedAfter} min: the limit on generating a kernel\n`
    : `\nstopped without a kernel (${outcome.failed}): delete this file to try again\n`;
}

/**
 * What an earlier run's log `log` says this run would come to without starting the generator:
 * killed, when it was killed at a limit at least `limitMinutes` (never under no limit, 0); or
 * failed, when it stopped by itself. Undefined: start it.
 */
export function earlierOutcome(log: string, limitMinutes: number): { killedAfter: number } | { failed: string } | undefined {
  const failed = /^stopped without a kernel \((.*)\): delete this file to try again$/m.exec(log)?.[1];
  if (failed !== undefined) return { failed };
  const minutes = Number(/^killed after ([\d.]+) min: the limit on generating a kernel$/m.exec(log)?.[1] ?? NaN);
  return limitMinutes > 0 && minutes >= limitMinutes ? { killedAfter: minutes } : undefined;
}

/** Whether a Halide kernel's schedule comes from an autoscheduler (for the image's size class) rather than written out. */
const isAutoscheduled = (k: ReferenceKernel): boolean => k.halide !== 'app' && k.halide !== 'same';

/** Who generates a Halide kernel: an autoscheduler, or the generator with a written schedule. */
function generatorTitle(k: ReferenceKernel): string {
  return isAutoscheduled(k) ? `the ${HALIDE_SCHEDULE_TITLES[k.halide!]} autoscheduler` : 'the Halide generator';
}

/**
 * Halide: the generator (halide_pipelines.cpp) and the driver are built once; each kernel
 * (pipeline, type, channels, schedule, and for an autoscheduler the image size class) is
 * generated the first time a run needs it, linked into a shared object the driver loads,
 * and cached next to what its generator printed (target, the autoscheduler's schedule).
 */
async function prepareHalide(onStep?: (step: string) => void): Promise<Prepared> {
  const header = statSync(path.join(HALIDE_INCLUDE, 'Halide.h'));
  const version = `${header.size}/${header.mtimeMs}`;
  const halideFlags = [`-I${HALIDE_INCLUDE}`, '-lpthread', '-ldl'];
  // Every halide_* source, so that a file the generator includes invalidates the kernels too.
  const sources = ['driver_common.h', ...readdirSync(here).filter((f) => /^halide_.*\.(cpp|h)$/.test(f)).sort()];
  const genDir = await imageCacheDir('halide', sources, version);
  if (!existsSync(path.join(genDir, 'halide_driver'))) onStep?.('building the Halide generator and driver (a minute or two, cached afterwards)');
  const generator = await gxx(genDir, 'halide_pipelines', [path.join(here, 'halide_pipelines.cpp'), '-lHalide14', ...halideFlags]);
  const runtime = path.join(genDir, 'halide_runtime.o');
  if (!existsSync(runtime)) {
    const r = await exec(generator, ['--runtime', `${runtime}.${process.pid}.o`]);
    if (!r.ok) throw new Error(`the Halide generator failed to compile its runtime: ${lastLine(r.stderr)}`);
    await rename(`${runtime}.${process.pid}.o`, runtime);
  }
  const driver = await gxx(genDir, 'halide_driver', [path.join(here, 'halide_driver.cpp'), runtime, '-rdynamic', ...halideFlags]);
  const machine = await machineParams();
  const target = await exec(generator, ['--target']);
  if (!target.ok) throw new Error(`the Halide generator failed: ${lastLine(target.stderr)}`);

  const building = new Map<string, Promise<string>>();
  /**
   * The shared object of `k` for `input`'s channels (and size class), built when missing; its
   * generation is killed after `limitMinutes` (a GenerationTimeout).
   */
  const kernelFile = (k: ReferenceKernel, input: Image, limitMinutes: number, onStep?: (step: string) => void): Promise<string> => {
    const auto = isAutoscheduled(k);
    const [w, h] = [input.width, input.height].map(estimate) as [number, number];
    const name = `halide_${k.kernel}_c${input.channels}${auto ? `_${w}x${h}` : ''}`;
    const file = path.join(genDir, `${name}.so`);
    let p = building.get(file);
    if (!p) {
      p = (async () => {
        if (existsSync(file)) return file;
        const log = path.join(genDir, `${name}.txt`);
        const printed = path.relative(process.cwd(), log);
        // A generation killed at a limit at least this one, or one that stopped by itself, is
        // not started again: it would only end so again, after as long (Adams2019 on the
        // largest pipelines searches for hours).
        const earlier = existsSync(log) ? earlierOutcome(await readFile(log, 'utf8'), limitMinutes) : undefined;
        if (earlier && 'killedAfter' in earlier) {
          throw new GenerationTimeout(`${generatorTitle(k)} did not finish ${name} in ${earlier.killedAfter} min in an earlier run (${printed}); not started again, a higher --halide-limit (0: none) tries again`, earlier.killedAfter);
        }
        if (earlier) throw new Error(`${generatorTitle(k)} failed on ${name} in an earlier run (${earlier.failed}); its output is in ${printed}, delete it to try again`);
        onStep?.(`generating Halide ${k.pipeline} ${k.type} ×${input.channels} (${HALIDE_SCHEDULE_TITLES[k.halide!]}${limitMinutes > 0 ? `, at most ${limitMinutes} min` : ''})`);
        const gen = await mkdtemp(path.join(genDir, 'generated-'));
        try {
          const args = [gen, name, k.pipeline, k.type, String(input.channels), k.halide!, String(w), String(h), String(machine.cores), String(machine.llc)];
          const r = await exec(generator, args, { limitMs: limitMinutes * 60_000 });
          // Killed by anyone but us (SIGKILL: the kernel's out-of-memory killer) is not recorded.
          const stopped = !r.ok && !r.timedOut && r.signal !== 'SIGKILL' ? (r.signal ?? `exit status ${r.status}`) : undefined;
          const outcome = r.timedOut ? outcomeLine({ killedAfter: limitMinutes }) : stopped ? outcomeLine({ failed: stopped }) : '';
          await writeFile(log, `${r.stdout}${r.stderr}${outcome}`);
          if (r.timedOut) {
            throw new GenerationTimeout(`${generatorTitle(k)} did not finish ${name} in the limit of ${limitMinutes} min (killed; a run with a higher limit, bench/image --halide-limit, tries again); what it printed is in ${printed}`, limitMinutes);
          }
          if (!r.ok) throw new Error(`${generatorTitle(k)} failed on ${name}; its output is in ${printed}${stopped ? ' (not tried again until it is deleted)' : ''}`);
          const tmp = `${file}.${process.pid}.tmp`;
          const link = await exec('g++', ['-shared', '-o', tmp, '-Wl,--whole-archive', path.join(gen, `${name}.a`), '-Wl,--no-whole-archive']);
          if (!link.ok) throw new Error(`linking ${name}.so failed: ${lastLine(link.stderr)}`);
          await rename(tmp, file);
          return file;
        } finally {
          await rm(gen, { recursive: true, force: true });
        }
      })();
      // A failure the log does not record (a link error, an out-of-memory kill) is tried again
      // by the next input that needs the kernel; a generation over the limit is not, since it
      // would only take as long again.
      p.catch((e) => {
        if (!(e instanceof GenerationTimeout)) building.delete(file);
      });
      building.set(file, p);
    }
    return p;
  };

  return {
    about: `Halide 14, target ${target.stdout.trim()}; autoschedulers with ${machine.cores} cores, ${machine.llc >> 20} MiB last-level cache, balance 40`,
    interleaved: true,
    async run(k, input, runs, onRun, options) {
      const so = await kernelFile(k, input, options.halideLimitMinutes ?? DEFAULT_HALIDE_LIMIT_MINUTES, options.onStep ?? onStep);
      const output = outputFor(k, input);
      const name = path.basename(so, '.so');
      return runDriver(
        driver,
        (inFile, outFile) => [so, name, input.type, output.type, String(input.width), String(input.height), String(input.channels), String(output.channels), String(runs), inFile, outFile],
        input,
        output,
        onRun,
      );
    },
  };
}

async function prepareOpenCV(): Promise<Prepared> {
  const version = (await exec('pkg-config', ['--modversion', 'opencv4'])).stdout.trim();
  const flags = (await exec('pkg-config', ['--cflags', '--libs', 'opencv4'])).stdout.trim().split(/\s+/);
  const dir = await imageCacheDir('opencv', ['driver_common.h', 'opencv_driver.cpp'], version);
  const driver = await gxx(dir, 'opencv_driver', [path.join(here, 'opencv_driver.cpp'), ...flags]);
  return {
    about: `OpenCV ${version}`,
    interleaved: true,
    run: (k, input, runs, onRun) =>
      runDriver(driver, (inFile, outFile) => [k.kernel, String(input.width), String(input.height), String(input.channels), String(runs), inFile, outFile], input, outputFor(k, input), onRun),
  };
}

const SHARP_ROW = [0, 0, 0, 1, 1, 1, 0, 0, 0];
const SHARP_COLUMN = [0, 1, 0, 0, 1, 0, 0, 1, 0];

function prepareSharp(): Prepared {
  return {
    about: `sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}, ${sharp.concurrency()} thread${sharp.concurrency() === 1 ? '' : 's'})`,
    interleaved: false,
    async run(k, plane, runs, onRun) {
      if (k.kernel !== 'box3') throw new Error(`sharp has no kernel '${k.kernel}'`);
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
 * Checks that `reference` is installed and builds what every run needs (cached); `onStep`
 * hears about steps that take long. A missing package is an error naming it.
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
  /** Per run, the time for the whole image (all channels). */
  times: number[];
  medianMs: number;
  about: string;
  log: string;
  /** Whether the reference took all channels in one call (otherwise one plane at a time, times added). */
  interleaved: boolean;
}

/**
 * Runs `k` on `input`, `runs` times after a warm-up: all channels in one call where the
 * reference takes interleaved images, otherwise channel by channel with the times added.
 * A Halide kernel whose generation passes the limit is a GenerationTimeout.
 */
export async function runReference(k: ReferenceKernel, input: Image, runs: number, options: RunOptions = {}): Promise<ReferenceRun> {
  const { onProgress, onStep } = options;
  if (input.type !== k.type) throw new Error(`${kernelTitle(k)} ${k.kernel} takes ${k.type} images, not ${input.type}`);
  const ref = await prepareReference(k.reference, onStep);
  if (ref.interleaved || input.channels === 1) {
    const r = await ref.run(k, input, runs, (done) => onProgress?.(done, runs), options);
    return { ...r, medianMs: median(r.times), about: ref.about, interleaved: ref.interleaved };
  }
  const { width: w, height: h, channels: ch } = input;
  const output = makeImage(input.type, w, h, ch);
  const times = new Array<number>(runs).fill(0);
  const logs = new Set<string>();
  for (let c = 0; c < ch; c++) {
    const plane = makeImage(input.type, w, h, 1);
    for (let i = 0; i < w * h; i++) plane.data[i] = input.data[i * ch + c]!;
    const r = await ref.run(k, plane, runs, (done) => onProgress?.(c * runs + done, ch * runs), options);
    for (let i = 0; i < w * h; i++) output.data[i * ch + c] = r.output.data[i]!;
    r.times.forEach((t, i) => (times[i]! += t));
    if (r.log) logs.add(r.log);
  }
  return { output, times, medianMs: median(times), about: ref.about, log: [...logs].join('; '), interleaved: false };
}

function rawBytes(img: Image): Buffer {
  return Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
}

// ------------------------------------------------------------ comparison

export interface Agreement {
  ok: boolean;
  /** Elements outside the tolerance. */
  mismatches: number;
  detail: string;
}

/** The levels compareOutputs allows on integer outputs of `pipeline`: 1 for the ports of Halide's apps (f32 inside), else 0. */
export const integerTolerance = (pipeline: Pipeline): number => (isUnitPipeline(pipeline) ? 1 : 0);

/**
 * Integers must match bit for bit, except that `levels` allows a difference of that many
 * levels (the ports of Halide's apps compute in f32 and round to u8 at the end, where one FMA
 * contraction moves a value across a rounding boundary; the allowed and the actual count are
 * in the detail). For f32 the tolerance is 1e-5 relative to the largest
 * reference value: Harris' det − k·trace² cancels to near zero on flat areas, where a
 * different but equally valid rounding (FMA contraction, summation order) changes
 * tiny values by more than 1e-5 of themselves; those per-element outliers are counted in
 * the detail, not hidden.
 */
export function compareOutputs(ours: Image, ref: Image, levels = 0): Agreement {
  const shape = (img: Image) => `${img.width}×${img.height}×${img.channels} ${img.type}`;
  if (shape(ours) !== shape(ref)) return { ok: false, mismatches: ours.data.length, detail: `ours is ${shape(ours)}, the reference ${shape(ref)}` };
  const a = ours.data;
  const b = ref.data;
  const float = ours.type === 'f32';
  let scale = 0;
  for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(b[i]!));
  let mismatches = 0;
  let offByLevels = 0;
  let elementOutliers = 0;
  let maxDiff = 0;
  let first = -1;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const diff = Math.abs(x - y);
    let bad = x !== y;
    if (!float && bad && diff <= levels) {
      bad = false;
      offByLevels++;
    }
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
    : `${mismatches} of ${a.length} differ${levels ? ` by more than ${levels}` : ''}${at}${offByLevels ? `; ${offByLevels} differ by at most ${levels}` : ''}`;
  return { ok: mismatches === 0, mismatches, detail };
}
