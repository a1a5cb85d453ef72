// What every benchmark needs to run a native reference (Halide, OpenCV, Embree, Parasail,
// SeqAn, SSW, EMBOSS): running a process and collecting its output (killed at a time limit
// where one is given), the Debian packages a reference needs (installed as root when
// missing, otherwise named with the command that installs them), and building a C/C++
// driver once per source, compiler and CPU into .cache/bench, renamed into place so
// concurrent builds never see half a file.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Exec {
  /** Whether it exited with status 0 (not when it could not start, was killed or timed out). */
  ok: boolean;
  stdout: string;
  stderr: string;
  /** Whether it was killed at `limitMs` (then `ok` is false). */
  timedOut: boolean;
  /** The signal that ended it, if one did (SIGKILL at the limit; SIGABRT for an abort). */
  signal?: NodeJS.Signals;
  /** Its exit status, if it exited. */
  status?: number;
}

export interface ExecOptions {
  /** Hears the output so far whenever more arrives. */
  onStdout?: (stdout: string) => void;
  /**
   * Kills the process (SIGKILL) once it has run this many milliseconds: a generator or an
   * autoscheduler that searches for longer than a run can wait. 0 or absent: no limit.
   */
  limitMs?: number;
}

/** Runs `cmd` to completion or to the time limit of `options`. Never rejects. */
export function exec(cmd: string, args: readonly string[], options: ExecOptions = {}): Promise<Exec> {
  const { onStdout, limitMs = 0 } = options;
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    // setTimeout fires at once for a delay beyond 2^31 − 1 ms (24 days): that is no limit.
    const timer =
      limitMs > 0 && limitMs < 2 ** 31
        ? setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, limitMs)
        : undefined;
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
      onStdout?.(stdout);
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, stdout, stderr: `${stderr}${e.message}`, timedOut: false });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ ok: code === 0 && !timedOut, stdout, stderr, timedOut, ...(signal ? { signal } : {}), ...(code !== null ? { status: code } : {}) });
    });
  });
}

// ------------------------------------------------------------ Debian packages

/** A Debian package and how to tell it is installed (a header, a tool that answers). */
export interface DebianPackage {
  apt: string;
  present: () => boolean | Promise<boolean>;
}

export const GXX: DebianPackage = { apt: 'g++', present: async () => (await exec('g++', ['--version'])).ok };

/** A package is present when `file` exists. */
export const byFile = (apt: string, file: string): DebianPackage => ({ apt, present: () => existsSync(file) });

/** The names of the packages of `packages` that are not installed, without repeats. */
export async function missingPackages(packages: readonly DebianPackage[]): Promise<string[]> {
  const missing = new Set<string>();
  for (const p of packages) if (!(await p.present())) missing.add(p.apt);
  return [...missing];
}

/** The one-line error for `title` whose packages are missing, with the command that installs them. */
export function notInstalled(title: string, packages: readonly string[]): Error {
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  const list = packages.join(' ');
  return new Error(`${title} needs the Debian package${packages.length > 1 ? 's' : ''} ${list}, not installed here; install with: ${sudo}apt-get install -y ${list}`);
}

/**
 * Installs the missing ones of `packages` with apt-get when running as root; otherwise says
 * on stderr which are needed and how to install them. `label` starts each message (the
 * benchmark's name). Returns the packages still missing afterwards.
 */
export async function installMissing(label: string, packages: readonly DebianPackage[]): Promise<string[]> {
  const missing = await missingPackages(packages);
  if (missing.length === 0) return [];
  if (process.getuid?.() !== 0) {
    console.error(`${label}: the references need ${missing.join(' ')}; install them with\n  sudo apt-get install -y ${missing.join(' ')}`);
    return missing;
  }
  console.error(`${label}: installing ${missing.join(' ')} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: ['ignore', 'ignore', 'inherit'], env });
  const still = await missingPackages(packages);
  if (r.status !== 0 || still.length > 0) console.error(`${label}: apt-get install ${missing.join(' ')} failed; the references that need ${still.join(' ')} are skipped`);
  return still;
}

// ------------------------------------------------------------ building drivers

/**
 * The cache directory for what is built from `sources` (absolute paths) and `extra` (what
 * else changes the result: library version, flags): `.cache/bench/<group>-<hash>`, where the
 * hash covers the sources, the compiler's version and the CPU model.
 */
export async function cacheDir(group: string, sources: readonly string[], extra = ''): Promise<string> {
  const hash = createHash('sha256');
  for (const f of sources) hash.update(`${path.basename(f)}\0${readFileSync(f)}\0`);
  hash.update((await exec('g++', ['--version'])).stdout);
  hash.update(`${extra}\0${os.cpus()[0]?.model ?? ''}`);
  const dir = path.join(root, '.cache', 'bench', `${group}-${hash.digest('hex').slice(0, 16)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Compiles `exe` into `dir` with `compiler` and `args` (sources, flags, libraries) unless it
 * is there; the build goes to a private name first and is renamed into place, so concurrent
 * builds never see half a file. A failure is one line pointing at the compiler's output, kept
 * next to where the executable would be.
 */
export async function buildExecutable(compiler: string, dir: string, exe: string, args: readonly string[]): Promise<string> {
  const file = path.join(dir, exe);
  if (existsSync(file)) return file;
  const tmp = `${file}.${process.pid}.tmp`;
  const r = await exec(compiler, [...args, '-o', tmp]);
  if (!r.ok) {
    const log = `${file}.log`;
    await writeFile(log, r.stdout + r.stderr);
    throw new Error(`building ${exe} with ${compiler} failed; its output is in ${path.relative(process.cwd(), log)}`);
  }
  await rename(tmp, file);
  return file;
}

/** `buildExecutable` with g++, which the C++ references are built with. */
export function gxx(dir: string, exe: string, args: readonly string[]): Promise<string> {
  return buildExecutable('g++', dir, exe, args);
}
