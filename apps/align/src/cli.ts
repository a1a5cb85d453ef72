// `align`: pairwise sequence alignment with the AnySeq library (libs/anyseq): reads two
// FASTA/FASTQ files, pairs every record of the first with every record of the second (or
// the i-th with the i-th), and writes each alignment as text, TSV, SAM or JSON; --bench
// times it in GCUPS and --compare checks the scores against Parasail, SeqAn or EMBOSS.
import os from 'node:os';
import { Command, Option } from 'commander';
import { checkOutputPath, writeFileAtomic } from '@anydsl/compiler';
import { ALIGN_REFERENCES, type AlignReference, REFERENCE_TITLES, runAlignReference } from '../../../bench/align/references.ts';
import { median } from '../../../libs/image/bench.ts';
import { ALPHABETS, type Alphabet, detectAlphabet, encodeRecord, readSequences, type SequenceRecord } from '../../../libs/anyseq/fasta.ts';
import { alignmentStats, formatter, OUTPUT_FORMATS, type OutputFormat, type PairOutcome, type Settings, tsvColumns } from '../../../libs/anyseq/format.ts';
import {
  checkGaps,
  DEFAULT_SCORING,
  DNA_ALPHABET,
  type Gaps,
  isNucleotideAlphabet,
  loadMatrix,
  MATRIX_NAMES,
  type Mode,
  MODES,
  PROTEIN_ALPHABET,
  simpleSubstitution,
  type Substitution,
} from '../../../libs/anyseq/scoring.ts';
import type { AlignResult, ScoreResult } from '../../../libs/anyseq/reference.ts';
import { during, integerFrom, LOG_EVERY_MS, progress, PROGRESS_WHEN, type ProgressWhen, runCommand, workProgress } from '../../shared/cli.ts';
import { AlignProgress } from '../../../libs/anyseq/host.ts';
import { type Engine, makeEngine, type ScheduleChoice } from './engine.ts';
import { pickAlignDevice } from '../../../libs/anyseq/gpu.ts';
import { SCHEDULES } from '../../../libs/anyseq/kernels.ts';

interface Options {
  pairwise?: boolean;
  mode: Mode;
  affine?: boolean;
  linear?: boolean;
  gapOpen?: number;
  gapExtend?: number;
  gap?: number;
  match?: number;
  mismatch?: number;
  matrix?: string;
  alphabet?: Alphabet;
  scoreOnly?: boolean;
  threads: number;
  format: OutputFormat;
  output?: string;
  bench?: number;
  compare?: AlignReference;
  schedule: ScheduleChoice;
  device?: string;
  progress: ProgressWhen;
}

/** The most --bench runs. */
const MAX_BENCH_RUNS = 1000;
/** Runs timed for --compare without --bench. */
const COMPARE_RUNS = 3;
/** Cells above which a progress line is worth drawing on a terminal. */
const LONG_CELLS = 2e8;

const score = integerFrom(-1_000_000, 1_000_000);
const penalty = integerFrom(0, 1_000_000);

