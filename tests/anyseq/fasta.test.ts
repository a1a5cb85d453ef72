// The FASTA/FASTQ reader: every form (multi-record, multi-line, CRLF, lower case, blank
// lines, gzip, xz), records cut into chunks anywhere parse the same, line numbers of
// residues are right, every malformed input is one error with file:line, alphabet
// detection and encoding (U, IUPAC codes, letters a matrix lacks).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { detectAlphabet, encodeRecord, lineOf, parseSequences, readSequences, type SequenceRecord } from '../../libs/anyseq/fasta.ts';
import { bundledMatrix, DNA_ALPHABET, simpleSubstitution } from '../../libs/anyseq/scoring.ts';
import { scratch } from './support.ts';

const tmp = scratch('anyseq-fasta-');
afterAll(() => rmSync(tmp.dir, { recursive: true, force: true }));

const text = (r: SequenceRecord) => Buffer.from(r.residues).toString('latin1');
const parse = (s: string, file = 'x.fa') => parseSequences([Buffer.from(s, 'latin1')], file);

describe('FASTA', () => {
  it('reads records, ids, descriptions, multi-line sequences, CRLF, blank lines and lower case', () => {
    const r = parse('\n>one first record\r\nACGT\r\nacgt\r\n\n>two\nNNNN\n  AC GT\t\n>three  spaced   words \n');
    expect(r.map((x) => [x.id, x.description, text(x), x.line])).toEqual([
      ['one', 'first record', 'ACGTacgt', 2],
      ['two', '', 'NNNNACGT', 6],
      ['three', 'spaced   words', '', 9],
    ]);
    expect(r[0]!.quality).toBeUndefined();
  });

  it('a file without a final newline keeps its last line', () => {
    expect(text(parse('>a\nAC\nGT')[0]!)).toBe('ACGT');
  });

  it('parses the same whatever the chunks, and finds each residue\'s line', () => {
    const record = fc.record({
      id: fc.stringMatching(/^[A-Za-z0-9_|.]{1,8}$/),
      seq: fc.stringMatching(/^[ACGTNacgtn]{0,40}$/),
      width: fc.integer({ min: 1, max: 13 }),
    });
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 5 }), fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 30 }), (records, cuts) => {
        // The expected line of every residue, while writing the file.
        let line = 1;
        let file = '';
        const lines: number[][] = [];
        for (const r of records) {
          file += `>${r.id} d\n`;
          line++;
          const ls: number[] = [];
          for (let k = 0; k < r.seq.length; k += r.width) {
            file += `${r.seq.slice(k, k + r.width)}\n`;
            for (let c = 0; c < Math.min(r.width, r.seq.length - k); c++) ls.push(line);
            line++;
          }
          lines.push(ls);
        }
        const bytes = Buffer.from(file, 'latin1');
        const chunks: Uint8Array[] = [];
        let at = 0;
        for (let k = 0; at < bytes.length; k++) {
          const n = cuts[k % cuts.length]!;
          chunks.push(bytes.subarray(at, at + n));
          at += n;
        }
        const parsed = parseSequences(chunks, 'x.fa');
        expect(parsed.map((p) => [p.id, text(p)])).toEqual(records.map((r) => [r.id, r.seq]));
        parsed.forEach((p, i) => lines[i]!.forEach((l, pos) => expect(lineOf(p, pos)).toBe(l)));
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['', /^e\.fa: the file is empty/],
    ['\n  \n', /^e\.fa: the file is empty/],
    ['ACGT\n', /^e\.fa:1: not FASTA or FASTQ: .* this one with 'A'/],
    ['>a\nAC-GT\n', /^e\.fa:2: '-' in the sequence of record 'a' is not a residue letter \(gaps in the input are not read/],
    ['>a\nACGT\nAC1\n', /^e\.fa:3: '1' in the sequence of record 'a' is not a residue letter \(digits/],
    ['>a\nAC\n>\nGG\n', /^e\.fa:3: a '>' header without a name/],
    ['  x\n>a\nAC\n', /^e\.fa:1: 'x' before the first record/],
  ])('%j: one error with file:line', (content, why) => {
    expect(() => parse(content, 'e.fa')).toThrow(why);
  });
});

