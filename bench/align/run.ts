// The paper's Fig. 9 CPU column on this machine: AnySeq's kernels against Parasail 2.6 (the
// fastest of its striped, scan and diagonal kernels for the case, 16-bit lanes redone at 32
// on saturation, AVX2), SeqAn 3.2 (scalar and vectorised, parallel over the pairs), SeqAn 2.4
// (Hirschberg, where SeqAn 3 has no linear-memory traceback) and, for the many-pairs protein
// row, SSW 1.1. Rows: score only and traceback × linear and affine gaps (global alignment,
// match 2 mismatch -3, gaps 3 or 5/2) on real genome windows, and the 31 Parasail/SWIPE
// protein queries against the E. coli proteome (BLOSUM62, affine 11/1, local, score only).
// Every side aligns the same pairs in this process tree, every score is checked equal, and
// one table of GCUPS medians is printed with ratios against the best reference; raw times go
// to out/bench/align.json (or --json FILE).
//
//   npm run bench:align -- [--runs 3] [--quick] [--threads N] [--rows score,traceback,proteins] [--targets N] [--json FILE]
//
// --quick cuts every input to a few seconds of work (a smoke test); --targets N keeps N
// proteins spread evenly over the proteome (all 31 queries), a tenth of the row's time at 430. The references are built
// against the Debian packages (installed with apt-get when running as root); one that cannot
// be built is skipped with the reason, and no number is ever made up.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeRecord, readSequences } from '../../libs/anyseq/fasta.ts';
import type { Settings } from '../../libs/anyseq/format.ts';
import { compileAligner } from '../../libs/anyseq/host.ts';
import type { Schedule } from '../../libs/anyseq/kernels.ts';
import { bundledMatrix, DNA_ALPHABET, simpleScores, simpleSubstitution } from '../../libs/anyseq/scoring.ts';
import { median } from '../../libs/image/bench.ts';
import { installMissing } from '../shared/native.ts';
import { benchArgs, benchFail, runBench } from '../shared/cli.ts';
import { type Driver, PACKAGES, REFERENCE_TITLES, type ReferenceResult, runAlignReference } from './references.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const data = (f: string) => path.join(root, 'datasets', 'sequences', f);

const cli = benchArgs(import.meta.url, {
  runs: { type: 'string', default: '3' },
  quick: { type: 'boolean', default: false },
  threads: { type: 'string', default: String(os.availableParallelism()) },
  rows: { type: 'string', default: 'score,traceback,proteins' },
  targets: { type: 'string' },
  json: { type: 'string', default: path.join(root, 'out', 'bench', 'align.json') },
});
const runs = Number(cli.runs);
const threads = Number(cli.threads);
if (!Number.isInteger(runs) || runs < 1) benchFail(import.meta.url, `--runs must be a positive integer, not '${cli.runs}'`);
if (!Number.isInteger(threads) || threads < 1) benchFail(import.meta.url, `--threads must be a positive integer, not '${cli.threads}'`);
const rowsWanted = new Set(cli.rows!.split(','));

const log = (line: string) => console.error(`bench/align: ${line}`);

/** One row of the table: a case, its pairs, and which of ours and the references run it. */
interface Case {
  label: string;
  input: string;
  settings: Settings;
  scoreOnly: boolean;
  queries: Uint8Array[];
  targets: Uint8Array[];
  pairs: [number, number][];
  ours: Schedule[];
  /** A reference's variant (all otherwise) and its timed runs where fewer than --runs. */
  references: { driver: Driver; variant?: string; runs?: number }[];
}

interface Measured {
  name: string;
  about: string;
  ms: number[];
  /** CPU time of every thread per run (where measured): on a shared machine the work done, whatever the others take. */
  cpuMs?: number[];
  scores: number[];
}

interface Row {
  c: Case;
  cells: number;
  ours?: Measured;
  refs: Measured[];
  skipped: string[];
}

const DNA = simpleSubstitution(DNA_ALPHABET, 2, -3);
const LINEAR = { kind: 'linear', gap: 3 } as const;
const AFFINE = { kind: 'affine', open: 5, extend: 2 } as const;

