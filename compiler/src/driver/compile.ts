// The TypeScript host's entry: compile Impala sources to a shared library through the
// artifact cache and load it with koffi. A cache hit runs neither the pipeline nor clang:
// the exported signatures are stored as JSON next to the library.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import koffi from 'koffi';
import type { Diagnostic, SourceFile } from '../syntax/diagnostics.ts';
import { renderDiagnostics } from '../syntax/diagnostics.ts';
import { internalError, runtimeReady, toolchainError } from './build.ts';
import { artifactKey, cacheRoot, makeScratchDir, nativeTarget, publishFile, readEntryMeta } from './cache.ts';
import { writeFileAtomic } from './output.ts';
import { compileToLLVM, type CType, type ExportedFn, type OptLevel } from './pipeline.ts';
import { startRuntimeBuild } from './runtime-build.ts';
import { type StageTime, StageTimer } from './timings.ts';
import { llvmToSharedLibrary } from './toolchain.ts';

export interface CompileOptions {
  optLevel?: OptLevel;
  /** LLVM CPU name; default 'native'. */
  targetCpu?: string;
  /** Print the partial evaluator's specialisations to stderr; always runs the pipeline (a cache hit has nothing to print). */
  peTrace?: boolean;
  /** Time each stage into the library's `timings` (a cache hit times only its lookup, as the stage 'cached'). */
  timePasses?: boolean;
}

export interface CompileRequest {
  sources: readonly SourceFile[];
  options?: CompileOptions;
}

/** Numbers for integers and floats (64-bit integers also as BigInt), typed arrays or null for `ptr`. */
export type NativeFunction = (...args: unknown[]) => unknown;

export interface CompiledLibrary {
  /** The shared library in the cache. */
  path: string;
  exports: readonly ExportedFn[];
  /** Warnings from the compilation that produced the library. */
  diagnostics: readonly Diagnostic[];
  /** True when the library came from the cache without compiling. */
  cached: boolean;
  /** With `timePasses`: the time of each stage in order (format with formatTimings). */
  timings?: readonly StageTime[];
  /** The exported function `name`, callable with its C signature; typed arrays pass to `ptr` without a copy. */
  fn(name: string): NativeFunction;
}

/** The program has errors (or the compiler failed); `rendered` is the report for a terminal. */
export class CompileFailure extends Error {
  constructor(
    readonly diagnostics: Diagnostic[],
    readonly rendered: string,
  ) {
    super(rendered);
    this.name = 'CompileFailure';
  }
}

interface CacheMeta {
  exports: ExportedFn[];
  diagnostics: Diagnostic[];
}

export async function compile(request: CompileRequest): Promise<CompiledLibrary> {
  const { sources } = request;
  const optLevel = request.options?.optLevel ?? 2;
  const targetCpu = request.options?.targetCpu ?? 'native';
  const failWith = (diagnostics: Diagnostic[]) => new CompileFailure(diagnostics, renderDiagnostics(diagnostics, sources));

  const timer = request.options?.timePasses ? new StageTimer() : undefined;
  const lookupStart = performance.now();
  // Started before the pipeline: with an empty cache the runtime compiles while the compiler works.
  let runtime;
  try {
    runtime = await startRuntimeBuild();
  } catch (e) {
    throw failWith([toolchainError(e, cacheRoot())]);
  }
  const key = artifactKey(sources, {
    kind: 'shared',
    optLevel,
    ...nativeTarget(targetCpu),
    runtime: runtime.key,
  });
  const entry = path.join(cacheRoot(), 'lib', key.slice(0, 32));
  const libPath = path.join(entry, 'lib.so');
  const metaPath = path.join(entry, 'meta.json');

  if (!request.options?.peTrace) {
    const meta = await readEntryMeta<CacheMeta>(metaPath, libPath);
    if (meta) {
      const timings = timer && [{ stage: 'cached', ms: performance.now() - lookupStart }];
      return loadLibrary(libPath, meta, true, timings);
    }
  }

  let result;
  try {
    result = compileToLLVM(sources, { optLevel, targetCpu, peTrace: request.options?.peTrace, timer });
  } catch (e) {
    throw failWith([internalError(e)]);
  }
  if (!result.ok) throw failWith(result.diagnostics);

  let scratch: string | undefined;
  try {
    scratch = await makeScratchDir(entry);
    const built = path.join(scratch, 'lib.so');
    await llvmToSharedLibrary(result.llvm, built, await runtimeReady(runtime, timer), { optLevel, targetCpu, timer });
    // The library first, its metadata last: metadata present means the entry is complete.
    await publishFile(built, libPath);
    const meta: CacheMeta = { exports: result.exports, diagnostics: result.diagnostics };
    await writeFileAtomic(metaPath, JSON.stringify(meta));
    return loadLibrary(libPath, meta, false, timer?.entries);
  } catch (e) {
    throw failWith([...result.diagnostics, toolchainError(e, libPath)]);
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

const KOFFI_TYPES: Record<CType, string> = {
  void: 'void',
  bool: 'bool',
  i8: 'int8_t',
  i16: 'int16_t',
  i32: 'int32_t',
  i64: 'int64_t',
  u8: 'uint8_t',
  u16: 'uint16_t',
  u32: 'uint32_t',
  u64: 'uint64_t',
  f32: 'float',
  f64: 'double',
  ptr: 'void *',
};

function loadLibrary(libPath: string, meta: CacheMeta, cached: boolean, timings: readonly StageTime[] | undefined): CompiledLibrary {
  const lib = koffi.load(libPath);
  const functions = new Map<string, NativeFunction>();
  return {
    path: libPath,
    exports: meta.exports,
    diagnostics: meta.diagnostics,
    cached,
    timings,
    fn(name) {
      let f = functions.get(name);
      if (!f) {
        const sig = meta.exports.find((e) => e.name === name);
        if (!sig) {
          const known = meta.exports.map((e) => e.name).join(', ') || 'none';
          throw new Error(`no exported function '${name}' in ${libPath} (exports: ${known})`);
        }
        f = lib.func(name, KOFFI_TYPES[sig.ret], sig.params.map((p) => KOFFI_TYPES[p])) as NativeFunction;
        functions.set(name, f);
      }
      return f;
    },
  };
}
