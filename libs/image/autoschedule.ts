// `--schedule auto`: a search over the tuning space of variants.ts (where stages are computed,
// tile width and height, vector width) for one pipeline on this machine and one image size
// class. It starts from the hand schedules, then searches locally around the best: each
// round compiles the untried neighbours of the best in one batch (compiles are the cost)
// and times them on a synthetic image of the class (medians of a few runs). The choice is
// stored in the artifact cache under the key material the compile cache uses (compiler
// version, library sources, CPU model) plus the pipeline, type, channels, boundary, size
// class and core count, so a second run reuses it without searching. A pipeline with an entry
// of its own (the camera pipe, camera.ts) is searched the same way through `autoTune`, with
// its own compile and input (`TuningTarget`).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cacheRoot, compilerVersion, hashValue } from '../../compiler/src/driver/cache.ts';
import { median } from './bench.ts';
import { compileKernels, librarySources } from './host.ts';
import { type Image, randomImage } from './image.ts';
import { exportName, HAND_TUNINGS, lanesIn512Bits, type Schedule, type Tuning, type Variant } from './variants.ts';

/** The variant without its schedule: what the search picks a schedule for. */
export type Unscheduled = Omit<Variant, 'schedule' | 'tuning' | 'device'>;

/** The image size class a choice holds for: width and height rounded up to powers of two. */
export interface SizeClass {
  width: number;
  height: number;
}

export interface AutoOptions {
  /** Search again even when a choice is cached. */
  retune?: boolean;
  /** Seconds the search may take, compiles included; the hand schedules are always tried. */
  budgetSeconds?: number;
  /** Timed runs per candidate (after one warm-up). */
  runs?: number;
  /** The candidates to try instead of the hand schedules and the local search (tests). */
  candidates?: readonly Tuning[];
  /** The directory the choices are kept in (tests), instead of `schedules` in the artifact cache. */
  choicesDir?: string;
  /** Progress lines while searching. */
  onProgress?: (line: string) => void;
}

/** What the search chose: the variant, a line for the user, and whether it came from the cache. */
export interface AutoChoice {
  variant: Variant;
  summary: string;
  reused: boolean;
}

/**
 * What the search tunes: a pipeline whose kernels are compiled from tunings and timed on an
 * input of the size class. `autoSchedule` makes the one of a `Variant`; a pipeline with an
 * entry of its own brings its own to `autoTune`.
 */
export interface TuningTarget {
  /** What the choice is cached under besides the compiler, the library, the size class and the machine (sources of its own included). */
  key: unknown;
  /** The lanes of its compute type in 512 bits (variants.ts lanesIn512Bits), for the summary. */
  lanes512: number;
  /** Compiles the tunings as one batch; for each, its kernel's name and one run on an input of `cls` (warmed up). */
  compile(tunings: readonly Tuning[], cls: SizeClass): Promise<{ name: string; run: () => void }[]>;
}

/** The schedule and tuning `autoTune` chose (the schedule alone where that is a hand schedule), a line for the user, whether it came from the cache. */
export interface TunedChoice {
  schedule: Schedule;
  tuning?: Tuning;
  summary: string;
  reused: boolean;
}

/** The choice as stored in the cache. */
interface StoredChoice {
  schedule: Schedule;
  tuning?: Tuning;
  medianMs: number;
  bestHand: { schedule: Schedule; medianMs: number } | undefined;
  searched: number;
  seconds: number;
  /** Why the search ended: the budget spent, no faster neighbour, or the candidates given. */
  stopped: string;
}

export const DEFAULT_BUDGET_SECONDS = 40;
const DEFAULT_RUNS = 5;
/** The gain over the best so far that moves the local search on. */
const MIN_GAIN = 0.02;
const MIN_TILE = 8;
const MAX_TILE = 2048;

/** Width and height rounded up to powers of two. */
export function sizeClass(width: number, height: number): SizeClass {
  const up = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(n, 1)));
  return { width: up(width), height: up(height) };
}

