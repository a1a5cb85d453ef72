// `vcycle`: solves the 2-D Poisson equation −Δu = f on the unit square (zero at the walls)
// with the V-cycle multigrid of libs/multigrid, printing the residual norm after every cycle;
// --bench times the cycles and the finest level alone, --compare runs the hand-written C or
// NumPy reference of bench/arrays on the same problem and compares solutions and speed.
// Under the GPU schedules the cycles run on the device ANYDSL_DEVICE picks (as the image
// apps do), the problem copied there and the solution back once per call.
import os from 'node:os';
import { Command, Option } from 'commander';
import { IMPL_TITLES, IMPLS, type Impl, relativeDifference, runReference } from '../../../bench/arrays/references.ts';
import { median } from '../../../libs/image/bench.ts';
import { compileVariant, MAX_LEVELS, maxLevels, MG_GPU_SCHEDULES, MG_SCHEDULE_DESCRIPTIONS, MG_SCHEDULES, type MgScheduleName, type MgVariant, type Multigrid, sizeProblem } from '../../../libs/multigrid/host.ts';
import { pickGpuDevice } from '../../../libs/shared/device.ts';
import { during, integerFrom, runCommand } from '../../shared/cli.ts';

const MAX_BENCH_RUNS = 10_000;
/** Timed runs for --compare without --bench. */
const COMPARE_RUNS = 3;
/** The solutions of the reference and ours agree to this, relative to the largest value. */
const AGREEMENT = 1e-9;

interface Options {
  size: number;
  levels?: number;
  cycles: number;
  smooth: number;
  schedule: MgScheduleName;
  merge: boolean;
  bench?: number;
  compare?: Impl;
}

/** f = 2π² sin(πx) sin(πy) at the cell centres, whose solution is u = sin(πx) sin(πy). */
function problem(n: number): { f: Float64Array; exact: Float64Array } {
  const f = new Float64Array(n * n);
  const exact = new Float64Array(n * n);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const u = Math.sin((Math.PI * (x + 0.5)) / n) * Math.sin((Math.PI * (y + 0.5)) / n);
      exact[y * n + x] = u;
      f[y * n + x] = 2 * Math.PI * Math.PI * u;
    }
  }
  return { f, exact };
}

function time(once: () => void): number {
  const t = performance.now();
  once();
  return performance.now() - t;
}

/** Milliseconds of each run of `once`, and for a GPU variant those of its kernels and of its copies to and from the device. */
function timeRuns(mg: Multigrid, runs: number, once: () => void): { ms: number[]; kernelMs: number[]; copyMs: number[] } {
  const out = { ms: [] as number[], kernelMs: [] as number[], copyMs: [] as number[] };
  for (let i = 0; i < runs; i++) {
    const [kernels, copies] = [mg.gpu?.kernelMicros() ?? 0, mg.gpu?.copyMicros() ?? 0];
    out.ms.push(time(once));
    out.kernelMs.push(((mg.gpu?.kernelMicros() ?? 0) - kernels) / 1000);
    out.copyMs.push(((mg.gpu?.copyMicros() ?? 0) - copies) / 1000);
  }
  return out;
}

/** ` (kernels x ms, copies y ms)` for a GPU variant's runs, else nothing. */
function deviceShare(mg: Multigrid, t: { kernelMs: number[]; copyMs: number[] }): string {
  return mg.gpu ? ` (kernels ${median(t.kernelMs).toFixed(2)} ms, copies in and out ${median(t.copyMs).toFixed(2)} ms)` : '';
}

