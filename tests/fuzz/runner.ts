// The mutation fuzzer: mutants of the conformance corpus compiled in child processes
// (worker.ts) with a time limit each; every failure (verdict.ts) is minimised by deleting
// lines and then tokens while the same failure persists. Used by fuzz.test.ts (a bounded
// run in `npm test`) and main.ts (`npm run fuzz -- --minutes N`).
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { random } from '../random.ts';
import { mutate, type MutationContext, tokenize, tokenPool } from './mutate.ts';
import { type FailureKind, isFailure, signature, type Verdict } from './verdict.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const CORPUS_DIRS = ['../conformance/pos', '../conformance/neg'].map((d) => path.join(here, d));
const WORKER = path.join(here, 'worker.ts');

export function loadCorpus(): { name: string; text: string }[] {
  return CORPUS_DIRS.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.impala'))
      .sort()
      .map((f) => ({ name: `${path.basename(dir)}/${f}`, text: readFileSync(path.join(dir, f), 'utf8') })),
  );
}

/** One child process; `check` resolves to a verdict, 'crash' when the process dies, 'timeout' when it takes too long. */
class Worker {
  private child: ChildProcess | null = null;
  private next = 0;

  constructor(private readonly timeoutMs: number) {}

  private spawn(): ChildProcess {
    const child = fork(WORKER, [], {
      execArgv: ['--import', 'tsx', '--max-old-space-size=2048'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    child.stderr!.resume();
    return child;
  }

  check(text: string): Promise<Verdict> {
    const child = (this.child ??= this.spawn());
    const id = this.next++;
    return new Promise((resolve) => {
      const finish = (v: Verdict, restart: boolean): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (restart) {
          child.kill('SIGKILL');
          if (this.child === child) this.child = null;
        }
        resolve(v);
      };
      const onMessage = (m: { id: number; verdict: Verdict }): void => {
        if (m.id === id) finish(m.verdict, false);
      };
      const onExit = (code: number | null, signal: string | null): void =>
        finish({ kind: 'crash', detail: `the compiler process ended (${signal ?? `exit ${code}`})` }, true);
      const timer = setTimeout(() => finish({ kind: 'timeout', detail: `no result within ${this.timeoutMs / 1000} s` }, true), this.timeoutMs);
      child.on('message', onMessage);
      child.on('exit', onExit);
      child.send({ id, text });
    });
  }

  close(): void {
    this.child?.disconnect();
    this.child = null;
  }
}

export interface Failure {
  kind: FailureKind;
  signature: string;
  detail: string;
  /** The mutant as generated, and minimised. */
  mutant: string;
  minimised: string;
  origin: string;
  seed: number;
  index: number;
}

export interface FuzzOptions {
  seed: number;
  /** Stop after this many mutants… */
  maxMutants?: number;
  /** …or at this time (ms since the epoch), whichever comes first. */
  deadline?: number;
  timeoutMs?: number;
  /** Time allowed for minimising one failure. */
  minimiseMs?: number;
  onProgress?: (stats: FuzzStats) => void;
  onFailure?: (f: Failure) => void;
}

export interface FuzzStats {
  mutants: number;
  outcomes: Record<string, number>;
  failures: Failure[];
}

export async function fuzz(opts: FuzzOptions): Promise<FuzzStats> {
  const corpus = loadCorpus();
  const cx: MutationContext = { pool: tokenPool(corpus.map((c) => c.text)), corpus: corpus.map((c) => c.text) };
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const worker = new Worker(timeoutMs);
  const stats: FuzzStats = { mutants: 0, outcomes: {}, failures: [] };
  const seen = new Set<string>();
  try {
    for (let index = 0; ; index++) {
      if (opts.maxMutants !== undefined && index >= opts.maxMutants) break;
      if (opts.deadline !== undefined && Date.now() >= opts.deadline) break;
      // Each mutant has its own generator, so index i of seed s is reproducible alone.
      const rng = random((opts.seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0);
      const origin = corpus[Math.floor(rng() * corpus.length)]!;
      const mutant = mutate(rng, origin.text, cx);
      const verdict = await worker.check(mutant);
      stats.mutants++;
      stats.outcomes[verdict.kind] = (stats.outcomes[verdict.kind] ?? 0) + 1;
      if (isFailure(verdict)) {
        const sig = signature(verdict);
        if (!seen.has(sig)) {
          seen.add(sig);
          const minimised = await minimise(worker, mutant, verdict.kind, opts.minimiseMs ?? 60_000);
          const failure: Failure = { kind: verdict.kind, signature: sig, detail: verdict.detail, mutant, minimised, origin: origin.name, seed: opts.seed, index };
          stats.failures.push(failure);
          opts.onFailure?.(failure);
        }
      }
      opts.onProgress?.(stats);
    }
  } finally {
    worker.close();
  }
  return stats;
}

/** The verdict on each of `texts`, each compiled in a child process like a mutant. */
export async function checkSources(texts: readonly string[], timeoutMs = 30_000): Promise<Verdict[]> {
  const worker = new Worker(timeoutMs);
  try {
    const out: Verdict[] = [];
    for (const t of texts) out.push(await worker.check(t));
    return out;
  } finally {
    worker.close();
  }
}

/**
 * Deletes chunks of lines, then of tokens, as long as the result still fails the same
 * way (ddmin-style halving, then single units), within `budgetMs`.
 */
async function minimise(worker: Worker, text: string, kind: FailureKind, budgetMs: number): Promise<string> {
  const end = Date.now() + budgetMs;
  const stillFails = async (candidate: string): Promise<boolean> => (await worker.check(candidate)).kind === kind;
  let best = text;
  for (const split of [(s: string) => s.split(/(?<=\n)/), tokenize]) {
    let units = split(best);
    let chunk = Math.max(1, Math.floor(units.length / 2));
    while (chunk >= 1 && Date.now() < end) {
      let removed = false;
      for (let i = 0; i < units.length && Date.now() < end; ) {
        const candidate = [...units.slice(0, i), ...units.slice(i + chunk)];
        if (await stillFails(candidate.join(''))) {
          units = candidate;
          removed = true;
        } else {
          i += chunk;
        }
      }
      if (!removed) chunk = Math.floor(chunk / 2);
    }
    best = units.join('');
  }
  return best;
}
