// Writing alignments: `pretty` (EMBOSS/BLAST-like: identity, similarity, gaps and score,
// then the two aligned strings with a match line, wrapped), `tsv` (one line per pair:
// query, target, score, …), `sam` (header, one record per pair with the CIGAR, soft clips
// and `AS:i:`), `json` (one document). Each output is a header, one piece per pair and a
// footer, so a caller can stream many pairs.
//
// Positions in every output are 1-based and inclusive (SAM's and BLAST's convention): the
// half-open range [begin, end) of scoring.ts is printed as begin+1 … end.
import type { SequenceRecord } from './fasta.ts';
import { parseCigar } from './reference.ts';
import { type Gaps, type Mode, type Substitution } from './scoring.ts';

export type OutputFormat = 'pretty' | 'tsv' | 'sam' | 'json';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['pretty', 'tsv', 'sam', 'json'];

export interface Settings {
  mode: Mode;
  gaps: Gaps;
  sub: Substitution;
}

export interface Alignment {
  beginQ: number;
  endQ: number;
  beginT: number;
  endT: number;
  cigar: string;
}

/** One aligned pair: the records, their codes under the substitution, the score and its end, the alignment unless score-only. */
export interface PairOutcome {
  query: SequenceRecord;
  target: SequenceRecord;
  q: Uint8Array;
  t: Uint8Array;
  score: number;
  endQ: number;
  endT: number;
  alignment?: Alignment;
}

export interface AlignmentStats {
  /** Columns of the alignment. */
  length: number;
  /** Columns of equal residues. */
  identity: number;
  /** Columns scoring above zero (EMBOSS's similarity). */
  similarity: number;
  /** Columns with a gap. */
  gaps: number;
  /** Columns of different residues (X). */
  mismatches: number;
}

/** Counts of an alignment's columns. */
export function alignmentStats(pair: PairOutcome, sub: Substitution): AlignmentStats {
  const a = pair.alignment!;
  const stats = { length: 0, identity: 0, similarity: 0, gaps: 0, mismatches: 0 };
  let i = a.beginQ;
  let j = a.beginT;
  for (const { length, op } of parseCigar(a.cigar)) {
    stats.length += length;
    if (op === 'I' || op === 'D') {
      stats.gaps += length;
      if (op === 'I') i += length;
      else j += length;
      continue;
    }
    if (op === '=') stats.identity += length;
    else stats.mismatches += length;
    for (let k = 0; k < length; k++, i++, j++) if (sub.scores[pair.q[i]! * sub.size + pair.t[j]!]! > 0) stats.similarity++;
  }
  return stats;
}

/** The gap model in words. */
export function describeGaps(gaps: Gaps): string {
  return gaps.kind === 'linear' ? `linear, ${gaps.gap} per residue` : `affine, open ${gaps.open}, extend ${gaps.extend}`;
}

function percent(part: number, whole: number): string {
  return `${part}/${whole} (${whole ? ((100 * part) / whole).toFixed(1) : '0.0'}%)`;
}

/** The aligned strings (residues as in the files, `-` for gaps) and the match line: `|` equal, `:` positive, `.` zero, ` ` otherwise. */
export function alignedStrings(pair: PairOutcome, sub: Substitution): { query: string; match: string; target: string } {
  const a = pair.alignment!;
  const qs: number[] = [];
  const ms: number[] = [];
  const ts: number[] = [];
  let i = a.beginQ;
  let j = a.beginT;
  for (const { length, op } of parseCigar(a.cigar)) {
    for (let k = 0; k < length; k++) {
      if (op === 'I') {
        qs.push(pair.query.residues[i++]!);
        ms.push(32);
        ts.push(45);
      } else if (op === 'D') {
        qs.push(45);
        ms.push(32);
        ts.push(pair.target.residues[j++]!);
      } else {
        const s = sub.scores[pair.q[i]! * sub.size + pair.t[j]!]!;
        ms.push(op === '=' ? 124 : s > 0 ? 58 : s === 0 ? 46 : 32);
        qs.push(pair.query.residues[i++]!);
        ts.push(pair.target.residues[j++]!);
      }
    }
  }
  const text = (codes: number[]) => Buffer.from(codes).toString('latin1');
  return { query: text(qs), match: text(ms), target: text(ts) };
}