async function firstRecord(file: string, length?: number): Promise<Uint8Array> {
  const [r] = await readSequences(data(file));
  const codes = encodeRecord(r!, DNA);
  return length ? codes.subarray(0, length) : codes;
}

async function cases(): Promise<Case[]> {
  const out: Case[] = [];
  const q = cli.quick;
  if (rowsWanted.has('score')) {
    // Two strains of Shewanella baltica: the window keeps each case a few to ~30 seconds here.
    const len = q ? 10_000 : 50_000;
    const a = await firstRecord('shewanella_baltica_os185_first500kb.fa.xz', len);
    const b = await firstRecord('shewanella_baltica_os223_first500kb.fa.xz', len);
    for (const gaps of [LINEAR, AFFINE]) {
      out.push({
        label: `score only, ${gaps.kind}`,
        input: `S. baltica OS185 × OS223, first ${len / 1000} kbp`,
        settings: { mode: 'global', gaps, sub: DNA },
        scoreOnly: true,
        queries: [a],
        targets: [b],
        pairs: [[0, 0]],
        ours: ['simd', 'wavefront'],
        // SeqAn 3's vectorised mode is one pair per lane (nothing to gain on one pair), and its
        // scalar kernel is slow enough here that it is timed once.
        references: [{ driver: 'parasail' }, { driver: 'seqan', variant: 'scalar', runs: 1 }],
      });
    }
  }
  if (rowsWanted.has('traceback')) {
    // The references keep the whole traceback matrix (Parasail, SeqAn 3): the mitochondria fit.
    const len = q ? 4000 : undefined;
    const a = await firstRecord('mt_human.fa', len);
    const b = await firstRecord('mt_orangutan.fa', len);
    for (const gaps of [LINEAR, AFFINE]) {
      out.push({
        label: `traceback, ${gaps.kind}`,
        input: `mtDNA human × orangutan${len ? `, first ${len} bp` : ''} (${a.length} × ${b.length})`,
        settings: { mode: 'global', gaps, sub: DNA },
        scoreOnly: false,
        queries: [a],
        targets: [b],
        pairs: [[0, 0]],
        ours: ['simd', 'wavefront'],
        references: [{ driver: 'parasail' }, { driver: 'seqan', variant: 'scalar', runs: 1 }, ...(gaps.kind === 'linear' ? [{ driver: 'seqan2' as Driver, runs: 1 }] : [])],
      });
    }
  }
  if (rowsWanted.has('proteins')) {
    const blosum62 = bundledMatrix('BLOSUM62')!;
    let queries = (await readSequences(data('proteins/parasail_swipe_queries_31.fasta'))).map((r) => encodeRecord(r, blosum62));
    let targets = (await readSequences(data('proteins/ecoli_k12_mg1655_proteome.GCF_000005845.2.faa.xz'))).map((r) => encodeRecord(r, blosum62));
    if (q) {
      queries = queries.slice(0, 4);
      targets = targets.slice(0, 400);
    }
    if (cli.targets) {
      const n = Number(cli.targets);
      if (!Number.isInteger(n) || n < 1) throw new Error(`--targets must be a positive integer, not '${cli.targets}'`);
      const all = targets;
      targets = Array.from({ length: Math.min(n, all.length) }, (_, k) => all[Math.floor((k * all.length) / Math.min(n, all.length))]!);
    }
    const pairs: [number, number][] = [];
    for (let i = 0; i < queries.length; i++) for (let j = 0; j < targets.length; j++) pairs.push([i, j]);
    out.push({
      label: 'many pairs, protein',
      input: `${queries.length} queries × ${targets.length} E. coli proteins, BLOSUM62, affine 11/1, local`,
      settings: { mode: 'local', gaps: { kind: 'affine', open: 11, extend: 1 }, sub: blosum62 },
      scoreOnly: true,
      queries,
      targets,
      pairs,
      ours: ['inter'],
      // SeqAn 3's vectorised local alignment ran 7× below SSW on the quick row: the full row
      // would take it over an hour, and the issue compares this row with Parasail and SSW.
      references: [{ driver: 'parasail', variant: 'striped_profile,scan_profile' }, { driver: 'ssw' }],
    });
  }
  return out;
}