export function buildCommand(): Command {
  const nuc = DEFAULT_SCORING.nucleotide;
  const prot = DEFAULT_SCORING.protein;
  return new Command('align')
    .description('Align every sequence of A with every sequence of B (global, local or semi-global; linear or affine gaps) with the AnySeq library.')
    .argument('<a>', 'queries: FASTA or FASTQ, plain, gzip or xz, any number of records')
    .argument('<b>', 'targets: the same formats')
    .option('--pairwise', 'align the i-th record of A with the i-th of B (both must hold as many) instead of every record of A with every record of B')
    .addOption(new Option('--mode <mode>', 'global: Needleman–Wunsch; local: Smith–Waterman; semi: end gaps free on both sequences (Parasail\'s sg)').choices(MODES).default('global'))
    .option('--affine', `affine gaps, a gap of length k costs open + (k-1)·extend (the default model; default costs ${nuc.affine.open}/${nuc.affine.extend} for nucleotides, ${prot.affine.open}/${prot.affine.extend} for proteins)`)
    .option('--linear', `linear gaps, a gap of length k costs k·gap (default gap ${nuc.linear} for nucleotides, ${prot.linear} for proteins)`)
    .option('--gap-open <O>', 'the gap-open penalty, a positive integer (implies --affine)', penalty)
    .option('--gap-extend <E>', 'the gap-extend penalty, at most the gap-open penalty (implies --affine)', penalty)
    .option('--gap <G>', 'the penalty per gap residue (implies --linear)', penalty)
    .option('--match <M>', `the score of equal residues (default ${nuc.match}; proteins are scored by a matrix unless --match or --mismatch is given)`, score)
    .option('--mismatch <X>', `the score of different residues, signed (default ${nuc.mismatch})`, score)
    .option('--matrix <name|file>', `a substitution matrix: ${MATRIX_NAMES.join(', ')}, or a file in NCBI's text format (default for proteins: ${prot.matrix})`)
    .addOption(new Option('--alphabet <kind>', 'what the sequences are (default: detected; nucleotides when every letter is a nucleotide code and 90% are ACGTUN)').choices(ALPHABETS))
    .option('--score-only', 'compute the scores and end positions only (linear memory, fastest), no alignment')
    .addOption(
      new Option('--schedule <name>', 'auto: inter for many short pairs with --score-only, wavefront for long pairs on several threads, simd otherwise; scalar: one cell at a time; simd: anti-diagonal SIMD stripes; wavefront: tiles over threads; inter: one pair per SIMD lane (score only)')
        .choices(['auto', ...SCHEDULES])
        .default('auto'),
    )
    .option('--device <device>', 'where the kernels run: host (the CPU schedules; the default, or ANYDSL_DEVICE when set), cuda or opencl (the GPU schedule, scores only: a kernel per anti-diagonal of tiles; optionally :index, e.g. cuda:1), auto (an NVIDIA GPU, else an OpenCL device, else the host); the device chosen is named in the summary')
    .option('--threads <n>', 'threads for the kernels', integerFrom(1, 1024), os.availableParallelism())
    .addOption(new Option('--format <format>', `pretty: EMBOSS-like text; tsv: one line per pair (${tsvColumns(false).join(', ')}; with --score-only ${tsvColumns(true).slice(5).join(', ')}); sam: SAM with CIGAR and AS:i:; json`).choices(OUTPUT_FORMATS).default('pretty'))
    .addOption(
      new Option('--progress <when>', `a progress line on stderr (cells done of those planned, GCUPS so far, time left) while aligning: auto: on a terminal, for work over ${LONG_CELLS / 1e6} M cells; always: any work, and when stderr is not a terminal (a log) a plain line every ${LOG_EVERY_MS / 1000} s and one at the end; never`)
        .choices(PROGRESS_WHEN)
        .default('auto'),
    )
    .option('-o, --output <file>', 'write the output here (replaced only once complete) instead of standard output')
    .option('--bench <N>', `align everything N more times and print the median time and GCUPS (at most ${MAX_BENCH_RUNS})`, integerFrom(1, MAX_BENCH_RUNS))
    .addOption(new Option('--compare <reference>', `also align with a reference (${ALIGN_REFERENCES.map((r) => `${r}: ${REFERENCE_TITLES[r]}`).join('; ')}), check that every score is equal and print the speed ratio (medians of --bench or ${COMPARE_RUNS} runs)`).choices(ALIGN_REFERENCES))
    .addHelpText(
      'after',
      [
        '',
        'Positions in the output are 1-based and inclusive. Letters of either case are the same residue;',
        'for nucleotides U reads as T and the IUPAC codes (R, Y, K, M, S, W, B, D, H, V) as N.',
        '',
        'Examples:',
        '  align a.fa b.fa --affine',
        '  align a.fa b.fa --mode local --match 2 --mismatch -3 --gap-open 5 --gap-extend 2',
        '  align queries.fa proteome.fa.xz --mode local --matrix BLOSUM62 --score-only --format tsv',
        '  align a.fq.gz b.fq.gz --pairwise --format sam -o out.sam',
        '  align genome1.fa.gz genome2.fa.gz --score-only --bench 3',
        '  nohup align genome1.fa genome2.fa --score-only --progress always 2> align.log &   (a progress line every 10 s in the log)',
        '  align genome1.fa genome2.fa --score-only --device cuda --bench 3   (GCUPS, kernel and copy time)',
        '  align a.fa b.fa --compare parasail',
        '',
      ].join('\n'),
    )
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
}

/** Options that contradict each other, before any input is read. */
function checkOptions(o: Options): void {
  const conflict = (a: string, b: string) => new Error(`${a} and ${b} contradict each other`);
  if (o.affine && o.linear) throw conflict('--affine', '--linear');
  if (o.gap !== undefined && o.affine) throw conflict('--gap (linear gaps)', '--affine');
  if (o.gap !== undefined && (o.gapOpen !== undefined || o.gapExtend !== undefined)) throw conflict('--gap (linear gaps)', `--gap-${o.gapOpen !== undefined ? 'open' : 'extend'} (affine gaps)`);
  if (o.linear && (o.gapOpen !== undefined || o.gapExtend !== undefined)) throw conflict('--linear', `--gap-${o.gapOpen !== undefined ? 'open' : 'extend'} (affine gaps)`);
  if (o.matrix !== undefined && (o.match !== undefined || o.mismatch !== undefined)) throw conflict('--matrix', `--${o.match !== undefined ? 'match' : 'mismatch'}`);
  if (o.scoreOnly && o.format === 'sam') throw new Error('--format sam needs the alignments (CIGAR): it does not go with --score-only');
}

