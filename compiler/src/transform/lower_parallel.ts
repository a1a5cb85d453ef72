// Lowers the CPU threading intrinsics to calls of the C runtime
// (runtime/anydsl_runtime.h). Runs after lower2cff, when the remaining closures
// are the bodies handed to intrinsics, and before closure conversion, which then
// only sees top-level functions used as function pointers.
//
//   parallel(mem, n, a, b, body, k)  becomes  anydsl_parallel_for(mem', n, a, b, env, f, k)
//   spawn(mem, body, k)              becomes  anydsl_spawn_thread(mem', env, g, k)
//   sync(mem, id, k)                 becomes  anydsl_sync_thread(mem, id, k)
//
// `f(mem, env: i8*, lower, upper, ret)` is a new top-level function that loops over
// [lower, upper) with a copy of the body inlined (TBB hands it whole sub-ranges, so
// the loop stays a loop LLVM can vectorise); `g(mem, env, ret)` runs the body once.
// The body's free variables (the outermost defs outside its scope that it uses:
// params, loaded values, stack slots of the enclosing function, closures it calls)
// travel in a record that the copy loads once on entry. `parallel_for` returns
// only when every iteration is done, so its record lives in a stack slot of the
// caller; a spawned thread may outlive the caller's block, so its record is
// heap-allocated and released when the body has finished.
//
// A body that is not a continuation (a function value that lower2cff could not
// resolve) is itself captured and called indirectly; closure conversion turns it
// into a record. A body that continues into the control flow of the function
// around it (`break` out of a parallel loop, `return` from inside it) would have
// to jump between threads: that is reported at the call.
import { Continuation, type Def, Param, PrimOp } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import { FnType, FrameType, type IRType, MemType, TupleType } from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import { Closedness } from '../ir/closedness.ts';
import { reachable } from '../ir/reachable.ts';
import { Cloner } from './mangle.ts';

type Lowered = 'parallel' | 'spawn' | 'sync';

const lowered = new Set<string>(['parallel', 'spawn', 'sync']);

/** Replaces every reachable `parallel`, `spawn` and `sync`; false (with errors in `sink`) when a body jumps out of itself. */
export function lowerParallel(world: World, sink: DiagnosticSink): boolean {
  // Calls reported as errors stay as they are; the pipeline stops after this pass.
  const failed = new Set<Continuation>();
  for (;;) {
    const r = reachable(world);
    const calls = r.continuations.filter((u) => u.hasBody && loweredKind(u.callee) !== null && !failed.has(u));
    if (calls.length === 0) return failed.size === 0;
    const free = new Closedness(r.continuations);
    // Innermost calls first: lowering an outer body copies the (already lowered)
    // inner call along, whereas lowering it first would leave the inner call to be
    // lowered twice, in the dead original and in the copy.
    const innermost = calls.filter((u) => {
      const body = bodyOf(u);
      if (!(body instanceof Continuation) || !body.hasBody) return true;
      const scope = new Scope(body);
      return !calls.some((other) => other !== u && scope.contains(other));
    });
    for (const u of innermost.length ? innermost : calls) if (!lowerCall(world, sink, free, u)) failed.add(u);
  }
}

function loweredKind(d: Def): Lowered | null {
  return d instanceof Continuation && lowered.has(d.intrinsic) ? (d.intrinsic as Lowered) : null;
}

/** The body argument of a `parallel` or `spawn` call; null for `sync`. */
function bodyOf(u: Continuation): Def | null {
  switch (loweredKind(u.callee)) {
    case 'parallel': return u.arg(4);
    case 'spawn': return u.arg(1);
    default: return null;
  }
}

function lowerCall(world: World, sink: DiagnosticSink, free: Closedness, u: Continuation): boolean {
  const kind = loweredKind(u.callee)!;
  const rt = new Runtime(world);
  if (kind === 'sync') {
    const [mem, id, k] = u.args;
    u.jump(rt.syncThread(), [mem!, id!, k!]);
    return true;
  }
  const body = bodyOf(u)!;
  const scope = body instanceof Continuation && body.hasBody ? new Scope(body) : null;
  const env = environment(body, scope, free);
  if (env.escapes.length) {
    const what = env.escapes.map(describe).join("', '");
    sink.error(
      (body instanceof Continuation ? body.span : null) ?? u.span,
      `the body of '${kind}' cannot continue at '${what}' outside of it: ` +
        `'break' and 'return' cannot leave a ${kind === 'parallel' ? 'parallel loop' : 'spawned task'}`,
    );
    return false;
  }
  if (kind === 'parallel') {
    const [mem, threads, lower, upper, , k] = u.args;
    const fn = parallelFunction(world, rt, body, scope, env.captured);
    const [m, record] = stackRecord(world, rt, mem!, env.captured);
    u.jump(rt.parallelFor(fn.fnType), [m, threads!, lower!, upper!, record, fn, k!]);
  } else {
    const [mem, , k] = u.args;
    const fn = spawnFunction(world, rt, body, scope, env.captured);
    const [m, record] = heapRecord(world, rt, mem!, env.captured);
    u.jump(rt.spawnThread(fn.fnType), [m, record, fn, k!]);
  }
  return true;
}

