// What the kernel tests share: generated pairs and scoring parameters (fast-check), the
// real windows from datasets/sequences, and the comparison of a kernel's score with the
// TypeScript reference (libs/anyseq/reference.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { expect } from 'vitest';
import { encodeRecord, readSequences } from '../../libs/anyseq/fasta.ts';
import type { AlignParams, PassResult } from '../../libs/anyseq/host.ts';
import { range16 } from '../../libs/anyseq/host.ts';
import { referenceScore } from '../../libs/anyseq/reference.ts';
import { bundledMatrix, DNA_ALPHABET, type Gaps, type Mode, PROTEIN_ALPHABET, simpleSubstitution, type Substitution } from '../../libs/anyseq/scoring.ts';

const SEQUENCES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../datasets/sequences');

/** A sequence of codes below `size` (a small alphabet gives many ties). */
const codes = (size: number, min: number, max: number) => fc.uint8Array({ min: 0, max: size - 1, minLength: min, maxLength: max });

/** A target derived from the query by substitutions, insertions and deletions, so that pairs align well. */
function mutated(q: Uint8Array, size: number, edits: number[]): Uint8Array {
  const out: number[] = [];
  let k = 0;
  for (let i = 0; i < q.length; i++) {
    const e = edits[k++ % edits.length]!;
    if (e < 8) out.push(q[i]!);
    else if (e < 10) out.push((q[i]! + 1) % size);
    else if (e < 11) {
      out.push(q[i]!);
      out.push(e % size);
    }
  }
  return Uint8Array.from(out);
}

/**
 * Pairs of codes below `size`: unrelated or related, empty and length 1, very unequal
 * lengths, lengths on both sides of the vector widths (16, 32) and the stripes of a tile.
 */
export function pairs(size: number, maxLength = 140): fc.Arbitrary<[Uint8Array, Uint8Array]> {
  const alphabet = fc.constantFrom(size, size, 2);
  return fc.oneof(
    alphabet.chain((s) => fc.tuple(codes(s, 0, maxLength), codes(s, 0, maxLength))),
    alphabet.chain((s) => fc.tuple(codes(s, 0, 2), codes(s, 0, maxLength))),
    alphabet.chain((s) => fc.tuple(codes(s, 0, maxLength), codes(s, 0, 2))),
    fc.tuple(codes(size, 1, maxLength), fc.array(fc.integer({ min: 0, max: 11 }), { minLength: 1, maxLength: 50 })).map(([q, e]): [Uint8Array, Uint8Array] => [q, mutated(q, size, e)]),
    fc.tuple(codes(size, 1, maxLength), fc.array(fc.integer({ min: 0, max: 11 }), { minLength: 1, maxLength: 50 })).map(([q, e]): [Uint8Array, Uint8Array] => [mutated(q, size, e), q]),
  );
}

/** Gap penalties of a kind: linear 0..8; affine open 1..12 with extend 0..open. */
export function gapsOf(kind: 'linear' | 'affine'): fc.Arbitrary<Gaps> {
  if (kind === 'linear') return fc.integer({ min: 0, max: 8 }).map((gap): Gaps => ({ kind: 'linear', gap }));
  return fc.integer({ min: 1, max: 12 }).chain((open) => fc.integer({ min: 0, max: open }).map((extend): Gaps => ({ kind: 'affine', open, extend })));
}

/** DNA match/mismatch scores (the mismatch may even be positive: scores are only signed numbers). */
export const dnaScores: fc.Arbitrary<Substitution> = fc
  .tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: -8, max: 1 }))
  .map(([match, mismatch]) => simpleSubstitution(DNA_ALPHABET, match, mismatch));

export const BLOSUM62 = bundledMatrix('BLOSUM62')!;
export const PROTEIN_SIZE = PROTEIN_ALPHABET.length;

/** The kernel's score and end cell equal the reference's (the end by its tie rule: smallest endT, then endQ). */
export function expectReference(got: PassResult, q: Uint8Array, t: Uint8Array, mode: Mode, params: AlignParams): void {
  const want = referenceScore(q, t, mode, params.gaps, params.sub);
  expect({ score: got.score, endQ: got.endQ, endT: got.endT }).toEqual(want);
}

/** Whether a score this large in magnitude must have made the 16-bit kernel overflow. */
export function beyond16(score: number, params: AlignParams): boolean {
  const r = range16(params);
  return !r || score > r.hi || score < r.lo;
}

/** The first record of a bundled FASTA file as DNA codes. */
export async function dnaFile(name: string): Promise<Uint8Array> {
  const sub = simpleSubstitution(DNA_ALPHABET, 1, -1);
  return encodeRecord((await readSequences(path.join(SEQUENCES, name)))[0]!, sub);
}

/** Protein records of a bundled FASTA file as BLOSUM62 codes. */
export async function proteinFile(name: string): Promise<Uint8Array[]> {
  return (await readSequences(path.join(SEQUENCES, name))).map((r) => encodeRecord(r, BLOSUM62));
}
