// Reading sequences: FASTA and FASTQ (told apart by the first character), plain, gzip or xz
// (told apart by the magic bytes), any number of records, parsed as a stream of byte chunks
// so a multi-megabase genome costs its own size and no more. Residues are kept as the
// file's letters; the alphabet is detected (or given) and the letters encoded into codes
// of a substitution with errors that name the file and line.
//
// Documented handling (libs/anyseq/README.md): letters of either case are the same residue
// (soft-masking is ignored); spaces, tabs and CR inside sequence lines are skipped; `*` is a
// residue (a stop codon under protein matrices); digits, `-`, `.` and other signs are errors.
// Under a nucleotide alphabet U reads as T and the IUPAC ambiguity codes as N; under a
// protein matrix with X, U and O read as X (scoring.ts); any other letter outside the
// alphabet is an error.
import { spawn } from 'node:child_process';
import { createReadStream, promises as fsp } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { codeTable, DNA_ALPHABET, isNucleotideAlphabet, type Substitution } from './scoring.ts';

export type Alphabet = 'dna' | 'rna' | 'protein';
export const ALPHABETS: readonly Alphabet[] = ['dna', 'rna', 'protein'];

export interface SequenceRecord {
  /** The first word of the header (what TSV and SAM name the sequence by). */
  id: string;
  /** The rest of the header line. */
  description: string;
  /** The residue letters as in the file (either case), without line breaks. */
  residues: Uint8Array;
  /** FASTQ quality characters, as many as residues. */
  quality?: Uint8Array;
  file: string;
  /** The header's line (1-based). */
  line: number;
  /** Where each sequence line starts: residue offset and line number, in order. */
  lineStarts: { offsets: Int32Array; lines: Int32Array };
}

/** The line (1-based) of residue `position` of a record. */
export function lineOf(record: SequenceRecord, position: number): number {
  const { offsets, lines } = record.lineStarts;
  let lo = 0;
  let hi = offsets.length - 1;
  if (hi < 0) return record.line;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= position) lo = mid;
    else hi = mid - 1;
  }
  return lines[lo]!;
}

/** A growable byte or int array. */
class Builder<T extends Uint8Array | Int32Array> {
  private data: T;
  length = 0;
  constructor(private readonly make: (n: number) => T) {
    this.data = make(64);
  }
  private reserve(extra: number): void {
    if (this.length + extra <= this.data.length) return;
    let size = this.data.length * 2;
    while (size < this.length + extra) size *= 2;
    const bigger = this.make(size);
    bigger.set(this.data.subarray(0, this.length));
    this.data = bigger;
  }
  push(value: number): void {
    this.reserve(1);
    this.data[this.length++] = value;
  }
  append(bytes: Uint8Array, from: number, to: number): void {
    this.reserve(to - from);
    this.data.set(bytes.subarray(from, to), this.length);
    this.length += to - from;
  }
  /** The contents, copied to their exact size. */
  done(): T {
    return this.data.slice(0, this.length) as T;
  }
}

/** What may stand in a sequence line: letters and `*`; spaces, tabs and CR are skipped. */
const RESIDUE = new Uint8Array(256);
const SKIPPED = new Uint8Array(256);
for (let c = 65; c <= 90; c++) RESIDUE[c] = RESIDUE[c + 32] = 1;
RESIDUE[42] = 1;
for (const c of [9, 13, 32]) SKIPPED[c] = 1;

/** A printable description of a byte for an error message. */
function shown(byte: number): string {
  return byte >= 33 && byte < 127 ? `'${String.fromCharCode(byte)}'` : `byte 0x${byte.toString(16).padStart(2, '0')}`;
}

/**
 * The FASTA/FASTQ parser as a state machine over byte chunks. Sequence and quality bytes go
 * straight into the record's builder, so a line of megabases is never held twice.
 */
