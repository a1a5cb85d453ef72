// What computes the alignments for the app: the library's kernels (libs/anyseq/host.ts)
// compiled for the chosen mode, gap model and substitution, with a schedule picked for the
// work (or given): one pair per SIMD lane for many short score-only pairs, the wavefront of
// tiles over threads for long pairs when there are threads, SIMD stripes otherwise. On a
// CUDA or OpenCL device (`--device`) the GPU schedule computes the scores.
import { compileGpuAligners } from '../../../libs/anyseq/gpu.ts';
import { type Aligner, type AlignerOptions, compileAligner } from '../../../libs/anyseq/host.ts';
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

export interface Engine {
  /** What runs, for the summary line. */
  about: string;
  /** Scores (score-only) or aligns every pair in order; `onPair` hears each finished pair. */
  run(pairs: readonly (readonly [Uint8Array, Uint8Array])[], onPair?: (done: number) => void): (ScoreResult | AlignResult)[];
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
    run(list, onPair) {
      if (schedule === 'inter') {
        const out = aligner.scoreMany(list, params);
        onPair?.(list.length);
        return out;
      }
      return list.map(([q, t], k) => {
        const r = scoreOnly ? aligner.score(q, t, params) : aligner.align(q, t, params);
        onPair?.(k + 1);
        return r;
      });
    },
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
    run(list, onPair) {
      return list.map(([q, t], k) => {
        const r = gpu!.score(q, t, params);
        onPair?.(k + 1);
        return r;
      });
    },
    device: { kernelMicros: gpu!.kernelMicros, copyMicros: gpu!.copyMicros },
  };
}
