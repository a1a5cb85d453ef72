// What the image apps (blur, harris) share: their common options, reading the input and
// writing the output image, timing with --bench and --compare against a reference library.
import { Command, Option } from 'commander';
import {
  compareOutputs,
  integerTolerance,
  kernelTitle,
  prepareReference,
  REFERENCE_KERNELS,
  REFERENCE_TITLES,
  REFERENCES,
  type ReferenceKernel,
  referenceKernels,
  type ReferenceName,
  type ReferenceRun,
  runReference,
  supportedBy,
} from '../../bench/image/references.ts';
import { median, timeRuns, type Timing } from '../../libs/image/bench.ts';
import { pickGpuDevice } from '../../libs/shared/device.ts';
import { AUTO_DESCRIPTION, autoSchedule } from '../../libs/image/autoschedule.ts';
import type { Kernel } from '../../libs/image/host.ts';
import type { Image } from '../../libs/image/image.ts';
import { encodeImage, formatKeepsChannels, IMAGE_EXTENSIONS, type ImageFormat, imageFormatOf, readImage } from '../../libs/image/io.ts';
import { type Boundary, BOUNDARIES, type ElementType, GPU_SCHEDULES, isGpuSchedule, type Pipeline, type Schedule, SCHEDULES, SCHEDULE_DESCRIPTIONS, type Variant } from '../../libs/image/variants.ts';
import { during, integerFrom, progress } from './cli.ts';
import { checkOutputPath, writeFileAtomic } from '@anydsl/compiler';

/** Runs timed for --compare without --bench. */
export const COMPARE_RUNS = 5;

/** The most --bench runs: enough for a stable median, few enough to finish. */
export const MAX_BENCH_RUNS = 10_000;

/** The options both apps take: schedule, boundary, output, --bench, --compare; `pipelines` are the app's, for the help on references. */
export function imageCommand(name: string, defaultSchedule: string, pipelines: readonly Pipeline[]): Command {
  const all = [...SCHEDULES, ...GPU_SCHEDULES];
  const width = Math.max(...all.map((s) => s.length));
  const schedules = [...all.map((s) => `  ${s.padEnd(width)} ${SCHEDULE_DESCRIPTIONS[s]}`), `  ${'auto'.padEnd(width)} ${AUTO_DESCRIPTION}`].join('\n');
  const references = REFERENCES.map((r) => {
    const ours = REFERENCE_KERNELS.some((k) => k.reference === r && pipelines.includes(k.pipeline));
    return `  ${r.padEnd(7)}${REFERENCE_TITLES[r]}: ${ours ? supportedBy(r) : `nothing ${name} computes (it does ${supportedBy(r)})`}`;
  }).join('\n');
  return new Command(name)
    .argument('<input>', 'input image (PNG, JPEG, WebP, TIFF, … anything sharp reads, 8 bits per channel; of an animation the first frame)')
    .requiredOption('-o, --output <file>', `output image, replaced only once complete; the extension picks the format (${IMAGE_EXTENSIONS.join(', ')})`)
    .addOption(new Option('-s, --schedule <name>', 'loop schedule').choices([...all, 'auto']).default(defaultSchedule))
    .option('--retune', 'with --schedule auto: search again instead of reusing the choice cached for this size class')
    .addOption(new Option('-b, --boundary <mode>', 'what the stencil sees outside the image').choices(BOUNDARIES).default('clamp'))
    .option('--bench <runs>', `run the kernel N more times (at most ${MAX_BENCH_RUNS}) and print the median throughput`, integerFrom(1, MAX_BENCH_RUNS))
    .addOption(
      new Option('--compare <reference>', `also run a reference library on the input, check that the outputs agree (bit-exact for integers, 1e-5 for f32) and print its speed against ours (medians of --bench or ${COMPARE_RUNS} runs)`).choices(
        REFERENCES,
      ),
    )
    .addHelpText('after', `\nSchedules:\n${schedules}\n\nReferences for --compare (clamp boundary; Halide under its app schedule, each autoscheduler and ours, the ratio against the fastest; Halide and OpenCV take all channels in one call, sharp one at a time):\n${references}\n`)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
}

