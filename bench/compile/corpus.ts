// Compile time of the positive conformance corpus, this checkout against another one
// (issue 13's acceptance: "compile time of the corpus does not grow by more than 10%").
// Each round runs one child process per compiler, alternating, and each child compiles
// every program from source to LLVM text (parse, sema, emit, the passes, the backend; no
// clang) one after the other, measuring the CPU time of its own process per program
// (process.cpuUsage), so that other work on the machine matters less than with wall time.
// Both compilers get the same program files (--corpus, by default the other checkout's
// tests/conformance/pos: the programs that existed there). Prints per compiler the sum over
// the programs of each one's median over the rounds (the ratio of these is the figure), the
// median, min and max of the round totals, and the programs whose ratio is furthest from 1.
//
//   git worktree add --detach /tmp/base <rev>; ln -s "$PWD/node_modules" /tmp/base/node_modules
//   npx tsx bench/compile/corpus.ts --base /tmp/base [--rounds 3] [--corpus DIR] [--limit N]
//
//   --base DIR    another checkout of this repository (git worktree add --detach DIR <rev>,
//                 with node_modules linked)
//   --rounds N    rounds; each runs both compilers once, alternating (default 3)
//   --corpus DIR  the .impala programs both compile (default: DIR/tests/conformance/pos of --base)
//   --limit N     only the first N programs (a quick check of the script)
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from '../../libs/image/bench.ts';
import { benchArgs, benchFail, runBench } from '../shared/cli.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

const cli = benchArgs(import.meta.url, {
  base: { type: 'string' },
  rounds: { type: 'string', default: '3' },
  corpus: { type: 'string' },
  limit: { type: 'string' },
  // Internal: a child compiling the corpus with the compiler of checkout `--worker`.
  worker: { type: 'string' },
});

/** The CPU time (user + system, ms) of compiling each program, in corpus order. */
type WorkerResult = { program: string; ms: number; ok: boolean }[];

function programsIn(dir: string, limit: number): string[] {
  const names = readdirSync(dir).filter((f) => f.endsWith('.impala')).sort();
  return names.slice(0, limit).map((f) => path.join(dir, f));
}

async function worker(checkout: string, files: string[]): Promise<void> {
  const pipeline = await import(pathToFileURL(path.join(checkout, 'compiler', 'src', 'driver', 'pipeline.ts')).href);
  const compile = (file: string): boolean => {
    const r = pipeline.compileToLLVM([{ path: file, text: readFileSync(file, 'utf8') }], { optLevel: 1 });
    return r.ok as boolean;
  };
  // The first compile also loads and JIT-compiles the compiler: not counted.
  compile(files[0]!);
  const out: WorkerResult = files.map((file) => {
    const before = process.cpuUsage();
    const ok = compile(file);
    const used = process.cpuUsage(before);
    return { program: path.basename(file, '.impala'), ms: (used.user + used.system) / 1000, ok };
  });
  process.stdout.write(JSON.stringify(out));
}

function runWorker(checkout: string, corpus: string, limit: number): WorkerResult {
  const script = fileURLToPath(import.meta.url);
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', script, '--worker', checkout, '--corpus', corpus, '--limit', String(limit)],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  if (r.status !== 0) throw new Error(`the compile of ${checkout} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout) as WorkerResult;
}

async function main(): Promise<number> {
  const limit = cli.limit === undefined ? Infinity : Number(cli.limit);
  if (!(limit >= 1)) benchFail(import.meta.url, `--limit must be a positive number, not '${cli.limit}'`);
  if (cli.worker) {
    await worker(path.resolve(cli.worker), programsIn(cli.corpus!, limit));
    return 0;
  }
  if (!cli.base) benchFail(import.meta.url, '--base DIR is required: another checkout to compare with (see --help)');
  const base = path.resolve(cli.base);
  const corpus = path.resolve(cli.corpus ?? path.join(base, 'tests', 'conformance', 'pos'));
  const rounds = Number(cli.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) benchFail(import.meta.url, `--rounds must be a positive integer, not '${cli.rounds}'`);
  const count = programsIn(corpus, limit).length;
  if (count === 0) benchFail(import.meta.url, `no .impala programs in ${corpus}`);
  process.stdout.write(`${count} programs from ${corpus}, ${rounds} rounds, load average ${os.loadavg()[0]!.toFixed(1)}\n`);

  const sides = [
    { name: 'base', checkout: base, runs: [] as WorkerResult[] },
    { name: 'this', checkout: root, runs: [] as WorkerResult[] },
  ];
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so a change in the machine's load hits both alike.
    for (const side of r % 2 ? [...sides].reverse() : sides) {
      side.runs.push(runWorker(side.checkout, corpus, limit));
      const total = side.runs[side.runs.length - 1]!.reduce((s, p) => s + p.ms, 0);
      process.stdout.write(`  round ${r + 1} ${side.name}: ${(total / 1000).toFixed(2)} s CPU\n`);
    }
  }

  const [b, t] = sides.map((s) => s.runs.map((run) => run.reduce((sum, p) => sum + p.ms, 0)));
  const failed = sides.flatMap((s) => s.runs[0]!.filter((p) => !p.ok).map((p) => `${s.name}: ${p.program}`));
  const perProgram = sides[0]!.runs[0]!.map((p, i) => {
    const bm = median(sides[0]!.runs.map((run) => run[i]!.ms));
    const tm = median(sides[1]!.runs.map((run) => run[i]!.ms));
    return { program: p.program, base: bm, now: tm, ratio: tm / bm };
  });
  // The sum of each program's median over the rounds: a round slowed by the machine's load
  // in one stretch counts for the programs it hit, not for the whole round.
  const sumOfMedians = (key: 'base' | 'now') => perProgram.reduce((sum, p) => sum + p[key], 0);
  const rows = [
    ['', 'sum of medians s', 'round median s', 'min', 'max'],
    ['base', ...[sumOfMedians('base'), median(b!), Math.min(...b!), Math.max(...b!)].map((x) => (x / 1000).toFixed(2))],
    ['this', ...[sumOfMedians('now'), median(t!), Math.min(...t!), Math.max(...t!)].map((x) => (x / 1000).toFixed(2))],
  ];
  process.stdout.write(`\nCPU time of the whole corpus\n${rows.map((r) => r.map((c, i) => (i ? c.padStart(i === 1 ? 18 : 16) : c.padEnd(5))).join('')).join('\n')}\n`);
  const ratio = sumOfMedians('now') / sumOfMedians('base');
  const roundRatio = median(t!) / median(b!);
  process.stdout.write(`this / base: ${ratio.toFixed(3)} by the sum of medians (${ratio <= 1.1 ? 'within' : 'over'} the 10% budget), ${roundRatio.toFixed(3)} by the round medians\n`);
  process.stdout.write('\nfurthest from 1 (median ms, base -> this):\n');
  for (const p of [...perProgram].sort((x, y) => Math.abs(Math.log(y.ratio)) - Math.abs(Math.log(x.ratio))).slice(0, 8)) {
    process.stdout.write(`  ${p.program.padEnd(40)} ${p.base.toFixed(0).padStart(6)} -> ${p.now.toFixed(0).padStart(6)}  ${p.ratio.toFixed(2)}\n`);
  }
  if (failed.length) process.stdout.write(`\nprograms that did not compile (timed all the same): ${failed.join(', ')}\n`);
  return 0;
}

await runBench(import.meta.url, main);
