// Kernel extraction: every GPU launch becomes a kernel of a device module and a call of
// the runtime (runtime/anydsl_runtime.h) on the host. Runs after lower2cff, when a
// launch's body is a continuation nested in the host function with everything it calls
// specialised into it, and before the lowering of `parallel`/`spawn` and closure
// conversion, which must not turn the body into a record.
//
//   cuda/nvvm/opencl(mem, dev, grid, block, body, k)
//
// becomes, on the host,
//
//   anydsl_launch_kernel(dev', key, program, "name", &grid, &block, args, sizes, kinds, n) → after
//   after: anydsl_synchronize(dev') → k
//
// with `dev' = platform | (dev << 4)` (1 CUDA for `cuda` and `nvvm`, 2 OpenCL) and the
// body lambda-lifted into a new top-level continuation `name(mem, v1 … vn, ret)`: its
// free values (ir/scope.ts `freeDefs`, the outermost defs outside the body it uses) are
// its parameters, in a stable order, and travel as `args[i]` pointing at a stack record
// of the host, `sizes[i]` bytes each; `kinds[i]` is 1 for a pointer (a device buffer the
// program allocated for that device) and 0 for plain data. The launch waits for the
// kernel, so the record may live on the host's stack and the program sees the launch's
// writes when it continues, as in the interpreter.
//
// A kernel is an exported continuation with the `device` calling convention and its
// name as link name: the later passes keep it alive like any export, the CPU backend
// leaves it out, and the device backends compile the kernels of their target
// (`kernelsOf`). `key` and `program` point at two placeholder globals per target: the
// driver generates the device code after the last pass and puts it there
// (`programGlobals`), so the host library embeds its kernels.
//
// Errors, at the launch: a body that is not known at compile time, a launch inside a
// kernel, a body that captures a function (a closure that partial evaluation did not
// remove), continues outside itself, captures memory state, or passes a host pointer
// (the address of a stack slot or a global of the host).
import { Closedness } from '../ir/closedness.ts';
import { Continuation, type Def, Param, PrimOp } from '../ir/defs.ts';
import { cpuLayout } from '../ir/layout.ts';
import { reachable } from '../ir/reachable.ts';
import { Scope } from '../ir/scope.ts';
import {
  DefiniteArrayType, FnType, FrameType, type IRType, MemType, PrimType, PtrType, StructType, TupleType, VariantType,
} from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import { Cloner } from './mangle.ts';

/** The device code generators: `cuda` and `nvvm` launches both compile to NVVM IR (PTX). */
export type DeviceTarget = 'nvvm' | 'opencl';

export interface Kernel {
  /** Its symbol in the device program, and the kernel continuation's link name. */
  readonly name: string;
  readonly target: DeviceTarget;
}

/** The placeholders the driver fills with a target's device program. */
export interface ProgramGlobals {
  readonly key: Def;
  readonly program: Def;
}

interface Extracted {
  kernels: Kernel[];
  globals: Map<DeviceTarget, ProgramGlobals>;
}

const extracted = new WeakMap<World, Extracted>();

const LAUNCHES: Readonly<Record<string, { target: DeviceTarget; platform: number }>> = {
  cuda: { target: 'nvvm', platform: 1 },
  nvvm: { target: 'nvvm', platform: 1 },
  opencl: { target: 'opencl', platform: 2 },
};

/** The kernels extracted from `world`, in the order of their launches. */
export function kernelsOf(world: World): readonly Kernel[] {
  return extracted.get(world)?.kernels ?? [];
}

/** The kernel continuations of `target` (each an exported `device` continuation named as its kernel). */
export function kernelContinuations(world: World, target: DeviceTarget): Continuation[] {
  const names = new Set(kernelsOf(world).filter((k) => k.target === target).map((k) => k.name));
  return [...world.continuations].filter((c) => isKernel(c) && names.has(c.linkName!));
}

/** A kernel: exported with a body and the device calling convention. Host code generators skip these. */
export function isKernel(c: Continuation): boolean {
  return c.external && c.hasBody && c.cc === 'device';
}

