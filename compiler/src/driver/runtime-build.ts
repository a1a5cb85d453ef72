// Builds runtime/ (C and C++ on TBB) into one relocatable object that every executable
// and shared library links statically. The object sits in the artifact cache under the
// hash of the runtime sources and flags, so it is compiled once per change, and it is
// published by an atomic rename so parallel builds (vitest workers) never see half a file.
// With an empty cache its compile (threads.cpp on TBB takes seconds) runs while the
// compiler works on the program: startRuntimeBuild returns once clang has started.
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot, hashValue, makeScratchDir, publishFile, repoRoot } from './cache.ts';
import { findToolchain, runTool, ToolFailure, TOOLCHAIN_PACKAGES, type RuntimeLink, type Toolchain } from './toolchain.ts';

const runtimeSourceDir = path.join(repoRoot, 'runtime');

const C_FLAGS = ['-std=c11', '-D_POSIX_C_SOURCE=200809L', '-O2', '-fPIC', '-Wall', '-Wextra', '-Werror'];
const CXX_FLAGS = ['-std=c++17', '-O2', '-fPIC', '-Wall', '-Wextra', '-Werror'];
/** What the runtime itself needs at link time: TBB for `parallel`, libstdc++ for the C++ part, libdl for
 * loading the CUDA and OpenCL drivers at run time (nothing of theirs is linked). */
export const RUNTIME_LINK_FLAGS = ['-ltbb', '-lstdc++', '-lpthread', '-lm', '-ldl'] as const;

export interface RuntimeArtifact extends RuntimeLink {
  /** Hash of the runtime sources and build flags; artifacts that link the runtime include it in their keys. */
  key: string;
}

/** The runtime could not be compiled: usually missing TBB headers. */
export class RuntimeBuildError extends Error {
  constructor(failure: ToolFailure) {
    const hint = /tbb/i.test(failure.stderr)
      ? `\nThe TBB headers seem to be missing: sudo apt-get install -y ${TOOLCHAIN_PACKAGES.join(' ')}`
      : '';
    super(`cannot build the AnyDSL runtime:\n${failure.stderr.trimEnd()}${hint}`);
    this.name = 'RuntimeBuildError';
  }
}

const inProcess = new Map<string, Promise<RuntimeArtifact>>();

export interface RuntimeBuild {
  /** The key of the runtime object, known before it is built. */
  key: string;
  /** The object, once built (at once when it is in the cache). */
  ready: Promise<RuntimeArtifact>;
}

/** Returns the cached runtime object, building it first if the sources changed. */
export async function buildRuntime(toolchain: Toolchain = findToolchain()): Promise<RuntimeArtifact> {
  return (await startRuntimeBuild(toolchain)).ready;
}

/**
 * Starts building the runtime object unless it is cached; resolves once its compilers run,
 * so synchronous work after the await (the compiler's pipeline) overlaps them.
 */
export async function startRuntimeBuild(toolchain: Toolchain = findToolchain()): Promise<RuntimeBuild> {
  const sources = await readRuntimeSources();
  const key = hashValue({ sources, C_FLAGS, CXX_FLAGS, clang: toolchain.clang });
  const object = path.join(cacheRoot(), 'runtime', `anydsl_runtime-${key.slice(0, 32)}.o`);
  let pending = inProcess.get(object);
  if (!pending) {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    pending = ensureObject(object, sources, toolchain, started).then(() => ({ key, objects: [object], linkFlags: [...RUNTIME_LINK_FLAGS] }));
    // A failed build is not remembered, so fixing the environment and retrying works.
    pending.catch(() => inProcess.delete(object));
    inProcess.set(object, pending);
    await Promise.race([running, pending.then(() => {}, () => {})]);
  }
  return { key, ready: pending };
}

interface RuntimeSource {
  name: string;
  text: string;
}

async function readRuntimeSources(): Promise<RuntimeSource[]> {
  const names = (await readdir(runtimeSourceDir)).filter((n) => /\.(c|cpp|h)$/.test(n)).sort();
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(path.join(runtimeSourceDir, name), 'utf8') })));
}

/** `started` is called once the unit compiles are running (they are started together). */
async function ensureObject(object: string, sources: RuntimeSource[], toolchain: Toolchain, started: () => void): Promise<void> {
  if (await exists(object)) return;
  const scratch = await makeScratchDir(path.dirname(object));
  try {
    // The texts that were hashed are compiled, not the files on disk: a source edited between
    // the read and the compile would otherwise put old code under the new text's key.
    const copies = path.join(scratch, 'src');
    await mkdir(copies);
    await Promise.all(sources.map(({ name, text }) => writeFile(path.join(copies, name), text)));
    const units = sources.filter((s) => !s.name.endsWith('.h'));
    const compiles = units.map(({ name }) => {
      const out = path.join(scratch, `${name}.o`);
      const flags = name.endsWith('.cpp') ? CXX_FLAGS : C_FLAGS;
      return runTool(toolchain.clang, [...flags, '-c', path.join(copies, name), '-o', out]).then(() => out);
    });
    started();
    const objects = await Promise.all(compiles);
    const merged = path.join(scratch, 'anydsl_runtime.o');
    await runTool(toolchain.clang, ['-r', `--ld-path=${toolchain.lld}`, ...objects, '-o', merged]);
    await publishFile(merged, object);
  } catch (e) {
    throw e instanceof ToolFailure ? new RuntimeBuildError(e) : e;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