/** Where and in which format the output image goes, checked before any work. */
export interface ImageOutput {
  /** The file to replace (a symbolic link's target). */
  path: string;
  format: ImageFormat;
}

/** Checks `-o` before any work: an image extension, a writable directory, not a directory. */
export async function imageOutput(file: string): Promise<ImageOutput> {
  const target = await checkOutputPath(file, IMAGE_EXTENSIONS);
  return { path: target, format: imageFormatOf(file)! };
}

/** Refuses, before any work, a format that cannot hold every channel of what will be written (JPEG has no alpha). */
export function checkOutputChannels(file: string, output: ImageOutput, channels: number): void {
  if (!formatKeepsChannels(output.format, channels)) {
    throw new Error(`cannot write '${file}': ${output.format.toUpperCase()} has no alpha channel and the image has ${channels} channels; write .png, .webp or .tiff to keep the alpha`);
  }
}

/** Encodes `img` in the output's format and replaces the output file with it atomically. */
export async function writeImage(output: ImageOutput, img: Image): Promise<void> {
  await writeFileAtomic(output.path, await encodeImage(img, output.format));
}

/** Reads the input image; what it leaves out (the frames after the first of an animation) is a note on stderr. */
export function readInput(name: string, file: string): Promise<Image> {
  return readImage(file, (note) => process.stderr.write(`${name}: note: ${note}\n`));
}

/** Times `once` with a progress bar on a terminal, then prints the result. */
export async function benchmark(label: string, pixels: number, runs: number, once: () => void): Promise<Timing> {
  const bar = progress(label, runs);
  let timing;
  try {
    timing = await timeRuns(pixels, runs, once, (done) => bar.update(done));
  } finally {
    bar.stop();
  }
  console.log(`${label}: median ${timing.medianMs.toFixed(2)} ms over ${runs} runs, ${timing.gpixels.toFixed(3)} Gpixel/s`);
  return timing;
}

/**
 * Times a compiled kernel as `benchmark` does; a GPU kernel's line is followed by the
 * medians per run of the time its kernels ran on the device (the runtime's profiling
 * timers), of the copies of the image to the device and back (timed by the runtime), and
 * of the rest of the run: allocating, launching, waiting.
 */
export async function benchmarkKernel(label: string, pixels: number, runs: number, kernel: Kernel, once: () => void): Promise<Timing> {
  const gpu = kernel.gpu;
  if (!gpu) return benchmark(label, pixels, runs, once);
  const kernelMs: number[] = [];
  const copyMs: number[] = [];
  const timing = await benchmark(label, pixels, runs, () => {
    const [kernelsBefore, copiesBefore] = [gpu.kernelMicros(), gpu.copyMicros()];
    once();
    kernelMs.push((gpu.kernelMicros() - kernelsBefore) / 1000);
    copyMs.push((gpu.copyMicros() - copiesBefore) / 1000);
  });
  // The first call is the warm-up, which `timing` leaves out too.
  const kernels = median(kernelMs.slice(1));
  const copies = median(copyMs.slice(1));
  console.log(`${label}: kernels ${kernels.toFixed(2)} ms (median device time), copies in and out ${copies.toFixed(2)} ms, allocation and launches ${Math.max(timing.medianMs - kernels - copies, 0).toFixed(2)} ms`);
  return timing;
}

/**
 * The device a `gpu` schedule runs on (ANYDSL_DEVICE, auto when unset), announced on a
 * line of its own; undefined for the CPU schedules. Throws the one line saying what to
 * install where there is no CUDA or OpenCL device.
 */
export async function gpuDeviceFor(schedule: Schedule): Promise<number | undefined> {
  if (!isGpuSchedule(schedule)) return undefined;
  const gpu = await pickGpuDevice();
  console.log(`device: ${gpu.name}`);
  return gpu.device;
}

/**
 * The variant to compile for `--schedule`: for `auto`, the schedule the search picks (or
 * cached) for the input's size class, with its line on what it picked and why.
 */