/** The hand schedule with a tuning's parameters, if any. */
function handScheduleOf(t: Tuning): Schedule | undefined {
  return (Object.entries(HAND_TUNINGS) as [Schedule, Tuning][]).find(([, h]) => tuningKey(h) === tuningKey(t))?.[0];
}

function tuningKey(t: Tuning): string {
  return `${t.at}:${t.tileWidth}x${t.tileHeight}:${t.vectorBits}`;
}

/** The schedule that runs `t`: the hand schedule itself where `t` is one (its kernel is the one the apps compile), else the tuning. */
export function scheduleFor(t: Tuning): { schedule: Schedule; tuning?: Tuning } {
  const hand = handScheduleOf(t);
  if (hand) return { schedule: hand };
  return { schedule: t.at === 'root' ? 'vec' : t.at === 'tile' ? 'opt' : 'slide', tuning: t };
}

/** The variant that runs `t` (`scheduleFor`). */
export function variantFor(base: Unscheduled, t: Tuning): Variant {
  return { ...base, ...scheduleFor(t) };
}

/** The vectorised hand schedules, where every search starts (the scalar `tile` is never ahead of `vec`). */
function handStart(): Tuning[] {
  return (['vec', 'opt', 'slide'] as const).map((s) => HAND_TUNINGS[s]!);
}

/** The tunings one step from `t`: tile width and height halved and doubled, the vector width halved and doubled, the stages computed elsewhere. */
export function neighbours(t: Tuning): Tuning[] {
  const out: Tuning[] = [];
  const size = (n: number) => n >= MIN_TILE && n <= MAX_TILE;
  if (t.at !== 'row') {
    for (const w of [t.tileWidth / 2, t.tileWidth * 2]) if (size(w)) out.push({ ...t, tileWidth: w });
  }
  for (const h of [t.tileHeight / 2, t.tileHeight * 2]) if (size(h)) out.push({ ...t, tileHeight: h });
  for (const bits of [t.vectorBits / 2, t.vectorBits * 2]) if (bits >= 256 && bits <= 1024) out.push({ ...t, vectorBits: bits as Tuning['vectorBits'] });
  for (const at of ['root', 'tile', 'row'] as const) {
    if (at !== t.at) out.push({ ...t, at, tileWidth: at === 'row' ? 0 : t.tileWidth || 512 });
  }
  return out;
}

/** A short description of a tuning for the user. */
export function describeTuning(t: Tuning, lanes512: number): string {
  const lanes = t.vectorBits === 0 ? 'scalar' : `${(lanes512 * t.vectorBits) / 512} lanes`;
  const where = t.at === 'root' ? 'stages for the whole image first' : t.at === 'tile' ? 'stages per tile' : 'stages slid row by row';
  const tiles = t.at === 'row' ? `strips of ${t.tileHeight} rows` : `tile ${t.tileWidth}×${t.tileHeight}`;
  return `${tiles}, ${lanes}, ${where}`;
}

/** The cache file of the choice for `target` on images of `cls`. */
function choicePath(target: TuningTarget, cls: SizeClass, dir: string): string {
  const key = hashValue({
    compiler: compilerVersion(),
    library: librarySources().map((s) => s.text),
    variant: target.key,
    size: cls,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
  });
  return path.join(dir, `${key.slice(0, 32)}.json`);
}

async function readChoice(file: string): Promise<StoredChoice | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as StoredChoice;
  } catch {
    return undefined;
  }
}

async function writeChoice(file: string, choice: StoredChoice): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const scratch = `${file}.${process.pid}.tmp`;
  await writeFile(scratch, JSON.stringify(choice, null, 2) + '\n');
  await rename(scratch, file);
}

/** A synthetic input of the class: pseudo-random pixels (a fixed seed) of the base's type and channels. */
export function syntheticImage(base: Unscheduled, cls: SizeClass): Image {
  return randomImage(base.type, cls.width, cls.height, base.channels, 0x9e3779b9);
}

