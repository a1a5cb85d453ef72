// `impala` builds of executables and shared libraries through the artifact cache
// (cache.ts), as compile() builds its libraries: the same sources, options, runtime and
// compiler give the file back by a copy, without the pipeline or clang. The entry is the
// built file plus meta.json with the build's warnings, which a hit reports again.
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Diagnostic, SourceFile } from '../syntax/diagnostics.ts';
import { type BuildOptions, type BuildResult, buildProgram } from './build.ts';
import { artifactKey, cacheRoot, makeScratchDir, nativeTarget, publishFile, readEntryMeta } from './cache.ts';
import { replaceAtomic, writeFileAtomic } from './output.ts';
import { buildRuntime } from './runtime-build.ts';

interface EntryMeta {
  diagnostics: Diagnostic[];
}

/**
 * buildProgram, with executables and shared libraries taken from and added to the cache.
 * Other kinds, --pe-trace and --time-passes (which report on the pipeline) always build.
 */
export async function buildThroughCache(sources: SourceFile[], opts: BuildOptions): Promise<BuildResult & { cached?: boolean }> {
  if ((opts.kind !== 'exe' && opts.kind !== 'shared') || opts.peTrace || opts.timer) return buildProgram(sources, opts);
  let runtimeKey: string;
  try {
    runtimeKey = (await buildRuntime()).key;
  } catch {
    // buildProgram reports a missing toolchain or a broken runtime the usual way.
    return buildProgram(sources, opts);
  }
  const key = artifactKey(sources, { kind: opts.kind, optLevel: opts.optLevel ?? 2, ...nativeTarget(opts.targetCpu ?? 'native'), runtime: runtimeKey });
  const entry = path.join(cacheRoot(), 'cli', key.slice(0, 32));
  const artifact = path.join(entry, opts.kind === 'exe' ? 'program' : 'lib.so');
  const metaPath = path.join(entry, 'meta.json');

  const meta = await readEntryMeta<EntryMeta>(metaPath, artifact);
  // A hit that cannot be written (a missing directory, say) builds, so the error is the usual one.
  if (meta && (await copyInto(artifact, opts.output))) return { ok: true, output: opts.output, diagnostics: meta.diagnostics, cached: true };

  const result = await buildProgram(sources, opts);
  if (result.ok) await remember(entry, artifact, metaPath, opts.output, { diagnostics: result.diagnostics });
  return { ...result, cached: false };
}

/** Copies into place through replaceAtomic, so `output` never holds half a file; false when that fails. */
async function copyInto(from: string, output: string): Promise<boolean> {
  try {
    await replaceAtomic(output, (tmp) => copyFile(from, tmp));
    return true;
  } catch {
    return false;
  }
}

/** Adds a fresh build to the cache; the artifact first, meta.json last (present means complete). A cache that cannot be written is skipped. */
async function remember(entry: string, artifact: string, metaPath: string, built: string, meta: EntryMeta): Promise<void> {
  let scratch: string | undefined;
  try {
    scratch = await makeScratchDir(entry);
    const copy = path.join(scratch, path.basename(artifact));
    await copyFile(built, copy);
    await publishFile(copy, artifact);
    await writeFileAtomic(metaPath, JSON.stringify(meta));
  } catch {
    // The build itself succeeded; only the next one will not be faster.
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}
