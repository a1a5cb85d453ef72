// What the image apps share: commander setup with clean errors, option parsing, and the
// progress and result lines they print.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CompileFailure } from '../../compiler/src/driver/compile.ts';
import { timeRuns, type Timing } from './bench.ts';
import { BOUNDARIES, SCHEDULES, SCHEDULE_DESCRIPTIONS } from './variants.ts';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export function finiteNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
  return n;
}

/** The options both apps take: schedule, boundary, output, --bench. */
export function imageCommand(name: string, defaultSchedule: string): Command {
  const schedules = SCHEDULES.map((s) => `  ${s.padEnd(6)} ${SCHEDULE_DESCRIPTIONS[s]}`).join('\n');
  return new Command(name)
    .argument('<input>', 'input image (PNG, JPEG, WebP, TIFF, … anything sharp reads)')
    .requiredOption('-o, --output <file>', 'output PNG')
    .addOption(new Option('-s, --schedule <name>', 'loop schedule').choices(SCHEDULES).default(defaultSchedule))
    .addOption(new Option('-b, --boundary <mode>', 'what the stencil sees outside the image').choices(BOUNDARIES).default('clamp'))
    .option('--bench <runs>', 'run the kernel N more times and print the median throughput', positiveInt)
    .addHelpText('after', `\nSchedules:\n${schedules}\n`)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
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
      process.stderr.write(`${name}: the image library did not compile:\n${e.rendered}\n`);
      return 1;
    }
    if (process.env.ANYDSL_DEBUG) throw e;
    process.stderr.write(`${name}: ${(e as Error).message}\n`);
    return 1;
  }
}

/** Times `once` with a progress line on a terminal, then prints the result. */
export function benchmark(label: string, pixels: number, runs: number, once: () => void): Timing {
  const tty = process.stderr.isTTY;
  const timing = timeRuns(pixels, runs, once, (done) => {
    if (tty) process.stderr.write(`\r${label}: run ${done}/${runs}`);
  });
  if (tty) process.stderr.write('\r\x1b[K');
  console.log(`${label}: median ${timing.medianMs.toFixed(2)} ms over ${runs} runs, ${timing.gpixels.toFixed(3)} Gpixel/s`);
  return timing;
}
