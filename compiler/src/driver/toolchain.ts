// The LLVM 19 toolchain: finding clang-19, llc-19 and ld.lld-19, and turning the
// backend's textual LLVM IR into native code. LLVM IR text is the contract with these
// tools, so a clang failure on generated IR is a compiler bug and is reported with
// clang's own stderr and the IR file kept for inspection.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { OptLevel } from './pipeline.ts';
import type { StageTimer } from './timings.ts';

/** The Debian packages that provide everything the driver and the runtime build need. */
export const TOOLCHAIN_PACKAGES = ['clang-19', 'llvm-19', 'lld-19', 'libtbb-dev'] as const;

export interface Toolchain {
  clang: string;
  llc: string;
  lld: string;
}

/**
 * Where to look: versioned names (`clang-19`) in `pathDirs`, unversioned names (`clang`)
 * in `llvmDirs`, which hold exactly one LLVM version.
 */
export interface ToolSearch {
  pathDirs: readonly string[];
  llvmDirs: readonly string[];
}

function defaultToolSearch(): ToolSearch {
  return {
    pathDirs: (process.env.PATH ?? '').split(path.delimiter).filter((d) => d !== ''),
    llvmDirs: ['/usr/lib/llvm-19/bin'],
  };
}

const TOOL_NAMES: Record<keyof Toolchain, { versioned: string; plain: string }> = {
  clang: { versioned: 'clang-19', plain: 'clang' },
  llc: { versioned: 'llc-19', plain: 'llc' },
  lld: { versioned: 'ld.lld-19', plain: 'ld.lld' },
};

/** The toolchain is absent: an environment problem, not a compiler bug. */
export class MissingToolchainError extends Error {
  constructor(readonly missing: string[], search: ToolSearch) {
    const searched = [...search.pathDirs, ...search.llvmDirs].join(', ') || '(nothing)';
    super(
      `the LLVM 19 toolchain is missing: ${missing.join(', ')} not found (searched ${searched}).\n` +
        `Install the Debian packages: sudo apt-get install -y ${TOOLCHAIN_PACKAGES.join(' ')}\n` +
        `(or run \`npm test\` / \`npm start\` as root, whose setup step installs them)`,
    );
    this.name = 'MissingToolchainError';
  }
}

/** A tool ran and failed; `stderr` is what it said. */
export class ToolFailure extends Error {
  constructor(
    readonly tool: string,
    readonly args: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | null,
    /** The input file kept for inspection, when the failure was on generated code. */
    readonly keptInput?: string,
  ) {
    super(`${path.basename(tool)} failed (exit ${exitCode ?? 'by signal'})${keptInput ? `; input kept at ${keptInput}` : ''}:\n${stderr.trimEnd()}`);
    this.name = 'ToolFailure';
  }
}

/** Linking failed after the IR compiled: typically an undefined symbol, i.e. a user's `extern "C"` function that exists nowhere. */
export class LinkFailure extends ToolFailure {
  constructor(failure: ToolFailure, keptInput: string) {
    super(failure.tool, failure.args, failure.stderr, failure.exitCode, keptInput);
    this.name = 'LinkFailure';
  }
}

let defaultToolchain: Toolchain | undefined;

/** Finds the tools; the default search is done once per process. Throws MissingToolchainError. */
export function findToolchain(search?: ToolSearch): Toolchain {
  if (!search && defaultToolchain) return defaultToolchain;
  const where = search ?? defaultToolSearch();
  const found: Partial<Toolchain> = {};
  const missing: string[] = [];
  for (const [key, names] of Object.entries(TOOL_NAMES) as [keyof Toolchain, (typeof TOOL_NAMES)[keyof Toolchain]][]) {
    const hit =
      where.pathDirs.map((d) => path.join(d, names.versioned)).find(isExecutable) ??
      where.llvmDirs.map((d) => path.join(d, names.plain)).find(isExecutable);
    if (hit) found[key] = hit;
    else missing.push(names.versioned);
  }
  if (missing.length > 0) throw new MissingToolchainError(missing, where);
  const toolchain = found as Toolchain;
  if (!search) defaultToolchain = toolchain;
  return toolchain;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs a tool to completion; rejects with ToolFailure on a non-zero exit or when it cannot start. */
export function runTool(tool: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => reject(new ToolFailure(tool, args, `cannot run ${tool}: ${e.message}`, null)));
    child.on('close', (code) => {
      if (code === 0) resolve({ stdout, stderr });
      else reject(new ToolFailure(tool, args, stderr, code));
    });
  });
}

