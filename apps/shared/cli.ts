// What every command-line app shares: option values checked when they are parsed, user
// errors as one line with exit status 1, and progress on a terminal.
import cliProgress from 'cli-progress';
import { type Command, CommanderError, InvalidArgumentError } from 'commander';
import { CompileFailure } from '@anydsl/compiler';

/** An option parser for integers from `min` to `max`. */
export function integerFrom(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    return n;
  };
}

export function finiteNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
  return n;
}

/** An option parser for numbers in (`low`, `high`]: above `low`, at most `high`. */
export function numberAboveUpTo(low: number, high: number): (value: string) => number {
  return (value) => {
    const n = finiteNumber(value);
    if (!(n > low && n <= high)) throw new InvalidArgumentError(`must be a number above ${low} and at most ${high}`);
    return n;
  };
}

/** Runs `body`; user errors become one line on stderr and exit status 1. */
export async function runCommand(name: string, program: Command, argv: string[], body: () => Promise<void>): Promise<number> {
  try {
    await program.parseAsync(argv, { from: 'user' });
    await body();
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    if (e instanceof CompileFailure) {
      process.stderr.write(`${name}: the library did not compile:\n${e.rendered}\n`);
      return 1;
    }
    if (process.env.ANYDSL_DEBUG) throw e;
    process.stderr.write(`${name}: ${(e as Error).message}\n`);
    return 1;
  }
}

export interface Progress {
  update(done: number): void;
  relabel(label: string): void;
  stop(): void;
}

/**
 * A progress line on stderr when it is a terminal, nothing otherwise: a bar of `total` steps,
 * or without a total just the label and the time spent.
 */
export function progress(label: string, total?: number): Progress {
  if (!process.stderr.isTTY) return { update() {}, relabel() {}, stop() {} };
  const bar = new cliProgress.SingleBar({
    format: total ? '{label} [{bar}] {value}/{total} {duration_formatted}' : '{label} … {duration_formatted}',
    stream: process.stderr,
    barsize: 30,
    clearOnComplete: true,
  });
  bar.start(total ?? 1, 0, { label });
  return { update: (done) => bar.update(done), relabel: (l) => bar.update({ label: l }), stop: () => bar.stop() };
}

/** When to show the progress of long work: `auto` on a terminal only, `always` also as plain lines for a log, `never`. */
export const PROGRESS_WHEN = ['auto', 'always', 'never'] as const;
export type ProgressWhen = (typeof PROGRESS_WHEN)[number];

/** How often `always` writes a line when stderr is not a terminal. */
export const LOG_EVERY_MS = 10_000;

export interface WorkMeter {
  /** Work done so far and the work planned, in `unit`s (read on a timer while the work runs elsewhere). */
  read(): { done: number; total: number };
  unit: string;
  /** The rate's name and units per second in it, e.g. GCUPS and 1e9. */
  rate: { name: string; per: number };
}

function duration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
}

function amount(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} G ` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} M ` : `${Math.round(n)} `;
}

/**
 * Progress of long work that runs off the event loop (a native kernel on a worker thread),
 * read from `meter` on a timer: on a terminal a cli-progress bar redrawn twice a second and
 * cleared at the end (`label [bar] 42.0% 1.20 G of 2.86 G cells, 3.10 GCUPS, ETA 1m 05s`); with
 * `always` and stderr not a terminal, the same as a plain line every `everyMs` and one when it
 * ends, for a log (cli-progress's own non-terminal mode redraws a line at every tick with the
 * terminal's cursor codes in mind, so the log lines are written here). Stop it when the work ends.
 */
export function workProgress(label: string, meter: WorkMeter, when: ProgressWhen, everyMs = LOG_EVERY_MS): { stop(): void } {
  const tty = !!process.stderr.isTTY;
  if (when === 'never' || (!tty && when !== 'always')) return { stop() {} };
  const start = performance.now();
  const now = () => {
    const { done, total } = meter.read();
    const ms = performance.now() - start;
    const rate = ms > 0 ? (done * 1000) / ms : 0;
    const speed = `${(rate / meter.rate.per).toFixed(2)} ${meter.rate.name}`;
    const share = total > 0 ? Math.min(1, done / total) : 0;
    const eta = rate > 0 && total > done ? `ETA ${duration(((total - done) / rate) * 1000)}` : 'ETA –';
    return { share, status: `${(share * 100).toFixed(1)}% ${amount(done)}of ${amount(total)}${meter.unit}, ${speed}, ${eta}`, final: `${label}: ${amount(done)}${meter.unit} in ${duration(ms)}, ${speed}` };
  };
  if (tty) {
    const bar = new cliProgress.SingleBar({ format: '{label} [{bar}] {status}', stream: process.stderr, barsize: 20, clearOnComplete: true });
    bar.start(1, 0, { label, status: '' });
    const timer = setInterval(() => {
      const { share, status } = now();
      bar.update(share, { status });
    }, 500);
    return {
      stop() {
        clearInterval(timer);
        bar.stop();
      },
    };
  }
  const timer = setInterval(() => process.stderr.write(`${label} ${now().status}\n`), everyMs);
  return {
    stop() {
      clearInterval(timer);
      process.stderr.write(`${now().final}\n`);
    },
  };
}

/** Awaits `work` with a progress line naming it (compiling a kernel, building a reference); `work` may name its current step. */
export async function during<T>(label: string, work: (step: (label: string) => void) => Promise<T>): Promise<T> {
  const line = progress(label);
  try {
    return await work((l) => line.relabel(l));
  } finally {
    line.stop();
  }
}
