// Builds Impala programs through the compiler's pass list (partial evaluation,
// lower2cff, the vectoriser, parallel lowering, closure conversion) into shared
// libraries, and runs the same programs in the IR interpreter (which runs
// `vectorize` one iteration at a time) for the reference results.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import koffi from 'koffi';
import { expect } from 'vitest';
import { emitLLVM } from '../../compiler/src/backend/llvm.ts';
import { runPasses } from '../../compiler/src/driver/passes.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { buildRuntime } from '../../compiler/src/driver/runtime-build.ts';
import { llvmToSharedLibrary } from '../../compiler/src/driver/toolchain.ts';
import { arrayCells, arrayPointer, interpret, type Value } from '../../compiler/src/interp/index.ts';
import {
  type Continuation, type FnType, type IndefiniteArrayType, type IRType, type PrimType, PtrType, StructType, TupleType,
} from '../../compiler/src/ir/index.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';

/** A typed array for every `&[T]`/`&mut [T]` argument, a number for every scalar. */
export type Arg = number | Int32Array | Uint32Array | Float32Array | Float64Array | Uint8Array | Int8Array | Int16Array | Uint16Array;

/** Parses, checks and emits `source` after the prelude; throws on errors. */
function front(source: string): { world: World; exports: Continuation[] } {
  const sink = new DiagnosticSink();
  const fe = frontEnd([{ path: 'test.impala', text: source }], sink);
  if (!fe) throw new Error(sink.list.map((d) => `${d.span?.line}:${d.span?.col}: ${d.message}`).join('\n'));
  return { world: fe.world, exports: fe.emitted.exports };
}

/** The whole pass list up to code generation (the vectoriser runs right after lower2cff there). */
export function vectorised(source: string): { world: World; exports: Continuation[]; errors: string[] } {
  const { world, exports } = front(source);
  const sink = new DiagnosticSink();
  runPasses(world, { sink });
  return { world, exports, errors: sink.list.filter((d) => d.severity === 'error').map((d) => d.message) };
}

export interface Native {
  readonly llvm: string;
  /** Calls the exported `name`; typed arrays are passed by reference and updated in place. */
  call(name: string, ...args: Arg[]): number;
}

/** Compiles `source` with the vectoriser to a shared library and loads it; the IR must verify. */
export async function buildNative(source: string): Promise<Native> {
  const { world, exports, errors } = vectorised(source);
  if (errors.length) throw new Error(errors.join('\n'));
  const problems = verify(world).filter((p) => !p.startsWith('note:'));
  if (problems.length) throw new Error(`the vectorised IR does not verify:\n${problems.join('\n')}`);
  const llvm = emitLLVM(world, { moduleName: 'vectorize-test' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vectorize-'));
  const lib = path.join(dir, 'lib.so');
  await llvmToSharedLibrary(llvm, lib, await buildRuntime(), { optLevel: 3 });
  const loaded = koffi.load(lib);
  // Loaded, the library needs no file any more.
  await rm(dir, { recursive: true, force: true });
  const fns = new Map<string, (...a: unknown[]) => unknown>();
  return {
    llvm,
    call(name, ...args) {
      let f = fns.get(name);
      if (!f) {
        const c = exports.find((e) => e.name === name);
        if (!c) throw new Error(`no export ${name}`);
        const ps = c.fnType.params.slice(1, -1).map(cType);
        const ret = c.fnType.params[c.fnType.params.length - 1] as FnType;
        f = loaded.func(name, ret.params.length > 1 ? cType(ret.params[1]!) : 'void', ps) as (...a: unknown[]) => unknown;
        fns.set(name, f);
      }
      return Number(f(...args) ?? 0);
    },
  };
}

function cType(t: IRType): string {
  if (t instanceof PtrType) return 'void *';
  const p = (t as PrimType).prim;
  const names: Record<string, string> = {
    bool: 'bool', i8: 'int8_t', u8: 'uint8_t', i16: 'int16_t', u16: 'uint16_t', i32: 'int32_t', u32: 'uint32_t',
    i64: 'int64_t', u64: 'uint64_t', f32: 'float', f64: 'double',
  };
  return names[p]!;
}

/**
 * Runs the exported `name` of `source` in the interpreter, without any
 * transformation: the reference semantics. Typed arrays are copied in and their
 * contents written back after the run.
 */
export function interpretScalar(source: string, name: string, ...args: Arg[]): number {
  const { world, exports } = front(source);
  const entry = exports.find((e) => e.name === name);
  if (!entry) throw new Error(`no export ${name}`);
  const params = entry.fnType.params.slice(1, -1);
  const values: Value[] = [];
  const arrays: [Arg & ArrayLike<number>, ReturnType<typeof arrayPointer>][] = [];
  args.forEach((a, i) => {
    const t = params[i]!;
    if (typeof a === 'number') {
      values.push((t as PrimType).isFloat ? a : BigInt(a));
      return;
    }
    const elem = ((t as PtrType).pointee as IndefiniteArrayType).elem;
    const flat = Array.from(a as ArrayLike<number>);
    const cells: Value[] = [];
    for (let at = 0; at < flat.length; ) cells.push(decode(elem, flat, () => at++));
    const ptr = arrayPointer(world.types, elem, cells);
    arrays.push([a as Arg & ArrayLike<number>, ptr]);
    values.push(ptr);
  });
  const r = interpret(world, entry, values, { stepLimit: 200_000_000 }).result;
  for (const [host, ptr] of arrays) {
    const flat: Value[] = [];
    const flatten = (v: Value): void => void (Array.isArray(v) ? v.forEach(flatten) : flat.push(v));
    arrayCells(ptr).forEach(flatten);
    for (let k = 0; k < host.length; k++) (host as unknown as number[])[k] = Number(flat[k]);
  }
  return typeof r === 'bigint' || typeof r === 'number' ? Number(r) : 0;
}

/**
 * Runs the exported `name` of `lib` on `args` and, on a copy of them, the same export of
 * `source` in the interpreter: the arrays among the arguments must end up the same
 * (`context` names the case in a failure).
 */
export function expectSameMemory(lib: Native, source: string, name: string, args: readonly Arg[], context: object = {}): void {
  const expected = args.map((a) => (typeof a === 'number' ? a : a.slice()));
  lib.call(name, ...args);
  interpretScalar(source, name, ...expected);
  const memory = (xs: readonly Arg[]) => xs.filter((a) => typeof a !== 'number').map((a) => Array.from(a as ArrayLike<number>));
  expect({ ...context, memory: memory(args) }).toEqual({ ...context, memory: memory(expected) });
}

/** A value of type `t` from a flat stream of numbers (a typed array of an array of structs, say); `next` gives the position. */
function decode(t: IRType, flat: readonly number[], next: () => number): Value {
  if (t instanceof StructType || t instanceof TupleType) return (t instanceof StructType ? t.fields : t.elems).map((f) => decode(f, flat, next));
  const x = flat[next()]!;
  const p = t as PrimType;
  return p.isFloat ? x : p.isBool ? x !== 0 : BigInt(x);
}

export { random } from '../random.ts';
