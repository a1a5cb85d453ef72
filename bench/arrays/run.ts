// Issue 14's array benchmarks on this machine: Game of Life (the StagedSAC paper's 10 × 10 ×
// 1000 steps, and 4096² × 100 steps), PDE1-64 and PDE1-256 (libs/arrays), and the first level
// of the V-cycle at 4096² with and without residual and restriction merged (libs/multigrid,
// the GPCE'15 Figure 9 measurement), against hand-written C (clang-19 -O3 -march=native,
// OpenMP on every core) and NumPy on the same inputs. Outputs are compared (Life exactly,
// PDE1 and the V-cycle to 1e-9 of the largest value), times are medians of --runs runs, and
// one table is printed with the ratios and, for context, the StagedSAC paper's numbers; raw
// times go to out/bench/arrays.json (or --json FILE).
//
//   npx tsx bench/arrays/run.ts [--runs 5] [--scale 1] [--only life,pde1,vcycle] [--json FILE]
//
// --scale divides the large sizes (4096 and 256) for a quick check: --scale 16 runs Life on
// 256², PDE1-16 and the V-cycle on 256². The references' Debian packages (libomp-19-dev,
// python3-numpy) are installed with apt-get when running as root; a reference that cannot
// run is skipped with the reason, never replaced by a number.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compileLife, compilePde1 } from '../../libs/arrays/host.ts';
import { median } from '../../libs/image/bench.ts';
import { compileMultigrid, type MgVariant, variantName } from '../../libs/multigrid/host.ts';
import { xorshift32 } from '../../libs/shared/random.ts';
import { type Impl, IMPLS, installReferences, relativeDifference, runReference } from './references.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

