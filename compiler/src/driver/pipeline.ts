// The compilation pipeline from Impala sources to LLVM IR text:
// syntax -> sema -> emit -> ir World -> pe/transform -> backend.
// The driver (build, compile, CLI) only talks to the compiler through this module.
import type { Diagnostic, SourceFile } from '../syntax/diagnostics.ts';

export type OptLevel = 0 | 1 | 2 | 3;

export interface FrontendOptions {
  optLevel: OptLevel;
  /** LLVM CPU name; the driver passes 'native' unless --target-cpu says otherwise. */
  targetCpu?: string;
  /** Print each specialisation the partial evaluator makes (callee, arguments, reason) to stderr. */
  peTrace?: boolean;
}

/** C-level types of exported functions, for the koffi loader. */
export type CType = 'void' | 'bool' | 'i8' | 'i16' | 'i32' | 'i64' | 'u8' | 'u16' | 'u32' | 'u64' | 'f32' | 'f64' | 'ptr';

export interface ExportedFn {
  name: string;
  params: CType[];
  ret: CType;
}

export type PipelineResult =
  | {
      ok: true;
      /** Textual LLVM 19 IR (opaque pointers). Defines `main` with the C signature when the program has one. */
      llvm: string;
      /** The CPS graph IR after all transformations, as printed by --emit-ir. */
      irText: string;
      exports: ExportedFn[];
      hasMain: boolean;
      diagnostics: Diagnostic[];
    }
  | { ok: false; diagnostics: Diagnostic[] };

export function compileToLLVM(sources: readonly SourceFile[], opts: FrontendOptions): PipelineResult {
  void sources;
  void opts;
  throw new Error('pipeline: not wired yet');
}
