// Issue 14's array benchmarks on this machine: Game of Life (the StagedSAC paper's 10 × 10 ×
// 1000 steps, and 4096² × 100 steps), PDE1-64 and PDE1-256 (libs/arrays), and the first level
// of the V-cycle at 4096² with and without residual and restriction merged (libs/multigrid,
// the GPCE'15 Figure 9 measurement; also on a CUDA GPU under `gpu` and `gpu_shared`, kernel
// time), against hand-written C (clang-19 -O3 -march=native,
// OpenMP on every core) and NumPy on the same inputs. Outputs are compared (Life exactly,
// PDE1 and the V-cycle to 1e-9 of the largest value), times are medians of --runs runs, and
// one table is printed with the ratios and, for context, the StagedSAC paper's numbers; raw
// times go to out/bench/arrays.json (or --json FILE).
//
//   npx tsx bench/arrays/run.ts [--runs 5] [--scale 1] [--only life,pde1,vcycle,vcycle-gpu] [--json FILE]
//
//   --runs N      timed runs per side after one warm-up (default 5)
//   --scale S     divide the large sizes (4096 and 256) by 1, 2, 4, 8 or 16 for a quick check:
//                 --scale 16 runs Life on 256², PDE1-16 and the V-cycle on 256²
//   --only LIST   the groups to run, comma-separated: life, pde1, vcycle, vcycle-gpu (default
//                 all four; vcycle-gpu, the first level on a CUDA GPU, is one line without one)
//   --json FILE   where the raw times go (default out/bench/arrays.json)
//
// The references' Debian packages (libomp-19-dev, python3-numpy) are installed with apt-get
// when running as root; a reference that cannot run is skipped with the reason, never
// replaced by a number.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileLife, compilePde1 } from '../../libs/arrays/host.ts';
import { median } from '../../libs/image/bench.ts';
import { compileMultigrid, type MgVariant, variantName } from '../../libs/multigrid/host.ts';
import { pickGpuDevice } from '../../libs/shared/device.ts';
import { xorshift32 } from '../../libs/shared/random.ts';
import { benchArgs, benchFail, runBench } from '../shared/cli.ts';
import { type Impl, IMPLS, installReferences, relativeDifference, runReference } from './references.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

const GROUPS = ['life', 'pde1', 'vcycle', 'vcycle-gpu'] as const;
const cli = benchArgs(import.meta.url, {
  runs: { type: 'string', default: '5' },
  scale: { type: 'string', default: '1' },
  only: { type: 'string', default: GROUPS.join(',') },
  json: { type: 'string', default: path.join(root, 'out', 'bench', 'arrays.json') },
});
const runs = Number(cli.runs);
const scale = Number(cli.scale);
if (!/^[0-9]+$/.test(cli.runs) || runs < 1) benchFail(import.meta.url, `--runs must be a positive integer, not '${cli.runs}'`);
if (!/^[0-9]+$/.test(cli.scale) || ![1, 2, 4, 8, 16].includes(scale)) benchFail(import.meta.url, `--scale must be 1, 2, 4, 8 or 16, not '${cli.scale}'`);
const only = new Set(cli.only.split(','));
for (const g of only) {
  if (!(GROUPS as readonly string[]).includes(g)) benchFail(import.meta.url, `--only: unknown group '${g}' (one of ${GROUPS.join(', ')})`);
}

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
// The references that can run here (main removes those whose packages are missing).
const available = new Set<Impl>(IMPLS);

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
  const rhs = vcycleRhs(n);
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

/** The V-cycle rows' right-hand side: values in [−1, 1) seeded by the size. */
function vcycleRhs(n: number): Float64Array {
  const random = xorshift32(n);
  return new Float64Array(n * n).map(() => random() * 2 - 1);
}