/** Ours on a case: each schedule compiled, a warm-up run, then `runs` timed runs; the fastest schedule kept. */
async function runOurs(c: Case): Promise<Measured> {
  let best: Measured | undefined;
  const params = { gaps: c.settings.gaps, sub: c.settings.sub, threads };
  const substitution = simpleScores(c.settings.sub) ? 'simple' : 'matrix';
  for (const schedule of c.ours) {
    log(`${c.label}: compiling AnySeq ${schedule}`);
    const aligner = await compileAligner({ mode: c.settings.mode, gaps: c.settings.gaps.kind, substitution, schedule, traceback: !c.scoreOnly });
    const list = c.pairs.map(([i, j]) => [c.queries[i]!, c.targets[j]!] as const);
    const once = (): number[] =>
      schedule === 'inter' ? aligner.scoreMany(list, params).map((r) => r.score) : list.map(([q, t]) => (c.scoreOnly ? aligner.score(q, t, params) : aligner.align(q, t, params)).score);
    log(`${c.label}: AnySeq ${schedule}`);
    const scores = once();
    const ms: number[] = [];
    const cpuMs: number[] = [];
    for (let k = 0; k < runs; k++) {
      const t0 = process.hrtime.bigint();
      const c0 = process.cpuUsage();
      once();
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      const c = process.cpuUsage(c0);
      cpuMs.push((c.user + c.system) / 1e3);
    }
    const m = { name: `AnySeq ${schedule}`, about: `AnySeq ${schedule}, ${substitution} scoring, ${threads} thread${threads > 1 ? 's' : ''}`, ms, cpuMs, scores };
    if (!best || median(m.ms) < median(best.ms)) best = m;
  }
  return best!;
}

function gcups(cells: number, ms: number): number {
  return cells / ms / 1e6;
}

