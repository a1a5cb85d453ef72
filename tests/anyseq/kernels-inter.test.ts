// Many pairs at once, one pair per SIMD lane (inter-sequence kernels), against the
// reference pair by pair: every mode, gap model and score width, with numbers of pairs that
// are not multiples of the lanes, empty sequences, lengths that differ within a group, and
// scores beyond 16 bits in some lanes of a group (those pairs are redone at 32 bits).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Aligner, type AlignerOptions, compileAligners } from '../../libs/anyseq/host.ts';
import type { Width } from '../../libs/anyseq/kernels.ts';
import { referenceScore } from '../../libs/anyseq/reference.ts';
import { DNA_ALPHABET, MODES, simpleSubstitution } from '../../libs/anyseq/scoring.ts';
import { BLOSUM62, beyond16, dnaScores, gapsOf, pairs, PROTEIN_SIZE, proteinFile } from './kernels-support.ts';

const variants: AlignerOptions[] = [];
for (const mode of MODES) for (const gaps of ['linear', 'affine'] as const) for (const width of [16, 32] as Width[]) variants.push({ mode, gaps, substitution: 'simple', schedule: 'inter', width, traceback: false });
variants.push({ mode: 'local', gaps: 'affine', substitution: 'matrix', schedule: 'inter', width: 16, traceback: false });

let aligners: Aligner[] = [];
beforeAll(async () => {
  aligners = await compileAligners(variants);
}, 1_200_000);

describe.each(variants.map((v, k) => [v, k] as const))('%o', (v, k) => {
  const al = () => aligners[k]!;
  const expectAll = (list: [Uint8Array, Uint8Array][], params: Parameters<Aligner['scoreMany']>[1]) => {
    const got = al().scoreMany(list, params);
    expect(got.length).toBe(list.length);
    got.forEach((r, n) => {
      const want = referenceScore(list[n]![0], list[n]![1], v.mode, params.gaps, params.sub);
      expect({ pair: n, score: r.score, endQ: r.endQ, endT: r.endT }).toEqual({ pair: n, ...want });
      if (beyond16(r.score, params)) expect(r.width).toBe(32);
    });
  };

  if (v.substitution === 'matrix') {
    it('BLOSUM62 scores of generated protein pairs and of real protein queries equal the reference', async () => {
      fc.assert(fc.property(fc.array(pairs(PROTEIN_SIZE, 90), { maxLength: 40 }), gapsOf('affine'), (list, gaps) => expectAll(list, { gaps, sub: BLOSUM62 })), { numRuns: 8, seed: 41 });
      const proteins = (await proteinFile('proteins/parasail_swipe_queries_31.fasta')).filter((p) => p.length < 400);
      const list = proteins.flatMap((a) => proteins.slice(0, 4).map((b): [Uint8Array, Uint8Array] => [a, b]));
      expectAll(list, { gaps: { kind: 'affine', open: 11, extend: 1 }, sub: BLOSUM62 });
    });
    return;
  }

  it('scores of generated DNA pairs equal the reference pair by pair', () => {
    fc.assert(fc.property(fc.array(pairs(5, 100), { maxLength: 70 }), gapsOf(v.gaps), dnaScores, (list, gaps, sub) => expectAll(list, { gaps, sub })), { numRuns: 10, seed: 42 });
  });

  it('pairs whose scores leave 16 bits are redone wide, the others of their group stay right', () => {
    const sub = simpleSubstitution(DNA_ALPHABET, 100, -100);
    const gaps = v.gaps === 'linear' ? ({ kind: 'linear', gap: 50 } as const) : ({ kind: 'affine', open: 120, extend: 40 } as const);
    fc.assert(
      fc.property(fc.array(pairs(5, 60), { minLength: 1, maxLength: 40 }), fc.uint8Array({ min: 0, max: 3, minLength: 340, maxLength: 400 }), (list, long) => {
        expectAll([...list, [long, long], [long, long.subarray(0, 300)]], { gaps, sub });
      }),
      { numRuns: 4, seed: 43 },
    );
  });
});
