// How an alignment is scored, shared by the kernels' host, the TypeScript reference and the
// app: the mode, the gap model, the substitution scores over an alphabet of residue codes,
// substitution matrices in NCBI's text format (bundled ones by name, or a user's file), and
// the encoder from residue letters to codes.
//
// Conventions (libs/anyseq/README.md): sequences are Uint8Arrays of codes 0..size-1 in the
// alphabet of the substitution; scores are signed; gap penalties are positive, a linear gap
// of length k costs k·gap, an affine one open + (k−1)·extend (Parasail's and EMBOSS's
// convention). Positions are half-open: an alignment covers query[beginQ, endQ) and
// target[beginT, endT); a score-only result's end is the DP cell (endQ, endT).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** global: Needleman–Wunsch; local: Smith–Waterman; semi: end gaps free on both sequences (Parasail's `sg`). */
export type Mode = 'global' | 'local' | 'semi';
export const MODES: readonly Mode[] = ['global', 'local', 'semi'];

export type Gaps = { kind: 'linear'; gap: number } | { kind: 'affine'; open: number; extend: number };

export interface Substitution {
  /** Residue letters (upper case) in code order. */
  alphabet: string;
  size: number;
  /** size·size scores, row-major: scores[a·size + b] scores query code a against target code b. */
  scores: Int32Array;
  /** What it is, for output: `BLOSUM62`, a file name, or `match 2, mismatch -3`. */
  name?: string;
}

/** The cost of a gap of `length` residues (a positive number for a positive length). */
export function gapCost(gaps: Gaps, length: number): number {
  if (length === 0) return 0;
  return gaps.kind === 'linear' ? length * gaps.gap : gaps.open + (length - 1) * gaps.extend;
}

/** Gap penalties are non-negative integers and, as in Parasail, opening costs at least extending. */
export function checkGaps(gaps: Gaps): void {
  const values = gaps.kind === 'linear' ? [gaps.gap] : [gaps.open, gaps.extend];
  for (const v of values) {
    if (!Number.isInteger(v) || v < 0 || v > 1_000_000) throw new Error(`gap penalties are integers from 0 to 1000000 (a penalty is subtracted), got ${v}`);
  }
  if (gaps.kind === 'affine' && gaps.open < gaps.extend) {
    throw new Error(`the gap-open penalty (${gaps.open}) must be at least the gap-extend penalty (${gaps.extend}): a gap of length k costs open + (k-1)·extend`);
  }
}

/** Nucleotides with N (any base) as a residue of its own; U reads as T, other IUPAC codes as N. */
export const DNA_ALPHABET = 'ACGTN';
/** The 20 amino acids, B, Z, X (unknown) and * (stop), in the order of NCBI's BLOSUM and PAM files. */
export const PROTEIN_ALPHABET = 'ARNDCQEGHILKMFPSTWYVBZX*';

/** IUPAC nucleotide ambiguity codes that fold to N in DNA_ALPHABET. */
const IUPAC_AMBIGUOUS = 'RYKMSWBDHV';

/** Match/mismatch scoring: equal codes score `match`, different ones `mismatch` (N against N is a match, as in Parasail's parasail_matrix_create). */
export function simpleSubstitution(alphabet: string, match: number, mismatch: number): Substitution {
  for (const v of [match, mismatch]) {
    if (!Number.isInteger(v) || Math.abs(v) > 1_000_000) throw new Error(`match and mismatch scores are integers from -1000000 to 1000000, got ${v}`);
  }
  const size = alphabet.length;
  const scores = new Int32Array(size * size).fill(mismatch);
  for (let a = 0; a < size; a++) scores[a * size + a] = match;
  return { alphabet, size, scores, name: `match ${match}, mismatch ${mismatch}` };
}

/** The score of query code `a` against target code `b`. */
export function score(sub: Substitution, a: number, b: number): number {
  return sub.scores[a * sub.size + b]!;
}

/** True when the scores are exactly match on the diagonal and one mismatch value elsewhere (the kernels' 'simple' substitution applies). */
export function simpleScores(sub: Substitution): { match: number; mismatch: number } | undefined {
  const match = sub.scores[0]!;
  const mismatch = sub.size > 1 ? sub.scores[1]! : match - 1;
  for (let a = 0; a < sub.size; a++) {
    for (let b = 0; b < sub.size; b++) if (sub.scores[a * sub.size + b] !== (a === b ? match : mismatch)) return undefined;
  }
  return { match, mismatch };
}

