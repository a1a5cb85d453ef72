// The align app in-process: its scores equal the TypeScript reference under every mode, gap
// model and scoring option; pairing, formats, -o, --bench; --compare agrees with each
// reference that is installed; every user error is one line with exit status 1.
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { main as align } from '../../apps/align/src/cli.ts';
import { missingPackages } from '../../bench/align/references.ts';
import { referenceAlign, referenceScore } from '../../libs/anyseq/reference.ts';
import { bundledMatrix, DNA_ALPHABET, encode, type Gaps, type Mode, simpleSubstitution, type Substitution } from '../../libs/anyseq/scoring.ts';
import { random } from '../random.ts';
import { runApp, scratch } from './support.ts';

const tmp = scratch('anyseq-app-');
afterAll(() => rmSync(tmp.dir, { recursive: true, force: true }));

function randomSeq(next: () => number, alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(next() * alphabet.length)];
  return s;
}

const next = random(16);
const dnaA = [randomSeq(next, 'ACGT', 70), randomSeq(next, 'ACGT', 1), randomSeq(next, 'ACGT', 33)];
const dnaB = [dnaA[0]!.slice(5, 60) + 'ACGT', randomSeq(next, 'ACGT', 45)];
const fasta = (seqs: string[], prefix: string) => seqs.map((s, i) => `>${prefix}${i} record ${i}\n${s.match(/.{1,20}/g)?.join('\n') ?? ''}\n`).join('');
const a = tmp.file('a.fa', fasta(dnaA, 'a'));
const b = tmp.file('b.fa', fasta(dnaB, 'b'));
const protA = ['MKVLAAGIVALLLAAGCSSSKEETSK', 'WYHHEEK'];
const protB = ['MKVLAGIVALLAAGCSSSKEETSKKAEPT', 'PPWYHEEKR'];
const pa = tmp.file('pa.fa', fasta(protA, 'p'));
const pb = tmp.file('pb.fa', fasta(protB, 'r'));

/** The reference's scores for every pair of `qs` × `ts` (or i-th with i-th). */
function expected(qs: string[], ts: string[], mode: Mode, gaps: Gaps, sub: Substitution, pairwise = false): number[] {
  const out: number[] = [];
  const score = (q: string, t: string) => referenceScore(encode(q, sub), encode(t, sub), mode, gaps, sub).score;
  if (pairwise) qs.forEach((q, i) => out.push(score(q, ts[i]!)));
  else for (const q of qs) for (const t of ts) out.push(score(q, t));
  return out;
}

const tsvScores = (out: string) => out.trim().split('\n').map((l) => Number(l.split('\t')[2]));
const dnaDefault = simpleSubstitution(DNA_ALPHABET, 2, -3);