/** What linking against the runtime takes; produced by runtime-build.ts. */
export interface RuntimeLink {
  objects: readonly string[];
  linkFlags: readonly string[];
}

export interface NativeOptions {
  optLevel?: OptLevel;
  /** An LLVM CPU name passed as `-march`; default 'native' (the machine that runs the build). */
  targetCpu?: string;
  toolchain?: Toolchain;
  /** Collects clang's time as the stage 'clang'. */
  timer?: StageTimer;
}

export function llvmToExecutable(ir: string, output: string, runtime: RuntimeLink, opts: NativeOptions = {}): Promise<void> {
  return compileAndLink(ir, output, opts, runtime, []);
}

/** A shared library for dlopen/koffi; the runtime is linked in statically so the library is self-contained. */
export function llvmToSharedLibrary(ir: string, output: string, runtime: RuntimeLink, opts: NativeOptions = {}): Promise<void> {
  return compileAndLink(ir, output, opts, runtime, ['-shared']);
}

export async function llvmToObject(ir: string, output: string, opts: NativeOptions = {}): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'anydsl-'));
  await compileIR(ir, dir, path.resolve(output), opts);
  await rm(dir, { recursive: true, force: true });
}

/** What clang says when the link step failed (after the IR compiled): the mark of a LinkFailure. */
export const LINKER_FAILED = /^clang(-\d+)?: error: linker command failed/m;

/**
 * One clang run from the IR to the linked output (one driver start instead of a compile
 * and a link run). Its stderr tells the failures apart: rejected IR is a compiler bug
 * (ToolFailure), a failed link, e.g. an unresolved symbol, is the program's (LinkFailure).
 * Either way the IR file is kept for inspection.
 */
async function compileAndLink(ir: string, output: string, opts: NativeOptions, runtime: RuntimeLink, linkMode: string[]): Promise<void> {
  const toolchain = opts.toolchain ?? findToolchain();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'anydsl-'));
  const input = path.join(dir, 'module.ll');
  await writeFile(input, ir);
  const args = [
    ...codegenFlags(opts), ...linkMode, input, ...runtime.objects,
    `--ld-path=${toolchain.lld}`, ...runtime.linkFlags, '-o', path.resolve(output),
  ];
  try {
    await clang(toolchain, args, opts);
  } catch (e) {
    if (!(e instanceof ToolFailure)) throw e;
    throw LINKER_FAILED.test(e.stderr) ? new LinkFailure(e, input) : new ToolFailure(e.tool, e.args, e.stderr, e.exitCode, input);
  }
  await rm(dir, { recursive: true, force: true });
}

/** Compiles the IR (written to `dir`) into `object`; returns the IR file's path. On failure the IR is kept for inspection. */
async function compileIR(ir: string, dir: string, object: string, opts: NativeOptions): Promise<string> {
  const toolchain = opts.toolchain ?? findToolchain();
  const input = path.join(dir, 'module.ll');
  await writeFile(input, ir);
  try {
    await clang(toolchain, [...codegenFlags(opts), '-c', input, '-o', object], opts);
  } catch (e) {
    throw e instanceof ToolFailure ? new ToolFailure(e.tool, e.args, e.stderr, e.exitCode, input) : e;
  }
  return input;
}

/** `-w`: clang's warnings on generated IR tell a user nothing, and would mix into a linker failure's report. */
function codegenFlags(opts: NativeOptions): string[] {
  return [`-O${opts.optLevel ?? 2}`, `-march=${opts.targetCpu ?? 'native'}`, '-fPIC', '-w'];
}

function clang(toolchain: Toolchain, args: readonly string[], opts: NativeOptions): Promise<unknown> {
  const run = () => runTool(toolchain.clang, args);
  return opts.timer ? opts.timer.timeAsync('clang', run) : run();
}