// The V-cycle's first level on a CUDA GPU (PoCL's OpenCL on this CPU is no benchmark
// target, so without CUDA the group is one line saying why): `gpu` unmerged and merged and
// `gpu_shared` merged, timed as the device time of their kernels (the runtime's event
// timers), the copies of the problem in and out apart; outputs compared with the references.
async function vcycleGpu(): Promise<void> {
  const cuda = await pickGpuDevice('cuda').catch((e: Error) => e);
  if (cuda instanceof Error) {
    console.error(`bench/arrays: vcycle-gpu left out: ${cuda.message}`);
    return;
  }
  const n = 4096 / scale;
  const ssteps = 2;
  const variants: MgVariant[] = [
    { levels: 2, schedule: 'gpu', merge: false, device: cuda.device },
    { levels: 2, schedule: 'gpu', merge: true, device: cuda.device },
    { levels: 2, schedule: 'gpu_shared', merge: true, device: cuda.device },
  ];
  const compiled = await compileMultigrid(variants);
  const rhs = vcycleRhs(n);
  for (const v of variants) {
    const mg = compiled.get(variantName(v))!;
    const sol = new Float64Array(n * n);
    const kernelMs: number[] = [];
    const copyMs: number[] = [];
    timeRuns(runs, () => sol.fill(0), () => {
      const [kernels, copies] = [mg.gpu!.kernelMicros(), mg.gpu!.copyMicros()];
      mg.firstLevel(sol, rhs, n, ssteps);
      kernelMs.push((mg.gpu!.kernelMicros() - kernels) / 1000);
      copyMs.push((mg.gpu!.copyMicros() - copies) / 1000);
    });
    // The first run is the warm-up.
    const row: Row = {
      name: `vcycle first level ${n}² GPU ${v.schedule} ${v.merge ? 'merged' : 'unmerged'}`,
      ours: `libs/multigrid ${v.schedule}${v.merge ? ', merged' : ''}: kernels on ${cuda.name} (copies in and out ${median(copyMs.slice(1)).toFixed(2)} ms more)`,
      oursMs: median(kernelMs.slice(1)),
      refs: {},
    };
    await reference(row, (impl) => runReference('vcycle', impl, { rhs, n, levels: 2, cycles: 1, ssteps, merge: v.merge, firstLevel: true }, runs), (ref) => {
      const d = relativeDifference(sol, ref.solution);
      return { agree: d <= 1e-9, detail: `${d.toExponential(1)} of the largest value` };
    });
  }
}

async function main(): Promise<number> {
  for (const impl of await installReferences('bench/arrays', IMPLS)) available.delete(impl);
  // A group whose library does not compile is left out with the reason; the others still run.
  for (const [name, group] of [['life', life], ['pde1', pde1], ['vcycle', vcycle], ['vcycle-gpu', vcycleGpu]] as const) {
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
  const cpuRows = rows.filter((r) => !r.name.includes(' GPU '));
  const merged = cpuRows.find((r) => r.name.includes('merged') && !r.name.includes('unmerged'));
  const unmerged = cpuRows.find((r) => r.name.includes('unmerged'));
  const gpuRow = (name: string) => rows.find((r) => r.name.includes(` GPU ${name}`));
  const [gpuUnmerged, gpuMerged, sharedMerged] = [gpuRow('gpu unmerged'), gpuRow('gpu merged'), gpuRow('gpu_shared merged')];
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const line of body) console.log(`| ${line.join(' | ')} |`);
  console.log('\nRatios are reference / ours (above 1: ours is faster); medians of', runs, 'runs after one warm-up; outputs compared with ours.');
  if (merged && unmerged) console.log(`V-cycle first level: merged ${(unmerged.oursMs / merged.oursMs).toFixed(2)}× the unmerged speed (GPCE'15 saw 1.11× on its CPU).`);
  if (gpuUnmerged && gpuMerged && sharedMerged) {
    console.log(`V-cycle first level on the GPU (kernel time): gpu merged ${(gpuUnmerged.oursMs / gpuMerged.oursMs).toFixed(2)}×, gpu_shared merged ${(gpuUnmerged.oursMs / sharedMerged.oursMs).toFixed(2)}× the unmerged speed (GPCE'15 saw up to 1.20× on its GPUs).`);
  }
  mkdirSync(path.dirname(cli.json), { recursive: true });
  writeFileSync(cli.json, JSON.stringify({ runs, scale, rows }, null, 2));
  console.log(`raw times: ${path.relative(process.cwd(), cli.json)}`);
  return 0;
}

await runBench(import.meta.url, main);