// Each distinct mode × gap model × scoring compiles its kernels once (cached afterwards), so
// the cases share a few: global affine, local linear, semi affine (DNA), local affine with a
// matrix, and global affine score-only.
describe('scores equal the reference', () => {
  it.each([
    [['--affine'], 'global', { kind: 'affine', open: 5, extend: 2 }],
    [['--linear', '--mode', 'local'], 'local', { kind: 'linear', gap: 3 }],
    [['--gap', '2', '--mode', 'local'], 'local', { kind: 'linear', gap: 2 }],
    [['--gap-open', '7', '--gap-extend', '1', '--mode', 'semi'], 'semi', { kind: 'affine', open: 7, extend: 1 }],
  ] as [string[], Mode, Gaps][])('DNA %j', async (args, mode, gaps) => {
    const r = await runApp(align, [a, b, '--format', 'tsv', ...args]);
    expect(r.err).toMatch(/GCUPS\n$/);
    expect(r.code).toBe(0);
    expect(tsvScores(r.out)).toEqual(expected(dnaA, dnaB, mode, gaps, dnaDefault));
  });

  it('--match/--mismatch and --pairwise', async () => {
    const r = await runApp(align, [a, tmp.file('b3.fa', fasta([...dnaB, 'ACGT'], 'b')), '--pairwise', '--match', '1', '--mismatch', '-1', '--format', 'tsv']);
    expect(r.code).toBe(0);
    expect(tsvScores(r.out)).toEqual(expected(dnaA, [...dnaB, 'ACGT'], 'global', { kind: 'affine', open: 5, extend: 2 }, simpleSubstitution(DNA_ALPHABET, 1, -1), true));
  });

  it('proteins: BLOSUM62 and 11/1 by default, another bundled matrix, a matrix file', async () => {
    const r = await runApp(align, [pa, pb, '--mode', 'local', '--format', 'tsv']);
    expect(r.code).toBe(0);
    expect(tsvScores(r.out)).toEqual(expected(protA, protB, 'local', { kind: 'affine', open: 11, extend: 1 }, bundledMatrix('BLOSUM62')!));
    const p = await runApp(align, [pa, pb, '--matrix', 'pam250', '--mode', 'local', '--format', 'tsv']);
    expect(tsvScores(p.out)).toEqual(expected(protA, protB, 'local', { kind: 'affine', open: 11, extend: 1 }, bundledMatrix('PAM250')!));
    const own = tmp.file('own.mat', '# mine\n   A  C  G  T\nA  3 -1 -1 -1\nC -1  3 -1 -1\nG -1 -1  3 -1\nT -1 -1 -1  3\n');
    const m = await runApp(align, [tmp.file('x.fa', '>x\nACGTAC\n'), tmp.file('y.fa', '>y\nACTTAC\n'), '--matrix', own, '--gap', '2', '--mode', 'local', '--format', 'tsv']);
    expect(m.out).toBe('x\ty\t14\t6\t6\t1\t6\t1\t6\t6\t5\t5\t0\t2=1X3=\n');
  });
});