export async function scheduledVariant(schedule: Schedule | 'auto', base: Omit<Variant, 'schedule'>, input: Image, retune: boolean): Promise<Variant> {
  if (schedule !== 'auto') {
    if (retune) throw new Error(`--retune searches the schedule again for --schedule auto; with --schedule ${schedule} there is nothing to search`);
    return { ...base, schedule };
  }
  const choice = await during(`auto: searching schedules for ${base.pipeline}`, (show) => autoSchedule(base, input.width, input.height, { retune, onProgress: show, input }));
  console.log(choice.summary);
  return choice.variant;
}

/** What --compare runs: the reference's kernels for what the app computes (Halide: one per schedule). */
export interface Comparison {
  reference: ReferenceName;
  kernels: ReferenceKernel[];
}

/**
 * Makes --compare ready before any work: the reference's kernels for what the app computes
 * (an error naming what the reference supports otherwise), installed and built.
 */
export async function prepareCompare(reference: ReferenceName, pipeline: Pipeline, type: ElementType, boundary: Boundary): Promise<Comparison> {
  const kernels = referenceKernels(reference, pipeline, type, boundary);
  const title = REFERENCE_TITLES[reference];
  await during(`preparing ${title}`, (show) => prepareReference(reference, stepReporter(title, show)));
  return { reference, kernels };
}

/** Shows a long step of building a reference, and puts it on a line of its own in a log, where no progress is drawn. */
function stepReporter(title: string, show: (line: string) => void): (step: string) => void {
  return (step) => {
    if (!process.stderr.isTTY) console.error(`${title}: ${step}`);
    show(`${title}: ${step}`);
  };
}

/**
 * Runs each kernel of the comparison on `input` (what it computes on: the app's image, or
 * Harris' gray plane), checks its output against ours and prints the agreement and its
 * time, then the speed ratio against the fastest; outputs that differ are an error.
 */
export async function compareWithReference(comparison: Comparison, input: Image, ours: Image, oursTiming: Timing): Promise<void> {
  const title = REFERENCE_TITLES[comparison.reference];
  const runs = oursTiming.runs;
  const results: { kernel: ReferenceKernel; run: ReferenceRun }[] = [];
  for (const kernel of comparison.kernels) {
    const name = kernelTitle(kernel);
    // Building a kernel the first time (an autoscheduler run and a compile) takes seconds.
    let ref: ReferenceRun;
    try {
      ref = await during(`${name}: ${kernel.kernel}`, (show) => runReference(kernel, input, runs, { onStep: stepReporter(name, show) }));
    } catch (e) {
      // One schedule that cannot run here (an autoscheduler's tiles larger than the image) leaves the others to compare.
      if (comparison.kernels.length === 1) throw e;
      console.log(`${name}: failed: ${(e as Error).message}`);
      continue;
    }
    const levels = integerTolerance(kernel.pipeline);
    const agreement = compareOutputs(ours, ref.output, levels);
    const verdict = !agreement.ok ? 'outputs DIFFER' : ours.type === 'f32' ? 'outputs agree to 1e-5' : levels ? `outputs agree within ${levels} level` : 'outputs bit-exact';
    const channels = input.channels > 1 ? (ref.interleaved ? `, ${input.channels} channels in one call` : `, ${input.channels} channels one at a time`) : '';
    console.log(`${name}: ${ref.medianMs.toFixed(2)} ms (${kernel.schedule}${channels}): ${verdict}: ${agreement.detail}`);
    if (!agreement.ok) throw new Error(`the output differs from ${name}'s (${agreement.mismatches} elements)`);
    results.push({ kernel, run: ref });
  }
  if (results.length === 0) throw new Error(`every kernel of ${title} failed`);
  console.log(`reference: ${results[0]!.run.about}`);
  const fastest = results.reduce((a, b) => (b.run.medianMs < a.run.medianMs ? b : a));
  const which = results.length > 1 ? `fastest ${kernelTitle(fastest.kernel)}` : title;
  const ratio = fastest.run.medianMs / oursTiming.medianMs;
  console.log(`speed: ours ${oursTiming.medianMs.toFixed(2)} ms, ${which} ${fastest.run.medianMs.toFixed(2)} ms (medians of ${runs} runs): ratio ${ratio.toFixed(2)}× (reference / ours; above 1 ours is faster)`);
}
