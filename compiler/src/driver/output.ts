// How every output file is written without ever losing data: the `impala` CLI's
// executables, libraries and IR, the artifact cache's entries, and the apps' images (and
// later scenes, alignments and boards; apps reach this through @anydsl/compiler). The path
// is checked before any work, so a bad -o fails at once and not after a minute of
// compiling, and the bytes go to a temporary file beside the target that is renamed over
// it only once they are on disk. A full disk, an error or an interrupt leaves the target
// as it was and no temporary behind.
import { randomBytes } from 'node:crypto';
import { constants, createReadStream, createWriteStream, unlinkSync } from 'node:fs';
import { access, lstat, mkdtemp, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/** A file that cannot be written: a one-line message naming it and why, for the user. */
export class OutputError extends Error {}

/**
 * Checks that `file` can be written before any work: its extension is one of `extensions`
 * when given (the format follows the extension), its directory exists and is writable, and
 * it is not a directory. Returns the path to write, the file a symbolic link points to when
 * it is one, so the link stays a link. Errors are one line naming the path and why.
 */
export async function checkOutputPath(file: string, extensions?: readonly string[]): Promise<string> {
  const fail = (why: string) => new OutputError(`cannot write '${file}': ${why}`);
  const lower = file.toLowerCase();
  if (extensions && !extensions.some((ext) => lower.endsWith(ext))) {
    const ext = path.extname(file);
    throw fail(`${ext ? `'${ext}' is not` : 'a name without an extension is not'} an output format; the extension picks it: ${extensions.join(', ')}`);
  }
  const existing = await lstat(file).catch(() => undefined);
  let target = file;
  if (existing?.isSymbolicLink()) {
    target = await realpath(file).catch(() => {
      throw fail('it is a symbolic link to nothing');
    });
  }
  const entry = target === file ? existing : await stat(target);
  if (entry?.isDirectory()) throw fail('it is a directory');
  // A device or a pipe (`-o /dev/null`, `-o /dev/stdout`) is written to as it is: nothing there to lose.
  if (entry && !entry.isFile()) {
    if (entry.isCharacterDevice() || entry.isFIFO()) return target;
    throw fail('it is not a regular file');
  }
  const dir = path.dirname(target);
  const dirEntry = await stat(dir).catch((e: NodeJS.ErrnoException) => e);
  if (dirEntry instanceof Error) throw fail(dirEntry.code === 'ENOENT' ? `no such directory '${dir}'` : `directory '${dir}': ${reason(dirEntry)}`);
  if (!dirEntry.isDirectory()) throw fail(`'${dir}' is not a directory`);
  // The temporary file is created in the directory, so that is what must be writable.
  await access(dir, constants.W_OK).catch((e: NodeJS.ErrnoException) => {
    throw fail(`directory '${dir}' is not writable (${reason(e)})`);
  });
  if (entry) {
    await access(target, constants.W_OK).catch((e: NodeJS.ErrnoException) => {
      throw fail(`the file is not writable (${reason(e)})`);
    });
  }
  return target;
}

/** Temporaries being written, removed if a signal ends the process first. */
const pending = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function onSignal(signal: NodeJS.Signals): void {
  for (const tmp of pending) {
    try {
      unlinkSync(tmp);
    } catch {
      // Already renamed or removed: nothing is left behind either way.
    }
  }
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  // Without our listener the signal does what it would have done: end the process.
  process.kill(process.pid, signal);
}

/**
 * Replaces `file` with `bytes` atomically: a temporary `.<name>.<random>.tmp` in the same
 * directory (so the rename stays on one file system) is written, flushed to disk and
 * renamed over `file`; an existing file's permissions carry over. On failure the temporary
 * is removed, `file` is untouched and the error is one line naming it.
 */
export async function writeFileAtomic(file: string, bytes: string | Uint8Array): Promise<void> {
  const mode = (await stat(file).catch(() => undefined))?.mode;
  await replaceAtomic(file, async (tmp) => {
    const handle = await open(tmp, 'wx', 0o666);
    try {
      if (mode !== undefined) await handle.chmod(mode & 0o7777);
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
  });
}

/**
 * Replaces `file` with what `produce` writes to the temporary path it is given (clang's
 * `-o`, a copy out of the cache), with writeFileAtomic's guarantees; the produced file
 * keeps the permissions its producer gave it.
 */
export async function replaceAtomic(file: string, produce: (tmp: string) => Promise<void>): Promise<void> {
  const existing = await stat(file).catch(() => undefined);
  if (existing && (existing.isCharacterDevice() || existing.isFIFO())) return streamInto(file, produce);
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  if (pending.size === 0) for (const s of SIGNALS) process.on(s, onSignal);
  pending.add(tmp);
  try {
    await produce(tmp);
    await syncFile(tmp);
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    // Only the file system's own failures are about writing; a producer's (a linker's) stay theirs.
    if (typeof code === 'string' && code.startsWith('E')) throw new OutputError(`cannot write '${file}': ${reason(e as NodeJS.ErrnoException)}`);
    throw e;
  } finally {
    pending.delete(tmp);
    if (pending.size === 0) for (const s of SIGNALS) process.removeListener(s, onSignal);
  }
  await syncDirectory(dir);
}

/** A device or pipe cannot be renamed over: the output is produced beside the program's temporary files, then streamed in. */
async function streamInto(device: string, produce: (tmp: string) => Promise<void>): Promise<void> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'anydsl-out-'));
  try {
    const tmp = path.join(scratch, 'output');
    await produce(tmp);
    await pipeline(createReadStream(tmp), createWriteStream(device));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the rename itself durable; a file system that cannot sync a directory has nothing to lose by it. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on directories; the data itself is already synced.
  }
}

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EIO: 'input/output error',
  ENOTDIR: 'a component of the path is not a directory',
};

function reason(e: NodeJS.ErrnoException): string {
  return (e.code && REASONS[e.code]) ?? e.message;
}