describe('output', () => {
  it('pretty by default: the user\'s example `align a.fa b.fa --affine`', async () => {
    const r = await runApp(align, [a, b, '--affine']);
    expect(r.code).toBe(0);
    const sub = dnaDefault;
    const want = referenceAlign(encode(dnaA[0]!, sub), encode(dnaB[0]!, sub), 'global', { kind: 'affine', open: 5, extend: 2 }, sub);
    expect(r.out).toContain(`# 1: a0 (70 residues)\n# 2: b0 (59 residues)\n# Mode: global\n# Scoring: match 2, mismatch -3\n# Gaps: affine, open 5, extend 2\n`);
    expect(r.out).toContain(`# Score: ${want.score}\n`);
    expect(r.out.match(/^# Score:/gm)?.length).toBe(6);
  });

  it('--score-only, sam, json; -o replaces the file once complete and says so', async () => {
    const s = await runApp(align, [a, b, '--score-only', '--format', 'tsv']);
    expect(s.out.trim().split('\n').map((l) => l.split('\t').length)).toEqual(new Array(6).fill(7));
    const out = tmp.file('out.sam');
    const sam = await runApp(align, [a, b, '--format', 'sam', '-o', out, '--mode', 'local', '--linear']);
    expect(sam.code).toBe(0);
    expect(sam.out).toMatch(/^wrote .*out\.sam \(sam, 6 pairs, local, linear, with traceback\)\n/);
    const text = readFileSync(out, 'utf8');
    expect(text).toMatch(/^@HD\tVN:1\.6/);
    expect(text.split('\n').filter((l) => l.startsWith('@SQ')).length).toBe(2);
    expect(text.split('\n').filter((l) => /\tAS:i:-?\d+/.test(l)).length).toBe(6);
    const json = await runApp(align, [pa, pb, '--format', 'json', '--mode', 'local', '--threads', '1']);
    expect((JSON.parse(json.out) as { pairs: unknown[] }).pairs.length).toBe(4);
  });

  it('--bench N prints the median time and GCUPS', async () => {
    const r = await runApp(align, [a, b, '--score-only', '--bench', '2', '--format', 'tsv']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/6 pairs, global, affine, score only, 0\.0 M cells: median [\d.]+ ms over 2 runs, [\d.∞]+ GCUPS\n/);
  });
});

describe('user errors: one line, exit 1', () => {
  const bad = (name: string, content: string) => tmp.file(name, content);
  it.each([
    [['--affine', '--linear'], /^align: --affine and --linear contradict each other\n$/],
    [['--gap', '2', '--gap-open', '5'], /^align: --gap \(linear gaps\) and --gap-open \(affine gaps\) contradict each other\n$/],
    [['--linear', '--gap-extend', '1'], /^align: --linear and --gap-extend \(affine gaps\) contradict each other\n$/],
    [['--affine', '--gap', '1'], /^align: --gap \(linear gaps\) and --affine contradict each other\n$/],
    [['--matrix', 'BLOSUM62', '--match', '1'], /^align: --matrix and --match contradict each other\n$/],
    [['--score-only', '--format', 'sam'], /^align: --format sam needs the alignments \(CIGAR\): it does not go with --score-only\n$/],
    [['--gap-open', '1', '--gap-extend', '3'], /^align: the gap-open penalty \(1\) must be at least the gap-extend penalty \(3\)/],
    [['--gap', '-1'], /^error: option '--gap <G>' argument '-1' is invalid\. must be an integer from 0 to 1000000\n$/],
    [['--mode', 'glocal'], /^error: option '--mode <mode>' argument 'glocal' is invalid/],
    [['--matrix', 'BLOSUM99'], /^align: cannot read matrix 'BLOSUM99': no such file, and no bundled matrix of that name \(bundled: BLOSUM45, /],
    [['--pairwise'], /^align: --pairwise needs as many records in both files: '.*a\.fa' has 3, '.*b\.fa' has 2\n$/],
    [['-o', '/nonexistent/out.txt'], /^align: cannot write '\/nonexistent\/out\.txt': no such directory '\/nonexistent'\n$/],
  ])('%j', async (args, why) => {
    const r = await runApp(align, [a, b, ...args]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(why);
    expect(r.out).toBe('');
  });

  it.each([
    ['empty.fa', '', /^align: .*empty\.fa: the file is empty \(no FASTA or FASTQ record\)\n$/],
    ['text.fa', 'hello\n', /^align: .*text\.fa:1: not FASTA or FASTQ/],
    ['gap.fa', '>s\nACGT\nAC-T\n', /^align: .*gap\.fa:3: '-' in the sequence of record 's' is not a residue letter/],
    ['short.fq', '@r\nACGT\n+\nII\n', /^align: .*short\.fq:5: record 'r' \(line 1\) has 2 quality characters for 4 residues\n$/],
  ])('malformed input %s', async (name, content, why) => {
    const r = await runApp(align, [bad(name, content), b]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(why);
  });

  it('a residue the matrix lacks names the file and line', async () => {
    const r = await runApp(align, [bad('j.fa', '>p1\nMKVL\nAAJK\n'), pb, '--matrix', 'BLOSUM62']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^align: .*j\.fa:3: residue 'J' \(record 'p1', position 7\) is not in BLOSUM62's alphabet/);
    const m = await runApp(align, [a, b, '--matrix', bad('bad.mat', '   A  C\nA  1 -1\nC -1 x\n')]);
    expect(m.err).toMatch(/^align: .*bad\.mat:3: 'x' is not an integer score/);
  });
});

const compares = await Promise.all(
  // SeqAn 3's driver takes minutes to build: the bench runs it, not the tests.
  (['parasail', 'emboss'] as const).map(async (ref) => {
    const missing = await missingPackages(ref);
    return { ref, missing: missing.length > 0, name: `--compare ${ref}: every score equal${missing.length ? ` (skipped: needs apt-get install ${missing.join(' ')})` : ''}` };
  }),
);

describe('--compare', () => {
  // EMBOSS water finds no local alignment of a one-residue sequence (it prints -FLT_MAX): the longer records only.
  const long = tmp.file('long.fa', fasta([dnaA[0]!, dnaA[2]!], 'a'));
  for (const c of compares) {
    it.skipIf(c.missing)(c.name, { timeout: 900_000 }, async () => {
      for (const args of [['--mode', 'global'], ['--mode', 'local', '--linear'], ['--mode', 'semi', '--gap-open', '7', '--gap-extend', '1']]) {
        const r = await runApp(align, [long, b, ...args, '--compare', c.ref, '--bench', '1', '--format', 'tsv', '--threads', '1']);
        expect(r.err, r.err).toMatch(/all 4 scores equal\n/);
        expect(r.err).toMatch(/ratio \d+\.\d\d×/);
        expect(r.code).toBe(0);
      }
    });
  }
});
