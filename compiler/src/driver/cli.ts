// The `impala` command: argument parsing and file I/O around buildProgram.
// Every failure ends as a message on stderr and exit code 1, never a stack trace.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import type { SourceFile } from '../syntax/diagnostics.ts';
import { renderDiagnostics } from '../syntax/diagnostics.ts';
import type { BuildOptions } from './build.ts';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

const processIO: CliIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

const EXAMPLES = `
Examples:
  impala hello.impala                   build the executable ./hello
  impala main.impala util.impala -o app build ./app from two files
  impala --run fib.impala -- 30         build and run, passing "30" to the program
  impala -O3 --target-cpu skylake x.impala
                                        optimise for a given CPU instead of this machine
  impala --shared kernels.impala -o libk.so
                                        a shared library of the program's \`extern fn\`s
  impala --emit-llvm x.impala -o x.ll   the LLVM IR handed to clang-19 (-o - for stdout)
  impala --emit-ir x.impala             the CPS graph after optimisation, to stdout
  impala --emit-ptx gpu.impala -o -     the PTX of the program's nvvm/cuda kernels
  impala --emit-opencl gpu.impala       the OpenCL C of its opencl kernels (gpu.cl)
  impala --pe-trace x.impala            show what the partial evaluator specialised
  impala --time-passes x.impala         print the time of each compiler stage to stderr

All files form one program; the prelude (range, unroll, math, runtime API) is always
included. Errors are printed as 'file:line col c1 - c2: error: message' and exit with 1.
Set ANYDSL_DEBUG=1 to see the compiler's stack on an internal compiler error, and
ANYDSL_CACHE to move the artifact cache (default <repo>/.cache/anydsl).
`;

interface CliOptions {
  output?: string;
  emitLlvm?: boolean;
  emitIr?: boolean;
  emitPtx?: boolean;
  emitOpencl?: boolean;
  shared?: boolean;
  run?: boolean;
  optLevel: string;
  targetCpu?: string;
  peTrace?: boolean;
  timePasses?: boolean;
}

function makeProgram(io: CliIO): Command {
  return new Command('impala')
    .description('Compile Impala programs with partial evaluation to native code through LLVM 19.')
    .usage('[options] <files...> [-- program-args...]')
    .argument('<files...>', 'Impala source files (.impala), compiled together as one program')
    .option('-o, --output <file>', 'output file (default: from the first input file name)')
    .option('--emit-llvm', 'write LLVM IR (.ll) instead of an executable')
    .option('--emit-ir', 'print the optimised CPS IR (to stdout unless -o is given)')
    .option('--emit-ptx', 'write the PTX of the nvvm/cuda kernels (.ptx) instead of an executable')
    .option('--emit-opencl', 'write the OpenCL C of the opencl kernels (.cl) instead of an executable')
    .option('--shared', 'build a shared library (lib<name>.so) instead of an executable')
    .option('--run', 'build a temporary executable, run it and exit with its exit code; arguments after -- go to the program')
    .addOption(new Option('-O, --opt-level <level>', 'optimisation level: -O0, -O1, -O2 or -O3').default('2', '-O2'))
    .option('--target-cpu <cpu>', 'LLVM CPU to generate code for, as in clang -march (default: native)')
    .option('--pe-trace', 'print each specialisation the partial evaluator makes to stderr')
    .option('--time-passes', 'print a table of the time each stage took (parse, sema, emit, each pass, LLVM text, clang) to stderr')
    .addHelpText('after', EXAMPLES)
    .showHelpAfterError('(run impala --help for usage and examples)')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
}

class UsageError extends Error {}