class FastxParser {
  readonly records: SequenceRecord[] = [];
  private format: 'fasta' | 'fastq' | undefined;
  private lineNo = 1;
  private atLineStart = true;
  /** What the current line is. */
  private state: 'header' | 'seq' | 'plus' | 'qual' | 'blank' = 'blank';
  private header: number[] = [];
  private headerLine = 0;
  private seq = new Builder((n) => new Uint8Array(n));
  private qual = new Builder((n) => new Uint8Array(n));
  private offsets = new Builder((n) => new Int32Array(n));
  private lines = new Builder((n) => new Int32Array(n));
  private inRecord = false;
  /** FASTQ: the residues are complete (the `+` line was seen). */
  private sawPlus = false;
  /** The line the last sequence segment came from (a line may span chunks). */
  private lastSeqLine = 0;

  constructor(private readonly file: string) {}

  private fail(line: number, why: string): never {
    throw new Error(`${this.file}:${line}: ${why}`);
  }

  push(chunk: Uint8Array): void {
    let k = 0;
    const n = chunk.length;
    while (k < n) {
      if (this.atLineStart) {
        this.atLineStart = false;
        this.startLine(chunk[k]!);
        if (this.state === 'header' || this.state === 'plus') {
          k++; // the '>' / '@' / '+' itself
          continue;
        }
      }
      let eol = chunk.indexOf(10, k);
      if (eol < 0) eol = n;
      if (this.state === 'header' || this.state === 'plus') {
        if (this.state === 'header') for (let i = k; i < eol; i++) this.header.push(chunk[i]!);
      } else if (this.state === 'seq' || this.state === 'qual') {
        this.take(chunk, k, eol);
      } else {
        for (let i = k; i < eol; i++) if (!SKIPPED[chunk[i]!]) this.fail(this.lineNo, `${shown(chunk[i]!)} before the first record`);
      }
      if (eol < n) {
        this.endLine();
        this.lineNo++;
        this.atLineStart = true;
      }
      k = eol + 1;
    }
  }

  /** Decides what a line is from its first byte. */
  private startLine(first: number): void {
    if (this.format === undefined) {
      if (first === 10 || SKIPPED[first]) {
        this.state = 'blank';
        return;
      }
      if (first === 62) this.format = 'fasta';
      else if (first === 64) this.format = 'fastq';
      else this.fail(this.lineNo, `not FASTA or FASTQ: a FASTA file starts with '>' and a FASTQ file with '@', this one with ${shown(first)}`);
    }
    if (this.format === 'fasta') {
      if (first === 62) {
        this.finishRecord();
        this.beginRecord();
      } else this.state = 'seq';
      return;
    }
    // FASTQ: @header, sequence lines, a '+' line, quality lines until as many as residues.
    if (this.state === 'qual' && this.qual.length < this.seq.length) return;
    if (this.state === 'seq' && first === 43) {
      this.state = 'plus';
      this.sawPlus = true;
      return;
    }
    if (this.state === 'seq') {
      if (first === 64) this.fail(this.lineNo, `record '${this.idOf()}' (line ${this.headerLine}) has no '+' line before the next '@' record`);
      return;
    }
    if (first === 64) {
      this.finishRecord();
      this.beginRecord();
      return;
    }
    if (first === 10 || SKIPPED[first]) {
      this.state = 'blank';
      return;
    }
    this.fail(this.lineNo, `expected the '@' line of the next FASTQ record, found a line starting with ${shown(first)}`);
  }

  private beginRecord(): void {
    this.state = 'header';
    this.inRecord = true;
    this.sawPlus = false;
    this.headerLine = this.lineNo;
  }

  /** Appends a segment of a sequence or quality line. */
  private take(chunk: Uint8Array, from: number, to: number): void {
    if (this.state === 'qual') {
      for (let i = from; i < to; i++) {
        const c = chunk[i]!;
        if (c === 13) continue;
        if (c < 33 || c > 126) this.fail(this.lineNo, `quality ${shown(c)} is not a FASTQ quality character ('!' to '~')`);
        if (this.qual.length >= this.seq.length) this.fail(this.lineNo, `record '${this.idOf()}' (line ${this.headerLine}) has more quality characters than its ${this.seq.length} residues`);
        this.qual.push(c);
      }
      return;
    }
    if (to > from && this.lastSeqLine !== this.lineNo) {
      this.offsets.push(this.seq.length);
      this.lines.push(this.lineNo);
      this.lastSeqLine = this.lineNo;
    }
    let start = from;
    for (let i = from; i < to; i++) {
      const c = chunk[i]!;
      if (RESIDUE[c]) continue;
      if (!SKIPPED[c]) {
        const why = c === 45 || c === 46 ? ' (gaps in the input are not read: remove them)' : c >= 48 && c <= 57 ? ' (digits are not residues)' : '';
        this.fail(this.lineNo, `${shown(c)} in the sequence of record '${this.idOf()}' is not a residue letter${why}`);
      }
      this.seq.append(chunk, start, i);
      start = i + 1;
    }
    this.seq.append(chunk, start, to);
  }

