// The NVVM backend: the kernels of `cuda` and `nvvm` launches (transform/kernels.ts) as
// LLVM 19 IR for NVPTX, the CPU backend's emitter with the target's triple and data
// layout. Kernels are marked by `nvvm.annotations` (LLVM 19's NVPTX backend reads the
// kernel property there); `reserve_shared` arrays are module-level globals in address
// space 3; the work-item queries and the barrier are the `llvm.nvvm.*` intrinsics the
// prelude declares, and the math NVPTX lacks (sin, cos, exp, log, pow) calls libdevice's
// `__nv_*` functions when the CUDA toolkit's libdevice is there. Pointers stay generic
// (address space 0): a device pointer the CUDA driver hands out is a valid generic
// address, so kernels take buffers as plain `ptr`.
// The driver turns the text into PTX with llc-19 and checks it with ptxas
// (driver/device-code.ts).
import type { Continuation } from '../ir/defs.ts';
import { fail } from './errors.ts';
import { emitFunction } from './llvm-function.ts';
import { ModuleContext } from './llvm-module.ts';
import { symbol } from './names.ts';
import { collectProgram } from './program.ts';

export const NVPTX_TRIPLE = 'nvptx64-nvidia-cuda';
/** LLVM's NVPTX64 layout: 64-bit pointers in every address space, as ir/layout.ts's X86_64 target. */
export const NVPTX_DATA_LAYOUT = 'e-i64:64-i128:128-v16:16-v32:32-n16:32:64';

/** The prelude's math intrinsics NVPTX has no instruction for, which libdevice provides as `__nv_<name>[f]`. */
const LIBDEVICE_MATH = /^llvm\.(sin|cos|exp|log|pow)\.(f32|f64)$/;

/** The libdevice function for an import of the prelude's math, or null when NVPTX has it itself. */
export function libdeviceName(name: string): string | null {
  const m = LIBDEVICE_MATH.exec(name);
  return m ? `__nv_${m[1]}${m[2] === 'f32' ? 'f' : ''}` : null;
}

/**
 * The device module of `kernels` (exported `device` continuations named as their kernels).
 * With `libdevice`, the math NVPTX lacks calls libdevice's functions, which the driver links in.
 */
export function emitNVVM(kernels: readonly Continuation[], opts: { libdevice?: boolean; moduleName?: string } = {}): string {
  const program = collectProgram(kernels);
  // What a GPU has no code for is refused here, where ptxas may be absent to notice it.
  for (const c of program.imports) {
    const name = c.linkName ?? c.name;
    if (c.cc !== 'device') fail(null, `calls the host function '${name}' in a GPU kernel`);
    if (!name.startsWith('llvm.')) fail(null, `calls '${name}', which NVVM kernels do not have (an OpenCL built-in?)`);
  }
  const mod = new ModuleContext(program, true, (name) => (opts.libdevice ? libdeviceName(name) ?? name : name));
  const functions = mod.program.functions.map((f) => emitFunction(mod, f));
  const annotations = kernels.map((k, i) => `!${i} = !{ptr @${symbol(k.linkName ?? k.name)}, !"kernel", i32 1}`);
  mod.addTrailer(`!nvvm.annotations = !{${kernels.map((_, i) => `!${i}`).join(', ')}}`);
  for (const a of annotations) mod.addTrailer(a);
  return mod.text(opts.moduleName ?? 'anydsl_nvvm', NVPTX_TRIPLE, functions, NVPTX_DATA_LAYOUT);
}
