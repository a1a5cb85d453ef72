// The TypeScript DP reference (the kernels' oracle) against the definition itself: on tiny
// inputs every alignment of every allowed sub-range is enumerated and scored run by run, so
// the best score, the end cell the tie rule picks and the traceback's validity are checked
// against something that shares no recurrence with the reference.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceAlign, referenceScore, rescoreCigar } from '../../libs/anyseq/reference.ts';
import { bundledMatrix, DNA_ALPHABET, gapCost, type Gaps, type Mode, MODES, simpleSubstitution, type Substitution } from '../../libs/anyseq/scoring.ts';

/** The best score over every path from (bq, bt) to (eq, et), gap runs scored as whole runs. */
function bestPath(q: Uint8Array, t: Uint8Array, bq: number, bt: number, eq: number, et: number, gaps: Gaps, sub: Substitution): number {
  let best = -Infinity;
  const walk = (i: number, j: number, last: string, run: number, acc: number) => {
    const close = last === 'I' || last === 'D' ? gapCost(gaps, run) : 0;
    if (i === eq && j === et) {
      best = Math.max(best, acc - close);
      return;
    }
    if (i < eq && j < et) walk(i + 1, j + 1, 'M', 0, acc - close + sub.scores[q[i]! * sub.size + t[j]!]!);
    if (i < eq) walk(i + 1, j, 'I', last === 'I' ? run + 1 : 1, last === 'I' ? acc : acc - close);
    if (j < et) walk(i, j + 1, 'D', last === 'D' ? run + 1 : 1, last === 'D' ? acc : acc - close);
  };
  walk(bq, bt, '', 0, 0);
  return best;
}

/** By enumeration: the best score of an alignment ending at each cell (-Infinity where the mode allows no end). */
function bestEndings(q: Uint8Array, t: Uint8Array, mode: Mode, gaps: Gaps, sub: Substitution): number[][] {
  const n = q.length;
  const m = t.length;
  const out = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(-Infinity));
  for (let eq = 0; eq <= n; eq++) {
    for (let et = 0; et <= m; et++) {
      if (mode === 'global' && (eq !== n || et !== m)) continue;
      if (mode === 'semi' && eq !== n && et !== m) continue;
      let best = -Infinity;
      for (let bq = 0; bq <= eq; bq++) {
        for (let bt = 0; bt <= et; bt++) {
          if (mode === 'global' && (bq !== 0 || bt !== 0)) continue;
          if (mode === 'semi' && bq !== 0 && bt !== 0) continue;
          best = Math.max(best, bestPath(q, t, bq, bt, eq, et, gaps, sub));
        }
      }
      out[eq]![et] = best;
    }
  }
  return out;
}

const dna = simpleSubstitution(DNA_ALPHABET, 2, -3);
const blosum62 = bundledMatrix('BLOSUM62')!;

const gapsArb: fc.Arbitrary<Gaps> = fc.oneof(
  fc.integer({ min: 0, max: 6 }).map((gap) => ({ kind: 'linear' as const, gap })),
  fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 4 })).map(([a, b]) => ({ kind: 'affine' as const, open: Math.max(a, b), extend: Math.min(a, b) })),
);

/** Tiny sequences over a few codes (ties and repeats are common), empty ones included. */
const seq = (codes: number, max: number) => fc.uint8Array({ minLength: 0, maxLength: max, min: 0, max: codes - 1 });

function checkAgainstEnumeration(q: Uint8Array, t: Uint8Array, mode: Mode, gaps: Gaps, sub: Substitution): void {
  const endings = bestEndings(q, t, mode, gaps, sub);
  let best = mode === 'local' ? 0 : -Infinity;
  for (const row of endings) for (const v of row) best = Math.max(best, v);
  // The tie rule: the smallest endT, then the smallest endQ, among cells reaching the best.
  let expectEnd: [number, number] | undefined;
  for (let j = 0; j <= t.length && !expectEnd; j++) for (let i = 0; i <= q.length && !expectEnd; i++) if (endings[i]![j] === best) expectEnd = [i, j];
  const s = referenceScore(q, t, mode, gaps, sub);
  expect(s.score).toBe(best);
  expect([s.endQ, s.endT]).toEqual(expectEnd);
  const a = referenceAlign(q, t, mode, gaps, sub);
  expect(a.score).toBe(best);
  expect([a.endQ, a.endT]).toEqual(expectEnd);
  expect(rescoreCigar(q, t, a, mode, gaps, sub)).toBe(best);
}