/**
 * The schedule for `base` on images of `width` × `height`: the cached choice for their size
 * class, or the result of a search (then cached).
 */
export async function autoSchedule(base: Unscheduled, width: number, height: number, options: AutoOptions = {}): Promise<AutoChoice> {
  const target: TuningTarget = {
    key: { pipeline: base.pipeline, type: base.type, channels: base.channels, boundary: base.boundary, iter: base.iter ?? null },
    lanes512: lanesIn512Bits(base),
    async compile(tunings, cls) {
      const input = syntheticImage(base, cls);
      const variants = tunings.map((t) => variantFor(base, t));
      const kernels = await compileKernels(variants);
      return variants.map((v) => {
        const kernel = kernels.kernel(v);
        const output = kernel.run(input); // the warm-up
        return { name: exportName(v), run: () => void kernel.run(input, { output }) };
      });
    },
  };
  const { schedule, tuning, summary, reused } = await autoTune(target, width, height, `${base.type}×${base.channels}`, options);
  return { variant: { ...base, schedule, ...(tuning && { tuning }) }, summary, reused };
}

/**
 * The schedule for `target` on inputs of `width` × `height` (`what` names their kind in the
 * summary): the cached choice for their size class, or the result of a search (then cached).
 */
export async function autoTune(target: TuningTarget, width: number, height: number, what: string, options: AutoOptions = {}): Promise<TunedChoice> {
  const cls = sizeClass(width, height);
  const classText = `${cls.width}×${cls.height} ${what}`;
  const file = choicePath(target, cls, options.choicesDir ?? path.join(cacheRoot(), 'schedules'));
  const stored = options.retune ? undefined : await readChoice(file);
  if (stored) {
    return { schedule: stored.schedule, ...(stored.tuning && { tuning: stored.tuning }), reused: true, summary: `auto: ${describeChoice(stored, target)} (reused the choice cached for ${classText}: fastest of ${stored.searched} schedules timed in ${stored.seconds.toFixed(0)} s; --retune searches again)` };
  }
  const choice = await search(target, cls, options);
  await writeChoice(file, choice);
  const versus = choice.bestHand ? `; ${(choice.bestHand.medianMs / choice.medianMs).toFixed(2)}× the best hand schedule ${choice.bestHand.schedule}` : '';
  return { schedule: choice.schedule, ...(choice.tuning && { tuning: choice.tuning }), reused: false, summary: `auto: ${describeChoice(choice, target)} (fastest of ${choice.searched} schedules timed in ${choice.seconds.toFixed(0)} s, search ended by ${choice.stopped}${versus}; cached for ${classText})` };
}

function describeChoice(choice: StoredChoice, target: TuningTarget): string {
  const t = choice.tuning ?? HAND_TUNINGS[choice.schedule]!;
  return `${describeTuning(t, target.lanes512)}${choice.tuning ? '' : ` (the hand schedule ${choice.schedule})`}, ${choice.medianMs.toFixed(2)} ms`;
}

