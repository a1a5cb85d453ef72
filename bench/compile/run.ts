// Cold compile latency of the image kernels (issue 9 item 7: a first run of an app should
// compile its kernel in at most 2 s): each run starts a fresh process (bench/compile/cold.ts)
// with an empty artifact cache, as a user's first `blur -f gauss5` does, and times the stages
// of compile() (parse, sema, emit, each pass, LLVM text, clang) plus the process around them.
// The runtime object is built once beforehand and shared by every run: it is compiled once
// per machine, not per kernel. Prints per kernel the median of every stage over the runs, its
// share, and with --baseline the ratio to an earlier --json of this script (before/after a
// change); the load average is printed too, since a busy machine stretches every number.
//
//   npx tsx bench/compile/run.ts [--runs 3] [--kernel gauss5:opt[:clamp[:u8[:3]]]]... [--json FILE] [--baseline FILE]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../../libs/image/bench.ts';
import { benchArgs, benchFail } from '../shared/cli.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
/** The issue's goal for a cold compile of one kernel, in ms. */
const GOAL_MS = 2000;

const cli = benchArgs(import.meta.url, {
  runs: { type: 'string', default: '3' },
  kernel: { type: 'string', multiple: true, default: ['gauss5:opt', 'harris:opt', 'box3:opt'] },
  json: { type: 'string', default: path.join(root, 'out', 'bench', 'compile.json') },
  baseline: { type: 'string' },
});
const runs = Number(cli.runs);
if (!Number.isInteger(runs) || runs < 1) benchFail(import.meta.url, `--runs must be a positive integer, not '${cli.runs}'`);

interface ColdRun {
  /** ms from the process start until the compiler and the library were loaded. */
  startup: number;
  /** ms of the compile() call. */
  compile: number;
  stages: { stage: string; ms: number }[];
}

/** Per kernel: the runs' stage times summed per stage name (cleanup runs several times), and the process wall times. */
interface KernelResult {
  kernel: string;
  stages: Record<string, number[]>;
  startup: number[];
  compile: number[];
  wall: number[];
}

function kernelArgs(spec: string): string[] {
  const [pipeline, schedule = 'opt', boundary = 'clamp', type = 'u8', channels = '3', ...rest] = spec.split(':');
  if (!pipeline || rest.length) throw new Error(`--kernel takes pipeline[:schedule[:boundary[:type[:channels]]]], not '${spec}'`);
  return [pipeline, schedule, boundary, type, channels];
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'anydsl-bench-compile-'));
/** A cache holding only the runtime object, which every run links. */
const warm = path.join(scratch, 'warm');

function coldRun(args: string[], cache: string): { run: ColdRun; wall: number } {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, 'cold.ts'), ...args], {
    cwd: root,
    env: { ...process.env, ANYDSL_CACHE: cache },
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`cold compile of ${args.join(':')} failed:\n${child.stderr}`);
  return { run: JSON.parse(child.stdout.trim().split('\n').pop()!) as ColdRun, wall };
}

const load = [os.loadavg()[0]!];
const results: KernelResult[] = [];
try {
  for (const spec of cli.kernel) {
    const args = kernelArgs(spec);
    // The first compile builds the runtime into the warm cache (and is not counted).
    if (!existsSync(path.join(warm, 'runtime'))) coldRun(args, warm);
    const result: KernelResult = { kernel: args.join(':'), stages: {}, startup: [], compile: [], wall: [] };
    for (let i = 0; i < runs; i++) {
      const cache = path.join(scratch, `run-${results.length}-${i}`);
      mkdirSync(cache);
      symlinkSync(path.join(warm, 'runtime'), path.join(cache, 'runtime'));
      const { run, wall } = coldRun(args, cache);
      const sums = new Map<string, number>();
      for (const s of run.stages) sums.set(s.stage, (sums.get(s.stage) ?? 0) + s.ms);
      for (const [stage, ms] of sums) (result.stages[stage] ??= []).push(ms);
      result.startup.push(run.startup);
      result.compile.push(run.compile);
      result.wall.push(wall);
      rmSync(cache, { recursive: true, force: true });
      process.stderr.write(`${result.kernel}: run ${i + 1}/${runs} ${wall.toFixed(0)} ms\n`);
    }
    results.push(result);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
load.push(os.loadavg()[0]!);

const baseline = cli.baseline ? (JSON.parse(readFileSync(cli.baseline, 'utf8')) as { results: KernelResult[] }).results : [];

function table(r: KernelResult): string {
  const before = baseline.find((b) => b.kernel === r.kernel);
  const rows: [string, number, number | undefined][] = [];
  const med = (xs: number[] | undefined) => (xs && xs.length ? median(xs) : undefined);
  for (const [stage, xs] of Object.entries(r.stages)) rows.push([stage, median(xs), med(before?.stages[stage])]);
  const stageTotal = rows.reduce((s, [, ms]) => s + ms, 0);
  const width = Math.max(32, ...rows.map(([s]) => s.length + 2));
  const ratio = (now: number, then: number | undefined) => (then ? `${(now / then).toFixed(2)}×` : '');
  const line = (name: string, ms: number, share: string, then: number | undefined) =>
    `  ${name.padEnd(width)} ${ms.toFixed(0).padStart(7)} ${share.padStart(6)}${before ? ` ${then === undefined ? '' : then.toFixed(0).padStart(9)} ${ratio(ms, then).padStart(7)}` : ''}`;
  const out = [`${r.kernel} (median of ${r.wall.length} cold runs)`, `  ${'stage'.padEnd(width)} ${'ms'.padStart(7)} ${'share'.padStart(6)}${before ? ` ${'baseline'.padStart(9)} ${'ratio'.padStart(7)}` : ''}`];
  for (const [stage, ms, then] of rows) out.push(line(`  ${stage}`, ms, `${((100 * ms) / stageTotal).toFixed(1)}%`, then));
  out.push(line('node start and imports', median(r.startup), '', med(before?.startup)));
  out.push(line('compile() call', median(r.compile), '', med(before?.compile)));
  out.push(line('process, start to exit', median(r.wall), '', med(before?.wall)));
  out.push(`  the goal is ${GOAL_MS} ms: the process took ${(median(r.wall) / GOAL_MS).toFixed(2)}× that`);
  return out.join('\n');
}

console.log(`cold compile of image kernels at -O3, ${os.cpus().length} cores, load average ${load[0]!.toFixed(1)} before and ${load[1]!.toFixed(1)} after${cli.baseline ? `, against ${cli.baseline}` : ''}\n`);
console.log(results.map(table).join('\n\n'));
mkdirSync(path.dirname(cli.json), { recursive: true });
writeFileSync(cli.json, `${JSON.stringify({ date: new Date().toISOString(), load, results }, null, 2)}\n`);
console.log(`\nraw times: ${path.relative(root, cli.json)}`);