// ------------------------------------------------------------ environments

interface Environment {
  /** What the copy of the body needs from outside, in a stable order (by creation). */
  captured: Def[];
  /** Continuations (blocks, return continuations) of an enclosing function the body would jump to. */
  escapes: Def[];
}

/**
 * The outermost defs outside the body's scope that its continuations use. Static
 * defs, globals, `bottom`, imports, intrinsics and closed continuations are valid
 * in any function and stay shared; a body that is no continuation is captured as
 * a whole. A captured continuation-typed def of order 1 is a jump target of the
 * enclosing function: it escapes.
 */
function environment(body: Def, scope: Scope | null, free: Closedness): Environment {
  const captured = new Set<Def>();
  if (scope) {
    const used = scope.freeDefs();
    for (const d of used.defs) if (!(d instanceof PrimOp && (d.tag === 'global' || d.tag === 'bottom'))) captured.add(d);
    for (const c of used.continuations) if (c.hasBody && !free.isClosed(c)) captured.add(c);
  } else if (!(body instanceof Continuation)) {
    captured.add(body);
  }
  const sorted = [...captured].sort((a, b) => a.gid - b.gid);
  for (const d of sorted) {
    if (holdsState(d.type)) throw new Error(`internal: the body of a parallel call captures ${d.label}: ${d.type}`);
  }
  const escapes = sorted.filter((d) => d.type instanceof FnType && d.type.order === 1);
  return { captured: sorted, escapes };
}

/** Memory tokens and frames cannot be stored in a record. */
function holdsState(t: IRType): boolean {
  if (t instanceof MemType || t instanceof FrameType) return true;
  return t instanceof TupleType && t.elems.some(holdsState);
}

function describe(d: Def): string {
  if (d instanceof Param) return d.name || d.label;
  return d instanceof Continuation ? d.name || d.label : d.label;
}

/** The record type of `captured`. */
function recordType(world: World, captured: readonly Def[]): TupleType {
  return world.types.tuple(captured.map((d) => d.type));
}

/** Stores the captured values in a stack slot of the caller: [mem, record pointer as i8*]. */
function stackRecord(world: World, rt: Runtime, mem: Def, captured: readonly Def[]): [Def, Def] {
  if (!captured.length) return [mem, world.bottom(rt.envType)];
  const entered = world.enter(mem);
  const slot = world.slot(world.extract(entered, 1), recordType(world, captured));
  const m = world.store(world.extract(entered, 0), slot, world.tuple(captured));
  return [m, world.bitcast(rt.envType, slot)];
}

/** Stores the captured values in a heap record: [mem, record pointer as i8*]. */
function heapRecord(world: World, rt: Runtime, mem: Def, captured: readonly Def[]): [Def, Def] {
  if (!captured.length) return [mem, world.bottom(rt.envType)];
  const alloc = world.alloc(mem, recordType(world, captured), world.litI32(1));
  const m = world.store(world.extract(alloc, 0), world.extract(alloc, 1), world.tuple(captured));
  return [m, world.bitcast(rt.envType, world.extract(alloc, 1))];
}

// ------------------------------------------------------------ the new functions

/** The body seen from inside a new function whose record pointer is `env`: the captured values are loaded on entry. */
class Unpacked {
  /** The memory after loading the record. */
  readonly mem: Def;
  private readonly values = new Map<Def, Def>();

  constructor(
    private readonly world: World,
    private readonly body: Def,
    private readonly scope: Scope | null,
    captured: readonly Def[],
    mem: Def,
    env: Def,
  ) {
    this.mem = mem;
    if (!captured.length) return;
    const loaded = world.load(mem, world.bitcast(world.types.ptr(recordType(world, captured)), env));
    this.mem = world.extract(loaded, 0);
    const record = world.extract(loaded, 1);
    captured.forEach((d, j) => this.values.set(d, world.extract(record, j)));
  }

  /**
   * Ends `from` with one run of the body on `mem`: `args` are its value params,
   * `ret` its return continuation. A body continuation is copied (inlined), with
   * the captured defs replaced by their loaded values; anything else is called.
   */
  run(from: Continuation, mem: Def, args: readonly Def[], ret: Def): void {
    if (!this.scope) {
      from.jump(this.values.get(this.body) ?? this.body, [mem, ...args, ret]);
      return;
    }
    const c = this.scope.entry;
    const cloner = new Cloner(this.world, this.scope);
    for (const [d, v] of this.values) cloner.map.set(d, v);
    cloner.map.set(c.param(0), mem);
    args.forEach((a, i) => cloner.map.set(c.param(i + 1), a));
    cloner.map.set(c.param(args.length + 1), ret);
    cloner.cloneBody(c, from);
    cloner.run();
  }
}

