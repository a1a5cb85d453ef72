// Alignments in linear space (libs/anyseq/traceback.ts on top of the pass kernels) against
// the reference: for every mode and gap model, the score and end cell equal the reference's
// and the CIGAR is a valid alignment of the two inputs that re-scores to the score, on
// generated pairs and on pairs large enough for Hirschberg's recursion to split many times
// (through cells and through gaps), real mitochondrial windows included.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Aligner, type AlignerOptions, compileAligners } from '../../libs/anyseq/host.ts';
import { referenceScore, rescoreCigar } from '../../libs/anyseq/reference.ts';
import { DNA_ALPHABET, type Gaps, MODES, simpleSubstitution } from '../../libs/anyseq/scoring.ts';
import { BASE_CELLS } from '../../libs/anyseq/traceback.ts';
import type { AlignParams } from '../../libs/anyseq/host.ts';
import { BLOSUM62, dnaFile, dnaScores, gapsOf, pairs, PROTEIN_SIZE } from './kernels-support.ts';

const variants: AlignerOptions[] = [];
for (const mode of MODES) for (const gaps of ['linear', 'affine'] as const) variants.push({ mode, gaps, substitution: 'simple', schedule: 'simd' });
variants.push({ mode: 'global', gaps: 'affine', substitution: 'simple', schedule: 'wavefront', width: 32 });
variants.push({ mode: 'local', gaps: 'affine', substitution: 'simple', schedule: 'scalar' });
variants.push({ mode: 'local', gaps: 'affine', substitution: 'matrix', schedule: 'simd' });

let aligners: Aligner[] = [];
let mtHuman: Uint8Array;
let mtOrangutan: Uint8Array;

beforeAll(async () => {
  aligners = await compileAligners(variants);
  mtHuman = await dnaFile('mt_human.fa');
  mtOrangutan = await dnaFile('mt_orangutan.fa');
}, 1_200_000);

/** The alignment's score and end are the reference's, and its CIGAR re-scores to the score. */
function check(al: Aligner, q: Uint8Array, t: Uint8Array, params: AlignParams): void {
  const { mode } = al.options;
  const got = al.align(q, t, params);
  const want = referenceScore(q, t, mode, params.gaps, params.sub);
  expect({ score: got.score, endQ: got.endQ, endT: got.endT }).toEqual(want);
  expect(rescoreCigar(q, t, got, mode, params.gaps, params.sub)).toBe(got.score);
}

describe.each(variants.map((v, k) => [v, k] as const))('%o', (v, k) => {
  const al = () => aligners[k]!;

  if (v.substitution === 'matrix') {
    it('BLOSUM62 alignments re-score to the reference score on generated protein pairs', () => {
      fc.assert(fc.property(pairs(PROTEIN_SIZE, 200), gapsOf('affine'), ([q, t], gaps) => check(al(), q, t, { gaps, sub: BLOSUM62 })), { numRuns: 30, seed: 31 });
    });
    return;
  }

  it('alignments re-score to the reference score on generated DNA pairs', () => {
    fc.assert(fc.property(pairs(5, 200), gapsOf(v.gaps), dnaScores, ([q, t], gaps, sub) => check(al(), q, t, { gaps, sub })), { numRuns: 60, seed: 32 });
  });

  it(`alignments beyond ${BASE_CELLS} cells split recursively and stay optimal`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 14000 }), fc.integer({ min: 200, max: 700 }), fc.integer({ min: 150, max: 900 }), gapsOf(v.gaps), dnaScores, (at, nq, nt, gaps, sub) => {
        check(al(), mtHuman.subarray(at, at + nq), mtOrangutan.subarray(at + 7, at + 7 + nt), { gaps, sub });
      }),
      { numRuns: 6, seed: 33 },
    );
  });

  it('aligns a window of the two mitochondria', () => {
    const sub = simpleSubstitution(DNA_ALPHABET, 2, -3);
    const gaps: Gaps = v.gaps === 'linear' ? { kind: 'linear', gap: 3 } : { kind: 'affine', open: 5, extend: 2 };
    check(al(), mtHuman.subarray(2000, 4000), mtOrangutan.subarray(2000, 3950), { gaps, sub });
  });
});
