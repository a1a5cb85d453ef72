// Device code: after the last pass, the kernels that transform/kernels.ts extracted are
// compiled per target and embedded in the host module. NVVM kernels become LLVM IR for
// NVPTX (backend/nvvm.ts), linked with the CUDA toolkit's libdevice where its math is
// needed and found, optimised by opt-19 -O3, and PTX through llc-19 for `sm_90` (the newest architecture
// LLVM 19 and CUDA 12+ share; the CUDA driver JIT-compiles PTX for the device present),
// which ptxas assembles at build time when it is on the PATH, so a kernel the GPU would
// reject is a compile error here and not a failure at run time. OpenCL kernels become
// OpenCL C source (backend/opencl.ts), which the OpenCL driver compiles at run time.
//
// The text of each target's program goes into the two placeholder globals the host's
// launches point at (its content hash as the program key, and the program), so the host
// library carries its kernels and the artifact cache holds both as one file.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackendError } from '../backend/errors.ts';
import { emitNVVM, NVPTX_TRIPLE } from '../backend/nvvm.ts';
import { emitOpenCL } from '../backend/opencl.ts';
import type { Continuation } from '../ir/defs.ts';
import type { World } from '../ir/world.ts';
import { CompileError, type Span } from '../syntax/diagnostics.ts';
import { cString, type DeviceTarget, kernelContinuations, programGlobals } from '../transform/kernels.ts';
import { findToolchain } from './toolchain.ts';

/** The architecture PTX is generated and checked for when no device says otherwise. */
export const PTX_ARCH = 'sm_90';

export interface DeviceProgram {
  target: DeviceTarget;
  /** The kernels' names, in launch order. */
  kernels: string[];
  /** What the runtime loads: PTX for nvvm, OpenCL C source for opencl. */
  code: string;
  /** The NVVM IR the PTX came from (nvvm only). */
  llvm?: string;
}

/** Compiles every target's kernels in `world` and embeds each program in the host code. Throws CompileError. */
export function buildDevicePrograms(world: World): DeviceProgram[] {
  const programs: DeviceProgram[] = [];
  for (const target of ['nvvm', 'opencl'] as const) {
    const kernels = kernelContinuations(world, target);
    if (!kernels.length) continue;
    const names = kernels.map((k) => k.linkName!);
    const libdevice = target === 'nvvm' ? findLibdevice() : null;
    const text = generate(target, kernels, libdevice !== null);
    if (target === 'nvvm') {
      const code = ptxOf(text, libdevice, kernels[0]!.span);
      checkPtx(code, kernels[0]!.span);
      programs.push({ target, kernels: names, code, llvm: text });
    } else {
      programs.push({ target, kernels: names, code: text });
    }
    embed(world, programs[programs.length - 1]!);
  }
  return programs;
}

/**
 * The device code of `kernels`; a kernel the backend cannot compile (it calls a host
 * function, allocates, uses a type the target lacks) is the user's error, located at the kernel.
 */
