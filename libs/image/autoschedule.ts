// `--schedule auto`: a search over the tuning space of variants.ts (where stages are computed,
// tile width and height, vector width) for one pipeline on this machine and one image size
// class. It starts from the hand schedules, then searches locally around the best: each
// round compiles the untried neighbours of the best in one batch (compiles are the cost)
// and times them, turn by turn, on the user's input (else a synthetic one of its size,
// type and channels). Timing on a shared machine is noisy, so the search only proposes: a
// final interleaved run of many rounds times the best hand schedules against the best
// tunings found, and a tuning replaces the best hand schedule only when it is faster by a
// clear margin there. The choice is stored in the artifact cache under the key material the
// compile cache uses (compiler version, library sources, CPU model) plus the runtime, the
// hand schedules, the pipeline, type, channels, boundary, size class and core count, so a
// second run reuses it without searching and a change to any of them searches again. A
// pipeline with an entry of its own (the camera pipe, camera.ts) is searched the same way
// through `autoTune`, with its own compile and input (`TuningTarget`).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cacheRoot, compilerVersion, hashValue } from '../../compiler/src/driver/cache.ts';
import { startRuntimeBuild } from '../../compiler/src/driver/runtime-build.ts';
import { timesInTurns } from './bench.ts';
import { compileKernels, librarySources } from './host.ts';
import { type Image, randomImage } from './image.ts';
import { exportName, HAND_TUNINGS, handTuning, lanesIn512Bits, type Schedule, type Tuning, type Variant } from './variants.ts';

/** The variant without its schedule: what the search picks a schedule for. */
export type Unscheduled = Omit<Variant, 'schedule' | 'tuning' | 'device'>;

/** The image size class a choice holds for: width and height rounded up to powers of two. */
export interface SizeClass {
  width: number;
  height: number;
}

export interface AutoOptions<I = Image> {
  /** Search again even when a choice is cached. */
  retune?: boolean;
  /** Seconds the local search past the hand schedules may take, compiles included (checked between rounds); the hand schedules are always tried. */
  budgetSeconds?: number;
  /** Timed runs per candidate in each search round (after one warm-up); the final runs take three times as many. */
  runs?: number;
  /** The candidates to try instead of the hand schedules and the local search (tests). */
  candidates?: readonly Tuning[];
  /** The directory the choices are kept in (tests), instead of `schedules` in the artifact cache. */
  choicesDir?: string;
  /** Progress lines while searching. */
  onProgress?: (line: string) => void;
  /**
   * What the candidates are timed on: the user's own input (its size, channels and content
   * are what the choice is for); a synthetic one of the width and height asked about otherwise.
   */
  input?: I;
}

/** What the search chose: the variant, a line for the user, and whether it came from the cache. */
export interface AutoChoice {
  variant: Variant;
  summary: string;
  reused: boolean;
}

/**
 * What the search tunes: a pipeline whose kernels are compiled from tunings and timed on an
 * input (the user's, else a synthetic one of its size). `autoSchedule` makes the one of a
 * `Variant`; a pipeline with an entry of its own brings its own to `autoTune`.
 */
export interface TuningTarget {
  /** What the choice is cached under besides the compiler, the library, the size class and the machine (sources of its own included). */
  key: unknown;
  /** The lanes of its compute type in 512 bits (variants.ts lanesIn512Bits), for the summary. */
  lanes512: number;
  /** Its hand schedules that are points of the space, with the tunings it compiles them as: where the search starts, and what a tuning must beat. */
  hands: HandTunings;
  /** What the candidates run on, for the summary ("the 1920×1280 input", "a synthetic 1920×1280 image"). */
  input: string;
  /**
   * Compiles the tunings as one batch; for each, its kernel's name and one run on the
   * target's input (warmed up). All runs write one output, so that the candidates taking
   * turns find the same data in cache as one kernel run again and again does
   * (`compileOnOneInput` makes such a compile of a pipeline's own).
   */
  compile(tunings: readonly Tuning[]): Promise<{ name: string; run: () => void }[]>;
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
  /** Its time in the final run (the lower quartile of its runs, `timeInTurns`). */
  ms: number;
  bestHand: { schedule: Schedule; ms: number } | undefined;
  searched: number;
  seconds: number;
  /** Why the search ended: the budget spent, no faster neighbour, or the candidates given. */
  stopped: string;
  /** Why this one: the final run's verdict. */
  why: string;
  /** What the candidates ran on (TuningTarget.input). */
  timedOn: string;
}