/** A residue the substitution's alphabet lacks: where it is, so the caller can name the file and line. */
export class UnknownResidue extends Error {
  constructor(
    readonly residue: string,
    readonly position: number,
    readonly alphabet: string,
  ) {
    super(`residue '${residue}' at position ${position + 1} is not in the alphabet ${alphabet}`);
  }
}

/**
 * The code table of an alphabet: letters in either case; for a nucleotide alphabet holding N
 * (DNA_ALPHABET, EDNAFULL) also U as T when U has no code of its own, and the IUPAC
 * ambiguity codes the alphabet lacks as N; for a protein alphabet holding X also U
 * (selenocysteine) and O (pyrrolysine) as X when they have no code. 255 marks a letter
 * without a code.
 */
export function codeTable(alphabet: string): Uint8Array {
  const table = new Uint8Array(256).fill(255);
  const set = (letter: string, code: number) => {
    for (const c of [letter.toUpperCase(), letter.toLowerCase()]) if (table[c.charCodeAt(0)] === 255) table[c.charCodeAt(0)] = code;
  };
  for (let i = 0; i < alphabet.length; i++) set(alphabet[i]!, i);
  const n = alphabet.indexOf('N');
  if (isNucleotideAlphabet(alphabet)) {
    if (!alphabet.includes('U')) set('U', alphabet.indexOf('T'));
    for (const c of IUPAC_AMBIGUOUS) if (!alphabet.includes(c)) set(c, n);
  } else if (alphabet.includes('X')) {
    // Selenocysteine and pyrrolysine score as X (unknown) where the matrix has no row for them, as BLAST does.
    for (const c of 'UO') if (!alphabet.includes(c)) set(c, alphabet.indexOf('X'));
  }
  return table;
}

/** An alphabet of nucleotides: it holds A, C, G, T and N and nothing that is no nucleotide code. */
export function isNucleotideAlphabet(alphabet: string): boolean {
  return ['A', 'C', 'G', 'T', 'N'].every((c) => alphabet.includes(c)) && [...alphabet].every((c) => 'ACGTUN'.includes(c) || IUPAC_AMBIGUOUS.includes(c));
}

/** Encodes residue letters (a string or ASCII bytes) into codes of `sub`'s alphabet; a letter without a code throws UnknownResidue. */
export function encode(text: string | Uint8Array, sub: Substitution): Uint8Array {
  const table = codeTable(sub.alphabet);
  const n = text.length;
  const out = new Uint8Array(n);
  const bytes = typeof text === 'string' ? undefined : text;
  for (let i = 0; i < n; i++) {
    const c = bytes ? bytes[i]! : (text as string).charCodeAt(i);
    const code = c < 256 ? table[c]! : 255;
    if (code === 255) throw new UnknownResidue(String.fromCharCode(c), i, sub.alphabet);
    out[i] = code;
  }
  return out;
}

/** Codes back to letters (upper case). */
export function decode(codes: Uint8Array, sub: Substitution): string {
  let s = '';
  for (let i = 0; i < codes.length; i += 8192) s += String.fromCharCode(...Array.from(codes.subarray(i, i + 8192), (c) => sub.alphabet.charCodeAt(c)));
  return s;
}

/** The matrices bundled in libs/anyseq/matrices/ (NCBI text format; sources in its README). */
export const MATRIX_NAMES = ['BLOSUM45', 'BLOSUM50', 'BLOSUM62', 'BLOSUM80', 'PAM30', 'PAM70', 'PAM250', 'EDNAFULL'] as const;
export type MatrixName = (typeof MATRIX_NAMES)[number];

/** A bundled matrix by name (any case), or undefined when there is none of that name. */
export function bundledMatrix(name: string): Substitution | undefined {
  const known = MATRIX_NAMES.find((m) => m === name.toUpperCase());
  if (!known) return undefined;
  const file = fileURLToPath(new URL(`matrices/${known}`, import.meta.url));
  return parseMatrix(readFileSync(file, 'utf8'), `libs/anyseq/matrices/${known}`, known);
}

