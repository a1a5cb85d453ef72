// The aligners libs/anyseq is measured against (Parasail 2.6, SeqAn 3.2 and 2.4, SSW 1.1,
// EMBOSS needle/water 6.6) and the one implementation of building and running them on a
// set of pairs, shared by bench/align/run.ts and `align --compare`.
//
// The C++ drivers next to this file are built against the Debian packages (never installed
// from here: a missing one is an error naming the apt-get command; run.ts installs them as
// root) and cached by bench/shared/native.ts under .cache/bench/align-<driver>-<hash of
// sources, compiler, CPU>. Each driver reads the
// matrix, the sequences as letters one per line and the pairs, times the alignment of all
// pairs (after a warm-up run) and prints the scores and times as one JSON line.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Settings } from '../../libs/anyseq/format.ts';
import { median } from '../../libs/image/bench.ts';
import { decode, formatMatrix, isNucleotideAlphabet, simpleScores, type Substitution } from '../../libs/anyseq/scoring.ts';
import { byFile, cacheDir, type DebianPackage, exec, GXX, gxx, missingPackages as missing, notInstalled } from '../shared/native.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** What `align --compare` accepts. */
export const ALIGN_REFERENCES = ['parasail', 'seqan', 'emboss'] as const;
export type AlignReference = (typeof ALIGN_REFERENCES)[number];
/** Every driver, the bench's SeqAn 2 and SSW included. */
export type Driver = AlignReference | 'seqan2' | 'ssw';

export const REFERENCE_TITLES: Record<Driver, string> = {
  parasail: 'Parasail 2.6',
  seqan: 'SeqAn 3.2',
  seqan2: 'SeqAn 2.4',
  ssw: 'SSW 1.1',
  emboss: 'EMBOSS 6.6 needle/water',
};

/** The Debian packages of each driver (g++ is GCC 12 on Debian 12, the newest SeqAn 3.2 accepts). */
export const PACKAGES: Record<Driver, DebianPackage[]> = {
  parasail: [GXX, byFile('libparasail-dev', '/usr/include/parasail.h')],
  seqan: [GXX, byFile('libseqan3-dev', '/usr/include/seqan3/version.hpp')],
  seqan2: [GXX, byFile('libseqan2-dev', '/usr/include/seqan/align.h'), byFile('libtbb-dev', '/usr/include/tbb/tbb.h')],
  ssw: [GXX, byFile('libssw-dev', '/usr/include/ssw.h')],
  emboss: [{ apt: 'emboss', present: async () => (await exec('needle', ['-version'])).ok }],
};

/** The Debian packages `driver` needs that are not installed. */
export function missingPackages(driver: Driver): Promise<string[]> {
  return missing(PACKAGES[driver]);
}

// ------------------------------------------------------------ building

const SEQAN3_INCLUDES = ['-I/usr/include/seqan3/submodules/sdsl-lite/include', '-I/usr/include/seqan3/submodules/cereal/include'];

/** How each compiled driver is built: source and flags (the CPU's own ISA where the library is header-only, as its benchmarks do). */
const BUILDS: Partial<Record<Driver, { source: string; flags: string[] }>> = {
  parasail: { source: 'parasail_driver.cpp', flags: ['-O3', '-std=c++17', '-fopenmp', '-lparasail'] },
  seqan: { source: 'seqan3_driver.cpp', flags: ['-O3', '-std=c++20', '-march=native', ...SEQAN3_INCLUDES, '-pthread'] },
  seqan2: { source: 'seqan2_driver.cpp', flags: ['-O3', '-std=c++17', '-march=native', '-DSEQAN_ENABLE_PARALLELISM=1', '-pthread', '-ltbb'] },
  ssw: { source: 'ssw_driver.cpp', flags: ['-O3', '-std=c++17', '-fopenmp', '-lssw'] },
};

const building = new Map<Driver, Promise<string>>();