const { values: cli } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    scale: { type: 'string', default: '1' },
    only: { type: 'string', default: 'life,pde1,vcycle' },
    json: { type: 'string', default: path.join(root, 'out', 'bench', 'arrays.json') },
  },
});
const runs = Number(cli.runs);
const scale = Number(cli.scale);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, not '${cli.runs}'`);
if (![1, 2, 4, 8, 16].includes(scale)) throw new Error(`--scale must be 1, 2, 4, 8 or 16, not '${cli.scale}'`);
const only = new Set(cli.only!.split(','));

/** The StagedSAC paper's table (ms; its machine, 2012), quoted beside our rows for context. */
const STAGED_SAC: Record<string, string> = {
  'life 10×10 × 1000': 'StagedSAC 323 ms, SAC compiler 99 ms',
  'pde1-64 × 1': 'StagedSAC 379 ms, SAC compiler 22 ms (one iteration)',
};

interface Row {
  name: string;
  ours: string;
  oursMs: number;
  refs: Partial<Record<Impl, { ms: number; agree: boolean; detail: string } | { skipped: string }>>;
  note?: string;
}

const rows: Row[] = [];
const available = new Set<Impl>(IMPLS);
for (const impl of await installReferences('bench/arrays', IMPLS)) available.delete(impl);

function timeRuns(n: number, setup: () => void, once: () => void): number[] {
  const times: number[] = [];
  // One warm-up run: the first call faults in memory and starts the thread pool.
  setup();
  once();
  for (let i = 0; i < n; i++) {
    setup();
    const t = performance.now();
    once();
    times.push(performance.now() - t);
  }
  return times;
}


async function reference<T>(row: Row, run: (impl: Impl) => Promise<{ medianMs: number; output: T }>, compare: (out: T) => { agree: boolean; detail: string }): Promise<void> {
  for (const impl of IMPLS) {
    if (!available.has(impl)) {
      row.refs[impl] = { skipped: 'not installed' };
      continue;
    }
    try {
      const r = await run(impl);
      row.refs[impl] = { ms: r.medianMs, ...compare(r.output) };
    } catch (e) {
      row.refs[impl] = { skipped: (e as Error).message };
    }
  }
  rows.push(row);
  console.error(`bench/arrays: ${row.name}: ours ${row.oursMs.toFixed(2)} ms; ${IMPLS.map((i) => { const r = row.refs[i]; return r && 'ms' in r ? `${i} ${r.ms.toFixed(2)} ms${r.agree ? '' : ' (DIFFERS)'}` : `${i} skipped`; }).join(', ')}`);
}

async function life(): Promise<void> {
  for (const [size, steps, schedule] of [[10, 1000, 'seq'], [4096 / scale, 100, 'opt']] as const) {
    const runner = await compileLife(schedule);
    const random = xorshift32(size);
    const board = new Uint8Array(size * size).map(() => (random() < 0.3 ? 1 : 0));
    // As in the C reference, each run starts from a copy of the board made outside the timing.
    const [a, b] = [new Uint8Array(board.length), new Uint8Array(board.length)];
    let out: Uint8Array = board;
    const times = timeRuns(runs, () => a.set(board), () => (out = runner.stepInPlace(a, b, size, size, steps)));
    const row: Row = { name: `life ${size}×${size} × ${steps}`, ours: `libs/arrays ${schedule}`, oursMs: median(times), refs: {} };
    await reference(row, (impl) => runReference('life', impl, { board, width: size, height: size, steps }, runs), (ref) => {
      const same = ref.length === out.length && ref.every((v, i) => v === out[i]);
      return { agree: same, detail: same ? 'identical' : 'boards differ' };
    });
  }
}

async function pde1(): Promise<void> {
  const runner = await compilePde1('opt');
  for (const n of new Set([64, 256 / scale])) {
    const random = xorshift32(n);
    const u = new Float64Array(n ** 3).map(() => random());
    const f = new Float64Array(n ** 3).map(() => random() - 0.5);
    const iterations = 1;
    // As in the C reference, each run relaxes a copy of u in place, the copy made outside the
    // timing: a fresh result array per run would time its allocation and page faults (at 64³
    // twenty times the relaxation itself) and the copy of u into it.
    const out = new Float64Array(u.length);
    const times = timeRuns(runs, () => out.set(u), () => runner.run(out, f, n, iterations, out));
    const row: Row = { name: `pde1-${n} × ${iterations}`, ours: 'libs/arrays opt', oursMs: median(times), refs: {} };
    await reference(row, (impl) => runReference('pde1', impl, { u, f, n, iterations }, runs), (ref) => {
      const d = relativeDifference(out, ref);
      return { agree: d <= 1e-9, detail: `${d.toExponential(1)} of the largest value` };
    });
  }
}

async function vcycle(): Promise<void> {
  const n = 4096 / scale;
  const ssteps = 2;
  const variants: MgVariant[] = [false, true].map((merge) => ({ levels: 2, schedule: 'vec', merge }));
  const compiled = await compileMultigrid(variants);
  const random = xorshift32(n);
  const rhs = new Float64Array(n * n).map(() => random() * 2 - 1);
  for (const v of variants) {
    const mg = compiled.get(variantName(v))!;
    const sol = new Float64Array(n * n);
    const times = timeRuns(runs, () => sol.fill(0), () => mg.firstLevel(sol, rhs, n, ssteps));
    const row: Row = {
      name: `vcycle first level ${n}² ${v.merge ? 'merged' : 'unmerged'}`,
      ours: `libs/multigrid vec${v.merge ? ', merged' : ''}`,
      oursMs: median(times),
      refs: {},
      note: 'smoothing 2, residual + restriction, interpolation, smoothing 2',
    };
    await reference(row, (impl) => runReference('vcycle', impl, { rhs, n, levels: 2, cycles: 1, ssteps, merge: v.merge, firstLevel: true }, runs), (ref) => {
      const d = relativeDifference(sol, ref.solution);
      return { agree: d <= 1e-9, detail: `${d.toExponential(1)} of the largest value` };
    });
  }
}

// A group whose library does not compile is left out with the reason; the others still run.
for (const [name, group] of [['life', life], ['pde1', pde1], ['vcycle', vcycle]] as const) {
  if (!only.has(name)) continue;
  try {
    await group();
  } catch (e) {
    console.error(`bench/arrays: ${name} left out: ${(e as Error).message.split('\n')[0]}`);
  }
}

// ------------------------------------------------------------ the table

const cell = (row: Row, impl: Impl): string => {
  const r = row.refs[impl];
  if (!r) return '–';
  if ('skipped' in r) return `skipped: ${r.skipped}`;
  return `${r.ms.toFixed(2)} ms (${(r.ms / row.oursMs).toPrecision(3)}×)${r.agree ? '' : ' DIFFERS'}`;
};
const header = ['benchmark', 'ours', 'ms (median)', 'C', 'NumPy', 'StagedSAC paper'];
const body = rows.map((r) => [r.name, r.ours, r.oursMs.toFixed(2), cell(r, 'c'), cell(r, 'numpy'), STAGED_SAC[r.name] ?? '']);
const merged = rows.find((r) => r.name.includes('merged') && !r.name.includes('unmerged'));
const unmerged = rows.find((r) => r.name.includes('unmerged'));
console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
for (const line of body) console.log(`| ${line.join(' | ')} |`);
console.log('\nRatios are reference / ours (above 1: ours is faster); medians of', runs, 'runs after one warm-up; outputs compared with ours.');
if (merged && unmerged) console.log(`V-cycle first level: merged ${(unmerged.oursMs / merged.oursMs).toFixed(2)}× the unmerged speed (GPCE'15 saw 1.11× on its CPU).`);
mkdirSync(path.dirname(cli.json!), { recursive: true });
writeFileSync(cli.json!, JSON.stringify({ runs, scale, rows }, null, 2));
console.log(`raw times: ${path.relative(process.cwd(), cli.json!)}`);