/**
 * `f(mem, env, lower, upper, ret)`: for i in [lower, upper) run the body on i.
 *
 *     f:     load record; head(mem, lower)
 *     head:  branch(i < upper, step, exit)
 *     step:  body(mem, i) returning to next
 *     next:  head(mem, i + 1)
 *     exit:  ret(mem)
 */
function parallelFunction(world: World, rt: Runtime, body: Def, scope: Scope | null, captured: readonly Def[]): Continuation {
  const i32 = world.prim('i32');
  const bb = world.fnType([world.mem]);
  const f = world.continuation(world.fnType([world.mem, rt.envType, i32, i32, bb]), 'parallel_body', ['mem', 'env', 'lower', 'upper', 'return']);
  f.span = body.span;
  const [mem, env, lower, upper, ret] = f.params;
  const u = new Unpacked(world, body, scope, captured, mem!, env!);
  const head = world.continuation(world.fnType([world.mem, i32]), 'parallel_head', ['mem', 'i']);
  const step = world.continuation(bb, 'parallel_step', ['mem']);
  const next = world.continuation(bb, 'parallel_next', ['mem']);
  const exit = world.continuation(bb, 'parallel_exit', ['mem']);
  f.jump(head, [u.mem, lower!]);
  const i = head.param(1);
  world.branch(head, head.param(0), world.cmp('lt', i, upper!), step, exit);
  next.jump(head, [next.param(0), world.arith('add', i, world.litI32(1))]);
  exit.jump(ret!, [exit.param(0)]);
  u.run(step, step.param(0), [i], next);
  return f;
}

/** `g(mem, env, ret)`: runs the body once, then releases the heap record. */
function spawnFunction(world: World, rt: Runtime, body: Def, scope: Scope | null, captured: readonly Def[]): Continuation {
  const bb = world.fnType([world.mem]);
  const g = world.continuation(world.fnType([world.mem, rt.envType, bb]), 'spawn_body', ['mem', 'env', 'return']);
  g.span = body.span;
  const [mem, env, ret] = g.params;
  const u = new Unpacked(world, body, scope, captured, mem!, env!);
  let done: Def = ret!;
  if (captured.length) {
    const release = world.continuation(bb, 'spawn_done', ['mem']);
    release.jump(rt.release(), [release.param(0), world.litI32(0), world.bitcast(rt.releasedType, env!), ret!]);
    done = release;
  }
  u.run(g, u.mem, [], done);
  return g;
}

// ------------------------------------------------------------ the C runtime

/** The imported runtime functions, typed as `runtime/anydsl_runtime.h` declares them. */
class Runtime {
  /** `void*`: the record pointer as C sees it. */
  readonly envType: IRType;
  /** `&mut [i8]`, as the prelude declares `anydsl_release`, so both name the same import. */
  readonly releasedType: IRType;

  constructor(private readonly world: World) {
    const i8 = world.prim('i8');
    this.envType = world.types.ptr(i8);
    this.releasedType = world.types.ptr(world.types.indefiniteArray(i8));
  }

  private get unit(): FnType {
    return this.world.fnType([this.world.mem]);
  }

  /** `anydsl_parallel_for(i32 num_threads, i32 lower, i32 upper, void* args, void (*fn)(void*, i32, i32))`. */
  parallelFor(fnType: FnType): Continuation {
    const i32 = this.world.prim('i32');
    const t = this.world.fnType([this.world.mem, i32, i32, i32, this.envType, fnType, this.unit]);
    return this.world.imported(t, 'anydsl_parallel_for', 'C');
  }

  /** `i32 anydsl_spawn_thread(void* args, void (*fn)(void*))`. */
  spawnThread(fnType: FnType): Continuation {
    const ret = this.world.fnType([this.world.mem, this.world.prim('i32')]);
    return this.world.imported(this.world.fnType([this.world.mem, this.envType, fnType, ret]), 'anydsl_spawn_thread', 'C');
  }

  /** `void anydsl_sync_thread(i32 id)`. */
  syncThread(): Continuation {
    return this.world.imported(this.world.fnType([this.world.mem, this.world.prim('i32'), this.unit]), 'anydsl_sync_thread', 'C');
  }

  /** `void anydsl_release(i32 dev, void* ptr)`. */
  release(): Continuation {
    const t = this.world.fnType([this.world.mem, this.world.prim('i32'), this.releasedType, this.unit]);
    return this.world.imported(t, 'anydsl_release', 'C');
  }
}