  /** After a header the sequence lines follow; after a '+' line the quality lines. */
  private endLine(): void {
    if (this.state === 'header') this.state = 'seq';
    else if (this.state === 'plus') this.state = 'qual';
  }

  private idOf(): string {
    const text = Buffer.from(this.header).toString('latin1').trim();
    return text.split(/\s+/)[0] ?? '';
  }

  private finishRecord(): void {
    if (!this.inRecord) return;
    const text = Buffer.from(this.header).toString('latin1').replace(/\r$/, '').trim();
    const space = text.search(/\s/);
    const id = space < 0 ? text : text.slice(0, space);
    if (id === '') this.fail(this.headerLine, `a ${this.format === 'fasta' ? "'>'" : "'@'"} header without a name`);
    if (this.format === 'fastq') {
      if (!this.sawPlus) this.fail(this.lineNo, `record '${id}' (line ${this.headerLine}) ends without its '+' line and qualities`);
      if (this.qual.length !== this.seq.length) this.fail(this.lineNo, `record '${id}' (line ${this.headerLine}) has ${this.qual.length} quality characters for ${this.seq.length} residues`);
    }
    this.records.push({
      id,
      description: space < 0 ? '' : text.slice(space + 1).trim(),
      residues: this.seq.done(),
      quality: this.format === 'fastq' ? this.qual.done() : undefined,
      file: this.file,
      line: this.headerLine,
      lineStarts: { offsets: this.offsets.done(), lines: this.lines.done() },
    });
    this.header = [];
    this.seq = new Builder((n) => new Uint8Array(n));
    this.qual = new Builder((n) => new Uint8Array(n));
    this.offsets = new Builder((n) => new Int32Array(n));
    this.lines = new Builder((n) => new Int32Array(n));
    this.lastSeqLine = 0;
    this.inRecord = false;
  }

  end(): SequenceRecord[] {
    if (!this.atLineStart) {
      this.endLine();
      this.atLineStart = true;
    }
    if (this.format === undefined) throw new Error(`${this.file}: the file is empty (no FASTA or FASTQ record)`);
    this.finishRecord();
    return this.records;
  }
}

const GZIP = [0x1f, 0x8b];
const XZ = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];

/** A file's bytes; `failure` settles once the decompressor is done, with its error if it failed. */
interface Opened {
  stream: Readable;
  failure: Promise<string | undefined>;
}

