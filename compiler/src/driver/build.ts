// One build of an Impala program to a file: the pipeline to LLVM IR, then either the
// IR itself or the toolchain. User errors come back as diagnostics; anything thrown
// on the way is a compiler bug and is reported as an internal compiler error.
import type { Diagnostic, SourceFile } from '../syntax/diagnostics.ts';
import { renderDiagnostics } from '../syntax/diagnostics.ts';
import { checkOutputPath, OutputError, replaceAtomic, writeFileAtomic } from './output.ts';
import { compileToLLVM } from './pipeline.ts';
import { type RuntimeArtifact, type RuntimeBuild, RuntimeBuildError, startRuntimeBuild } from './runtime-build.ts';
import type { StageTimer } from './timings.ts';
import { LINKER_FAILED, LinkFailure, llvmToExecutable, llvmToSharedLibrary, MissingToolchainError, ToolFailure } from './toolchain.ts';

export interface BuildOptions {
  optLevel?: 0 | 1 | 2 | 3;
  targetCpu?: string;
  /** 'ptx' and 'opencl' write the device code of the program's GPU launches (nvvm/cuda, opencl). */
  kind: 'exe' | 'shared' | 'llvm' | 'ir' | 'ptx' | 'opencl';
  /** The file to write; for the text kinds ('llvm', 'ir', 'ptx', 'opencl'), '-' means standard output. */
  output: string;
  peTrace?: boolean;
  /** Collects the time of each stage, clang's included (--time-passes). */
  timer?: StageTimer;
}

export type BuildResult =
  | { ok: true; output: string; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[]; rendered: string };

export async function buildProgram(sources: SourceFile[], opts: BuildOptions): Promise<BuildResult> {
  const optLevel = opts.optLevel ?? 2;
  const targetCpu = opts.targetCpu ?? 'native';
  const fail = (diagnostics: Diagnostic[]): BuildResult => ({ ok: false, diagnostics, rendered: renderDiagnostics(diagnostics, sources) });

  const runtime = opts.kind === 'exe' || opts.kind === 'shared' ? await startRuntime() : undefined;
  let result;
  try {
    result = compileToLLVM(sources, { optLevel, targetCpu, peTrace: opts.peTrace, printIr: opts.kind === 'ir', timer: opts.timer });
  } catch (e) {
    return fail([internalError(e)]);
  }
  if (!result.ok) return fail(result.diagnostics);
  const warnings = result.diagnostics;
  const unwritable = await checkWritable(opts.output);
  if (unwritable) return fail([...warnings, error(unwritable)]);
  const output = opts.output;

  try {
    switch (opts.kind) {
      case 'llvm':
        await writeOutput(opts.output, result.llvm);
        break;
      case 'ir':
        await writeOutput(opts.output, result.irText ?? '');
        break;
      case 'ptx':
      case 'opencl': {
        const target = opts.kind === 'ptx' ? 'nvvm' : 'opencl';
        const program = result.device.find((d) => d.target === target);
        if (!program) {
          const launches = opts.kind === 'ptx' ? "'nvvm' or 'cuda'" : "'opencl'";
          return fail([...warnings, error(`no ${opts.kind === 'ptx' ? 'PTX' : 'OpenCL C'} to write: the program launches no ${launches} kernel`)]);
        }
        await writeOutput(opts.output, program.code);
        break;
      }
      case 'exe': {
        if (!result.hasMain) {
          return fail([...warnings, error("cannot build an executable: the program has no 'main' function (use a shared library for a program without one)")]);
        }
        const linked = await runtimeReady(runtime!, opts.timer);
        await replaceAtomic(output, (tmp) => llvmToExecutable(result.llvm, tmp, linked, { optLevel, targetCpu, timer: opts.timer }));
        break;
      }
      case 'shared':
        const linked = await runtimeReady(runtime!, opts.timer);
        await replaceAtomic(output, (tmp) => llvmToSharedLibrary(result.llvm, tmp, linked, { optLevel, targetCpu, timer: opts.timer }));
        break;
    }
  } catch (e) {
    return fail([...warnings, toolchainError(e, opts.output)]);
  }
  return { ok: true, output: opts.output, diagnostics: warnings };
}

/**
 * Starts the runtime build before the pipeline, so with an empty cache clang compiles the
 * runtime while the compiler works; a failure to start (no toolchain) is reported where
 * the runtime is awaited, after the program's own errors.
 */
async function startRuntime(): Promise<RuntimeBuild> {
  try {
    return await startRuntimeBuild();
  } catch (e) {
    const ready = Promise.reject(e);
    ready.catch(() => {});
    return { key: '', ready };
  }
}

/** Waits for the runtime object, timed as the stage 'runtime': what of its build the pipeline did not hide. */
export function runtimeReady(build: RuntimeBuild, timer: StageTimer | undefined): Promise<RuntimeArtifact> {
  return timer ? timer.timeAsync('runtime', () => build.ready) : build.ready;
}

/** Checked up front so a bad -o is a plain error, not a linker failure that looks like a compiler bug. */
async function checkWritable(output: string): Promise<string | undefined> {
  if (output === '-') return undefined;
  try {
    await checkOutputPath(output);
    return undefined;
  } catch (e) {
    if (e instanceof OutputError) return e.message;
    throw e;
  }
}

/** Standard output for '-', otherwise the file, replaced only once complete. */
async function writeOutput(output: string, text: string): Promise<void> {
  if (output === '-') process.stdout.write(text);
  else await writeFileAtomic(output, text);
}

function error(message: string): Diagnostic {
  return { severity: 'error', span: null, message };
}

/** The stack only with ANYDSL_DEBUG set: users get a short report, compiler developers the trace. */
export function internalError(e: unknown): Diagnostic {
  const message = e instanceof Error ? e.message : String(e);
  const stack = process.env.ANYDSL_DEBUG && e instanceof Error && e.stack ? `\n${e.stack}` : '';
  return error(`internal compiler error: ${message}${stack}`);
}

/** Sorts a failure after the pipeline into the environment's fault, the user's, or the compiler's. */
export function toolchainError(e: unknown, output: string): Diagnostic {
  if (e instanceof MissingToolchainError || e instanceof RuntimeBuildError || e instanceof OutputError) return error(e.message);
  if (e instanceof LinkFailure) return error(`linking '${output}' failed:\n${linkerMessages(e.stderr)}`);
  if (e instanceof ToolFailure) return internalError(new Error(`clang rejected the generated LLVM IR: ${e.message}`));
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code && e instanceof Error) return error(`cannot write '${output}': ${e.message}`);
  return internalError(e);
}

/** The linker's own lines, without clang's closing "linker command failed" summary. */
function linkerMessages(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line !== '' && !LINKER_FAILED.test(line))
    .join('\n');
}