/** The placeholder globals of `target`'s program in `world`, when it has kernels of that target. */
export function programGlobals(world: World, target: DeviceTarget): ProgramGlobals | undefined {
  return extracted.get(world)?.globals.get(target);
}

/** Extracts every reachable launch; false (with errors in `sink`) when one cannot be. */
export function extractKernels(world: World, sink: DiagnosticSink): boolean {
  const state = extracted.get(world) ?? { kernels: [], globals: new Map() };
  extracted.set(world, state);
  const r = reachable(world);
  const launches = r.continuations.filter((u) => u.hasBody && launchOf(u) !== null);
  if (!launches.length) return true;
  const free = new Closedness(r.continuations);
  let ok = true;
  for (const u of launches) {
    const problem = extract(world, state, free, u, launches, r.continuations);
    if (problem) {
      sink.error(problem.at ?? enclosingSpan(r.continuations, u) ?? u.span, problem.message);
      ok = false;
    }
  }
  return ok;
}

function launchOf(u: Continuation): { intrinsic: string; target: DeviceTarget; platform: number } | null {
  const callee = u.callee;
  if (!(callee instanceof Continuation) || !Object.hasOwn(LAUNCHES, callee.intrinsic)) return null;
  return { intrinsic: callee.intrinsic, ...LAUNCHES[callee.intrinsic]! };
}

interface Problem {
  message: string;
  at?: Def['span'];
}

function extract(
  world: World,
  state: Extracted,
  free: Closedness,
  u: Continuation,
  launches: readonly Continuation[],
  all: readonly Continuation[],
): Problem | null {
  const launch = launchOf(u)!;
  const [mem, dev, grid, block, body, k] = u.args;
  if (!(body instanceof Continuation) || !body.hasBody) {
    return { message: `the body of '${launch.intrinsic}' is not known at compile time: a kernel must be a closure that partial evaluation can see` };
  }
  const scope = new Scope(body);
  const at = userSpan(scope);
  if (launches.some((other) => other !== u && scope.contains(other))) {
    return { message: `a '${launch.intrinsic}' launch inside a GPU kernel`, at };
  }
  const used = scope.freeDefs();
  for (const d of used.defs) {
    if (d instanceof PrimOp && d.tag === 'global' && (d.payload as { mutable: boolean }).mutable) {
      const { name } = d.payload as { name: string };
      return { message: `the GPU kernel uses the host's global variable${name ? ` '${name}'` : ''}: a kernel can only reach device buffers (alloc_cuda, alloc_opencl) and constants`, at };
    }
  }
  const captured = [...used.defs].filter((d) => !(d instanceof PrimOp && (d.tag === 'global' || d.tag === 'bottom'))).sort((a, b) => a.gid - b.gid);
  for (const c of used.continuations) {
    if (c.hasBody && !free.isClosed(c)) return { message: `the GPU kernel continues at ${nameOf(c)}outside of it: 'break' and 'return' cannot leave a kernel`, at };
  }
  for (const d of captured) {
    const why = notData(d.type);
    if (why) return { message: `the GPU kernel uses ${nameOf(d) || 'a value '}of the host, ${why}: only numbers, pointers to device buffers and aggregates of numbers can be passed to a kernel`, at };
    const host = hostAddress(d);
    if (host) return { message: `the GPU kernel uses ${nameOf(d) ? `${nameOf(d)}, ` : ''}the address of ${host} of the host: a kernel can only reach device buffers (alloc_cuda, alloc_opencl)`, at };
  }

  const name = `${launch.target === 'nvvm' ? 'nvvm' : 'opencl'}_kernel_${state.kernels.length}`;
  state.kernels.push({ name, target: launch.target });
  // Device code generation reports at the kernel's span.
  lambdaLift(world, scope, captured, name).span = at ?? enclosingSpan(all, u) ?? body.span;
  hostLaunch(world, state, u, launch, { mem: mem!, dev: dev!, grid: grid!, block: block!, k: k! }, captured, name);
  return null;
}

