// What the image apps share: commander setup with clean errors, option parsing, progress
// on a terminal, the result lines they print, and --compare against a reference library.
import cliProgress from 'cli-progress';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CompileFailure } from '../../compiler/src/driver/compile.ts';
import {
  compareOutputs,
  prepareReference,
  REFERENCE_KERNELS,
  REFERENCE_TITLES,
  REFERENCES,
  type ReferenceKernel,
  referenceKernel,
  type ReferenceName,
  runReference,
  supportedBy,
} from '../../bench/image/references.ts';
import { timeRuns, type Timing } from './bench.ts';
import type { Image } from './image.ts';
import { type Boundary, BOUNDARIES, type ElementType, GPU_SCHEDULES, type Pipeline, SCHEDULES, SCHEDULE_DESCRIPTIONS } from './variants.ts';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export function finiteNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
  return n;
}

/** Runs timed for --compare without --bench. */
export const COMPARE_RUNS = 5;

/** The options both apps take: schedule, boundary, output, --bench, --compare; `pipelines` are the app's, for the help on references. */
export function imageCommand(name: string, defaultSchedule: string, pipelines: readonly Pipeline[]): Command {
  const all = [...SCHEDULES, ...GPU_SCHEDULES];
  const schedules = all.map((s) => `  ${s.padEnd(6)} ${SCHEDULE_DESCRIPTIONS[s]}`).join('\n');
  const references = REFERENCES.map((r) => {
    const ours = REFERENCE_KERNELS.some((k) => k.reference === r && pipelines.includes(k.pipeline));
    return `  ${r.padEnd(7)}${REFERENCE_TITLES[r]}: ${ours ? supportedBy(r) : `nothing ${name} computes (it does ${supportedBy(r)})`}`;
  }).join('\n');
  return new Command(name)
    .argument('<input>', 'input image (PNG, JPEG, WebP, TIFF, … anything sharp reads, 8 bits per channel)')
    .requiredOption('-o, --output <file>', 'output PNG')
    .addOption(new Option('-s, --schedule <name>', 'loop schedule').choices(all).default(defaultSchedule))
    .addOption(new Option('-b, --boundary <mode>', 'what the stencil sees outside the image').choices(BOUNDARIES).default('clamp'))
    .option('--bench <runs>', 'run the kernel N more times and print the median throughput', positiveInt)
    .addOption(
      new Option('--compare <reference>', `also run a reference library on the input, check that the outputs agree (bit-exact for integers, 1e-5 for f32) and print its speed against ours (medians of --bench or ${COMPARE_RUNS} runs)`).choices(
        REFERENCES,
      ),
    )
    .addHelpText('after', `\nSchedules:\n${schedules}\n\nReferences for --compare (clamp boundary; one channel at a time):\n${references}\n`)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
}

/** Runs `body`; user errors become one line on stderr and exit status 1. */
export async function runCommand(name: string, program: Command, argv: string[], body: () => Promise<void>): Promise<number> {
  try {
    await program.parseAsync(argv, { from: 'user' });
    await body();
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    if (e instanceof CompileFailure) {
      process.stderr.write(`${name}: the image library did not compile:\n${e.rendered}\n`);
      return 1;
    }
    if (process.env.ANYDSL_DEBUG) throw e;
    process.stderr.write(`${name}: ${(e as Error).message}\n`);
    return 1;
  }
}

interface Progress {
  update(done: number): void;
  relabel(label: string): void;
  stop(): void;
}

/**
 * A progress line on stderr when it is a terminal, nothing otherwise: a bar of `total` steps,
 * or without a total just the label and the time spent.
 */
function progress(label: string, total?: number): Progress {
  if (!process.stderr.isTTY) return { update() {}, relabel() {}, stop() {} };
  const bar = new cliProgress.SingleBar({
    format: total ? '{label} [{bar}] {value}/{total} {duration_formatted}' : '{label} … {duration_formatted}',
    stream: process.stderr,
    barsize: 30,
    clearOnComplete: true,
  });
  bar.start(total ?? 1, 0, { label });
  return { update: (done) => bar.update(done), relabel: (l) => bar.update({ label: l }), stop: () => bar.stop() };
}

/** Awaits `work` with a progress line naming it (compiling a kernel, building a reference); `work` may name its current step. */
export async function during<T>(label: string, work: (step: (label: string) => void) => Promise<T>): Promise<T> {
  const line = progress(label);
  try {
    return await work((l) => line.relabel(l));
  } finally {
    line.stop();
  }
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
 * Makes --compare ready before any work: the reference's kernel for what the app computes
 * (an error naming what the reference supports otherwise), installed and built.
 */
export async function prepareCompare(reference: ReferenceName, pipeline: Pipeline, type: ElementType, boundary: Boundary): Promise<ReferenceKernel> {
  const kernel = referenceKernel(reference, pipeline, type, boundary);
  const title = REFERENCE_TITLES[reference];
  await during(`preparing ${title}`, (show) =>
    prepareReference(reference, (step) => {
      // A long step is worth a line in a log too, where no progress is drawn.
      if (!process.stderr.isTTY) console.error(`${title}: ${step}`);
      show(`${title}: ${step}`);
    }),
  );
  return kernel;
}

/**
 * Runs the reference on `input` (what it computes on: the app's image, or Harris' gray
 * plane), checks its output against ours and prints the agreement and the speed ratio;
 * outputs that differ are an error.
 */
export async function compareWithReference(kernel: ReferenceKernel, input: Image, ours: Image, oursTiming: Timing): Promise<void> {
  const title = REFERENCE_TITLES[kernel.reference];
  const runs = oursTiming.runs;
  const bar = progress(`${title}: ${kernel.kernel}`, runs * input.channels);
  let ref;
  try {
    ref = await runReference(kernel, input, runs, (done) => bar.update(done));
  } finally {
    bar.stop();
  }
  const agreement = compareOutputs(ours, ref.output);
  const verdict = agreement.ok ? (ours.type === 'f32' ? 'outputs agree to 1e-5' : 'outputs bit-exact') : 'outputs DIFFER';
  const channels = input.channels > 1 ? `, ${input.channels} channels one at a time` : '';
  console.log(`${ref.about} (${kernel.schedule}${channels}): ${verdict}: ${agreement.detail}`);
  const ratio = ref.medianMs / oursTiming.medianMs;
  console.log(`speed: ours ${oursTiming.medianMs.toFixed(2)} ms, ${title} ${ref.medianMs.toFixed(2)} ms (medians of ${runs} runs): ratio ${ratio.toFixed(2)}× (reference / ours; above 1 ours is faster)`);
  if (!agreement.ok) throw new Error(`the output differs from ${title}'s (${agreement.mismatches} elements)`);
}