export async function main(argv: string[]): Promise<number> {
  const schedules = MG_SCHEDULES.map((s) => `  ${s.padEnd(11)} ${MG_SCHEDULE_DESCRIPTIONS[s]}`).join('\n');
  const program = new Command('vcycle')
    .description('Solve −Δu = f on the unit square (u = 0 at the walls) with V-cycle multigrid (GPCE\'15, Fig. 7) and print the residual norm per cycle.\n' +
      'The grid is cell-centred, size × size; f = 2π² sin(πx) sin(πy), so the solution is sin(πx) sin(πy) up to the discretisation error.')
    .option('--size <n>', 'cells per side of the finest grid (divisible by 2^(levels − 1))', integerFrom(1, 32768), 1024)
    .option('--levels <n>', `grids in the V-cycle, the finest included (default: halving until odd, at most ${MAX_LEVELS}); the coarsest is solved by --smooth sweeps only, so a coarsest grid of more than a few cells slows convergence`, integerFrom(1, MAX_LEVELS))
    .option('--cycles <n>', 'V-cycles to run', integerFrom(1, 1000), 10)
    .option('--smooth <n>', 'Jacobi sweeps before and after each coarse-grid correction', integerFrom(0, 100), 2)
    .addOption(new Option('-s, --schedule <name>', 'loop schedule').choices(MG_SCHEDULES).default('vec'))
    .option('--no-merge', 'compute the residual for the whole grid before restricting it (default: two fine rows of residual at a time, restricted at once: GPCE\'15 Fig. 8; on a GPU, one launch that keeps no residual field)')
    .option('--bench <runs>', `time N more V-cycles and N runs of the finest level alone, and print the medians (at most ${MAX_BENCH_RUNS})`, integerFrom(1, MAX_BENCH_RUNS))
    .addOption(new Option('--compare <impl>', `also solve with a reference (c: ${IMPL_TITLES.c}; numpy: ${IMPL_TITLES.numpy}) from the same start, check that the solutions agree to ${AGREEMENT} and print the speed ratio (medians of --bench or ${COMPARE_RUNS} runs of all the cycles)`).choices(IMPLS))
    .addHelpText('after', [
      '',
      `Schedules:\n${schedules}`,
      '',
      'Examples:',
      '  vcycle --size 4096                             # 13 levels, down to one cell: the residual falls by about 0.19 per cycle',
      '  vcycle --size 4096 --levels 5                  # coarsest 256×256, which 2 sweeps do not solve: the residual barely falls',
      '  vcycle --size 1024 --cycles 8 --schedule seq --no-merge',
      '  vcycle --size 4096 --bench 10                 # median time of a V-cycle and of the finest level',
      '  vcycle --size 2048 --compare c                 # same solution as the hand-written C? and the speed ratio',
      '  vcycle --size 4096 --schedule gpu --bench 10   # on a GPU: ANYDSL_DEVICE=auto|cuda|opencl[:n] picks, --bench adds kernel and copy time',
      '',
    ].join('\n'))
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  return runCommand('vcycle', program, argv, async () => {
    const opts = program.opts<Options>();
    const n = opts.size;
    const levels = opts.levels ?? maxLevels(n);
    const problemText = sizeProblem(n, levels);
    if (problemText) throw new Error(problemText);
    // sol, rhs and the exact solution, and the workspace: two more finest grids and four of each coarser level.
    const bytes = 8 * n * n * (5 + 4 / 3);
    if (bytes > os.totalmem() * 0.8) throw new Error(`a ${n}×${n} problem needs ${(bytes / 2 ** 30).toFixed(1)} GiB of memory, more than this machine has (${(os.totalmem() / 2 ** 30).toFixed(1)} GiB)`);
    // The device before the compile: without one, the line saying what to install comes at once.
    const gpu = MG_GPU_SCHEDULES.includes(opts.schedule) ? await pickGpuDevice() : undefined;
    const variant: MgVariant = { levels, schedule: opts.schedule, merge: opts.merge, ...(gpu ? { device: gpu.device } : {}) };
    const mg = await during(`compiling the V-cycle (${levels} levels, ${opts.schedule}${opts.merge ? ', merged' : ''})`, () => compileVariant(variant));
    if (gpu) console.log(`device: ${gpu.name}`);
    const { f, exact } = problem(n);
    const u = new Float64Array(n * n);
    console.log(`${n}×${n} cells, ${levels} levels (coarsest ${n >> (levels - 1)}×${n >> (levels - 1)}), ${opts.smooth}+${opts.smooth} Jacobi sweeps, schedule ${opts.schedule}, residual and restriction ${opts.merge ? 'merged' : 'apart'}`);
    const coarsest = n >> (levels - 1);
    if (coarsest > 4) {
      process.stderr.write(`vcycle: note: the coarsest grid (${coarsest}×${coarsest}) gets only ${opts.smooth} sweeps, which leave its smooth error in place, so the residual falls slowly; ${maxLevels(n)} levels (the default) go down to ${n >> (maxLevels(n) - 1)}×${n >> (maxLevels(n) - 1)}\n`);
    }
    let norm = mg.residualNorm(u, f, n);
    const norms = [norm];
    console.log(`cycle  0: residual ${norm.toExponential(4)}`);
    for (let c = 1; c <= opts.cycles; c++) {
      mg.vcycle(u, f, n, 1, opts.smooth);
      const next = mg.residualNorm(u, f, n);
      console.log(`cycle ${String(c).padStart(2)}: residual ${next.toExponential(4)}  (×${(next / norm).toFixed(3)})`);
      norms.push(next);
      norm = next;
    }
    let error = 0;
    for (let i = 0; i < n * n; i++) error = Math.max(error, Math.abs(u[i]! - exact[i]!));
    console.log(`max |u − sin(πx) sin(πy)| = ${error.toExponential(3)} (the discretisation error is O(h²), h = 1/${n})`);

    if (opts.bench) {
      const scratch = u.slice();
      const cycles = timeRuns(mg, opts.bench, () => mg.vcycle(scratch, f, n, 1, opts.smooth));
      const first = timeRuns(mg, opts.bench, () => mg.firstLevel(scratch, f, n, opts.smooth));
      console.log(`V-cycle: median ${median(cycles.ms).toFixed(2)} ms${deviceShare(mg, cycles)} over ${opts.bench} runs; finest level alone (smoothing, residual and restriction, interpolation, smoothing): median ${median(first.ms).toFixed(2)} ms${deviceShare(mg, first)}`);
    }

    if (opts.compare) {
      const runs = opts.bench ?? COMPARE_RUNS;
      const ours: number[] = [];
      const fresh = new Float64Array(n * n);
      for (let i = 0; i < runs; i++) {
        fresh.fill(0);
        ours.push(time(() => mg.vcycle(fresh, f, n, opts.cycles, opts.smooth)));
      }
      const title = IMPL_TITLES[opts.compare];
      const ref = await during(`running the ${title} reference`, () =>
        runReference('vcycle', opts.compare!, { rhs: f, n, levels, cycles: opts.cycles, ssteps: opts.smooth, merge: opts.merge }, runs));
      const diff = relativeDifference(u, ref.output.solution);
      const normDiff = Math.max(...norms.map((v, i) => Math.abs(v - ref.output.norms[i]!) / Math.max(Math.abs(ref.output.norms[i]!), Number.MIN_VALUE)));
      const agree = diff <= AGREEMENT && normDiff <= AGREEMENT;
      console.log(`${title}: solutions ${agree ? 'agree' : 'DIFFER'}: largest difference ${diff.toExponential(2)} of the largest value, residual norms within ${normDiff.toExponential(2)}`);
      const oursMs = median(ours);
      console.log(`speed (${opts.cycles} cycles): ours ${oursMs.toFixed(2)} ms, ${title} ${ref.medianMs.toFixed(2)} ms (medians of ${runs} runs): ratio ${(ref.medianMs / oursMs).toFixed(2)}× (reference / ours; above 1 ours is faster)`);
      if (!agree) throw new Error(`the solution differs from the ${title} reference`);
    }
  });
}
