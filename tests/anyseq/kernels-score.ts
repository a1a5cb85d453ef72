// The score kernels of some schedules against the TypeScript reference, for every mode, gap
// model and score width: generated pairs (fast-check), pairs long enough to cross tiles and
// the kernels' position chunks, real windows of the two mitochondria, the BLOSUM62 matrix
// kernels on proteins, and pairs whose scores leave the 16-bit range (the result must come
// from the 32-bit kernel and be right). Registered by kernels*.test.ts, one file per group
// of schedules so that the files compile and run side by side.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Aligner, type AlignerOptions, compileAligners } from '../../libs/anyseq/host.ts';
import type { Schedule, Width } from '../../libs/anyseq/kernels.ts';
import { DNA_ALPHABET, type Gaps, MODES, simpleSubstitution } from '../../libs/anyseq/scoring.ts';
import { BLOSUM62, beyond16, dnaFile, dnaScores, expectReference, gapsOf, pairs, PROTEIN_SIZE } from './kernels-support.ts';

const GAPS = ['linear', 'affine'] as const;
const WIDTHS: Width[] = [16, 32];

export function scoreSuite(schedules: readonly Exclude<Schedule, 'inter'>[], seed: number): void {
  const variants: AlignerOptions[] = [];
  for (const schedule of schedules) {
    for (const mode of MODES) for (const gaps of GAPS) for (const width of WIDTHS) variants.push({ mode, gaps, substitution: 'simple', schedule, width, traceback: false });
    for (const mode of schedule === 'simd' ? MODES : (['local'] as const)) variants.push({ mode, gaps: 'affine', substitution: 'matrix', schedule, width: 16, traceback: false });
  }
  const aligners = new Map<string, Aligner>();
  const key = (o: AlignerOptions) => `${o.mode} ${o.gaps} ${o.substitution} ${o.schedule} ${o.width}`;
  let mtHuman: Uint8Array;
  let mtOrangutan: Uint8Array;

  beforeAll(async () => {
    const compiled = await compileAligners(variants);
    variants.forEach((v, k) => aligners.set(key(v), compiled[k]!));
    mtHuman = await dnaFile('mt_human.fa');
    mtOrangutan = await dnaFile('mt_orangutan.fa');
  }, 1_200_000);

  describe.each(variants.filter((v) => v.substitution === 'simple'))('%o', (v) => {
    const al = () => aligners.get(key(v))!;

    it('scores and end cells equal the reference on generated DNA pairs', () => {
      fc.assert(
        fc.property(pairs(5), gapsOf(v.gaps), dnaScores, ([q, t], gaps, sub) => {
          expectReference(al().score(q, t, { gaps, sub }), q, t, v.mode, { gaps, sub });
        }),
        { numRuns: 60, seed },
      );
    });

    it('scores equal the reference across tiles and position chunks (one long side)', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 1000 }), gapsOf(v.gaps), dnaScores, (offset, gaps, sub) => {
          const q = mtHuman.subarray(offset, offset + 300 + (offset % 37));
          const t = mtOrangutan.subarray(offset, offset + 9000 + offset);
          expectReference(al().score(q, t, { gaps, sub }), q, t, v.mode, { gaps, sub });
          const q2 = mtHuman.subarray(offset, offset + 40);
          const t2 = mtOrangutan.subarray(0, 17000);
          expectReference(al().score(q2, t2, { gaps, sub }), q2, t2, v.mode, { gaps, sub });
        }),
        { numRuns: 2, seed },
      );
    });

    it('scores equal the reference on windows of the human and orangutan mitochondria', () => {
      const sub = simpleSubstitution(DNA_ALPHABET, 2, -3);
      const gaps: Gaps = v.gaps === 'linear' ? { kind: 'linear', gap: 3 } : { kind: 'affine', open: 5, extend: 2 };
      for (const [at, len] of [[0, 1500], [7000, 1237], [15000, 1569]] as const) {
        const q = mtHuman.subarray(at, at + len);
        const t = mtOrangutan.subarray(at + 13, at + 13 + len - 50);
        expectReference(al().score(q, t, { gaps, sub }), q, t, v.mode, { gaps, sub });
      }
    });

    it('a score beyond 16 bits comes from the 32-bit kernel and is right', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 15000 }), fc.integer({ min: 60, max: 120 }), gapsOf(v.gaps), (at, match, gaps) => {
          const sub = simpleSubstitution(DNA_ALPHABET, match, -match);
          const q = mtHuman.subarray(at, at + 500);
          const t = mtHuman.subarray(at, at + 480);
          const got = al().score(q, t, { gaps, sub });
          expectReference(got, q, t, v.mode, { gaps, sub });
          if (beyond16(got.score, { gaps, sub })) expect(got.width).toBe(32);
          else if (v.width === 16 && v.mode !== 'global') expect(got.width).toBe(16);
        }),
        { numRuns: 4, seed },
      );
    });
  });

  describe.each(variants.filter((v) => v.substitution === 'matrix'))('%o', (v) => {
    it('BLOSUM62 scores equal the reference on generated protein pairs', () => {
      const al = aligners.get(key(v))!;
      fc.assert(
        fc.property(pairs(PROTEIN_SIZE, 120), gapsOf('affine'), ([q, t], gaps) => {
          expectReference(al.score(q, t, { gaps, sub: BLOSUM62 }), q, t, v.mode, { gaps, sub: BLOSUM62 });
        }),
        { numRuns: 40, seed },
      );
    });
  });
}