/** The driver's executable, built once and cached; `onStep` hears about a build (SeqAn 3's takes minutes). */
export function buildDriver(driver: Driver, onStep?: (step: string) => void): Promise<string> {
  let p = building.get(driver);
  if (!p) {
    p = (async () => {
      const absent = await missingPackages(driver);
      if (absent.length) throw notInstalled(REFERENCE_TITLES[driver], absent);
      const build = BUILDS[driver];
      if (!build) throw new Error(`${REFERENCE_TITLES[driver]} is a command, not built`);
      const sources = [path.join(here, 'driver_common.h'), path.join(here, build.source)];
      const dir = await cacheDir(`align-${driver}`, sources, build.flags.join(' '));
      const exe = path.basename(build.source, '.cpp');
      if (!existsSync(path.join(dir, exe))) onStep?.(`building the ${REFERENCE_TITLES[driver]} driver${driver === 'seqan' ? ' (minutes)' : ''}, cached afterwards`);
      return gxx(dir, exe, [sources[1]!, `-I${here}`, ...build.flags]);
    })();
    p.catch(() => building.delete(driver));
    building.set(driver, p);
  }
  return p;
}

// ------------------------------------------------------------ running

/** The sequences of a job: residue codes of the settings' substitution. */
export interface Sequences {
  queries: readonly Uint8Array[];
  targets: readonly Uint8Array[];
}

export interface ReferenceResult {
  /** The reference and how it ran (kernel, ISA, threads). */
  about: string;
  /** Per timed run: all pairs, in ms. */
  times: number[];
  /** Per timed run: the CPU time of all the driver's threads, in ms (drivers that measure it). */
  cpuTimes?: number[];
  /** Per pair, in order. */
  scores: number[];
}

export interface RunOptions {
  scoreOnly: boolean;
  runs: number;
  threads: number;
  /** Parasail: striped, scan, diag, striped_profile or scan_profile, or several with commas (default: the first three, the fastest agreeing one kept); SeqAn 3: scalar or vectorised (default: each). */
  variant?: string;
  onStep?: (step: string) => void;
}

