// The benchmark's reference drivers agree with the TypeScript reference on samples of real
// sequences (mitochondria, lambda phage, the protein queries against E. coli proteins):
// Parasail for every mode and gap model, SSW for local protein alignment. Each is skipped,
// with the reason, where its Debian package is missing.
import { describe, expect, it } from 'vitest';
import { missingPackages, runAlignReference } from '../../bench/align/references.ts';
import { encodeRecord, readSequences } from '../../libs/anyseq/fasta.ts';
import type { Settings } from '../../libs/anyseq/format.ts';
import { referenceScore } from '../../libs/anyseq/reference.ts';
import { bundledMatrix, DNA_ALPHABET, type Gaps, MODES, simpleSubstitution } from '../../libs/anyseq/scoring.ts';

const dna = simpleSubstitution(DNA_ALPHABET, 2, -3);
const blosum62 = bundledMatrix('BLOSUM62')!;

const one = async (file: string) => encodeRecord((await readSequences(`datasets/sequences/${file}`))[0]!, dna);
const human = await one('mt_human.fa');
const orangutan = await one('mt_orangutan.fa');
const lambda = await one('lambda_phage.fa');
// Related pairs (i-th with i-th): Parasail's sg differs from ours only where the best
// semi-global alignment is the empty one at a corner (libs/anyseq/README.md).
const dnaQueries = [human.subarray(0, 1500), lambda.subarray(0, 900), human.subarray(8000, 8100), human.subarray(3000, 3400)];
const dnaTargets = [orangutan.subarray(0, 1400), lambda.subarray(300, 1500), orangutan.subarray(7900, 8300), orangutan.subarray(3050, 3300)];
const dnaPairs: [number, number][] = dnaQueries.map((_, i) => [i, i]);

const proteins = await readSequences('datasets/sequences/proteins/parasail_swipe_queries_31.fasta');
const proteinQueries = [proteins[0]!, proteins[2]!, proteins[5]!].map((r) => encodeRecord(r, blosum62));
const proteinTargets = [proteins[3]!, proteins[7]!, proteins[9]!, proteins[12]!].map((r) => encodeRecord(r, blosum62));

function allPairs(nq: number, nt: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < nq; i++) for (let j = 0; j < nt; j++) out.push([i, j]);
  return out;
}

function expected(settings: Settings, qs: Uint8Array[], ts: Uint8Array[], pairs: [number, number][]): number[] {
  return pairs.map(([i, j]) => referenceScore(qs[i]!, ts[j]!, settings.mode, settings.gaps, settings.sub).score);
}

const skip = async (driver: 'parasail' | 'ssw') => {
  const missing = await missingPackages(driver);
  return missing.length ? ` (skipped: needs apt-get install ${missing.join(' ')})` : '';
};
const parasailSkip = await skip('parasail');
const sswSkip = await skip('ssw');
const GAPS: Gaps[] = [
  { kind: 'linear', gap: 3 },
  { kind: 'affine', open: 5, extend: 2 },
];

describe('Parasail agrees with the reference on real pairs', () => {
  for (const mode of MODES) {
    for (const gaps of GAPS) {
      it.skipIf(parasailSkip !== '')(`DNA ${mode} ${gaps.kind}, score only and traceback${parasailSkip}`, async () => {
        const settings: Settings = { mode, gaps, sub: dna };
        const want = expected(settings, dnaQueries, dnaTargets, dnaPairs);
        for (const scoreOnly of [true, false]) {
          // Striped, scan and diagonal kernels, the majority's scores kept.
          const r = await runAlignReference('parasail', settings, { queries: dnaQueries, targets: dnaTargets }, dnaPairs, { scoreOnly, runs: 1, threads: 1 });
          expect(r.scores).toEqual(want);
          expect(r.about).toMatch(/^Parasail 2\.6 (nw|sg|sw)_(trace_)?(striped|scan|diag)_(16|32) /);
        }
      });
    }
  }

  it.skipIf(parasailSkip !== '')(`proteins, BLOSUM62, every vectorisation${parasailSkip}`, async () => {
    const settings: Settings = { mode: 'local', gaps: { kind: 'affine', open: 11, extend: 1 }, sub: blosum62 };
    const pairs = allPairs(proteinQueries.length, proteinTargets.length);
    const r = await runAlignReference('parasail', settings, { queries: proteinQueries, targets: proteinTargets }, pairs, { scoreOnly: true, runs: 1, threads: 2 });
    expect(r.scores).toEqual(expected(settings, proteinQueries, proteinTargets, pairs));
  });

  it.skipIf(parasailSkip !== '')(`proteins, the profile kernels parasail_aligner runs (8 → 16 → 32 bits), with CPU times${parasailSkip}`, async () => {
    const settings: Settings = { mode: 'local', gaps: { kind: 'affine', open: 11, extend: 1 }, sub: blosum62 };
    const pairs = allPairs(proteinQueries.length, proteinTargets.length);
    const r = await runAlignReference('parasail', settings, { queries: proteinQueries, targets: proteinTargets }, pairs, { scoreOnly: true, runs: 2, threads: 2, variant: 'striped_profile,scan_profile' });
    expect(r.scores).toEqual(expected(settings, proteinQueries, proteinTargets, pairs));
    expect(r.about).toMatch(/^Parasail 2\.6 sw_(striped|scan)_profile_sat /);
    expect(r.cpuTimes).toHaveLength(2);
  });
});

describe('SSW agrees with the reference on real protein pairs', () => {
  it.skipIf(sswSkip !== '')(`local, BLOSUM62, affine 11/1${sswSkip}`, async () => {
    const settings: Settings = { mode: 'local', gaps: { kind: 'affine', open: 11, extend: 1 }, sub: blosum62 };
    const pairs = allPairs(proteinQueries.length, proteinTargets.length);
    const r = await runAlignReference('ssw', settings, { queries: proteinQueries, targets: proteinTargets }, pairs, { scoreOnly: true, runs: 1, threads: 2 });
    expect(r.scores).toEqual(expected(settings, proteinQueries, proteinTargets, pairs));
  });

  it('refuses what it cannot compute', async () => {
    const settings: Settings = { mode: 'global', gaps: { kind: 'affine', open: 11, extend: 1 }, sub: blosum62 };
    await expect(runAlignReference('ssw', settings, { queries: [], targets: [] }, [], { scoreOnly: true, runs: 1, threads: 1 })).rejects.toThrow(/SSW computes local alignments/);
  });
});