/** Columns per line of the pretty output (EMBOSS's width). */
export const PRETTY_WIDTH = 50;

function prettyPair(pair: PairOutcome, settings: Settings): string {
  const { query, target } = pair;
  const lines = [
    '#=======================================',
    `# 1: ${query.id} (${query.residues.length} residues)`,
    `# 2: ${target.id} (${target.residues.length} residues)`,
    `# Mode: ${settings.mode}`,
    `# Scoring: ${settings.sub.name ?? 'matrix'}`,
    `# Gaps: ${describeGaps(settings.gaps)}`,
  ];
  if (!pair.alignment) {
    lines.push(`# Score: ${pair.score}`, `# End: ${query.id} ${pair.endQ}, ${target.id} ${pair.endT}`, '#=======================================', '');
    return lines.join('\n') + '\n';
  }
  const stats = alignmentStats(pair, settings.sub);
  lines.push(
    `# Length: ${stats.length}`,
    `# Identity:   ${percent(stats.identity, stats.length)}`,
    `# Similarity: ${percent(stats.similarity, stats.length)}`,
    `# Gaps:       ${percent(stats.gaps, stats.length)}`,
    `# Score: ${pair.score}`,
    '#=======================================',
    '',
  );
  const a = pair.alignment;
  const s = alignedStrings(pair, settings.sub);
  const nameWidth = Math.min(20, Math.max(query.id.length, target.id.length));
  const posWidth = String(Math.max(a.endQ, a.endT, 1)).length;
  const name = (id: string) => id.slice(0, nameWidth).padEnd(nameWidth);
  let qi = a.beginQ;
  let tj = a.beginT;
  const count = (text: string) => text.length - (text.split('-').length - 1);
  for (let c = 0; c < s.query.length; c += PRETTY_WIDTH) {
    const qPart = s.query.slice(c, c + PRETTY_WIDTH);
    const tPart = s.target.slice(c, c + PRETTY_WIDTH);
    const qEnd = qi + count(qPart);
    const tEnd = tj + count(tPart);
    // A line's start is its first residue (1-based); a line of gaps only shows where it stands.
    lines.push(`${name(query.id)} ${String(Math.min(qi + 1, qEnd)).padStart(posWidth)} ${qPart} ${qEnd}`);
    lines.push(`${' '.repeat(nameWidth)} ${' '.repeat(posWidth)} ${s.match.slice(c, c + PRETTY_WIDTH)}`);
    lines.push(`${name(target.id)} ${String(Math.min(tj + 1, tEnd)).padStart(posWidth)} ${tPart} ${tEnd}`);
    lines.push('');
    qi = qEnd;
    tj = tEnd;
  }
  lines.push('');
  return lines.join('\n');
}

/** The TSV columns (for --help and the README; the output has no header line: one line per pair). */
export function tsvColumns(scoreOnly: boolean): string[] {
  const base = ['query', 'target', 'score', 'query_length', 'target_length'];
  return scoreOnly
    ? [...base, 'query_end', 'target_end']
    : [...base, 'query_begin', 'query_end', 'target_begin', 'target_end', 'length', 'identity', 'similarity', 'gaps', 'cigar'];
}

function tsvPair(pair: PairOutcome, settings: Settings): string {
  const base = [pair.query.id, pair.target.id, pair.score, pair.query.residues.length, pair.target.residues.length];
  if (!pair.alignment) return [...base, pair.endQ, pair.endT].join('\t') + '\n';
  const a = pair.alignment;
  const st = alignmentStats(pair, settings.sub);
  return [...base, a.beginQ + 1, a.endQ, a.beginT + 1, a.endT, st.length, st.identity, st.similarity, st.gaps, a.cigar || '*'].join('\t') + '\n';
}