/** Writes a job's inputs into a temporary directory and calls `body` with their paths. */
async function withInputs<T>(settings: Settings, seqs: Sequences, pairs: readonly (readonly [number, number])[], body: (files: string[], dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'align-reference-'));
  try {
    const sub = settings.sub;
    const files = ['matrix.txt', 'queries.txt', 'targets.txt', 'pairs.txt'].map((f) => path.join(dir, f));
    await writeFile(files[0]!, `${sub.alphabet}\n${Array.from({ length: sub.size }, (_, a) => Array.from(sub.scores.subarray(a * sub.size, (a + 1) * sub.size)).join(' ')).join('\n')}\n`);
    await writeFile(files[1]!, seqs.queries.map((s) => decode(s, sub)).join('\n') + '\n');
    await writeFile(files[2]!, seqs.targets.map((s) => decode(s, sub)).join('\n') + '\n');
    await writeFile(files[3]!, pairs.map(([i, j]) => `${i} ${j}`).join('\n') + '\n');
    return await body(files, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runDriver(exe: string, args: string[]): Promise<ReferenceResult> {
  const r = await exec(exe, args);
  const name = path.basename(exe);
  if (!r.ok) throw new Error(`${name} failed: ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
  const json = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (!json) throw new Error(`${name} printed no result`);
  const out = JSON.parse(json) as { about: string; ms: number[]; cpu_ms?: number[]; scores: number[] };
  return { about: out.about, times: out.ms, cpuTimes: out.cpu_ms, scores: out.scores };
}

/** Gap open and extend in Parasail's convention (a linear gap opens and extends at the same cost). */
function openExtend(settings: Settings): [number, number] {
  const g = settings.gaps;
  return g.kind === 'linear' ? [g.gap, g.gap] : [g.open, g.extend];
}

const PARASAIL_FAMILY = { global: 'nw', semi: 'sg', local: 'sw' } as const;

async function runParasail(settings: Settings, seqs: Sequences, pairs: readonly (readonly [number, number])[], o: RunOptions): Promise<ReferenceResult> {
  const exe = await buildDriver('parasail', o.onStep);
  const [open, extend] = openExtend(settings);
  const variants = o.variant ? o.variant.split(',') : ['striped', 'scan', 'diag'];
  return withInputs(settings, seqs, pairs, async (files) => {
    const results: ReferenceResult[] = [];
    const failed: string[] = [];
    for (const v of variants) {
      o.onStep?.(`Parasail ${PARASAIL_FAMILY[settings.mode]} ${v}`);
      try {
        results.push(await runDriver(exe, [PARASAIL_FAMILY[settings.mode], v, o.scoreOnly ? '0' : '1', String(open), String(extend), String(o.runs), String(o.threads), ...files]));
      } catch (e) {
        // nw_diag_32 reports saturation on long genomic pairs where striped and scan do not.
        failed.push(`${v}: ${(e as Error).message}`);
      }
    }
    if (results.length === 0) throw new Error(failed.join('; '));
    // A kernel counts only where it agrees with the others' majority: Parasail 2.6's
    // nw_striped returns wrong scores with open = extend (linear gaps) and sg_trace_diag
    // without flagging saturation. The fastest agreeing kernel is the result.
    const key = (r: ReferenceResult) => r.scores.join(',');
    const votes = new Map<string, number>();
    for (const r of results) votes.set(key(r), (votes.get(key(r)) ?? 0) + 1);
    const majority = [...votes].sort((x, y) => y[1] - x[1])[0]![0];
    const agreeing = results.filter((r) => key(r) === majority).sort((x, y) => median(x.times) - median(y.times));
    const dropped = [...results.filter((r) => key(r) !== majority).map((r) => `${r.about.split(' ')[2]} disagreed with the other kernels`), ...failed];
    const best = agreeing[0]!;
    return dropped.length ? { ...best, about: `${best.about}; left out: ${dropped.join('; ')}` } : best;
  });
}

/** SeqAn 3 scores nucleotides by match/mismatch (dna5) and proteins by any matrix (aa27). */
function seqanScheme(sub: Substitution): string {
  const simple = simpleScores(sub);
  if (isNucleotideAlphabet(sub.alphabet) && simple && sub.alphabet === 'ACGTN') return 'dna';
  if (!isNucleotideAlphabet(sub.alphabet) && [...sub.alphabet].every((c) => /[A-Z*]/.test(c))) return 'protein';
  throw new Error(`SeqAn 3 reproduces match/mismatch scoring of nucleotides (ACGTN) and matrices over amino acids; not ${sub.name ?? 'this scoring'}`);
}

async function runSeqan(settings: Settings, seqs: Sequences, pairs: readonly (readonly [number, number])[], o: RunOptions): Promise<ReferenceResult> {
  const scheme = seqanScheme(settings.sub);
  const exe = await buildDriver('seqan', o.onStep);
  const [open, extend] = openExtend(settings);
  const variants = o.variant ? [o.variant] : ['scalar', 'vectorised'];
  return withInputs(settings, seqs, pairs, async (files) => {
    let best: ReferenceResult | undefined;
    for (const v of variants) {
      o.onStep?.(`SeqAn 3 ${v}`);
      const r = await runDriver(exe, [settings.mode, scheme, v, o.scoreOnly ? '0' : '1', String(open), String(extend), String(o.runs), String(o.threads), ...files]);
      if (!best || median(r.times) < median(best.times)) best = r;
    }
    return best!;
  });
}

/** SeqAn 2's Hirschberg: global alignment, linear gaps, match/mismatch on nucleotides, in linear memory. */
async function runSeqan2(settings: Settings, seqs: Sequences, pairs: readonly (readonly [number, number])[], o: RunOptions): Promise<ReferenceResult> {
  const simple = simpleScores(settings.sub);
  if (settings.mode !== 'global' || settings.gaps.kind !== 'linear' || !simple || o.scoreOnly) throw new Error('the SeqAn 2 driver runs Hirschberg: global traceback with linear gaps and match/mismatch scores');
  const exe = await buildDriver('seqan2', o.onStep);
  return withInputs(settings, seqs, pairs, (files) =>
    runDriver(exe, [String(simple.match), String(simple.mismatch), String(settings.gaps.kind === 'linear' ? settings.gaps.gap : 0), String(o.runs), String(o.threads), ...files]),
  );
}

/** SSW: local alignment, affine gaps, 8-bit then 16-bit striped SSE2, scores only here. */
async function runSsw(settings: Settings, seqs: Sequences, pairs: readonly (readonly [number, number])[], o: RunOptions): Promise<ReferenceResult> {
  if (settings.mode !== 'local' || !o.scoreOnly) throw new Error('SSW computes local alignments; the driver runs score only');
  const exe = await buildDriver('ssw', o.onStep);
  const [open, extend] = openExtend(settings);
  if (open > 255) throw new Error('SSW takes gap penalties up to 255');
  return withInputs(settings, seqs, pairs, (files) => runDriver(exe, [String(open), String(extend), String(o.runs), String(o.threads), ...files]));
}

/**
 * EMBOSS needle (global: end gaps charged with -endweight; semi: needle's default free end
 * gaps) and water (local), one pair at a time with the matrix written in its format. Scores
 * are printed as decimals; integers here. A correctness oracle (full-matrix memory), timed
 * as whole runs of the command.
 */
async function runEmboss(settings: Settings, seqs: Sequences, pairs: readonly (readonly [number, number])[], o: RunOptions): Promise<ReferenceResult> {
  const absent = await missingPackages('emboss');
  if (absent.length) throw notInstalled(REFERENCE_TITLES.emboss, absent);
  const [open, extend] = openExtend(settings);
  const sub = settings.sub;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'align-emboss-'));
  try {
    // EMBOSS needs a '*' row and column in a matrix; it scores residues outside the alphabet.
    await writeFile(path.join(dir, 'MATRIX'), formatMatrix(withStar(sub)));
    const program = settings.mode === 'local' ? 'water' : 'needle';
    const endGaps = settings.mode === 'global' ? ['-endweight', '-endopen', String(open), '-endextend', String(extend)] : [];
    const scores: number[] = [];
    const times: number[] = [];
    for (let run = 0; run < Math.max(1, o.runs); run++) {
      const t0 = process.hrtime.bigint();
      for (const [k, [i, j]] of pairs.entries()) {
        const [fa, fb] = [path.join(dir, 'a.fa'), path.join(dir, 'b.fa')];
        await writeFile(fa, `>a\n${decode(seqs.queries[i]!, sub)}\n`);
        await writeFile(fb, `>b\n${decode(seqs.targets[j]!, sub)}\n`);
        const args = ['-asequence', fa, '-bsequence', fb, '-datafile', path.join(dir, 'MATRIX'), '-gapopen', String(open), '-gapextend', String(extend), ...endGaps, '-aformat', 'score', '-outfile', 'stdout', '-auto'];
        const r = await exec(program, args);
        const m = r.stdout.match(/\(([-\d.]+)\)\s*$/m);
        if (!r.ok || !m) throw new Error(`${program} failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-1)[0] ?? ''}`);
        if (run === 0) scores[k] = Number(m[1]);
      }
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return { about: `EMBOSS 6.6 ${program} (full matrix, one process per pair)`, times, scores };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The matrix with a `*` residue (scoring the lowest value) when it has none: EMBOSS requires one. */
function withStar(sub: Substitution): Substitution {
  if (sub.alphabet.includes('*')) return sub;
  const size = sub.size + 1;
  const low = Math.min(...sub.scores);
  const scores = new Int32Array(size * size).fill(low);
  for (let a = 0; a < sub.size; a++) for (let b = 0; b < sub.size; b++) scores[a * size + b] = sub.scores[a * sub.size + b]!;
  scores[size * size - 1] = 1;
  return { alphabet: `${sub.alphabet}*`, size, scores };
}

/** Runs `driver` on the pairs: the scores, and the times of `runs` runs after a warm-up. */
export function runAlignReference(
  driver: Driver,
  settings: Settings,
  seqs: Sequences,
  pairs: readonly (readonly [number, number])[],
  options: RunOptions,
): Promise<ReferenceResult> {
  switch (driver) {
    case 'parasail':
      return runParasail(settings, seqs, pairs, options);
    case 'seqan':
      return runSeqan(settings, seqs, pairs, options);
    case 'seqan2':
      return runSeqan2(settings, seqs, pairs, options);
    case 'ssw':
      return runSsw(settings, seqs, pairs, options);
    case 'emboss':
      return runEmboss(settings, seqs, pairs, options);
  }
}
