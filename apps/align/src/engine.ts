// What computes the alignments for the app: the library's kernels (libs/anyseq/host.ts)
// compiled for the chosen mode, gap model and substitution, with a schedule picked for the
// work (or given): one pair per SIMD lane for many short score-only pairs, the wavefront of
// tiles over threads for long pairs when there are threads, SIMD stripes otherwise. On a
// CUDA or OpenCL device (`--device`) the GPU schedule computes the scores. `runAsync` runs the
// long kernel calls on a worker thread and counts the cells done, for a progress line.
import { compileGpuAligners } from '../../../libs/anyseq/gpu.ts';
import { type Aligner, type AlignerOptions, type AlignProgress, compileAligner, plannedCells } from '../../../libs/anyseq/host.ts';
import type { Schedule } from '../../../libs/anyseq/kernels.ts';
import type { Settings } from '../../../libs/anyseq/format.ts';
import type { AlignResult, ScoreResult } from '../../../libs/anyseq/reference.ts';
import { simpleScores } from '../../../libs/anyseq/scoring.ts';

export type ScheduleChoice = Schedule | 'auto';

/** Inter-sequence SIMD pays for many pairs whose lengths are alike and short. */
const INTER_MIN_PAIRS = 16;
const INTER_MAX_LENGTH = 8192;
/** Below this many cells a pair is not worth spreading over threads. */
const WAVEFRONT_MIN_CELLS = 4_000_000;

type Pairs = readonly (readonly [Uint8Array, Uint8Array])[];

export interface Engine {
  /** What runs, for the summary line. */
  about: string;
  /** Scores (score-only) or aligns every pair in order. */
  run(pairs: Pairs): (ScoreResult | AlignResult)[];
  /** The same with the long kernel calls on a worker thread, the cells done counted in `progress` (planned by `plan`). */
  runAsync(pairs: Pairs, progress: AlignProgress): Promise<(ScoreResult | AlignResult)[]>;
  /** The cells `run` plans for the pairs (refined as tracebacks learn their ends). */
  plan(pairs: Pairs): number;
  /** On a GPU: microseconds spent in kernels and in copies to and from the device so far. */
  device?: { kernelMicros(): number; copyMicros(): number };
}

/** The schedule `auto` picks for these pairs. */
export function pickSchedule(pairs: readonly (readonly [Uint8Array, Uint8Array])[], scoreOnly: boolean, threads: number): Schedule {
  const longest = pairs.reduce((m, [q, t]) => Math.max(m, q.length, t.length), 0);
  if (scoreOnly && pairs.length >= INTER_MIN_PAIRS && longest <= INTER_MAX_LENGTH) return 'inter';
  const biggest = pairs.reduce((m, [q, t]) => Math.max(m, q.length * t.length), 0);
  return threads > 1 && biggest >= WAVEFRONT_MIN_CELLS ? 'wavefront' : 'simd';
}

/** Compiles (or loads from the cache) the kernels for `settings` and the work. */
export async function makeEngine(
  settings: Settings,
  pairs: readonly (readonly [Uint8Array, Uint8Array])[],
  options: { threads: number; scoreOnly: boolean; schedule: ScheduleChoice; device?: number },
): Promise<Engine> {
  const { scoreOnly, threads } = options;
  if (options.device) return gpuEngine(settings, options.device, options);
  const schedule = options.schedule === 'auto' ? pickSchedule(pairs, scoreOnly, threads) : options.schedule;
  if (schedule === 'inter' && !scoreOnly) throw new Error('--schedule inter computes scores only: add --score-only');
  const config: AlignerOptions = {
    mode: settings.mode,
    gaps: settings.gaps.kind,
    substitution: simpleScores(settings.sub) ? 'simple' : 'matrix',
    schedule,
    traceback: !scoreOnly,
  };
  const aligner: Aligner = await compileAligner(config);
  const params = { gaps: settings.gaps, sub: settings.sub, threads };
  const about = `AnySeq ${schedule} (${config.substitution} scoring, ${threads} thread${threads === 1 ? '' : 's'})`;
  return {
    about,
    run(list) {
      if (schedule === 'inter') return aligner.scoreMany(list, params);
      return list.map(([q, t]) => (scoreOnly ? aligner.score(q, t, params) : aligner.align(q, t, params)));
    },
    async runAsync(list, progress) {
      const watched = { ...params, progress };
      // The inter-sequence kernels are one short call: on this thread.
      if (schedule === 'inter') return aligner.scoreMany(list, watched);
      const out: (ScoreResult | AlignResult)[] = [];
      for (const [q, t] of list) out.push(await (scoreOnly ? aligner.scoreAsync(q, t, watched) : aligner.alignAsync(q, t, watched)));
      return out;
    },
    plan: (list) => list.reduce((sum, [q, t]) => sum + plannedCells(q.length, t.length, settings.mode, !scoreOnly), 0),
  };
}

/** The GPU schedule on runtime device `device` (CUDA or OpenCL): scores only, one pair after the other. */
async function gpuEngine(settings: Settings, device: number, options: { scoreOnly: boolean; schedule: ScheduleChoice }): Promise<Engine> {
  if (!options.scoreOnly) throw new Error('--device with a GPU computes scores only: add --score-only, or align on the host (--device host)');
  if (options.schedule !== 'auto') throw new Error(`--schedule ${options.schedule} is a CPU schedule: it does not go with a GPU --device`);
  const substitution = simpleScores(settings.sub) ? 'simple' : 'matrix';
  const [gpu] = await compileGpuAligners([{ mode: settings.mode, gaps: settings.gaps.kind, substitution, device }]);
  const params = { gaps: settings.gaps, sub: settings.sub };
  // The device builds its program on the first launch (OpenCL: seconds): not part of the alignment's time.
  gpu!.score(Uint8Array.of(0), Uint8Array.of(0), params);
  return {
    about: `AnySeq gpu on ${gpu!.deviceName()} (${substitution} scoring)`,
    run: (list) => list.map(([q, t]) => gpu!.score(q, t, params)),
    // One pair's launches at a time, counted when it ends.
    async runAsync(list, progress) {
      const out: ScoreResult[] = [];
      for (const [q, t] of list) {
        out.push(gpu!.score(q, t, params));
        progress.add(q.length * t.length);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return out;
    },
    plan: (list) => list.reduce((sum, [q, t]) => sum + q.length * t.length, 0),
    device: { kernelMicros: gpu!.kernelMicros, copyMicros: gpu!.copyMicros },
  };
}
