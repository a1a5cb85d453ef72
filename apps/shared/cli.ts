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

/** Awaits `work` with a progress line naming it (compiling a kernel, building a reference); `work` may name its current step. */
export async function during<T>(label: string, work: (step: (label: string) => void) => Promise<T>): Promise<T> {
  const line = progress(label);
  try {
    return await work((l) => line.relabel(l));
  } finally {
    line.stop();
  }
}