/** Why values of type `t` cannot be a kernel argument, or null when they can. */
function notData(t: IRType): string | null {
  if (t instanceof FnType) return 'a function (a closure that partial evaluation did not remove)';
  if (t instanceof MemType || t instanceof FrameType) return 'memory state';
  if (t instanceof VariantType) return 'an enum value';
  if (t instanceof TupleType || t instanceof StructType) {
    const elems = t instanceof TupleType ? t.elems : t.fields;
    for (const e of elems) {
      if (e instanceof PtrType) return 'an aggregate holding a pointer (pass the pointer itself)';
      const inner = notData(e);
      if (inner) return inner;
    }
    return null;
  }
  if (t instanceof DefiniteArrayType) return t.elem instanceof PtrType ? 'an array of pointers' : notData(t.elem);
  if (t instanceof PrimType || t instanceof PtrType) return null;
  return `a value of type ${t}`;
}

/** What a pointer the host computed from its own memory points into (a stack slot, a global), or null. */
function hostAddress(d: Def): string | null {
  let p = d;
  while (p instanceof PrimOp && (p.tag === 'lea' || p.tag === 'bitcast' || p.tag === 'cast')) p = p.op(0);
  if (!(p instanceof PrimOp)) return null;
  if (p.tag === 'slot') return 'a local variable';
  if (p.tag === 'global') return 'a global';
  if (p.tag === 'extract' && p.op(0) instanceof PrimOp && (p.op(0) as PrimOp).tag === 'alloc') return 'host heap memory';
  return null;
}

/** The span of the innermost function written outside the prelude whose scope holds `u` (for errors only). */
function enclosingSpan(continuations: readonly Continuation[], u: Continuation): Def['span'] {
  let best: Def['span'] = null;
  for (const c of continuations) {
    const s = c.span;
    if (!s || s.file.startsWith('<prelude>') || !c.hasBody || (best && s.line <= best.line)) continue;
    if (c === u || new Scope(c).contains(u)) best = s;
  }
  return best;
}

/** `'name' ` of a named value, or nothing for a computed one (whose label means nothing to a user). */
function nameOf(d: Def): string {
  return (d instanceof Param || d instanceof Continuation) && d.name ? `'${d.name}' ` : '';
}

/**
 * Where the user wrote the kernel: the earliest span outside the prelude among the nodes of
 * its scope (the body the prelude's accelerator wraps is the user's closure, inlined).
 */
function userSpan(scope: Scope): Def['span'] {
  let first: Def['span'] = null;
  for (const d of scope.defs) {
    const s = d.span;
    if (s && !s.file.startsWith('<prelude>') && (!first || s.line < first.line || (s.line === first.line && s.col < first.col))) first = s;
  }
  return first;
}

/** The kernel `name(mem, captured…, ret)`: a copy of the body with the captured defs as its params. */
function lambdaLift(world: World, scope: Scope, captured: readonly Def[], name: string): Continuation {
  const body = scope.entry;
  const ret = world.fnType([world.mem]);
  const kernel = world.continuation(world.fnType([world.mem, ...captured.map((d) => d.type), ret]), name, [
    'mem', ...captured.map((d) => (d instanceof Param ? d.name : '')), 'return',
  ]);
  kernel.span = body.span;
  kernel.external = true;
  kernel.cc = 'device';
  kernel.linkName = name;
  const cloner = new Cloner(world, scope);
  cloner.map.set(body.param(0), kernel.param(0));
  cloner.map.set(body.param(1), kernel.param(captured.length + 1));
  captured.forEach((d, i) => cloner.map.set(d, kernel.param(i + 1)));
  cloner.cloneBody(body, kernel);
  cloner.run();
  return kernel;
}

interface LaunchArgs {
  mem: Def;
  dev: Def;
  grid: Def;
  block: Def;
  k: Def;
}