describe('referenceScore and referenceAlign equal the enumeration of all alignments', () => {
  for (const mode of MODES) {
    it(`${mode}, DNA match/mismatch`, () => {
      fc.assert(fc.property(seq(3, 5), seq(3, 5), gapsArb, (q, t, gaps) => checkAgainstEnumeration(q, t, mode, gaps, dna)), { numRuns: 150 });
    });
    it(`${mode}, BLOSUM62 and very unequal lengths`, () => {
      fc.assert(fc.property(seq(24, 2), seq(24, 6), gapsArb, fc.boolean(), (a, b, gaps, swap) => checkAgainstEnumeration(swap ? b : a, swap ? a : b, mode, gaps, blosum62)), {
        numRuns: 100,
      });
    });
  }

  it('all-gap optima: matching never pays, global aligns by gaps only', () => {
    const sub = simpleSubstitution('AC', -100, -100);
    const q = Uint8Array.of(0, 1);
    const t = Uint8Array.of(1, 0, 1);
    const gaps: Gaps = { kind: 'affine', open: 3, extend: 1 };
    checkAgainstEnumeration(q, t, 'global', gaps, sub);
    const a = referenceAlign(q, t, 'global', gaps, sub);
    expect(a.cigar).toMatch(/^(\d+[ID])+$/);
    expect(a.score).toBe(-(3 + 1) - (3 + 2));
  });
});

describe('referenceAlign on longer inputs', () => {
  it('its CIGAR re-scores to referenceScore in every mode and gap model (up to 60 residues)', () => {
    fc.assert(
      fc.property(seq(5, 60), seq(5, 60), gapsArb, fc.constantFrom(...MODES), (q, t, gaps, mode) => {
        const a = referenceAlign(q, t, mode, gaps, dna);
        const s = referenceScore(q, t, mode, gaps, dna);
        expect(a.score).toBe(s.score);
        expect([a.endQ, a.endT]).toEqual([s.endQ, s.endT]);
        expect(rescoreCigar(q, t, a, mode, gaps, dna)).toBe(s.score);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a matrix too large to hold', () => {
    expect(() => referenceAlign(new Uint8Array(10_000), new Uint8Array(10_000), 'global', { kind: 'linear', gap: 1 }, dna)).toThrow(/too large/);
  });
});

describe('rescoreCigar rejects what is not a valid alignment', () => {
  const q = Uint8Array.of(0, 1, 2, 3);
  const t = Uint8Array.of(0, 1, 3);
  const gaps: Gaps = { kind: 'affine', open: 5, extend: 1 };
  const at = (cigar: string, beginQ = 0, endQ = 4, beginT = 0, endT = 3) => ({ cigar, beginQ, endQ, beginT, endT });
  it('accepts a valid one and scores gap runs as one gap', () => {
    expect(rescoreCigar(q, t, at('2=1I1='), 'global', gaps, dna)).toBe(2 + 2 - 5 + 2);
    expect(rescoreCigar(q, t, at('1X', 1, 2, 0, 1), 'local', gaps, dna)).toBe(-3);
  });
  it.each([
    ['2=1I1X', /X at q\[3\], t\[2\], which are equal/],
    ['1=1X1I1=', /X at q\[1\], t\[1\], which are equal/],
    ['2=2I', /end at q\[4\], t\[2\]|more than/],
    ['2=1I1I1=', /two adjacent I runs/],
    ['2=0I1=', /malformed/],
    ['2M1I1M', /malformed/],
    ['2=1I2=', /more than/],
  ])('%s', (cigar, why) => {
    expect(() => rescoreCigar(q, t, at(cigar), 'global', gaps, dna)).toThrow(why);
  });
  it('a global alignment spans both sequences; a semi-global one touches the borders', () => {
    expect(() => rescoreCigar(q, t, at('1=', 1, 2, 1, 2), 'global', gaps, dna)).toThrow(/spans both/);
    expect(() => rescoreCigar(q, t, at('1=', 1, 2, 1, 2), 'semi', gaps, dna)).toThrow(/first row or column/);
    expect(rescoreCigar(q, t, at('1X', 0, 1, 2, 3), 'semi', gaps, dna)).toBe(-3);
  });
});
