// Scoring: the bundled matrices (NCBI text format) parse, are symmetric and match the
// shared dataset's BLOSUM62; a matrix written and read back is the same; every malformed
// matrix file is an error with file:line; the encoder's letter rules; gap checks.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundledMatrix, checkGaps, DNA_ALPHABET, encode, formatMatrix, MATRIX_NAMES, parseMatrix, simpleScores, simpleSubstitution } from '../../libs/anyseq/scoring.ts';

const SHARED_BLOSUM62 = '../shared/datasets/sequences/matrices/BLOSUM62.txt';

describe('bundled matrices', () => {
  it.each(MATRIX_NAMES)('%s parses, is square and symmetric, and reads back from its own text', (name) => {
    const m = bundledMatrix(name.toLowerCase())!;
    expect(m.size).toBe(m.alphabet.length);
    expect(m.size).toBe(name === 'EDNAFULL' ? 16 : 24);
    for (let a = 0; a < m.size; a++) for (let b = 0; b < m.size; b++) expect(m.scores[a * m.size + b]).toBe(m.scores[b * m.size + a]);
    const again = parseMatrix(formatMatrix(m), 'x');
    expect([again.alphabet, Array.from(again.scores)]).toEqual([m.alphabet, Array.from(m.scores)]);
    expect(simpleScores(m)).toBeUndefined();
  });

  it.skipIf(!existsSync(SHARED_BLOSUM62))('BLOSUM62 equals the shared dataset\'s copy of NCBI\'s file', () => {
    const shared = parseMatrix(readFileSync(SHARED_BLOSUM62, 'utf8'), 'shared');
    const ours = bundledMatrix('BLOSUM62')!;
    expect([ours.alphabet, Array.from(ours.scores)]).toEqual([shared.alphabet, Array.from(shared.scores)]);
  });

  it('a few well-known entries', () => {
    const b62 = bundledMatrix('BLOSUM62')!;
    const at = (m: typeof b62, x: string, y: string) => m.scores[m.alphabet.indexOf(x) * m.size + m.alphabet.indexOf(y)];
    expect([at(b62, 'W', 'W'), at(b62, 'A', 'A'), at(b62, 'C', 'C'), at(b62, 'W', 'D')]).toEqual([11, 4, 9, -4]);
    const ed = bundledMatrix('EDNAFULL')!;
    expect([at(ed, 'A', 'A'), at(ed, 'A', 'T'), at(ed, 'N', 'N'), at(ed, 'T', 'U')]).toEqual([5, -4, -1, 5]);
    expect(at(bundledMatrix('PAM250')!, 'W', 'W')).toBe(17);
  });
});

describe('parseMatrix errors name the file and line', () => {
  it.each([
    ['', /^m\.txt: no matrix in it/],
    ['# only comments\n', /^m\.txt: no matrix in it/],
    ['  A  AB\n', /^m\.txt:1: the header line lists one residue letter per column, found 'AB'/],
    ['  A  A\n', /^m\.txt:1: residue 'A' heads two columns/],
    ['   A  C\nA  1 -1\nQ -1  1\n', /^m\.txt:3: a row starts with a residue letter of the header, found 'Q'/],
    ['   A  C\nA  1 -1\nA -1  1\n', /^m\.txt:3: a second row for residue 'A'/],
    ['   A  C\nA  1 -1 3\n', /^m\.txt:2: row 'A' has 3 scores for 2 columns/],
    ['   A  C\nA  1 1.5\n', /^m\.txt:2: '1\.5' is not an integer score/],
    ['   A  C\nA  1 -1\n', /^m\.txt: no row for residue C$/],
  ])('%j', (text, why) => {
    expect(() => parseMatrix(text, 'm.txt')).toThrow(why);
  });

  it('rows in another order than the columns are read by their letter', () => {
    const m = parseMatrix('   A  C\nC -2  5\nA  4 -2\n', 'm');
    expect(Array.from(m.scores)).toEqual([4, -2, -2, 5]);
  });
});

describe('encoding', () => {
  it('proteins: U and O read as X where the matrix lacks them, J is an error', () => {
    const b62 = bundledMatrix('BLOSUM62')!;
    const x = b62.alphabet.indexOf('X');
    expect(Array.from(encode('UuOo', b62))).toEqual([x, x, x, x]);
    expect(() => encode('MKJ', b62)).toThrow(/residue 'J' at position 3 is not in the alphabet/);
  });

  it('EDNAFULL keeps U and the ambiguity codes as residues of their own', () => {
    const ed = bundledMatrix('EDNAFULL')!;
    expect(Array.from(encode('URN', ed))).toEqual(['U', 'R', 'N'].map((c) => ed.alphabet.indexOf(c)));
  });

  it('match/mismatch scoring is recognised as simple', () => {
    expect(simpleScores(simpleSubstitution(DNA_ALPHABET, 2, -3))).toEqual({ match: 2, mismatch: -3 });
  });
});

describe('gap penalties', () => {
  it.each([
    [{ kind: 'affine', open: 1, extend: 2 }, /gap-open penalty \(1\) must be at least the gap-extend penalty \(2\)/],
    [{ kind: 'linear', gap: -1 }, /integers from 0 to 1000000/],
    [{ kind: 'linear', gap: 1.5 }, /integers from 0 to 1000000/],
  ] as const)('%j is refused', (gaps, why) => {
    expect(() => checkGaps(gaps)).toThrow(why);
  });
});