export const DEFAULT_BUDGET_SECONDS = 40;
const DEFAULT_RUNS = 5;
/** The gain over the best so far that moves the local search on. */
const MIN_GAIN = 0.02;
/** How much faster than the best hand schedule a tuning must be, twice, to replace it: more than the final run's noise on a loaded machine. */
const MARGIN = 0.03;
/** The tunings found besides the hand schedules that the final run times. */
const CONTENDERS = 2;
/** The hand schedules the final run times: those within this factor of the fastest in the search. */
const FINALIST_BEHIND = 4;
/** The final run: at least this many rounds, more while they take under FINAL_SECONDS, at most FINAL_MAX_ROUNDS. */
const FINAL_MIN_ROUNDS = 15;
const FINAL_SECONDS = 3;
const FINAL_MAX_ROUNDS = 201;
/** Bumped when the search changes what it would choose, so choices of an older search are not reused. */
const SEARCH_VERSION = 2;
const MIN_TILE = 8;
const MAX_TILE = 2048;

/** Width and height rounded up to powers of two. */
export function sizeClass(width: number, height: number): SizeClass {
  const up = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(n, 1)));
  return { width: up(width), height: up(height) };
}

/** Hand schedules and the points of the tuning space they stand for. */
export type HandTunings = Partial<Record<Schedule, Tuning>>;

/** The hand schedule of `hands` with a tuning's parameters, if any. */
function handScheduleOf(hands: HandTunings, t: Tuning): Schedule | undefined {
  return (Object.entries(hands) as [Schedule, Tuning][]).find(([, h]) => tuningKey(h) === tuningKey(t))?.[0];
}

function tuningKey(t: Tuning): string {
  return `${t.at}:${t.tileWidth}x${t.tileHeight}:${t.vectorBits}`;
}

/** The schedule that runs `t`: the hand schedule itself where `t` is one of `hands` (its kernel is the one the apps compile), else the tuning. */
export function scheduleFor(t: Tuning, hands: HandTunings): { schedule: Schedule; tuning?: Tuning } {
  const hand = handScheduleOf(hands, t);
  if (hand) return { schedule: hand };
  return { schedule: t.at === 'root' ? 'vec' : t.at === 'tile' ? 'opt' : 'slide', tuning: t };
}

/** The hand schedules of `base`'s pipeline, with the tunings variants.ts compiles them as (`handTuning`). */
export function handsFor(base: Unscheduled): HandTunings {
  return Object.fromEntries((Object.keys(HAND_TUNINGS) as Schedule[]).map((s) => [s, handTuning(base.pipeline, s)!]));
}

/** The variant that runs `t` (`scheduleFor`). */
export function variantFor(base: Unscheduled, t: Tuning): Variant {
  return { ...base, ...scheduleFor(t, handsFor(base)) };
}

/** The vectorised hand schedules, where every search starts (a scalar one, `tile`, is never ahead of its vectorised twin). */
function handStart(hands: HandTunings): [Schedule, Tuning][] {
  return (Object.entries(hands) as [Schedule, Tuning][]).filter(([, t]) => t.vectorBits > 0);
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
  const tiles = t.at === 'row' || t.tileWidth === 0 ? `strips of ${t.tileHeight} rows` : `tile ${t.tileWidth}×${t.tileHeight}`;
  return `${tiles}, ${lanes}, ${where}`;
}

