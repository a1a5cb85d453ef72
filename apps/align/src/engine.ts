// What computes the alignments for the app: the library's kernels for a chosen setting,
// one pair at a time (score or full alignment).
import { referenceAlign, referenceScore } from '../../../libs/anyseq/reference.ts';
import type { Settings } from '../../../libs/anyseq/format.ts';
import type { AlignResult, ScoreResult } from '../../../libs/anyseq/reference.ts';

export interface Engine {
  /** What runs, for the summary line. */
  about: string;
  score(q: Uint8Array, t: Uint8Array): ScoreResult;
  align(q: Uint8Array, t: Uint8Array): AlignResult;
}

/** The aligner for `settings`. */
export async function makeEngine(settings: Settings, _options: { threads: number }): Promise<Engine> {
  const { mode, gaps, sub } = settings;
  return {
    about: 'TypeScript reference DP',
    score: (q, t) => referenceScore(q, t, mode, gaps, sub),
    align: (q, t) => referenceAlign(q, t, mode, gaps, sub),
  };
}