function generate(target: DeviceTarget, kernels: readonly Continuation[], libdevice: boolean): string {
  const emit = (ks: readonly Continuation[]): string => (target === 'nvvm' ? emitNVVM(ks, { libdevice }) : emitOpenCL(ks));
  try {
    return emit(kernels);
  } catch (e) {
    if (!(e instanceof BackendError)) throw e;
    // Which kernel: each on its own again (only on this error path).
    const culprit = kernels.find((k) => {
      try {
        emit([k]);
        return false;
      } catch {
        return true;
      }
    });
    const what = e.message.replace(/^internal error \(backend\): (in '[^']*': )?/, '');
    throw located((culprit ?? kernels[0]!).span, `this GPU kernel cannot be compiled for ${target === 'nvvm' ? 'NVVM' : 'OpenCL'}: ${what}`);
  }
}

function embed(world: World, program: DeviceProgram): void {
  const globals = programGlobals(world, program.target);
  if (!globals) return;
  const key = `${program.target}-${createHash('sha256').update(program.code).digest('hex').slice(0, 32)}`;
  world.replace(globals.key, world.global(cString(world, key), false, `anydsl_${program.target}_program_key`));
  world.replace(globals.program, world.global(cString(world, program.code), false, `anydsl_${program.target}_program`));
}

function located(span: Span | null, message: string): CompileError {
  return new CompileError([{ severity: 'error', span, message }]);
}

/**
 * libdevice.10.bc of the CUDA toolkit ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda*, Debian's
 * nvidia-cuda-toolkit), or null.
 */
export function findLibdevice(): string | null {
  const roots = [process.env.CUDA_HOME, process.env.CUDA_PATH, '/usr/local/cuda'].filter((r): r is string => !!r);
  try {
    roots.push(...readdirSync('/usr/local').filter((d) => d.startsWith('cuda-')).sort().reverse().map((d) => path.join('/usr/local', d)));
  } catch {
    // no /usr/local
  }
  const candidates = [...roots.map((r) => path.join(r, 'nvvm', 'libdevice', 'libdevice.10.bc')), '/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc'];
  return candidates.find((f) => existsSync(f)) ?? null;
}

/**
 * PTX of NVVM IR, from llc-19, after linking the libdevice functions it calls (llvm-link-19
 * beside llc) and LLVM's -O3 pipeline (opt-19 beside llc): llc only generates code, so
 * without opt every call the backend emits stays a PTX call (the work-item queries and
 * boundary index helpers in every kernel's innermost code: 756 call sites in box3's two
 * CUDA variants), nothing is inlined, and loops are neither unrolled nor hoisted. What
 * llc refuses (math NVPTX has no instruction for, without libdevice) is a located error.
 */
function ptxOf(llvm: string, libdevice: string | null, span: Span | null): string {
  const llc = findToolchain().llc;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'anydsl-nvvm-'));
  try {
    let input = path.join(dir, 'kernels.ll');
    writeFileSync(input, llvm);
    if (libdevice && llvm.includes('@__nv_')) {
      const linked = path.join(dir, 'linked.bc');
      tool(beside(llc, 'llvm-link'), ['--only-needed', '--suppress-warnings', input, libdevice, '-o', linked], span);
      input = linked;
    }
    const optimized = path.join(dir, 'optimized.bc');
    // opt and llc optimise for the same target: the device's triple and architecture.
    const target = [`-mtriple=${NVPTX_TRIPLE}`, `-mcpu=${PTX_ARCH}`, '-O3'];
    tool(beside(llc, 'opt'), [...target, input, '-o', optimized], span);
    return tool(llc, [...target, '-o', '-', optimized], span);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The LLVM 19 tool `name` in llc's directory (versioned or not), else `<name>-19` from the PATH. */
function beside(llc: string, name: string): string {
  return [path.join(path.dirname(llc), `${name}-19`), path.join(path.dirname(llc), name)].find((f) => existsSync(f)) ?? `${name}-19`;
}

/** Runs an LLVM tool on the kernels' code; its failure is a located error naming it. */
function tool(file: string, args: readonly string[], span: Span | null): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? (e as Error).message).trim().split('\n').slice(0, 3).join('; ');
    throw located(span, `the NVVM backend cannot compile this GPU kernel: ${path.basename(file)} says: ${stderr}`);
  }
}

/** The ptxas on the PATH, or null. */
export function findPtxas(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir || '.', 'ptxas');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** Assembles `ptx` with ptxas when there is one; its errors become a located compile error. */
export function checkPtx(ptx: string, span: Span | null): void {
  const ptxas = findPtxas();
  if (!ptxas) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'anydsl-ptx-'));
  try {
    const file = path.join(dir, 'kernels.ptx');
    writeFileSync(file, ptx);
    execFileSync(ptxas, [`-arch=${PTX_ARCH}`, file, '-o', path.join(dir, 'kernels.cubin')], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? (e as Error).message).trim().split('\n').slice(0, 3).join('; ');
    throw located(span, `ptxas -arch=${PTX_ARCH} rejects the PTX of this GPU kernel: ${stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