/** SAM's header: the targets as references, the program line. */
function samHeader(targets: readonly SequenceRecord[], commandLine: string): string {
  const seen = new Set<string>();
  const sq = targets.filter((t) => !seen.has(t.id) && seen.add(t.id)).map((t) => `@SQ\tSN:${t.id}\tLN:${t.residues.length}\n`);
  return `@HD\tVN:1.6\tSO:unsorted\n${sq.join('')}@PG\tID:align\tPN:align\tCL:${commandLine.replace(/[\t\n]/g, ' ')}\n`;
}

function samPair(pair: PairOutcome): string {
  const a = pair.alignment!;
  const n = pair.query.residues.length;
  const seq = n ? Buffer.from(pair.query.residues).toString('latin1') : '*';
  const qual = pair.query.quality && n ? Buffer.from(pair.query.quality).toString('latin1') : '*';
  const runs = parseCigar(a.cigar);
  if (runs.length === 0) return [pair.query.id, 4, '*', 0, 0, '*', '*', 0, 0, seq, qual, `AS:i:${pair.score}`].join('\t') + '\n';
  const edits = runs.reduce((sum, r) => sum + (r.op === '=' ? 0 : r.length), 0);
  const cigar = (a.beginQ ? `${a.beginQ}S` : '') + a.cigar + (n - a.endQ ? `${n - a.endQ}S` : '');
  return [pair.query.id, 0, pair.target.id, a.beginT + 1, 255, cigar, '*', 0, 0, seq, qual, `AS:i:${pair.score}`, `NM:i:${edits}`].join('\t') + '\n';
}

function jsonPair(pair: PairOutcome, settings: Settings): Record<string, unknown> {
  const out: Record<string, unknown> = {
    query: pair.query.id,
    target: pair.target.id,
    queryLength: pair.query.residues.length,
    targetLength: pair.target.residues.length,
    score: pair.score,
  };
  if (!pair.alignment) return { ...out, queryEnd: pair.endQ, targetEnd: pair.endT };
  const a = pair.alignment;
  const s = alignedStrings(pair, settings.sub);
  return {
    ...out,
    queryBegin: a.beginQ + 1,
    queryEnd: a.endQ,
    targetBegin: a.beginT + 1,
    targetEnd: a.endT,
    cigar: a.cigar,
    ...alignmentStats(pair, settings.sub),
    alignedQuery: s.query,
    alignedTarget: s.target,
  };
}

/** A writer of one output format: the header, each pair, the footer. */
export interface Formatter {
  header(): string;
  pair(pair: PairOutcome, index: number): string;
  footer(): string;
}

/** The formatter for `format`; `targets` and `commandLine` feed SAM's header, `scoreOnly` the TSV header. */
export function formatter(format: OutputFormat, settings: Settings, options: { targets: readonly SequenceRecord[]; commandLine: string; scoreOnly: boolean }): Formatter {
  switch (format) {
    case 'pretty':
      return { header: () => '', pair: (p) => prettyPair(p, settings), footer: () => '' };
    case 'tsv':
      return { header: () => '', pair: (p) => tsvPair(p, settings), footer: () => '' };
    case 'sam':
      if (options.scoreOnly) throw new Error('SAM records need the alignment: --format sam does not go with --score-only');
      return { header: () => samHeader(options.targets, options.commandLine), pair: (p) => samPair(p), footer: () => '' };
    case 'json': {
      const gaps = settings.gaps.kind === 'linear' ? { model: 'linear', gap: settings.gaps.gap } : { model: 'affine', open: settings.gaps.open, extend: settings.gaps.extend };
      const head = JSON.stringify({ mode: settings.mode, scoring: settings.sub.name ?? 'matrix', gaps });
      return {
        header: () => `${head.slice(0, -1)},"pairs":[\n`,
        pair: (p, index) => (index ? ',\n' : '') + JSON.stringify(jsonPair(p, settings)),
        footer: () => '\n]}\n',
      };
    }
  }
}
