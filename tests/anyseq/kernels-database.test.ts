// The database kernels (local alignment of queries against many targets each, one target per
// SIMD lane): scores and end cells equal the reference pair by pair, for 8-bit scores redone
// at 16 and then 32 bits where they leave the range, for both lookups of the substitution
// scores (AVX-512 permutes where this CPU has them, and the portable lane-by-lane one), with
// empty and length-1 targets, targets of very unequal lengths in one group, queries longer
// than a band (128 rows) and real protein queries against E. coli proteins.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseLimit } from '../../libs/anyseq/database.ts';
import { type Aligner, type AlignerOptions, type AlignParams, compileAligners, range16 } from '../../libs/anyseq/host.ts';
import { referenceScore } from '../../libs/anyseq/reference.ts';
import { DNA_ALPHABET, simpleSubstitution } from '../../libs/anyseq/scoring.ts';
import { BLOSUM62, gapsOf, PROTEIN_SIZE, proteinFile } from './kernels-support.ts';

const variants: AlignerOptions[] = [
  { mode: 'local', gaps: 'affine', substitution: 'matrix', schedule: 'inter', traceback: false },
  { mode: 'local', gaps: 'linear', substitution: 'simple', schedule: 'inter', traceback: false },
  { mode: 'local', gaps: 'affine', substitution: 'matrix', schedule: 'inter', traceback: false, lookup: 'lanes' },
];

let aligners: Aligner[] = [];
beforeAll(async () => {
  aligners = await compileAligners(variants);
}, 1_200_000);

/** Every query against every target (the pairs share the query arrays, as a database search does). */
function database(queries: Uint8Array[], targets: Uint8Array[]): [Uint8Array, Uint8Array][] {
  return queries.flatMap((q) => targets.map((t): [Uint8Array, Uint8Array] => [q, t]));
}

/** Scores and ends equal the reference; each result's width is the narrowest that holds its score. */
function expectAll(al: Aligner, list: [Uint8Array, Uint8Array][], params: AlignParams): void {
  const got = al.scoreMany(list, params);
  const open = params.gaps.kind === 'linear' ? params.gaps.gap : params.gaps.open;
  const hi8 = databaseLimit(8, params.sub, open) ?? -1;
  const hi16 = databaseLimit(16, params.sub, open) ?? range16(params)?.hi ?? -1;
  got.forEach((r, n) => {
    const want = referenceScore(list[n]![0], list[n]![1], 'local', params.gaps, params.sub);
    expect({ pair: n, score: r.score, endQ: r.endQ, endT: r.endT }).toEqual({ pair: n, ...want });
    if (r.score > hi16) expect(r.width).toBe(32);
    else if (r.score > hi8) expect(r.width).toBeGreaterThanOrEqual(16);
  });
}

const codes = (size: number, min: number, max: number) => fc.uint8Array({ min: 0, max: size - 1, minLength: min, maxLength: max });

describe.each(variants.map((v, k) => [v, k] as const))('%o', (v, k) => {
  const al = () => aligners[k]!;
  const size = v.substitution === 'matrix' ? PROTEIN_SIZE : 5;

  it('generated databases: a few queries (some longer than a band) against targets of any length', () => {
    const sub = v.substitution === 'matrix' ? fc.constant(BLOSUM62) : fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: -8, max: 0 })).map(([ma, mi]) => simpleSubstitution(DNA_ALPHABET, ma, mi));
    fc.assert(
      fc.property(
        fc.array(fc.oneof(codes(size, 1, 40), codes(size, 120, 300)), { minLength: 1, maxLength: 3 }),
        fc.array(fc.oneof(codes(size, 0, 2), codes(size, 0, 90), codes(2, 20, 60)), { minLength: 8, maxLength: 90 }),
        gapsOf(v.gaps),
        sub,
        (queries, targets, gaps, s) => expectAll(al(), database(queries, targets), { gaps, sub: s }),
      ),
      { numRuns: 6, seed: 61 },
    );
  });

  if (v.substitution === 'matrix') {
    it('real protein queries against E. coli proteins (BLOSUM62, 11/1)', async () => {
      const queries = (await proteinFile('proteins/parasail_swipe_queries_31.fasta')).filter((p) => p.length < 400).slice(0, 6);
      const targets = (await proteinFile('proteins/ecoli_k12_mg1655_proteome.GCF_000005845.2.faa.xz')).slice(0, 70);
      expectAll(al(), database(queries, targets), { gaps: { kind: 'affine', open: 11, extend: 1 }, sub: BLOSUM62 });
    });
    return;
  }

  it('scores past 8 bits are redone at 16, past 16 at 32, the rest of their group stays right', () => {
    const sub = simpleSubstitution(DNA_ALPHABET, 5, -4);
    const gaps = { kind: 'linear', gap: 6 } as const;
    fc.assert(
      fc.property(codes(4, 6600, 6700), fc.array(codes(4, 0, 80), { minLength: 8, maxLength: 20 }), (long, short) => {
        // The query against itself scores 5·|q| > 32767; against its first 100 residues 500 (16 bits).
        const targets = [long, long.subarray(0, 100), ...short];
        const got = al().scoreMany(database([long], targets), { gaps, sub });
        expect(got.map((r) => r.width).slice(0, 2)).toEqual([32, 16]);
        expect(got.slice(2).every((r) => r.width === 8)).toBe(true);
        expectAll(al(), database([long.subarray(0, 400)], short), { gaps, sub });
        got.slice(0, 2).forEach((r, n) => expect(r.score).toBe(referenceScore(long, targets[n]!, 'local', gaps, sub).score));
      }),
      { numRuns: 1, seed: 62 },
    );
  });
});