/**
 * The cache file of the choice for `target` on images of `cls`: keyed by everything that
 * decides the candidates' speed (the compiler, the library, the runtime they link, the hand
 * schedules they must beat, the machine), so a choice is never reused after any of them changed.
 */
function choicePath(target: TuningTarget, cls: SizeClass, dir: string, runtime: string): string {
  const key = hashValue({
    compiler: compilerVersion(),
    library: librarySources().map((s) => s.text),
    runtime,
    hands: target.hands,
    variant: target.key,
    search: SEARCH_VERSION,
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

/** A compiled candidate: its kernel's name, and a run on an input into an output (a new one when given none), which it returns. */
export interface CandidateKernel<I, O> {
  name: string;
  run: (input: I, output?: O) => O;
}

/**
 * A `TuningTarget.compile` from `build`, which compiles a batch of tunings into kernels: the
 * input made (`makeInput`) when the first batch is, so that a choice reused from the cache
 * makes none; each kernel warmed up by one run; every run of every candidate writing the one
 * output the first warm-up allocated.
 */
export function compileOnOneInput<I, O>(makeInput: () => I, build: (tunings: readonly Tuning[]) => Promise<CandidateKernel<I, O>[]>): TuningTarget['compile'] {
  let input: I | undefined;
  let output: O | undefined;
  return async (tunings) => {
    const inp = (input ??= makeInput());
    return (await build(tunings)).map(({ name, run }) => {
      const out = (output = run(inp, output)); // the warm-up
      return { name, run: () => void run(inp, out) };
    });
  };
}

/** A synthetic input: pseudo-random pixels (a fixed seed) of the base's type and channels. */
export function syntheticImage(base: Unscheduled, width: number, height: number): Image {
  return randomImage(base.type, width, height, base.channels, 0x9e3779b9);
}

/**
 * The schedule for `base` on images of `width` × `height`: the cached choice for their size
 * class, or the result of a search (then cached) on `options.input`, else on a synthetic
 * image of that size.
 */
export async function autoSchedule(base: Unscheduled, width: number, height: number, options: AutoOptions = {}): Promise<AutoChoice> {
  const given = options.input;
  if (given && (given.type !== base.type || given.channels !== base.channels)) {
    throw new Error(`the schedule search for ${base.type}×${base.channels} was given a ${given.type}×${given.channels} image to time on`);
  }
  const target: TuningTarget = {
    key: { pipeline: base.pipeline, type: base.type, channels: base.channels, boundary: base.boundary, iter: base.iter ?? null },
    lanes512: lanesIn512Bits(base),
    hands: handsFor(base),
    input: given ? `the ${given.width}×${given.height} input` : `a synthetic ${width}×${height} image`,
    compile: compileOnOneInput(
      () => given ?? syntheticImage(base, width, height),
      async (tunings) => {
        const variants = tunings.map((t) => variantFor(base, t));
        const kernels = await compileKernels(variants);
        return variants.map((v) => {
          const kernel = kernels.kernel(v);
          return { name: exportName(v), run: (img: Image, output?: Image) => kernel.run(img, output && { output }) };
        });
      },
    ),
  };
  const { schedule, tuning, summary, reused } = await autoTune(target, width, height, `${base.type}×${base.channels}`, options);
  return { variant: { ...base, schedule, ...(tuning && { tuning }) }, summary, reused };
}

/**
 * The schedule for `target` on inputs of `width` × `height` (`what` names their kind in the
 * summary): the cached choice for their size class, or the result of a search (then cached).
 */
export async function autoTune(target: TuningTarget, width: number, height: number, what: string, options: AutoOptions<unknown> = {}): Promise<TunedChoice> {
  const cls = sizeClass(width, height);
  const classText = `${cls.width}×${cls.height} ${what}`;
  const file = choicePath(target, cls, options.choicesDir ?? path.join(cacheRoot(), 'schedules'), (await startRuntimeBuild()).key);
  const stored = options.retune ? undefined : await readChoice(file);
  if (stored) {
    return { schedule: stored.schedule, ...(stored.tuning && { tuning: stored.tuning }), reused: true, summary: `auto: ${describeChoice(stored, target)} (reused the choice cached for ${classText}: ${stored.why}; ${stored.searched} schedules timed on ${stored.timedOn} in ${stored.seconds.toFixed(0)} s; --retune searches again)` };
  }
  const choice = await search(target, options);
  await writeChoice(file, choice);
  return { schedule: choice.schedule, ...(choice.tuning && { tuning: choice.tuning }), reused: false, summary: `auto: ${describeChoice(choice, target)} (${choice.why}; ${choice.searched} schedules timed on ${choice.timedOn} in ${choice.seconds.toFixed(0)} s, search ended by ${choice.stopped}; cached for ${classText})` };
}

function describeChoice(choice: StoredChoice, target: TuningTarget): string {
  const t = choice.tuning ?? target.hands[choice.schedule]!;
  return `${describeTuning(t, target.lanes512)}${choice.tuning ? '' : ` (the hand schedule ${choice.schedule})`}, ${choice.ms.toFixed(2)} ms`;
}

interface Timed {
  tuning: Tuning;
  ms: number;
}

type Runner = { name: string; run: () => void };

/**
 * The time of each runner over `rounds` rounds in which they take turns, one run each, so
 * that a burst of load from other processes slows all of them rather than one: the lower
 * quartile of its runs. Load only ever adds time, and on a shared machine it adds a
 * scheduler slice or more to a run of a millisecond now and then; the lower quartile keeps
 * what the kernel itself takes where a median still jumps (Storm.jpg, gauss5 under opt
 * against itself, 101 rounds at load 12: medians 0.76–1.12 apart, lower quartiles 0.95–1.05).
 */
function timeInTurns(runners: readonly Runner[], rounds: number): number[] {
  return timesInTurns(runners.map((r) => r.run), rounds).map(lowerQuartile);
}

function lowerQuartile(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 4)]!;
}

/**
 * Compiles and times candidates in batches until the local search ends or the budget is
 * spent, then decides between the best hand schedules and the best tunings found in a final
 * run (`decide`).
 */
async function search(target: TuningTarget, options: AutoOptions<unknown>): Promise<StoredChoice> {
  const start = performance.now();
  const budgetMs = (options.budgetSeconds ?? DEFAULT_BUDGET_SECONDS) * 1000;
  const runs = options.runs ?? DEFAULT_RUNS;
  const times = new Map<string, Timed>();
  // Every compiled candidate stays loaded, so the best so far can run beside the next batch and all of them in the final run.
  const runners = new Map<string, Runner>();
  // Compiles the untried tunings of `batch` and times them beside `incumbent`, so that what
  // the local search compares ran under the same load. A batch that fails to compile (a
  // vector width the backend cannot take) counts as tried and slowest in the local search;
  // the start batch must compile.
  const timeBatch = async (batch: readonly Tuning[], incumbent?: Tuning) => {
    const fresh = batch.filter((t, i) => !times.has(tuningKey(t)) && batch.findIndex((u) => tuningKey(u) === tuningKey(t)) === i);
    if (fresh.length === 0) return;
    options.onProgress?.(`auto: compiling ${fresh.length} schedule(s)`);
    let compiled;
    try {
      compiled = await target.compile(fresh);
    } catch (e) {
      if (!incumbent) throw e;
      for (const t of fresh) times.set(tuningKey(t), { tuning: t, ms: Infinity });
      options.onProgress?.(`auto: ${fresh.length} schedule(s) failed to compile: ${(e as Error).message.split('\n')[0]}`);
      return;
    }
    for (const [i, runner] of compiled.entries()) runners.set(tuningKey(fresh[i]!), runner);
    const tunings = [...fresh, ...(incumbent ? [incumbent] : [])];
    const ms = timeInTurns(
      tunings.map((t) => runners.get(tuningKey(t))!),
      runs,
    );
    for (const [i, t] of tunings.entries()) {
      times.set(tuningKey(t), { tuning: t, ms: ms[i]! });
      options.onProgress?.(`auto: ${runners.get(tuningKey(t))!.name} ${ms[i]!.toFixed(2)} ms`);
    }
  };
  let stopped = 'the candidates given';
  if (options.candidates) {
    if (options.candidates.length === 0) throw new Error('the schedule search needs at least one candidate');
    await timeBatch(options.candidates);
  } else {
    await timeBatch(handStart(target.hands).map(([, t]) => t));
    // The budget is the local search's: the hand schedules are always tried, however long
    // they take to compile (a pipeline that compiles slowly on a loaded machine would
    // otherwise never be searched past them). A round takes the untried neighbours of the
    // current best, as many as the budget left is likely to compile and time at the cost per
    // kernel so far (one at least), and moves to the fastest of them if it gains MIN_GAIN.
    const searchStart = performance.now();
    let spentMs = searchStart - start;
    let kernels = times.size;
    let current = bestOf(times).tuning;
    for (;;) {
      const leftMs = budgetMs - (performance.now() - searchStart);
      if (leftMs <= 0) {
        stopped = `the budget of ${budgetMs / 1000} s spent`;
        break;
      }
      const untried = neighbours(current).filter((t) => !times.has(tuningKey(t)));
      if (untried.length === 0) {
        stopped = `no neighbour faster by ${MIN_GAIN * 100}%`;
        break;
      }
      const batch = untried.slice(0, Math.max(1, Math.floor(leftMs / (spentMs / kernels))));
      const roundStart = performance.now();
      await timeBatch(batch, current);
      spentMs += performance.now() - roundStart;
      kernels += batch.length;
      // A step within the noise of timing on a shared machine is no reason to move.
      const challenger = batch.map((t) => times.get(tuningKey(t))!).reduce((a, b) => (b.ms < a.ms ? b : a));
      if (challenger.ms < times.get(tuningKey(current))!.ms * (1 - MIN_GAIN)) current = challenger.tuning;
    }
  }
  const decision = decide(times, runners, target, options);
  const chosen = scheduleFor(decision.pick.tuning, target.hands);
  return {
    schedule: chosen.schedule,
    tuning: chosen.tuning,
    ms: decision.pick.ms,
    bestHand: decision.hand && { schedule: handScheduleOf(target.hands, decision.hand.tuning)!, ms: decision.hand.ms },
    searched: times.size,
    seconds: (performance.now() - start) / 1000,
    stopped,
    why: decision.why,
    timedOn: target.input,
  };
}

/**
 * The final run: the hand schedules tried (all but those FINALIST_BEHIND times slower than the
 * fastest) and the CONTENDERS fastest other tunings, turn by turn for many rounds (a few
 * seconds in all). The search's own times, of a few runs each and taken in different rounds
 * under different load, only say what is worth this run. A
 * tuning replaces the fastest hand schedule only when it is faster by MARGIN here and again
 * in a second run of the two alone (as many seconds, so more rounds): a pick within the
 * noise could lose to it in the user's next run.
 */
function decide(times: Map<string, Timed>, runners: Map<string, Runner>, target: TuningTarget, options: AutoOptions<unknown>): { pick: Timed; hand?: Timed; why: string } {
  const tried = [...times.values()].filter((c) => Number.isFinite(c.ms));
  const handOf = (t: Tuning) => handScheduleOf(target.hands, t);
  const others = tried.filter((c) => !handOf(c.tuning)).sort((a, b) => a.ms - b.ms);
  // A hand schedule far behind the fastest one in the search (vec's whole-image temporaries on a
  // pipeline with stages) only takes rounds from the ones that decide.
  const hands = tried.filter((c) => handOf(c.tuning));
  const fastestHand = Math.min(...hands.map((c) => c.ms));
  const finalists = [...hands.filter((c) => c.ms <= FINALIST_BEHIND * fastestHand), ...others.slice(0, CONTENDERS)];
  // As many rounds as fit in FINAL_SECONDS at the times so far, within FINAL_MIN_ROUNDS … FINAL_MAX_ROUNDS.
  const roundsOf = (cs: readonly Timed[]) => (options.runs ? 3 * options.runs : Math.min(FINAL_MAX_ROUNDS, Math.max(FINAL_MIN_ROUNDS, Math.ceil((FINAL_SECONDS * 1000) / cs.reduce((sum, c) => sum + c.ms, 0)))));
  const rounds = roundsOf(finalists);
  options.onProgress?.(`auto: final run, ${finalists.length} schedules turn by turn for ${rounds} rounds`);
  const ms = timeInTurns(
    finalists.map((c) => runners.get(tuningKey(c.tuning))!),
    rounds,
  );
  const final = finalists.map((c, i) => ({ tuning: c.tuning, ms: ms[i]! })).sort((a, b) => a.ms - b.ms);
  for (const c of final) options.onProgress?.(`auto: final ${runners.get(tuningKey(c.tuning))!.name} ${c.ms.toFixed(2)} ms`);
  const hand = final.find((c) => handOf(c.tuning));
  const tuned = final.find((c) => !handOf(c.tuning));
  const run = `in a final run of ${rounds} rounds, turn by turn`;
  if (!hand) return { pick: tuned!, why: `the fastest ${run}` };
  const name = handOf(hand.tuning)!;
  if (!tuned) return { pick: hand, hand, why: `the fastest hand schedule ${run}` };
  const ratio = hand.ms / tuned.ms;
  const found = `the best tuning found (${describeTuning(tuned.tuning, target.lanes512)})`;
  if (tuned.ms >= hand.ms * (1 - MARGIN)) {
    return { pick: hand, hand, why: `kept the fastest hand schedule: ${found} ran ${ratio.toFixed(2)}× its speed ${run}, not ${MARGIN * 100}% faster` };
  }
  const pairRounds = roundsOf([tuned, hand]);
  options.onProgress?.(`auto: ${runners.get(tuningKey(tuned.tuning))!.name} against ${name} again, ${pairRounds} rounds`);
  const [tunedMs, handMs] = timeInTurns([runners.get(tuningKey(tuned.tuning))!, runners.get(tuningKey(hand.tuning))!], pairRounds) as [number, number];
  const again = handMs / tunedMs;
  if (tunedMs >= handMs * (1 - MARGIN)) {
    return { pick: hand, hand: { tuning: hand.tuning, ms: handMs }, why: `kept the fastest hand schedule: ${found} ran ${ratio.toFixed(2)}× its speed ${run}, but ${again.toFixed(2)}× in a second run of the two alone (${pairRounds} rounds), not ${MARGIN * 100}% faster` };
  }
  return { pick: { tuning: tuned.tuning, ms: tunedMs }, hand: { tuning: hand.tuning, ms: handMs }, why: `${ratio.toFixed(2)}× the speed of the fastest hand schedule, ${name}, ${run}, and ${again.toFixed(2)}× in a second run of the two alone (${pairRounds} rounds)` };
}

function bestOf(times: Map<string, Timed>): Timed {
  return [...times.values()].reduce((a, b) => (b.ms < a.ms ? b : a));
}

/** What `--schedule auto` does, for the apps' help. */
export const AUTO_DESCRIPTION = `searches tile sizes, vector width and where stages are computed for the image's size class on this machine, timing on the image itself: the hand schedules ${handStart(HAND_TUNINGS).map(([s]) => s).join(', ')}, then around the best while a budget of ${DEFAULT_BUDGET_SECONDS} s of compiling and timing lasts; a tuning replaces the fastest hand schedule only when it is ${MARGIN * 100}% faster in two final runs, turn by turn; the choice is cached with the compiled kernels (--retune searches again)`;