/** Replaces the launch `u` by the runtime calls that run kernel `name` on `captured`. */
function hostLaunch(
  world: World,
  state: Extracted,
  u: Continuation,
  launch: { platform: number; target: DeviceTarget },
  a: LaunchArgs,
  captured: readonly Def[],
  name: string,
): void {
  const i32 = world.prim('i32');
  const i64 = world.prim('i64');
  const u8 = world.prim('u8');
  const bytePtr = world.types.ptr(world.types.indefiniteArray(u8));
  const device = world.arith('or', world.arith('shl', a.dev, world.litI32(4)), world.litI32(launch.platform));
  const globals = programGlobalsOf(world, state, launch.target);

  const entered = world.enter(a.mem);
  let mem = world.extract(entered, 0);
  const frame = world.extract(entered, 1);
  const stored = (value: Def): Def => {
    const slot = world.slot(frame, value.type);
    mem = world.store(mem, slot, value);
    return slot;
  };
  const dims = world.types.indefiniteArray(i32);
  const grid = world.bitcast(world.types.ptr(dims), stored(a.grid));
  const block = world.bitcast(world.types.ptr(dims), stored(a.block));
  const n = captured.length;
  let args: Def = world.bottom(world.types.ptr(world.types.indefiniteArray(bytePtr)));
  let sizes: Def = world.bottom(world.types.ptr(world.types.indefiniteArray(i64)));
  let kinds: Def = world.bottom(world.types.ptr(world.types.indefiniteArray(u8)));
  if (n) {
    const record = stored(world.tuple(captured));
    const pointers = captured.map((_, i) => world.bitcast(bytePtr, world.lea(record, i)));
    args = world.bitcast(args.type, stored(world.definiteArray(bytePtr, pointers)));
    const sizeTable = world.definiteArray(i64, captured.map((d) => world.lit(i64, BigInt(cpuLayout.size(d.type)))));
    sizes = world.bitcast(sizes.type, world.global(sizeTable, false, `${name}_sizes`));
    const kindTable = world.definiteArray(u8, captured.map((d) => world.lit(u8, d.type instanceof PtrType ? 1n : 0n)));
    kinds = world.bitcast(kinds.type, world.global(kindTable, false, `${name}_kinds`));
  }
  const kernelName = world.bitcast(bytePtr, world.global(cString(world, name), false, `${name}_name`));
  const unit = world.fnType([world.mem]);
  const launchType = world.fnType([
    world.mem, i32, bytePtr, bytePtr, bytePtr, grid.type, block.type, args.type, sizes.type, kinds.type, i32, unit,
  ]);
  const after = world.continuation(unit, 'launched', ['mem']);
  after.span = u.span;
  u.jump(world.imported(launchType, 'anydsl_launch_kernel', 'C'), [
    mem, device, globals.key, globals.program, kernelName, grid, block, args, sizes, kinds, world.litI32(n), after,
  ]);
  after.jump(world.imported(world.fnType([world.mem, i32, unit]), 'anydsl_synchronize', 'C'), [after.param(0), device, a.k]);
}

/** The placeholders for `target`'s program key and text, made once per World (`[u8 * 1]` until the driver fills them). */
function programGlobalsOf(world: World, state: Extracted, target: DeviceTarget): { key: Def; program: Def } {
  let g = state.globals.get(target);
  if (!g) {
    const placeholder = world.bottom(world.types.definiteArray(world.prim('u8'), 1));
    g = {
      key: world.global(placeholder, false, `anydsl_${target}_program_key`),
      program: world.global(placeholder, false, `anydsl_${target}_program`),
    };
    state.globals.set(target, g);
  }
  const bytePtr = world.types.ptr(world.types.indefiniteArray(world.prim('u8')));
  return { key: world.bitcast(bytePtr, g.key), program: world.bitcast(bytePtr, g.program) };
}

/** A NUL-terminated `[u8 * n]` constant. */
export function cString(world: World, text: string): Def {
  const u8 = world.prim('u8');
  return world.definiteArray(u8, [...Buffer.from(text, 'utf8'), 0].map((b) => world.lit(u8, BigInt(b))));
}