/** Compiles and times candidates in batches until the local search ends or the budget is spent. */
async function search(target: TuningTarget, cls: SizeClass, options: AutoOptions): Promise<StoredChoice> {
  const start = performance.now();
  const budgetMs = (options.budgetSeconds ?? DEFAULT_BUDGET_SECONDS) * 1000;
  const runs = options.runs ?? DEFAULT_RUNS;
  const times = new Map<string, { tuning: Tuning; ms: number }>();
  // Every compiled candidate stays loaded, so the best so far can run again beside the next batch.
  const runners = new Map<string, { name: string; run: () => void }>();
  const bestHandKey = () => [...times.entries()].filter(([, c]) => handScheduleOf(c.tuning)).sort((a, b) => a[1].ms - b[1].ms)[0]?.[0];
  // Compiles the untried tunings of `batch` and times them beside the best so far and the
  // best hand schedule, so that what is compared runs under the same load. A batch that
  // fails to compile (a vector width the backend cannot take) counts as tried and slowest
  // in the local search; the start batch must compile.
  const timeBatch = async (batch: readonly Tuning[], mayFail = false) => {
    const fresh = batch.filter((t, i) => !times.has(tuningKey(t)) && batch.findIndex((u) => tuningKey(u) === tuningKey(t)) === i);
    if (fresh.length === 0) return;
    options.onProgress?.(`auto: compiling ${fresh.length} schedule(s)`);
    let compiled;
    try {
      compiled = await target.compile(fresh, cls);
    } catch (e) {
      if (!mayFail) throw e;
      for (const t of fresh) times.set(tuningKey(t), { tuning: t, ms: Infinity });
      options.onProgress?.(`auto: ${fresh.length} schedule(s) failed to compile: ${(e as Error).message.split('\n')[0]}`);
      return;
    }
    for (const [i, runner] of compiled.entries()) runners.set(tuningKey(fresh[i]!), runner);
    const incumbents = times.size ? [tuningKey(bestOf(times).tuning), bestHandKey()!] : [];
    const keys = [...new Set([...fresh.map(tuningKey), ...incumbents])];
    const tunings = new Map([...fresh.map((t) => [tuningKey(t), t] as const), ...[...times.values()].map((c) => [tuningKey(c.tuning), c.tuning] as const)]);
    // The candidates take turns, one run each per round, so that a burst of load from other processes slows all of them rather than one.
    const samples = keys.map(() => [] as number[]);
    for (let r = 0; r < runs; r++) {
      for (const [i, key] of keys.entries()) {
        const t0 = performance.now();
        runners.get(key)!.run();
        samples[i]!.push(performance.now() - t0);
      }
    }
    for (const [i, key] of keys.entries()) {
      const ms = median(samples[i]!);
      times.set(key, { tuning: tunings.get(key)!, ms });
      options.onProgress?.(`auto: ${runners.get(key)!.name} ${ms.toFixed(2)} ms`);
    }
  };
  let stopped = 'the candidates given';
  if (options.candidates) {
    if (options.candidates.length === 0) throw new Error('the schedule search needs at least one candidate');
    await timeBatch(options.candidates);
  } else {
    await timeBatch(handStart());
    // Local search: the untried neighbours of the best so far, one batch per round.
    for (;;) {
      if (performance.now() - start >= budgetMs) {
        stopped = `the budget of ${budgetMs / 1000} s spent`;
        break;
      }
      const best = tuningKey(bestOf(times).tuning);
      const next = neighbours(bestOf(times).tuning).filter((t) => !times.has(tuningKey(t)));
      await timeBatch(next, true);
      // A step within the noise of timing on a shared machine is no reason to go on.
      if (bestOf(times).ms > times.get(best)!.ms * (1 - MIN_GAIN)) {
        stopped = `no neighbour faster by ${MIN_GAIN * 100}%`;
        break;
      }
    }
  }
  const best = bestOf(times);
  const hand = times.get(bestHandKey() ?? '');
  const bestHand = hand && { schedule: handScheduleOf(hand.tuning)!, medianMs: hand.ms };
  const chosen = scheduleFor(best.tuning);
  return { schedule: chosen.schedule, tuning: chosen.tuning, medianMs: best.ms, bestHand, searched: times.size, seconds: (performance.now() - start) / 1000, stopped };
}

function bestOf(times: Map<string, { tuning: Tuning; ms: number }>): { tuning: Tuning; ms: number } {
  return [...times.values()].reduce((a, b) => (b.ms < a.ms ? b : a));
}

/** What `--schedule auto` does, for the apps' help. */
export const AUTO_DESCRIPTION = `searches tile sizes, vector width and where stages are computed for the image's size class on this machine: the hand schedules vec, opt and slide, then around the best while a budget of ${DEFAULT_BUDGET_SECONDS} s of compiling and timing lasts; the choice is cached with the compiled kernels (--retune searches again)`;