describe('FASTQ', () => {
  it('reads 4-line records, multi-line ones and qualities starting with @ or +', () => {
    const r = parse('@r1 desc\nACGT\n+\nIIII\n@r2\nAC\nGT\n+r2\n@+II\n\n@r3\n\n+\n\n');
    expect(r.map((x) => [x.id, text(x), Buffer.from(x.quality!).toString()])).toEqual([
      ['r1', 'ACGT', 'IIII'],
      ['r2', 'ACGT', '@+II'],
      ['r3', '', ''],
    ]);
  });

  it.each([
    ['@r1\nACGT\n+\nIII\n', /^q\.fq:5: record 'r1' \(line 1\) has 3 quality characters for 4 residues/],
    ['@r1\nACGT\n+\nIIIII\n', /^q\.fq:4: record 'r1' \(line 1\) has more quality characters than its 4 residues/],
    ['@r1\nACGT\n@r2\nAC\n+\nII\n', /^q\.fq:3: record 'r1' \(line 1\) has no '\+' line before the next '@' record/],
    ['@r1\nACGT\n', /^q\.fq:3: record 'r1' \(line 1\) ends without its '\+' line/],
    ['@r1\nAC\n+\nII\nXX\n', /^q\.fq:5: expected the '@' line of the next FASTQ record/],
    ['@r1\nAC\n+\nI \n', /^q\.fq:4: quality ' ' is not a FASTQ quality character|q\.fq:4: quality byte 0x20/],
  ])('%j: one error with file:line', (content, why) => {
    expect(() => parse(content, 'q.fq')).toThrow(why);
  });
});

describe('files', () => {
  const fasta = '>a x\nACGTN\nacgu\n>b\nTTTT\n';
  it('plain, gzip and xz (by their magic bytes, whatever the name) read the same', async () => {
    const plain = tmp.file('p.fa', fasta);
    const gz = tmp.file('g.fa', gzipSync(Buffer.from(fasta)));
    const xz = tmp.file('x.dat', execFileSync('xz', ['-c'], { input: fasta }));
    const want = (await readSequences(plain)).map(text);
    expect(want).toEqual(['ACGTNacgu', 'TTTT']);
    expect((await readSequences(gz)).map(text)).toEqual(want);
    expect((await readSequences(xz)).map(text)).toEqual(want);
  });

  it('a missing file, a directory, damaged gzip and damaged xz are one-line errors', async () => {
    await expect(readSequences(tmp.file('none.fa'))).rejects.toThrow(/^cannot read '.*none\.fa': no such file$/);
    await expect(readSequences(tmp.dir)).rejects.toThrow(/^cannot read '.*': it is a directory$/);
    const gz = gzipSync(Buffer.from(fasta.repeat(50)));
    await expect(readSequences(tmp.file('bad.gz', gz.subarray(0, gz.length - 20)))).rejects.toThrow(/^cannot read '.*bad\.gz': damaged gzip data/);
    const xz = execFileSync('xz', ['-c'], { input: fasta });
    xz[xz.length - 30]! ^= 0xff;
    await expect(readSequences(tmp.file('bad.xz', xz))).rejects.toThrow(/^cannot read '.*bad\.xz': damaged xz data \(/);
  });

  it('reads the bundled genomes and the E. coli proteome (xz) whole', async () => {
    const mt = await readSequences('datasets/sequences/mt_human.fa');
    expect(mt.map((r) => [r.id, r.residues.length])).toEqual([['MT_human', 16569]]);
    const proteome = await readSequences('datasets/sequences/proteins/ecoli_k12_mg1655_proteome.GCF_000005845.2.faa.xz');
    expect(proteome.length).toBe(4298);
    expect(proteome.reduce((s, r) => s + r.residues.length, 0)).toBe(1_329_980);
    expect(detectAlphabet(proteome)).toBe('protein');
    expect(detectAlphabet(mt)).toBe('dna');
  });
});

describe('alphabets and encoding', () => {
  it('detects DNA, RNA and protein', () => {
    expect(detectAlphabet(parse('>a\nACGTACGTRN\n'))).toBe('dna');
    expect(detectAlphabet(parse('>a\nACGUUN\n'))).toBe('rna');
    expect(detectAlphabet(parse('>a\nMKVLAAGIT\n'))).toBe('protein');
    // Only nucleotide codes, but mostly ambiguous ones: a protein.
    expect(detectAlphabet(parse('>a\nDHRKMSW\n'))).toBe('protein');
  });

  it('under DNA scoring, lower case is upper case, U is T and IUPAC codes are N', () => {
    const dna = simpleSubstitution(DNA_ALPHABET, 1, -1);
    const [r] = parse('>a\nacgtUuRYKMSWBDHVNn\n');
    expect(Array.from(encodeRecord(r!, dna))).toEqual([0, 1, 2, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
  });

  it('a letter the matrix lacks is an error naming file, line, record and position', () => {
    const [r] = parse('>p1 protein\nMKV\nLAJ\n', 'p.fa');
    expect(() => encodeRecord(r!, bundledMatrix('BLOSUM62')!)).toThrow(/^p\.fa:3: residue 'J' \(record 'p1', position 6\) is not in BLOSUM62's alphabet ARNDCQEGHILKMFPSTWYVBZX\*$/);
    expect(() => encodeRecord(r!, simpleSubstitution(DNA_ALPHABET, 1, -1))).toThrow(/^p\.fa:3: residue 'L' \(record 'p1', position 4\) .* \(is it a protein\?/);
  });
});