/** The substitution for the sequences' alphabet and the options. */
function substitution(o: Options, alphabet: Alphabet): Substitution {
  if (o.matrix !== undefined) return loadMatrix(o.matrix);
  const nuc = DEFAULT_SCORING.nucleotide;
  if (alphabet === 'protein') {
    if (o.match === undefined && o.mismatch === undefined) return loadMatrix(DEFAULT_SCORING.protein.matrix);
    return simpleSubstitution(PROTEIN_ALPHABET, o.match ?? nuc.match, o.mismatch ?? nuc.mismatch);
  }
  return simpleSubstitution(DNA_ALPHABET, o.match ?? nuc.match, o.mismatch ?? nuc.mismatch);
}

/** The gap model: flags and defaults by alphabet (protein defaults when a matrix scores proteins). */
function gapModel(o: Options, protein: boolean): Gaps {
  const d = protein ? DEFAULT_SCORING.protein : DEFAULT_SCORING.nucleotide;
  const linear = o.linear || o.gap !== undefined;
  const gaps: Gaps = linear
    ? { kind: 'linear', gap: o.gap ?? d.linear }
    : { kind: 'affine', open: o.gapOpen ?? Math.max(d.affine.open, o.gapExtend ?? 0), extend: o.gapExtend ?? Math.min(d.affine.extend, o.gapOpen ?? Infinity) };
  checkGaps(gaps);
  return gaps;
}

/** The pairs of record indices to align. */
function pairing(a: readonly SequenceRecord[], b: readonly SequenceRecord[], pairwise: boolean, files: [string, string]): [number, number][] {
  if (pairwise) {
    if (a.length !== b.length) throw new Error(`--pairwise needs as many records in both files: '${files[0]}' has ${a.length}, '${files[1]}' has ${b.length}`);
    return a.map((_, i) => [i, i]);
  }
  const pairs: [number, number][] = [];
  for (let i = 0; i < a.length; i++) for (let j = 0; j < b.length; j++) pairs.push([i, j]);
  return pairs;
}

/**
 * Aligns every pair with `engine`, the long kernel calls on a worker thread while a progress
 * line over the cells (the kernels count them as they go) is drawn as `when` says.
 */
async function alignAll(engine: Engine, pairs: readonly (readonly [Uint8Array, Uint8Array])[], label: string, when: ProgressWhen): Promise<(ScoreResult | AlignResult)[]> {
  const counted = new AlignProgress();
  counted.planned = engine.plan(pairs);
  const long = when === 'always' || counted.planned > LONG_CELLS;
  const line = workProgress(label, { read: () => ({ done: counted.done, total: counted.planned }), unit: 'cells', rate: { name: 'GCUPS', per: 1e9 } }, long ? when : 'never');
  try {
    return await engine.runAsync(pairs, counted);
  } finally {
    line.stop();
  }
}

function gcups(cells: number, ms: number): string {
  return ms > 0 ? (cells / ms / 1e6).toFixed(3) : '∞';
}