/** The bytes of `file`, decompressed as its magic bytes say (gzip through node:zlib, xz through `xz -dc`). */
async function openDecompressed(file: string): Promise<Opened> {
  let handle;
  try {
    handle = await fsp.open(file, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(`cannot read '${file}': ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`);
  }
  const head = Buffer.alloc(6);
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new Error(`cannot read '${file}': it is a directory`);
    await handle.read(head, 0, 6, 0);
  } finally {
    await handle.close();
  }
  const starts = (magic: number[]) => magic.every((b, i) => head[i] === b);
  if (starts(GZIP)) {
    const gunzip = createGunzip();
    createReadStream(file).on('error', (e) => gunzip.destroy(e)).pipe(gunzip);
    return { stream: gunzip, failure: Promise.resolve(undefined) };
  }
  if (starts(XZ)) {
    const xz = spawn('xz', ['-dc', '--', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    xz.stderr.on('data', (d) => (stderr += d));
    const failure = new Promise<string | undefined>((resolve) => {
      xz.on('error', (e) => {
        const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'the xz command is not installed (apt-get install xz-utils)' : e.message;
        xz.stdout.destroy(new Error(why));
        resolve(why);
      });
      xz.on('close', (code) => {
        // The message without xz's "xz: <file>: " prefix; a broken pipe is ours (we stopped reading).
        const why = code ? stderr.trim().replace(/^xz: (.*?: )?/, '') || `xz exited with status ${code}` : undefined;
        if (why) xz.stdout.destroy(new Error(why));
        resolve(why && !/broken pipe/i.test(why) ? `damaged xz data (${why})` : undefined);
      });
    });
    return { stream: xz.stdout, failure };
  }
  return { stream: createReadStream(file), failure: Promise.resolve(undefined) };
}

/** Every record of a FASTA or FASTQ file (plain, gzip or xz); errors are one line naming the file (and the line). */
export async function readSequences(file: string): Promise<SequenceRecord[]> {
  const { stream, failure } = await openDecompressed(file);
  const parser = new FastxParser(file);
  try {
    for await (const chunk of stream) parser.push(chunk as Uint8Array);
  } catch (e) {
    stream.destroy();
    // Damaged compressed data can decompress to garbage before the decompressor notices: its error is the one to report.
    const broken = await failure;
    if (broken) throw new Error(`cannot read '${file}': ${broken}`);
    const err = e as NodeJS.ErrnoException;
    if (err.message.startsWith(`${file}:`) || err.message.startsWith(`cannot read '${file}'`)) throw err;
    if (err.code?.startsWith('Z_')) throw new Error(`cannot read '${file}': damaged gzip data (${err.message})`);
    throw new Error(`cannot read '${file}': ${err.message}`);
  }
  const broken = await failure;
  if (broken) throw new Error(`cannot read '${file}': ${broken}`);
  return parser.end();
}

/** The records in bytes already in memory, cut into chunks anywhere (what readSequences does with a file's stream). */
export function parseSequences(chunks: Iterable<Uint8Array>, file: string): SequenceRecord[] {
  const parser = new FastxParser(file);
  for (const chunk of chunks) parser.push(chunk);
  return parser.end();
}

/** Letters of nucleotides: ACGTU, N and the IUPAC ambiguity codes. */
const NUCLEOTIDE_LETTERS = new Set('ACGTURYKMSWBDHVN'.split('').map((c) => c.charCodeAt(0)));

/**
 * The alphabet of some records: nucleotides when every letter is a nucleotide code and at
 * least 90% are A, C, G, T, U or N (a protein rarely passes both); RNA when U occurs and T
 * does not; protein otherwise. Empty records say nothing (all empty: DNA).
 */
export function detectAlphabet(records: readonly SequenceRecord[]): Alphabet {
  const counts = new Float64Array(256);
  for (const r of records) for (const c of r.residues) counts[c & 0xdf]!++;
  let total = 0;
  let plain = 0;
  let other = 0;
  for (let c = 0; c < 256; c++) {
    const k = counts[c]!;
    if (!k) continue;
    total += k;
    if ('ACGTUN'.includes(String.fromCharCode(c))) plain += k;
    if (!NUCLEOTIDE_LETTERS.has(c)) other += k;
  }
  if (total === 0) return 'dna';
  if (other > 0 || plain < 0.9 * total) return 'protein';
  return counts[85]! > 0 && counts[84] === 0 ? 'rna' : 'dna';
}

/** The residue codes of a record under `sub`; a letter the alphabet lacks is an error naming the file, line, record and position. */
export function encodeRecord(record: SequenceRecord, sub: Substitution): Uint8Array {
  const table = codeTable(sub.alphabet);
  const out = new Uint8Array(record.residues.length);
  const residues = record.residues;
  for (let i = 0; i < residues.length; i++) {
    const code = table[residues[i]!]!;
    if (code === 255) {
      const what = sub.name ? `${sub.name}'s alphabet` : 'the alphabet';
      const hint = isNucleotideAlphabet(sub.alphabet) && sub.alphabet === DNA_ALPHABET ? ' (is it a protein? pass --matrix BLOSUM62 or --alphabet protein)' : '';
      throw new Error(
        `${record.file}:${lineOf(record, i)}: residue '${String.fromCharCode(residues[i]!)}' (record '${record.id}', position ${i + 1}) is not in ${what} ${sub.alphabet}${hint}`,
      );
    }
    out[i] = code;
  }
  return out;
}
