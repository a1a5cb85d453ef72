// The CPU backend: a World in control-flow form as textual LLVM 19 IR (its GPU kernels
// go to nvvm.ts and opencl.ts).
import type { World } from '../ir/world.ts';
import { isKernel } from '../transform/kernels.ts';
import { emitFunction } from './llvm-function.ts';
import { ModuleContext } from './llvm-module.ts';
import { collectProgram } from './program.ts';

export interface LLVMOptions {
  /** Defaults to x86-64 Linux, the data layout `sizeof` assumes. */
  targetTriple?: string;
  moduleName?: string;
}

/**
 * Emits every function reachable from the World's exported continuations. Throws a
 * BackendError (naming the continuation) for IR outside what the backend may assume
 * (see ir/README.md), never emitting invalid LLVM.
 */
export function emitLLVM(world: World, opts: LLVMOptions = {}): string {
  // GPU kernels are exported too, to the device backends (nvvm.ts, opencl.ts).
  const roots = [...world.continuations].filter((c) => c.external && c.hasBody && !isKernel(c));
  const mod = new ModuleContext(collectProgram(roots));
  const functions = mod.program.functions.map((f) => emitFunction(mod, f));
  return mod.text(opts.moduleName ?? 'anydsl', opts.targetTriple ?? 'x86_64-pc-linux-gnu', functions);
}