/** The CPU's clock in GHz as /proc/cpuinfo says (for cells per cycle), or undefined. */
function clockGHz(): number | undefined {
  try {
    const mhz = readFileSync('/proc/cpuinfo', 'utf8').match(/^cpu MHz\s*:\s*([\d.]+)/m);
    return mhz ? Number(mhz[1]) / 1000 : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const drivers = ['parasail', 'seqan', 'seqan2', 'ssw'] as const;
  await installMissing('bench/align', drivers.flatMap((d) => PACKAGES[d]));
  const rows: Row[] = [];
  for (const c of await cases()) {
    const cells = c.pairs.reduce((s, [i, j]) => s + c.queries[i]!.length * c.targets[j]!.length, 0);
    const row: Row = { c, cells, refs: [], skipped: [] };
    rows.push(row);
    try {
      row.ours = await runOurs(c);
    } catch (e) {
      row.skipped.push(`AnySeq: ${(e as Error).message.split('\n')[0]}`);
      log(`${c.label}: AnySeq failed: ${(e as Error).message.split('\n')[0]}`);
      continue;
    }
    for (const r of c.references) {
      try {
        const res: ReferenceResult = await runAlignReference(r.driver, c.settings, { queries: c.queries, targets: c.targets }, c.pairs, {
          scoreOnly: c.scoreOnly,
          runs: Math.min(runs, r.runs ?? runs),
          threads,
          variant: r.variant,
          onStep: (s) => log(`${c.label}: ${s}`),
        });
        row.refs.push({ name: REFERENCE_TITLES[r.driver], about: res.about, ms: res.times, cpuMs: res.cpuTimes, scores: res.scores });
      } catch (e) {
        row.skipped.push(`${REFERENCE_TITLES[r.driver]}: ${(e as Error).message}`);
        log(`${c.label}: ${REFERENCE_TITLES[r.driver]} skipped: ${(e as Error).message}`);
      }
    }
    // Each row as it completes, so a long run that is stopped keeps what it measured.
    log(`${c.label}: ${rowCells(row).join(' | ')}`);
  }
  printTable(rows);
  mkdirSync(path.dirname(cli.json!), { recursive: true });
  const json = {
    machine: { cpu: os.cpus()[0]?.model, cores: os.availableParallelism(), ghz: clockGHz() },
    runs,
    threads,
    rows: rows.map((r) => ({
      case: r.c.label,
      input: r.c.input,
      cells: r.cells,
      ours: r.ours && { about: r.ours.about, ms: r.ours.ms, cpuMs: r.ours.cpuMs, gcups: gcups(r.cells, median(r.ours.ms)) },
      references: r.refs.map((m) => ({ about: m.about, ms: m.ms, cpuMs: m.cpuMs, gcups: gcups(r.cells, median(m.ms)), scoresEqual: sameScores(r.ours, m) })),
      skipped: r.skipped,
    })),
  };
  writeFileSync(cli.json!, JSON.stringify(json, null, 2) + '\n');
  console.log(`raw numbers: ${path.relative(process.cwd(), cli.json!)}`);
  return rows.some((r) => r.refs.some((m) => !sameScores(r.ours, m))) ? 1 : 0;
}

function sameScores(ours: Measured | undefined, ref: Measured): boolean {
  return !!ours && ours.scores.length === ref.scores.length && ours.scores.every((s, k) => s === ref.scores[k]);
}

/** A row's table cells: case, input, cells, ours, the best reference, the ratio, the others, the score check. */
function rowCells(r: Row): string[] {
  const ours = r.ours ? gcups(r.cells, median(r.ours.ms)) : NaN;
  const refs = [...r.refs].sort((x, y) => median(x.ms) - median(y.ms));
  const best = refs[0];
  const bestG = best ? gcups(r.cells, median(best.ms)) : NaN;
  const equal = refs.every((m) => sameScores(r.ours, m));
  return [
    r.c.label,
    r.c.input,
    (r.cells / 1e6).toFixed(0),
    `${ours.toFixed(2)} (${r.ours?.name.replace('AnySeq ', '') ?? '-'})`,
    best ? `${bestG.toFixed(2)} (${best.about})` : '-',
    best ? `${(ours / bestG).toFixed(2)}×` : '-',
    cpuRatio(r),
    refs.slice(1).map((m) => `${m.name} ${gcups(r.cells, median(m.ms)).toFixed(2)}`).join('; ') || '-',
    refs.length ? (equal ? 'equal' : 'DIFFER') : '-',
  ];
}

/** The best reference's median CPU time over ours (among the references that measure it), or '-'. */
function cpuRatio(r: Row): string {
  const cpu = (m: Measured | undefined) => (m?.cpuMs?.length ? median(m.cpuMs) : undefined);
  const ours = cpu(r.ours);
  const refs = r.refs.map(cpu).filter((c): c is number => c !== undefined);
  return ours && refs.length ? `${(Math.min(...refs) / ours).toFixed(2)}×` : '-';
}

function printTable(rows: Row[]): void {
  const ghz = clockGHz();
  const header = ['case', 'input', 'Mcells', 'ours GCUPS', 'best reference GCUPS', 'ratio', 'CPU-time ratio', 'others', 'scores'];
  const cells = rows.map(rowCells);
  const widths = header.map((h, k) => Math.max(h.length, ...cells.map((c) => c[k]!.length)));
  const line = (c: string[]) => `| ${c.map((v, k) => v.padEnd(widths[k]!)).join(' | ')} |`;
  console.log('');
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
  console.log(`ratio = ours GCUPS / best reference GCUPS (> 1: ours is faster; the issue's target is ≥ 1.05). Medians of ${runs} runs after a warm-up (SeqAn on one long pair: 1 run), ${threads} thread${threads > 1 ? 's' : ''}.`);
  console.log(`CPU-time ratio = the best reference's CPU time (all threads) / ours, against the references that measure it: the work each side does, what a machine shared with other work still tells (the load average was ${os.loadavg()[0]!.toFixed(1)} at the end).`);
  if (ghz) {
    console.log(`cells per cycle per core (${ghz.toFixed(2)} GHz × ${threads}): ` + rows.map((r) => `${r.c.label}: ours ${r.ours ? (gcups(r.cells, median(r.ours.ms)) / ghz / threads).toFixed(2) : '-'}`).join('; '));
  }
  for (const r of rows) for (const s of r.skipped) console.log(`skipped in '${r.c.label}': ${s}`);
}

await runBench(import.meta.url, main);