/** A matrix by bundled name or from a file in NCBI's format; errors name the file and line. */
export function loadMatrix(nameOrFile: string): Substitution {
  const bundled = bundledMatrix(nameOrFile);
  if (bundled) return bundled;
  let text: string;
  try {
    text = readFileSync(nameOrFile, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? `no such file, and no bundled matrix of that name (bundled: ${MATRIX_NAMES.join(', ')})` : code === 'EISDIR' ? 'it is a directory' : (e as Error).message;
    throw new Error(`cannot read matrix '${nameOrFile}': ${why}`);
  }
  return parseMatrix(text, nameOrFile, nameOrFile.replace(/^.*\//, ''));
}

/**
 * Parses NCBI's matrix text format: `#` comment lines, a header line of column letters,
 * then one row per letter (the letter, then one integer per column). Rows may come in any
 * order but must cover the columns exactly once; the alphabet is the column order.
 */
export function parseMatrix(text: string, file: string, name = file): Substitution {
  const fail = (line: number, why: string): never => {
    throw new Error(`${file}:${line}: ${why}`);
  };
  const lines = text.split(/\r?\n/);
  let columns: string[] | undefined;
  const rows = new Map<string, number[]>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    if (!columns) {
      columns = fields.map((f) => f.toUpperCase());
      for (const c of columns) if (c.length !== 1) fail(i + 1, `the header line lists one residue letter per column, found '${c}'`);
      const dup = columns.find((c, k) => columns!.indexOf(c) !== k);
      if (dup) fail(i + 1, `residue '${dup}' heads two columns`);
      continue;
    }
    const letter = fields[0]!.toUpperCase();
    if (letter.length !== 1 || !columns.includes(letter)) fail(i + 1, `a row starts with a residue letter of the header, found '${fields[0]}'`);
    if (rows.has(letter)) fail(i + 1, `a second row for residue '${letter}'`);
    if (fields.length - 1 !== columns.length) fail(i + 1, `row '${letter}' has ${fields.length - 1} scores for ${columns.length} columns`);
    const values = fields.slice(1).map((f) => {
      const v = Number(f);
      if (!/^[+-]?\d+$/.test(f) || Math.abs(v) > 1_000_000) fail(i + 1, `'${f}' is not an integer score from -1000000 to 1000000`);
      return v;
    });
    rows.set(letter, values);
  }
  if (!columns) throw new Error(`${file}: no matrix in it (expected a header line of residue letters, then one row per letter)`);
  const missing = columns.filter((c) => !rows.has(c));
  if (missing.length) throw new Error(`${file}: no row for residue${missing.length > 1 ? 's' : ''} ${missing.join(' ')}`);
  const size = columns.length;
  if (size > 255) throw new Error(`${file}: at most 255 residues, found ${size}`);
  const scores = new Int32Array(size * size);
  columns.forEach((a, i) => rows.get(a)!.forEach((v, j) => (scores[i * size + j] = v)));
  return { alphabet: columns.join(''), size, scores, name };
}

/** The matrix in NCBI's text format (what parseMatrix reads back). */
export function formatMatrix(sub: Substitution): string {
  const width = Math.max(3, ...Array.from(sub.scores, (v) => String(v).length + 1));
  const header = ' ' + [...sub.alphabet].map((c) => c.padStart(width)).join('');
  const rows = [...sub.alphabet].map((c, i) => c + Array.from(sub.scores.subarray(i * sub.size, (i + 1) * sub.size), (v) => String(v).padStart(width)).join(''));
  return [header, ...rows].join('\n') + '\n';
}

/**
 * The default scoring of the `align` app by kind of sequence: nucleotides match +2,
 * mismatch −3 (BLASTN's reward and penalty), affine gaps open 5 extend 2, linear 3 per
 * residue; proteins BLOSUM62, affine 11/1 (Parasail's and SSW's benchmark setting), linear 4.
 */
export const DEFAULT_SCORING = {
  nucleotide: { match: 2, mismatch: -3, affine: { open: 5, extend: 2 }, linear: 3 },
  protein: { matrix: 'BLOSUM62' as MatrixName, affine: { open: 11, extend: 1 }, linear: 4 },
} as const;