export async function main(argv: string[]): Promise<number> {
  const program = buildCommand();
  return runCommand('align', program, argv, async () => {
    const o = program.opts<Options>();
    const files = program.args as [string, string];
    checkOptions(o);
    const output = o.output !== undefined ? await checkOutputPath(o.output) : undefined;
    const [a, b] = await Promise.all(files.map((f) => readSequences(f)));
    const alphabet = o.alphabet ?? detectAlphabet([...a!, ...b!]);
    const sub = substitution(o, alphabet);
    const gaps = gapModel(o, !isNucleotideAlphabet(sub.alphabet));
    const settings: Settings = { mode: o.mode, gaps, sub };
    const qs = a!.map((r) => encodeRecord(r, sub));
    const ts = b!.map((r) => encodeRecord(r, sub));
    const pairs = pairing(a!, b!, !!o.pairwise, files);
    const cells = pairs.reduce((sum, [i, j]) => sum + qs[i]!.length * ts[j]!.length, 0);
    const scoreOnly = !!o.scoreOnly;

    const work = pairs.map(([i, j]) => [qs[i]!, ts[j]!] as const);
    const device = await pickAlignDevice(o.device);
    const engine = await during('compiling the alignment kernels (cached afterwards)', () => makeEngine(settings, work, { threads: o.threads, scoreOnly, schedule: o.schedule, device }));
    const what = `${pairs.length} pair${pairs.length === 1 ? '' : 's'}, ${settings.mode}, ${gaps.kind}, ${scoreOnly ? 'score only' : 'with traceback'}`;
    const start = process.hrtime.bigint();
    const results = await alignAll(engine, work, `aligning ${what}`, o.progress);
    const firstMs = Number(process.hrtime.bigint() - start) / 1e6;

    // The output, streamed to standard output or written whole to -o.
    const fmt = formatter(o.format, settings, { targets: b!, commandLine: ['align', ...argv].join(' '), scoreOnly });
    const chunks: string[] = [];
    const emit = (s: string) => (output ? chunks.push(s) : s && process.stdout.write(s));
    emit(fmt.header());
    results.forEach((r, k) => {
      const [i, j] = pairs[k]!;
      const pair: PairOutcome = { query: a![i]!, target: b![j]!, q: qs[i]!, t: ts[j]!, score: r.score, endQ: r.endQ, endT: r.endT };
      if ('cigar' in r) pair.alignment = r as AlignResult;
      emit(fmt.pair(pair, k));
    });
    emit(fmt.footer());
    if (output) await writeFileAtomic(output, chunks.join(''));

    // The summary goes to stderr when the alignments go to stdout, so a pipe gets them alone.
    const say = (line: string) => (output ? console.log(line) : process.stderr.write(`${line}\n`));
    if (output) say(`wrote ${o.output} (${o.format}, ${what})`);
    // One pair: its summary too, the way EMBOSS heads an alignment.
    if (results.length === 1) {
      const [i, j] = pairs[0]!;
      const r = results[0]!;
      const pair: PairOutcome = { query: a![i]!, target: b![j]!, q: qs[i]!, t: ts[j]!, score: r.score, endQ: r.endQ, endT: r.endT };
      if ('cigar' in r) {
        const st = alignmentStats({ ...pair, alignment: r as AlignResult }, sub);
        const pc = (n: number) => `${n}/${st.length} (${st.length ? ((100 * n) / st.length).toFixed(1) : '0.0'}%)`;
        say(`${pair.query.id} × ${pair.target.id}: score ${r.score}, length ${st.length}, identity ${pc(st.identity)}, similarity ${pc(st.similarity)}, gaps ${pc(st.gaps)}`);
      } else say(`${pair.query.id} × ${pair.target.id}: score ${r.score}, ending at ${r.endQ} and ${r.endT}`);
    }
    let ourMs = firstMs;
    const runs = o.bench ?? (o.compare ? COMPARE_RUNS : 0);
    if (runs) {
      const bar = progress(`timing ${runs} runs`, runs);
      const times: number[] = [];
      const kernelMs: number[] = [];
      const copyMs: number[] = [];
      for (let k = 0; k < runs; k++) {
        const [k0, c0] = [engine.device?.kernelMicros() ?? 0, engine.device?.copyMicros() ?? 0];
        const t0 = process.hrtime.bigint();
        engine.run(work);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        kernelMs.push(((engine.device?.kernelMicros() ?? 0) - k0) / 1e3);
        copyMs.push(((engine.device?.copyMicros() ?? 0) - c0) / 1e3);
        bar.update(k + 1);
      }
      bar.stop();
      ourMs = median(times);
      say(`${engine.about}: ${what}, ${(cells / 1e6).toFixed(1)} M cells: median ${ourMs.toFixed(1)} ms over ${runs} runs, ${gcups(cells, ourMs)} GCUPS`);
      if (engine.device) {
        const km = median(kernelMs);
        say(`  on the device: kernels ${km.toFixed(1)} ms (${gcups(cells, km)} GCUPS), copies ${median(copyMs).toFixed(1)} ms (medians per run; the rest is launching and the host)`);
      }
    } else {
      say(`${engine.about}: ${what}, ${(cells / 1e6).toFixed(1)} M cells in ${firstMs.toFixed(1)} ms, ${gcups(cells, firstMs)} GCUPS`);
    }
    if (o.compare) {
      const seqs = { queries: qs, targets: ts };
      const ref = await during(`running ${REFERENCE_TITLES[o.compare]}`, () => runAlignReference(o.compare!, settings, seqs, pairs, { scoreOnly, runs, threads: o.threads }));
      const differing = results.map((r, k) => [k, r.score, ref.scores[k]] as const).filter(([, ours, theirs]) => ours !== theirs);
      const refMs = median(ref.times);
      say(`${ref.about}: ${differing.length ? `scores DIFFER in ${differing.length} of ${pairs.length} pairs` : `all ${pairs.length} scores equal`}`);
      say(`speed: ours ${ourMs.toFixed(1)} ms, ${REFERENCE_TITLES[o.compare]} ${refMs.toFixed(1)} ms (medians of ${runs} runs): ratio ${(refMs / ourMs).toFixed(2)}× (reference / ours; above 1 ours is faster)`);
      if (differing.length) {
        const [k, ours, theirs] = differing[0]!;
        const [i, j] = pairs[k]!;
        throw new Error(`the scores differ from ${REFERENCE_TITLES[o.compare]}'s, first for ${a![i]!.id} × ${b![j]!.id}: ours ${ours}, theirs ${theirs}`);
      }
    }
  });
}
