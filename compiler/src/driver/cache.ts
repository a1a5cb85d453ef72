// The artifact cache: compiled outputs keyed by a content hash of everything that
// decides their bytes (sources, options, the compiler's own code), so a warm run skips
// the whole pipeline and the toolchain. Several processes share it (vitest runs test
// files in parallel), so every entry appears by an atomic rename, never half-written.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourceFile } from '../syntax/diagnostics.ts';

/** The repository root; this file lives in compiler/src/driver. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** `ANYDSL_CACHE` when set (tests point it at a temp dir), else `<repo>/.cache/anydsl`. */
export function cacheRoot(): string {
  const fromEnv = process.env.ANYDSL_CACHE;
  return fromEnv ? path.resolve(fromEnv) : path.join(repoRoot, '.cache', 'anydsl');
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hashes a JSON-like value with object keys sorted, so key order never changes a hash. */
export function hashValue(value: unknown): string {
  return sha256(stableJson(value));
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

let version: string | undefined;

/**
 * A hash of the compiler's own sources (compiler/src and compiler/lib): any edit to the
 * compiler or the prelude invalidates every cached artifact. Test files are left out
 * because they cannot change what the compiler produces.
 */
export function compilerVersion(): string {
  if (version === undefined) {
    const hash = createHash('sha256');
    for (const dir of ['compiler/src', 'compiler/lib']) {
      for (const rel of listFiles(path.join(repoRoot, dir))) {
        if (rel.endsWith('.test.ts')) continue;
        hash.update(`${dir}/${rel}\0`);
        hash.update(readFileSync(path.join(repoRoot, dir, rel)));
        hash.update('\0');
      }
    }
    version = hash.digest('hex');
  }
  return version;
}

function listFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    if (e.isDirectory()) out.push(...listFiles(path.join(dir, e.name)).map((f) => `${e.name}/${f}`));
    else if (e.isFile()) out.push(e.name);
  }
  return out.sort();
}

/** The key of an artifact built from `sources` with `options` by this version of the compiler. */
export function artifactKey(sources: readonly SourceFile[], options: Record<string, unknown>): string {
  return hashValue({
    compiler: compilerVersion(),
    options,
    sources: sources.map((s) => ({ path: s.path, text: s.text })),
  });
}

/**
 * The part of a native artifact's key that names the machine code: the CPU, and for
 * 'native' the host's CPU model, since 'native' means different code on different
 * machines sharing one cache directory.
 */
export function nativeTarget(targetCpu: string): { targetCpu: string; hostCpu: string | undefined } {
  return { targetCpu, hostCpu: targetCpu === 'native' ? (os.cpus()[0]?.model ?? 'unknown') : undefined };
}

/** An entry's metadata when the entry is complete (meta.json, written last, and its artifact present); otherwise undefined. */
export async function readEntryMeta<T>(metaPath: string, artifact: string): Promise<T | undefined> {
  try {
    const meta = JSON.parse(await readFile(metaPath, 'utf8')) as T;
    await stat(artifact);
    return meta;
  } catch {
    return undefined;
  }
}

/** A fresh directory for in-progress work inside `parent`, on the same file system as the entry it will become. */
export async function makeScratchDir(parent: string): Promise<string> {
  await mkdir(parent, { recursive: true });
  const dir = path.join(parent, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  await mkdir(dir);
  return dir;
}

/** Moves a finished file into place; rename replaces atomically, so readers see the old file or the new one. */
export async function publishFile(finished: string, destination: string): Promise<void> {
  await mkdir(path.dirname(destination), { recursive: true });
  await rename(finished, destination);
}
