// `pde1`: the PDE1 benchmark of SAC, HPF and the StagedSAC paper with libs/arrays: red-black
// relaxation of the 3-D Poisson equation −Δu = f on the unit cube, n points per axis, the
// boundary fixed (libs/arrays/README.md gives the exact update).
import { Command, Option } from 'commander';
import { type Impl, IMPL_TITLES, IMPLS, runReference } from '../../../bench/arrays/references.ts';
import { ARRAY_SCHEDULE_DESCRIPTIONS, ARRAY_SCHEDULES, type ArraySchedule, compilePde1 } from '../../../libs/arrays/host.ts';
import { median, timeEach } from '../../../libs/image/bench.ts';
import { during, integerFrom, runCommand } from '../../shared/cli.ts';

/** Grids up to 1024³ points (the library indexes with 32-bit integers). */
const MAX_SIZE = 1024;

/**
 * The problem the command solves: f = 3π² sin(πx) sin(πy) sin(πz), whose solution with a
 * zero boundary is u = sin(πx) sin(πy) sin(πz); the start is u = 0.
 */
export function pde1Problem(n: number): { u: Float64Array; f: Float64Array; exact: Float64Array } {
  const h = 1 / (n - 1);
  const u = new Float64Array(n ** 3);
  const f = new Float64Array(n ** 3);
  const exact = new Float64Array(n ** 3);
  const s = Array.from({ length: n }, (_, i) => Math.sin(Math.PI * i * h));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < n; k++) {
        const v = s[i]! * s[j]! * s[k]!;
        exact[(i * n + j) * n + k] = v;
        f[(i * n + j) * n + k] = 3 * Math.PI ** 2 * v;
      }
    }
  }
  return { u, f, exact };
}

/** The largest |−Δ_h u − f| over the interior: how far u is from solving the discrete equation. */
export function residualNorm(u: Float64Array, f: Float64Array, n: number): number {
  const h2 = (1 / (n - 1)) ** 2;
  const p = (i: number, j: number, k: number) => (i * n + j) * n + k;
  let worst = 0;
  for (let i = 1; i < n - 1; i++) {
    for (let j = 1; j < n - 1; j++) {
      for (let k = 1; k < n - 1; k++) {
        const around = u[p(i - 1, j, k)]! + u[p(i + 1, j, k)]! + u[p(i, j - 1, k)]! + u[p(i, j + 1, k)]! + u[p(i, j, k - 1)]! + u[p(i, j, k + 1)]!;
        worst = Math.max(worst, Math.abs((6 * u[p(i, j, k)]! - around) / h2 - f[p(i, j, k)]!));
      }
    }
  }
  return worst;
}

function maxDifference(a: Float64Array, b: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command('pde1')
    .description('Relax the 3-D Poisson equation −Δu = f on an n³ grid by red-black iterations (the PDE1 benchmark) with the Impala array library.')
    .option('-n, --size <n>', 'points per axis, boundary included', integerFrom(3, MAX_SIZE), 64)
    .option('-i, --iterations <k>', 'red-black iterations (a red sweep and a black sweep each)', integerFrom(0, 1_000_000), 10)
    .addOption(
      new Option('-s, --schedule <name>', Object.entries(ARRAY_SCHEDULE_DESCRIPTIONS).map(([k, v]) => `${k}: ${v}`).join('; '))
        .choices(ARRAY_SCHEDULES)
        .default('opt'),
    )
    .option('--bench <runs>', 'run all the iterations this many times more and print the median time', integerFrom(1, 100_000))
    .addOption(new Option('--compare <impl>', `run the reference too, check the grids agree and print the speed ratio (${IMPLS.map((i) => `${i}: ${IMPL_TITLES[i]}`).join('; ')})`).choices(IMPLS))
    .addHelpText(
      'after',
      [
        '',
        'The right-hand side is f = 3π² sin(πx) sin(πy) sin(πz) with a zero boundary (exact solution sin(πx) sin(πy) sin(πz)), starting from u = 0.',
        'Prints the residual max |−Δ_h u − f| before and after, and the largest error against the exact solution.',
        '',
        'Examples:',
        '  pde1 --size 64 --iterations 10',
        '  pde1 --size 64 --iterations 1 --bench 20 --compare c   # the StagedSAC paper\'s PDE1-64 row against hand-written C',
        '  pde1 --size 256 --iterations 10 --schedule seq --bench 3',
        '',
      ].join('\n'),
    )
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  return runCommand('pde1', program, argv, async () => {
    const opts = program.opts<{ size: number; iterations: number; schedule: ArraySchedule; bench?: number; compare?: Impl }>();
    if (program.args.length > 0) throw new Error(`unexpected argument '${program.args[0]}' (pde1 takes options only; see --help)`);
    const n = opts.size;
    const { u, f, exact } = pde1Problem(n);
    const runner = await during(`compiling pde1 (${opts.schedule})`, () => compilePde1(opts.schedule));
    const result = runner.run(u, f, n, opts.iterations);
    // Timed runs reuse one result array: fresh memory would add its page faults to the time.
    const scratch = new Float64Array(u.length);
    const run = () => runner.run(u, f, n, opts.iterations, scratch);
    console.log(`pde1: ${opts.iterations} red-black iteration${opts.iterations === 1 ? '' : 's'} on ${n}³ (${opts.schedule})`);
    console.log(`residual max |−Δu − f|: ${residualNorm(u, f, n).toExponential(4)} before, ${residualNorm(result, f, n).toExponential(4)} after`);
    console.log(`largest error against the exact solution: ${maxDifference(result, exact).toExponential(4)}`);
    const runs = opts.bench ?? (opts.compare ? 5 : 0);
    const ours = runs ? median(await during(`timing ${runs} runs`, () => timeEach(runs, run))) : undefined;
    if (ours !== undefined) {
      const perIteration = opts.iterations ? `, ${(ours / opts.iterations).toFixed(3)} ms per iteration` : '';
      console.log(`median of ${runs}: ${ours.toFixed(3)} ms${perIteration}`);
    }
    if (opts.compare) {
      const ref = await during(`running the ${opts.compare} reference`, () => runReference('pde1', opts.compare!, { u, f, n, iterations: opts.iterations }, runs));
      const diff = maxDifference(result, ref.output);
      if (!(diff <= 1e-9)) throw new Error(`the ${IMPL_TITLES[opts.compare]} grid differs by up to ${diff}`);
      console.log(`${IMPL_TITLES[opts.compare]}: same grid (largest difference ${diff.toExponential(2)}); median ${ref.medianMs.toFixed(3)} ms; libs/arrays ${opts.schedule} is ${(ref.medianMs / ours!).toFixed(2)}× its speed`);
    }
  });
}
