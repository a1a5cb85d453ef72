// The compilation pipeline from Impala sources to LLVM IR text:
// syntax -> sema -> emit -> ir World -> the pass list (passes.ts) -> device code
// (device-code.ts, for GPU kernels) -> backend.
// The driver (build, compile, CLI) only talks to the compiler through this module.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { CompileError, type Diagnostic, DiagnosticSink, type SourceFile } from '../syntax/diagnostics.ts';
import { parseModule } from '../syntax/parser.ts';
import { checkProgram } from '../sema/check.ts';
import { type EmitResult, emitProgram } from '../emit/index.ts';
import { World } from '../ir/world.ts';
import { FnType, PrimType, PtrType, type IRType } from '../ir/types.ts';
import type { Continuation } from '../ir/defs.ts';
import { emitLLVM } from '../backend/llvm.ts';
import { printWorld } from '../ir/printer.ts';
import { kernelsOf } from '../transform/kernels.ts';
import { buildDevicePrograms, type DeviceProgram } from './device-code.ts';
import { runPasses } from './passes.ts';
import { type StageTimer, timed } from './timings.ts';

export type OptLevel = 0 | 1 | 2 | 3;

export interface FrontendOptions {
  optLevel: OptLevel;
  /** LLVM CPU name; the driver passes 'native' unless --target-cpu says otherwise. */
  targetCpu?: string;
  /** Print each specialisation the partial evaluator makes (callee, arguments, reason) to stderr. */
  peTrace?: boolean;
  /** Also print the final CPS graph (`irText`), for --emit-ir. */
  printIr?: boolean;
  /** Collects the time of each stage (parse, sema, emit, each pass, LLVM text). */
  timer?: StageTimer;
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
      /** The device programs of the GPU launches (PTX, OpenCL C), also embedded in `llvm`. */
      device: DeviceProgram[];
      /** The CPS graph IR after all transformations, as printed by --emit-ir; only with `printIr`. */
      irText?: string;
      exports: ExportedFn[];
      hasMain: boolean;
      diagnostics: Diagnostic[];
    }
  | { ok: false; diagnostics: Diagnostic[] };

const libDir = fileURLToPath(new URL('../../lib/', import.meta.url));

let preludeCache: SourceFile[] | null = null;

/** The Impala-side library every compilation sees (compiler/lib/*.impala). */
export function preludeSources(): SourceFile[] {
  preludeCache ??= readdirSync(libDir)
    .filter((f) => f.endsWith('.impala'))
    .sort()
    .map((f) => ({ path: `<prelude>/${f}`, text: readFileSync(join(libDir, f), 'utf8') }));
  return preludeCache;
}

export interface FrontEndResult {
  world: World;
  emitted: EmitResult;
}

/**
 * Parses, checks and emits `sources` (after the prelude) into a fresh World: the IR before
 * any transformation. Returns null when `sink` received errors. Tests interpret this
 * World to compare stages.
 */
export function frontEnd(sources: readonly SourceFile[], sink: DiagnosticSink, timer?: StageTimer): FrontEndResult | null {
  const prelude = preludeSources();
  const modules = timed(timer, 'parse', () => [...prelude, ...sources].map((s) => parseModule(s, sink)));
  if (sink.hasErrors) return null;
  const program = timed(timer, 'sema', () => checkProgram(modules, sink, { preludeModules: prelude.length }));
  if (sink.hasErrors) return null;
  const world = new World();
  const emitted = timed(timer, 'emit', () => emitProgram(program, world, sink));
  return sink.hasErrors ? null : { world, emitted };
}

export function compileToLLVM(sources: readonly SourceFile[], opts: FrontendOptions): PipelineResult {
  const sink = new DiagnosticSink();
  try {
    const front = frontEnd(sources, sink, opts.timer);
    if (!front) return { ok: false, diagnostics: sink.list };
    const { world, emitted } = front;
    const trace = opts.peTrace ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
    if (!runPasses(world, { sink, pe: { trace }, timer: opts.timer })) return { ok: false, diagnostics: sink.list };
    const device = kernelsOf(world).length ? timed(opts.timer, 'device-code', () => buildDevicePrograms(world)) : [];
    const llvm = timed(opts.timer, 'llvm-text', () => emitLLVM(world, { moduleName: sources[0]?.path ?? 'impala' }));
    return {
      ok: true,
      llvm,
      device,
      irText: opts.printIr ? printWorld(world) : undefined,
      exports: emitted.exports.map(exportedSignature),
      hasMain: emitted.main !== null,
      diagnostics: sink.list,
    };
  } catch (e) {
    if (e instanceof CompileError) return { ok: false, diagnostics: [...sink.list, ...e.diagnostics] };
    throw e;
  }
}

function exportedSignature(c: Continuation): ExportedFn {
  const params = c.fnType.params;
  const ret = params[params.length - 1] as FnType;
  const values = params.slice(1, -1);
  const retValue = ret.params[1];
  return { name: c.linkName ?? c.name, params: values.map(cType), ret: retValue ? cType(retValue) : 'void' };
}

function cType(t: IRType): CType {
  if (t instanceof PtrType) return 'ptr';
  if (t instanceof PrimType && t.length === 1) {
    if (t.prim === 'f16') throw new Error('internal: f16 cannot cross the C ABI');
    return t.prim;
  }
  throw new Error(`internal: type ${t} cannot cross the C ABI of an exported function`);
}
