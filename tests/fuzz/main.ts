// `npm run fuzz -- [--minutes N] [--seed S] [--timeout SECONDS]`: fuzzes the compiler with
// mutants of the conformance corpus until the time is up, prints how many mutants it tried
// and their outcomes, and writes each distinct failure's minimised reproducer to
// tests/fuzz/found/ (move it to tests/fuzz/regressions/ once the bug is understood).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { fuzz, type Failure } from './runner.ts';

const positive = (what: string) => (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${what} must be a positive number`);
  return n;
};

const program = new Command('fuzz')
  .description('Mutation fuzzing of the Impala compiler over the conformance corpus.')
  .option('--minutes <n>', 'how long to run', positive('--minutes'), 1)
  .option('--seed <s>', 'seed of the mutants (default: the time)', positive('--seed'))
  .option('--timeout <seconds>', 'time limit for compiling one mutant', positive('--timeout'), 20)
  .parse();
const opts = program.opts<{ minutes: number; seed?: number; timeout: number }>();
const seed = Math.floor(opts.seed ?? Date.now() % 2 ** 31);
const foundDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'found');
const started = Date.now();

function save(f: Failure): string {
  mkdirSync(foundDir, { recursive: true });
  const file = path.join(foundDir, `${f.kind}-seed${f.seed}-${f.index}.impala`);
  const header = [`// fuzz: ${f.kind} (seed ${f.seed}, mutant ${f.index}, from ${f.origin})`, ...f.detail.split('\n').slice(0, 3).map((l) => `// ${l}`)];
  writeFileSync(file, `${header.join('\n')}\n${f.minimised}`);
  return path.relative(process.cwd(), file);
}

console.log(`fuzzing for ${opts.minutes} min with seed ${seed} (per-mutant limit ${opts.timeout} s)`);
let lastReport = Date.now();
const stats = await fuzz({
  seed,
  deadline: started + opts.minutes * 60_000,
  timeoutMs: opts.timeout * 1000,
  onFailure: (f) => console.log(`FAILURE ${f.signature}\n  reproducer: ${save(f)} (${f.minimised.length} bytes, from ${f.mutant.length})`),
  onProgress: (s) => {
    if (Date.now() - lastReport < 30_000) return;
    lastReport = Date.now();
    console.log(`  ${s.mutants} mutants after ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(s.outcomes)}`);
  },
});
console.log(`${stats.mutants} mutants in ${Math.round((Date.now() - started) / 1000)} s (seed ${seed}): ${JSON.stringify(stats.outcomes)}`);
console.log(stats.failures.length === 0 ? 'no failures' : `${stats.failures.length} distinct failure(s); reproducers in ${path.relative(process.cwd(), foundDir)}/`);
process.exitCode = stats.failures.length === 0 ? 0 : 1;
