// The command line of every benchmark script, so that each behaves like the apps: `--help`
// prints the script's header comment (where each script states what it measures and its
// options, so the usage has one source), and a bad option, a bad value or any other error
// the script throws on its input is one line naming the script, exit status 1, instead of a
// stack trace (set ANYDSL_DEBUG=1 to get the trace, as with the apps).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The npm script that runs the script (`bench:camera` for bench/image/camera.ts), else its path (`bench/compile/corpus`). */
function scriptName(scriptUrl: string): string {
  const file = path.relative(root, fileURLToPath(scriptUrl)).split(path.sep).join('/');
  const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const npm = Object.entries(scripts).find(([, command]) => command.split(/\s+/).includes(file));
  return npm ? npm[0] : file.replace(/\.ts$/, '');
}

/** The leading `//` comment block of a source file, without the slashes. */
export function headerComment(file: string): string {
  const lines: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join('\n');
}

/** Reports a bad command line or input as one line naming the script, and exits with 1. */
export function benchFail(scriptUrl: string, message: string): never {
  process.stderr.write(`${scriptName(scriptUrl)}: ${message}\n`);
  process.exit(1);
}

/** What parseArgs gives for `options`. */
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O }>>['values'];

/** The script's options parsed (plus `--help`/`-h`); exits on `--help` and on a bad option. */
export function benchArgs<const O extends Options>(scriptUrl: string, options: O): Values<O> {
  let values: Values<O> & { help?: boolean };
  try {
    values = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } } }).values as Values<O> & { help?: boolean };
  } catch (e) {
    benchFail(scriptUrl, `${(e as Error).message} (see --help)`);
  }
  if (values.help) {
    process.stdout.write(`${headerComment(fileURLToPath(scriptUrl))}\n`);
    process.exit(0);
  }
  return values;
}

/** Runs the script's `main`; what it throws becomes one line and exit status 1. */
export async function runBench(scriptUrl: string, main: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await main();
  } catch (e) {
    if (process.env.ANYDSL_DEBUG) throw e;
    benchFail(scriptUrl, (e as Error).message);
  }
}