/** Runs the command; resolves to the process exit code. */
export async function main(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  const split = argv.indexOf('--');
  const ownArgs = split < 0 ? argv : argv.slice(0, split);
  const programArgs = split < 0 ? [] : argv.slice(split + 1);
  const program = makeProgram(io);
  try {
    program.parse(ownArgs, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    throw e;
  }
  try {
    return await runCommand(program.args, program.opts<CliOptions>(), programArgs, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`impala: error: ${e.message}\n`);
    return 1;
  }
}

async function runCommand(files: string[], opts: CliOptions, programArgs: readonly string[], io: CliIO): Promise<number> {
  const modes = (['emitLlvm', 'emitIr', 'emitPtx', 'emitOpencl', 'shared', 'run'] as const).filter((m) => opts[m]);
  if (modes.length > 1) {
    const flag = { emitLlvm: '--emit-llvm', emitIr: '--emit-ir', emitPtx: '--emit-ptx', emitOpencl: '--emit-opencl', shared: '--shared', run: '--run' };
    throw new UsageError(`${modes.map((m) => flag[m]).join(' and ')} cannot be combined; pick one`);
  }
  if (programArgs.length > 0 && !opts.run) throw new UsageError("arguments after '--' are for the program and need --run");
  const optLevel = parseOptLevel(opts.optLevel);
  const sources = await readSources(files);

  const kind: BuildOptions['kind'] =
    opts.emitLlvm ? 'llvm' : opts.emitIr ? 'ir' : opts.emitPtx ? 'ptx' : opts.emitOpencl ? 'opencl' : opts.shared ? 'shared' : 'exe';
  // Loaded only now: usage errors, --help and unreadable files need none of the compiler.
  // Executables and libraries come from the artifact cache when nothing that decides their bytes changed.
  const { buildThroughCache: buildProgram } = await import('./cached-build.ts');
  const { StageTimer, formatTimings } = await import('./timings.ts');
  const build = async (output: string) => {
    const timer = opts.timePasses ? new StageTimer() : undefined;
    const result = await buildProgram(sources, { kind, output, optLevel, targetCpu: opts.targetCpu, peTrace: opts.peTrace, timer });
    if (timer) io.err(formatTimings(timer.entries, `impala: time per stage (${output === '-' ? kind : output})`));
    return result;
  };

  if (opts.run) {
    const dir = opts.output ? undefined : await mkdtemp(path.join(os.tmpdir(), 'impala-run-'));
    try {
      const exe = opts.output ?? path.join(dir!, 'program');
      const result = await build(exe);
      if (!result.ok) return report(result.rendered, io);
      warn(result.diagnostics, sources, io);
      return await runProgram(exe, programArgs, io);
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  }

  const output = opts.output ?? defaultOutput(files[0]!, kind);
  if (output !== '-' && files.some((f) => path.resolve(f) === path.resolve(output))) {
    throw new UsageError(`the output '${output}' would overwrite an input file; choose another name with -o`);
  }
  const result = await build(output);
  if (!result.ok) return report(result.rendered, io);
  warn(result.diagnostics, sources, io);
  return 0;
}

function parseOptLevel(level: string): 0 | 1 | 2 | 3 {
  if (!/^[0-3]$/.test(level)) throw new UsageError(`unknown optimisation level '-O${level}'; use -O0, -O1, -O2 or -O3`);
  return Number(level) as 0 | 1 | 2 | 3;
}

async function readSources(files: readonly string[]): Promise<SourceFile[]> {
  return Promise.all(
    files.map(async (file) => {
      try {
        return { path: file, text: await readFile(file, 'utf8') };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        const why =
          code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
        throw new UsageError(`cannot read '${file}': ${why}`);
      }
    }),
  );
}

function defaultOutput(first: string, kind: BuildOptions['kind']): string {
  const base = path.basename(first, path.extname(first));
  switch (kind) {
    case 'exe':
      return base;
    case 'shared':
      return `lib${base}.so`;
    case 'llvm':
      return `${base}.ll`;
    case 'ir':
      return '-';
    case 'ptx':
      return `${base}.ptx`;
    case 'opencl':
      return `${base}.cl`;
  }
}

function report(rendered: string, io: CliIO): number {
  io.err(`${rendered}\n`);
  return 1;
}

function warn(diagnostics: Parameters<typeof renderDiagnostics>[0], sources: readonly SourceFile[], io: CliIO): void {
  if (diagnostics.length > 0) io.err(`${renderDiagnostics(diagnostics, sources)}\n`);
}

/**
 * Runs the built program with the terminal's stdio; its exit code becomes ours (128 + n for
 * signal n, as shells do). Ctrl-C reaches the program through the terminal; we outlive it
 * to report its status and remove the temporary executable.
 */
function runProgram(exe: string, args: readonly string[], io: CliIO): Promise<number> {
  const ignore = () => {};
  process.on('SIGINT', ignore);
  return new Promise<number>((resolve) => {
    const child = spawn(exe, args, { stdio: 'inherit' });
    child.on('error', (e) => {
      io.err(`impala: error: cannot run '${exe}': ${e.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      if (signal) {
        io.err(`impala: the program was killed by ${signal}\n`);
        resolve(128 + (os.constants.signals[signal] ?? 0));
      } else {
        resolve(code ?? 1);
      }
    });
  }).finally(() => process.off('SIGINT', ignore));
}
