// Closure conversion: whatever function values lower2cff could not eliminate
// become explicit records. Most programs have none left, and then this pass
// changes nothing.
//
// Representation (what the backend sees afterwards):
//   - A function *value* of Impala type T = fn(mem, A…, fn(mem, R)) is a record
//       (code, env) : tuple(code type, env type)
//     where env type is `i8*` (a pointer to the environment, or undef when the
//     code needs none) and code type is
//       fn(mem, i8*, A'…, fn(mem, R'))
//     (A', R' converted the same way). The code is a top-level continuation, so
//     the backend emits it as a function and a use of it as a value is a plain
//     function pointer. The last param of a function type is its return
//     continuation and stays a continuation (a native return); every other
//     fn-typed param, and fn types inside tuples, structs, arrays, pointers and
//     variants, become records.
//   - The environment of a closure is a heap-allocated tuple of its free defs
//     (its free params and the free primops it uses, e.g. a stack slot of the
//     enclosing function), allocated with `alloc`, written with one `store` and
//     read back with one `load` at the start of the code. It is allocated in the
//     continuation that creates the closure value and is never freed.
//   - A closure that is only ever called (a local function that lower2cff could
//     not turn into a block, e.g. one recursing with a new return continuation) is
//     lambda-lifted instead: its code takes the environment tuple itself, by
//     value, in place of the pointer, and each call passes the captured values.
//   - A top-level function used as a value gets a wrapper code
//     `f.cc(mem, env, args…, ret) = f(mem, args…, ret)` and an undef env.
//   - A call through a function value `f(mem, args…)` becomes the indirect call
//     `extract(f, 0)(mem, extract(f, 1), args…)`: a jump whose callee is not a
//     continuation. A direct call of a closure that could not be specialised
//     calls its code directly with a freshly built environment.
//   - `parallel` and `spawn` receive their body as a record. `vectorize`, `cuda`,
//     `nvvm` and `opencl` keep their body as a continuation: the vectoriser and the
//     kernel lifting take it from there. Imported C functions receive top-level
//     continuations as plain function pointers (also inside a tuple or struct built
//     at the call); a closure cannot cross into C.
//
// A continuation that escapes as a value but continues into the control flow of
// an enclosing function (a `return` or `break` passed to a function that could
// not be specialised) would need a non-local jump; that is a user-facing error.
import { Continuation, type Def, Param, PrimOp } from '../ir/defs.ts';
import { bodyRefs } from '../ir/closedness.ts';
import { foldUp } from '../ir/order.ts';
import { Scope } from '../ir/scope.ts';
import {
  DefiniteArrayType, FnType, IndefiniteArrayType, type IRType, PtrType, StructType, TupleType, typeOrder, VariantType,
} from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import { Closedness } from '../ir/closedness.ts';
import { isControlOperand, isReturnParam, returnsThroughLast } from '../ir/jumps.ts';
import { reachable } from '../ir/reachable.ts';
import { Cloner, jumpFolded } from './mangle.ts';

/** Intrinsics whose body argument stays a continuation for a later pass. */
const keepsBody = new Set(['vectorize', 'cuda', 'nvvm', 'opencl']);

type Kind =
  /** Closed: a top-level function, or a block that can live in any function. */
  | 'closed'
  /** Nested first-order continuation used for control flow only. */
  | 'block'
  /** Nested continuation that a call returns into, receiving a function value: all its params are values. */
  | 'receiver'
  /** Body of `vectorize`/`cuda`/…: stays a nested continuation. */
  | 'kernel'
  /** Everything else that is nested: becomes code plus environment. */
  | 'lifted';

/** Converts the remaining function values into records; false (with errors in `sink`) on a non-local jump. */
export function closureConvert(world: World, sink: DiagnosticSink): boolean {
  const r = reachable(world);
  const free = new Closedness(r.continuations);
  const kinds = classify(r.continuations, free);
  const types = new TypeConverter(world);
  if (!needsConversion(r.continuations, r.primops, kinds, types)) return true;
  const lifted = new Map<Continuation, LiftInfo>();
  for (const [c, k] of kinds) if (k === 'lifted') lifted.set(c, liftInfo(c));
  closeEnvironments(lifted);
  let ok = true;
  for (const [c, info] of lifted) ok = checkLocal(c, info, kinds, sink) && ok;
  for (const c of r.continuations) if (c.hasBody && kinds.get(c) !== 'lifted') ok = checkReturnsStayLocal(c, kinds, sink) && ok;
  for (const c of r.continuations) if (c.hasBody) ok = checkForeignArguments(c, kinds, sink) && ok;
  if (!ok) return false;
  new Converter(world, types, kinds, lifted).run(r.continuations);
  return true;
}

// ------------------------------------------------------------ classification

/**
 * Kinds depend on each other: the last argument of a jump is a return
 * continuation only when the callee is a function, and a jump to the return param
 * of a function passes values, so a continuation a function returns (`return(|z| …)`
 * in a function whose result is a function) is a closure, not a receiver. Whose
 * params are return params is only known once the lifted closures are, so the
 * nested continuations are classified again until no new closure turns up. That
 * terminates: more functions make more jumps pass values, which only makes more
 * closures.
 */
function classify(conts: readonly Continuation[], free: Closedness): Map<Continuation, Kind> {
  const kinds = new Map<Continuation, Kind>();
  const kernels = new Set<Def>();
  for (const u of conts) {
    if (!u.hasBody) continue;
    const callee = u.callee;
    if (callee instanceof Continuation && keepsBody.has(callee.intrinsic)) {
      for (const a of u.args.slice(0, -1)) if (a.type instanceof FnType) kernels.add(a);
    }
  }
  const nested: Continuation[] = [];
  for (const c of conts) {
    if (!c.hasBody || c.isIntrinsic) continue;
    if (free.isClosed(c)) kinds.set(c, 'closed');
    else if (kernels.has(c)) kinds.set(c, 'kernel');
    else nested.push(c);
  }
  for (let grew = true; grew; ) {
    grew = false;
    const receivers = new Set<Def>();
    for (const u of conts) if (u.hasBody && passesReturn(u, kinds)) receivers.add(u.args[u.args.length - 1]!);
    for (const c of nested) {
      let k: Kind;
      if (!onlyControlUses(c, kinds)) k = 'lifted';
      else if (c.fnType.order === 1) k = 'block';
      else if (receivers.has(c)) k = 'receiver';
      else k = 'lifted';
      if (k === 'lifted' && kinds.get(c) !== 'lifted') grew = true;
      kinds.set(c, k);
    }
  }
  return kinds;
}

/** A jump to `d` passes its last argument as a return continuation. */
function returns(d: Def): boolean {
  return returnsThroughLast(d.type);
}

/**
 * Jump `u` passes its last argument as a return continuation: its callee returns
 * through its last param, and is no native return (whose params are all values,
 * even when the value returned is a function).
 */
function passesReturn(u: Continuation, kinds: Map<Continuation, Kind>): boolean {
  return returns(u.callee) && !isFunctionReturn(u.callee, kinds);
}

/** The return param of a continuation classified as a function (top-level, closure or kernel body). */
function isFunctionReturn(d: Def, kinds: Map<Continuation, Kind>): boolean {
  if (!isReturnParam(d)) return false;
  const k = kinds.get(d.continuation);
  return k === 'closed' || k === 'lifted' || k === 'kernel';
}

/** Jumps to blocks and receivers pass values only; their last argument is no return continuation. */
function isBlockLike(d: Def, kinds: Map<Continuation, Kind>): boolean {
  if (!(d instanceof Continuation)) return false;
  const k = kinds.get(d);
  return k === 'block' || k === 'receiver' || (k === undefined && d.hasBody && d.fnType.order === 1);
}

function onlyControlUses(c: Continuation, kinds: Map<Continuation, Kind>): boolean {
  return [...c.uses.values()].every(({ user, index }) => user instanceof Continuation && isControlUse(user, index, kinds));
}

/** `isControlOperand`, except that what a native return passes is a value. */
function isControlUse(user: Continuation, index: number, kinds: Map<Continuation, Kind>): boolean {
  if (!isControlOperand(user, index)) return false;
  return index === 0 || isBranchOrMatch(user.callee) || passesReturn(user, kinds);
}

function isBranchOrMatch(d: Def): boolean {
  return d instanceof Continuation && (d.intrinsic === 'branch' || d.intrinsic === 'match');
}

/** A conversion is needed when a function value exists anywhere: as a continuation used as a value, or in a type. */
function needsConversion(
  conts: readonly Continuation[],
  primops: readonly PrimOp[],
  kinds: Map<Continuation, Kind>,
  types: TypeConverter,
): boolean {
  for (const [c, k] of kinds) {
    if (k === 'lifted') return true;
    if (k === 'closed' && !onlyControlUses(c, kinds)) return true;
  }
  for (const c of conts) if (c.hasBody && types.continuation(c, kinds.get(c)) !== c.type) return true;
  return primops.some((p) => types.value(p.type) !== p.type);
}

// ------------------------------------------------------------ environments

interface LiftInfo {
  scope: Scope;
  /** Free defs of the scope itself: params and primops outside it that it uses. */
  direct: Set<Def>;
  /** Nested continuations outside the scope that it mentions. */
  mentions: Set<Continuation>;
  /** What the environment holds: the free defs, plus those of lifted closures created inside. */
  env: Def[];
  /**
   * Only ever called, never a value: the code takes its environment as a tuple
   * param and each call passes the captured values (lambda lifting), so no
   * memory is allocated.
   */
  byValue: boolean;
}

/**
 * Free defs, walking down from the bodies of the scope's continuations (`Scope.freeDefs`).
 * (The scope's def set also holds dead primops that earlier rewrites left registered
 * as users of live defs; their operands are no free variables.)
 */
function liftInfo(c: Continuation): LiftInfo {
  const scope = new Scope(c);
  const { defs: direct, continuations: mentions } = scope.freeDefs();
  const byValue = [...c.uses.values()].every(({ user, index }) => user instanceof Continuation && index === 0);
  return { scope, direct, mentions, env: [], byValue };
}

/** env(c) = direct(c) ∪ env(d) for every lifted d that c mentions, to a fixed point (closures may create each other). */
function closeEnvironments(lifted: Map<Continuation, LiftInfo>): void {
  const env = new Map<Continuation, Set<Def>>();
  for (const [c, info] of lifted) env.set(c, new Set(info.direct));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [c, info] of lifted) {
      const mine = env.get(c)!;
      for (const d of info.mentions) {
        for (const x of env.get(d) ?? []) {
          if (!mine.has(x)) {
            mine.add(x);
            grew = true;
          }
        }
      }
    }
  }
  for (const [c, info] of lifted) info.env = [...env.get(c)!].sort((a, b) => a.gid - b.gid);
}

function describe(d: Def): string {
  if (d instanceof Param) return d.name || 'return';
  if (d instanceof Continuation) return d.name || 'closure';
  return d.label;
}

/**
 * A lifted continuation runs in a frame of its own: it must not return through an
 * enclosing function's return param or jump to one of its blocks.
 */
function checkLocal(c: Continuation, info: LiftInfo, kinds: Map<Continuation, Kind>, sink: DiagnosticSink): boolean {
  let target: Def | null = null;
  for (const d of info.direct) if (isRetLike(d, kinds)) target = d;
  for (const m of info.mentions) {
    const k = kinds.get(m);
    if (k === 'block' || k === 'receiver') target = m;
  }
  if (!target) return true;
  const span = c.fnType.order === 1 ? c.span ?? target.span : target.span ?? c.span;
  sink.error(
    span,
    `cannot compile a non-local jump out of '${describe(c)}': it escapes as a value into code that is not inlined, ` +
      `but continues in its enclosing function (at '${describe(target)}')`,
  );
  return false;
}

/** A function's return continuation used as a value (`let k = return; g(k)` with `g` not specialised) escapes its frame. */
function checkReturnsStayLocal(c: Continuation, kinds: Map<Continuation, Kind>, sink: DiagnosticSink): boolean {
  const last = c.args.length - 1;
  const blockLike = isBlockLike(c.callee, kinds);
  const bad = c.args.find((a, i) => {
    if (!isRetLike(a, kinds)) return false;
    if (isBranchOrMatch(c.callee)) return false;
    return blockLike || i !== last || !passesReturn(c, kinds);
  });
  if (!bad) return true;
  const owner = (bad as Param).continuation;
  sink.error(
    bad.span ?? owner.span,
    `cannot compile a non-local jump out of '${describe(owner)}': its return continuation escapes as a value`,
  );
  return false;
}

/**
 * C receives functions as plain code pointers: a function passed to an imported C
 * function (directly, or in a tuple or struct built at the call) must capture nothing.
 */
function checkForeignArguments(c: Continuation, kinds: Map<Continuation, Kind>, sink: DiagnosticSink): boolean {
  const callee = c.callee;
  if (!(callee instanceof Continuation) || !callee.isImported) return true;
  const last = c.args.length - 1;
  let ok = true;
  const check = (a: Def): void => {
    if (a.type instanceof FnType) {
      if (a instanceof Continuation && (a.isImported || kinds.get(a) === 'closed')) return;
      sink.error(a.span ?? c.span, `a closure that uses values of the code around it cannot be passed to the C function '${callee.name}': C takes a plain function pointer`);
      ok = false;
    } else if (a instanceof PrimOp && (a.tag === 'tuple' || a.tag === 'struct_agg')) {
      a.ops.forEach(check);
    } else if (typeOrder(a.type) > 0) {
      sink.error(a.span ?? c.span, `a function inside a ${a.type} that is not built at the call cannot be passed to the C function '${callee.name}'`);
      ok = false;
    }
  };
  c.args.forEach((a, i) => {
    if (i > 0 && !(returns(callee) && i === last)) check(a);
  });
  return ok;
}

/** The return param of a function (or of a closure that becomes one): a native return, not a value. */
function isRetLike(d: Def, kinds: Map<Continuation, Kind>): boolean {
  if (!isReturnParam(d)) return false;
  const k = kinds.get(d.continuation);
  return k === 'closed' || k === 'lifted' || k === 'kernel' || k === undefined;
}

// ------------------------------------------------------------ types

class TypeConverter {
  readonly envType: PtrType;
  private readonly memo = new Map<IRType, IRType>();

  constructor(private readonly world: World) {
    this.envType = world.types.ptr(world.prim('i8'));
  }

  /** The type of a value: function types become records. */
  value(t: IRType): IRType {
    const done = this.memo.get(t);
    if (done) return done;
    const types = this.world.types;
    let r: IRType = t;
    if (t instanceof FnType) {
      r = types.tuple([this.code(t), this.envType]);
    } else if (t instanceof TupleType) {
      r = types.tuple(t.elems.map((e) => this.value(e)));
    } else if (t instanceof PtrType) {
      r = types.ptr(this.value(t.pointee), t.addrSpace);
    } else if (t instanceof DefiniteArrayType) {
      r = types.definiteArray(this.value(t.elem), t.dim);
    } else if (t instanceof IndefiniteArrayType) {
      r = types.indefiniteArray(this.value(t.elem));
    } else if ((t instanceof StructType || t instanceof VariantType) && hasFn(t, new Set())) {
      // Nominal and possibly recursive through pointers: register before converting the members.
      const copy = t instanceof StructType ? types.struct(t.name) : types.variant(t.name);
      this.memo.set(t, copy);
      if (t instanceof StructType && copy instanceof StructType) {
        copy.fieldNames = [...t.fieldNames];
        copy.fields = t.fields.map((f) => this.value(f));
      } else if (t instanceof VariantType && copy instanceof VariantType) {
        copy.variantNames = [...t.variantNames];
        copy.variants = t.variants.map((v) => this.value(v));
      }
      r = copy;
    }
    this.memo.set(t, r);
    return r;
  }

  /** A function type whose last continuation param is a native return: the other params are values. */
  function(t: FnType): FnType {
    return this.world.fnType(t.params.map((p, i) => (i === t.params.length - 1 && p instanceof FnType ? this.ret(p) : this.value(p))));
  }

  /** A return continuation: its params are values. */
  ret(t: FnType): FnType {
    return this.world.fnType(t.params.map((p) => this.value(p)));
  }

  /** The code of a function value of type `t`: the environment (a pointer to it, unless given) after mem. */
  code(t: FnType, env: IRType = this.envType): FnType {
    const f = this.function(t).params;
    return this.world.fnType([f[0]!, env, ...f.slice(1)]);
  }

  /** The converted type of a continuation of the given kind. */
  continuation(c: Continuation, kind: Kind | undefined): FnType {
    return kind === 'block' || kind === 'receiver' ? this.ret(c.fnType) : this.function(c.fnType);
  }
}

function hasFn(t: IRType, visiting: Set<IRType>): boolean {
  if (visiting.has(t)) return false;
  visiting.add(t);
  if (t instanceof FnType) return true;
  if (t instanceof TupleType) return t.elems.some((e) => hasFn(e, visiting));
  if (t instanceof StructType) return t.fields.some((e) => hasFn(e, visiting));
  if (t instanceof VariantType) return t.variants.some((e) => hasFn(e, visiting));
  if (t instanceof PtrType) return hasFn(t.pointee, visiting);
  if (t instanceof DefiniteArrayType || t instanceof IndefiniteArrayType) return hasFn(t.elem, visiting);
  return false;
}

// ------------------------------------------------------------ rewriting

/** Rebuilds every reachable function with converted types and records in place of function values. */
class Converter {
  /** Old closed continuation to its converted copy. */
  readonly closed = new Map<Continuation, Continuation>();
  private readonly codes = new Map<Continuation, Continuation>();
  private readonly wrappers = new Map<Continuation, Continuation>();
  private readonly jobs: ConvertCloner[] = [];

  constructor(
    readonly world: World,
    readonly types: TypeConverter,
    readonly kinds: Map<Continuation, Kind>,
    readonly lifted: Map<Continuation, LiftInfo>,
  ) {}

  /**
   * Top-level continuations keep their identity when their type does not change
   * (the usual case: only the insides of a few functions mention function values),
   * so exported functions stay the objects emit handed out. The others are copied
   * with the converted type and take over the export.
   */
  run(conts: readonly Continuation[]): void {
    const roots = conts.filter((c) => c.hasBody && this.kinds.get(c) === 'closed');
    for (const c of roots) {
      const t = this.types.continuation(c, 'closed');
      const fresh = t === c.type ? c : this.world.continuation(t, c.name, c.params.map((p) => p.name));
      fresh.span = c.span;
      this.closed.set(c, fresh);
    }
    for (const c of roots) {
      const fresh = this.closed.get(c)!;
      const cloner = new ConvertCloner(this, new Scope(c), null);
      c.params.forEach((p, i) => cloner.map.set(p, fresh.param(i)));
      cloner.cloneBody(c, fresh);
      this.jobs.push(cloner);
    }
    while (this.jobs.length) this.jobs.pop()!.run();
    for (const [c, fresh] of this.closed) {
      if (!c.external || fresh === c) continue;
      fresh.external = true;
      fresh.cc = c.cc;
      fresh.linkName = c.linkName;
      c.external = false;
    }
  }

  /** The converted callee or target for a closed continuation, an import or an intrinsic. */
  global(c: Continuation): Continuation {
    const fresh = this.closed.get(c);
    if (fresh) return fresh;
    if (c.intrinsic === 'branch' || c.intrinsic === 'match' || c.isImported) return c;
    if (c.isIntrinsic) {
      const t = c.fnType;
      const kept = keepsBody.has(c.intrinsic);
      const params = t.params.map((p, i) => {
        if (!(p instanceof FnType)) return this.types.value(p);
        if (i === t.params.length - 1) return this.types.ret(p);
        return kept ? this.types.function(p) : this.types.value(p);
      });
      return this.world.intrinsic(c.intrinsic as Exclude<typeof c.intrinsic, 'none'>, this.world.fnType(params));
    }
    throw new Error(`internal: closure conversion reached ${c.label}, which has no body`);
  }

  /** `(code, env)` for a closed continuation (or import) used as a value: a wrapper taking an unused environment. */
  wrapperRecord(c: Continuation): Def {
    let w = this.wrappers.get(c);
    if (!w) {
      const target = c.hasBody ? this.global(c) : c;
      w = this.world.continuation(this.types.code(c.fnType), `${c.name || 'fn'}.cc`, ['mem', 'env', ...c.params.slice(1).map((p) => p.name)]);
      w.jump(target, [w.param(0), ...w.params.slice(2)]);
      this.wrappers.set(c, w);
    }
    return this.world.tuple([w, this.world.bottom(this.types.envType)]);
  }

  /** The top-level code of a lifted continuation: its scope cloned with the environment unpacked on entry. */
  code(c: Continuation): Continuation {
    let code = this.codes.get(c);
    if (code) return code;
    const info = this.lifted.get(c)!;
    const w = this.world;
    const envTuple = w.types.tuple(info.env.map((d) => this.types.value(d.type)));
    const t = this.types.code(c.fnType, info.byValue ? envTuple : this.types.envType);
    code = w.continuation(t, `${c.name || 'closure'}.code`, ['mem', 'env', ...c.params.slice(1).map((p) => p.name)]);
    code.span = c.span;
    this.codes.set(c, code);
    const cloner = new ConvertCloner(this, info.scope, { entry: c, code });
    let values: Def = code.param(1);
    if (info.byValue) {
      cloner.map.set(c.param(0), code.param(0));
    } else {
      const loaded = w.load(code.param(0), w.bitcast(w.types.ptr(envTuple), code.param(1)));
      values = w.extract(loaded, 1);
      cloner.map.set(c.param(0), w.extract(loaded, 0));
      cloner.map.set(c, w.tuple([code, code.param(1)]));
    }
    c.params.slice(1).forEach((p, i) => cloner.map.set(p, code!.param(i + 2)));
    info.env.forEach((d, j) => cloner.map.set(d, w.extract(values, j)));
    cloner.cloneBody(c, code);
    this.jobs.push(cloner);
    return code;
  }
}

/** Clones one scope (a top-level function's, or a lifted closure's) with conversion. */
class ConvertCloner extends Cloner {
  constructor(
    private readonly cv: Converter,
    scope: Scope,
    /** Set when cloning a lifted closure: inside, the closure itself uses its own environment. */
    private readonly self: { entry: Continuation; code: Continuation } | null,
  ) {
    super(cv.world, scope);
  }

  protected override cloneType(old: Continuation): FnType {
    return this.cv.types.continuation(old, this.cv.kinds.get(old));
  }

  protected override descend(p: PrimOp): boolean {
    return super.descend(p) || this.cv.types.value(p.type) !== p.type || p.ops.some((o) => o instanceof Continuation);
  }

  protected override rebuild(p: PrimOp, ops: readonly Def[]): Def {
    const w = this.world;
    const types = this.cv.types;
    const t = types.value(p.type);
    if (t === p.type && p.ops.every((o, i) => o === ops[i])) return p;
    const [a, b] = ops;
    switch (p.tag) {
      case 'bottom': return w.bottom(t);
      case 'sizeof': return w.sizeof(types.value(p.payload as IRType));
      case 'alignof': return w.alignof(types.value(p.payload as IRType));
      case 'cast': return w.cast(t, a!);
      case 'bitcast': return w.bitcast(t, a!);
      case 'struct_agg': return w.structAgg(t as StructType, ops);
      case 'definite_array': return w.definiteArray((t as DefiniteArrayType).elem, ops);
      case 'slot': return w.slot(a!, (t as PtrType).pointee);
      case 'alloc': return w.alloc(a!, ((t as TupleType).elems[1] as PtrType).pointee, b!);
      case 'variant': return w.variant(t as VariantType, p.payload as number, a!);
      default: return w.rebuild(p, ops);
    }
  }

  /** Continuations reached through a value position become records. */
  protected override leaf(d: Def): Def {
    if (!(d instanceof Continuation)) return super.leaf(d);
    const k = this.cv.kinds.get(d);
    if (k === 'closed' || d.isImported) return this.cv.wrapperRecord(d);
    if (k === 'lifted') throw new Error(`internal: closure ${d.label} reached outside the continuation that creates it`);
    return super.leaf(d);
  }

  /** `rebuild` for the body-local rewriter. */
  rebuildOp(p: PrimOp, ops: readonly Def[]): Def {
    return this.rebuild(p, ops);
  }

  override cloneBody(old: Continuation, fresh: Continuation): void {
    if (!old.hasBody) return;
    const envs = this.allocateEnvironments(old);
    const local = new LocalRewriter(this, envs.pointers);
    const value = (a: Def): Def => local.rewrite(a);
    const [callee, args] = this.jumpOf(old, value, envs.pointers);
    jumpFolded(this.world, fresh, callee, [envs.fill(args[0]!), ...args.slice(1)]);
  }

  /** The converted callee and arguments of `old`'s body. */
  private jumpOf(old: Continuation, value: (a: Def) => Def, envs: Map<Continuation, Def>): [Def, Def[]] {
    const callee = old.callee;
    const args = old.args;
    const last = args.length - 1;
    if (callee instanceof Continuation && (callee.intrinsic === 'branch' || callee.intrinsic === 'match')) {
      const isTarget = (i: number): boolean => (callee.intrinsic === 'branch' ? i >= 2 : i === 2 || (i >= 4 && i % 2 === 0));
      return [callee, args.map((a, i) => (isTarget(i) ? this.target(a) : value(a)))];
    }
    const kind = callee instanceof Continuation ? this.cv.kinds.get(callee) : undefined;
    if (kind === 'block' || kind === 'receiver') return [this.clone(callee as Continuation), args.map(value)];
    // A call: its last argument is a native return continuation when the callee's type ends in one.
    const withReturn = returns(callee);
    const callArgs = (convert: (a: Def) => Def): Def[] =>
      args.map((a, i) => (withReturn && i === last ? this.target(a) : convert(a)));
    if (callee instanceof Continuation) {
      if (kind === 'lifted' || callee === this.self?.entry) {
        const env = callee === this.self?.entry ? this.self.code.param(1) : envs.get(callee) ?? this.passedEnvironment(callee);
        const [mem, ...rest] = callArgs(value);
        return [this.cv.code(callee), [mem!, env, ...rest]];
      }
      if (callee.isImported) {
        return [callee, callArgs((a) => this.foreignArgument(a, callee, value))];
      }
      if (kind === 'kernel') return [this.clone(callee), callArgs(value)];
      const kept = keepsBody.has(callee.intrinsic);
      return [this.cv.global(callee), callArgs((a) => (kept && a.type instanceof FnType ? this.kernelBody(a) : value(a)))];
    }
    if (isRetLike(callee, this.cv.kinds)) return [this.rewrite(callee), args.map(value)];
    // An indirect call through a record.
    const record = value(callee);
    const [mem, ...rest] = callArgs(value);
    return [this.world.extract(record, 0), [mem!, this.world.extract(record, 1), ...rest]];
  }

  /** The captured values of a lambda-lifted closure, for a call of it. */
  private passedEnvironment(c: Continuation): Def {
    return this.world.tuple(this.cv.lifted.get(c)!.env.map((d) => this.rewrite(d)));
  }

  /** A control-flow target: a block or receiver of this scope, a closed block, or a return param. */
  private target(d: Def): Def {
    if (d instanceof Continuation) {
      const k = this.cv.kinds.get(d);
      if (k === 'closed' || k === undefined) return this.cv.global(d);
      if (k === 'lifted') throw new Error(`internal: closure ${d.label} used as a return continuation`);
      return this.clone(d);
    }
    return this.rewrite(d);
  }

  private kernelBody(d: Def): Def {
    if (d instanceof Continuation) return this.cv.kinds.get(d) === 'closed' ? this.cv.global(d) : this.clone(d);
    return this.rewrite(d);
  }

  /**
   * An argument of a C function: a function is a plain function pointer, also inside a
   * tuple or struct built at the call (the 2018 runtime's task closure `(fn(u64) -> (), u64)`,
   * passed by value as C's `struct { void (*)(uint64_t); uint64_t; }`).
   */
  private foreignArgument(a: Def, callee: Continuation, value: (a: Def) => Def): Def {
    if (a.type instanceof FnType) return this.foreignPointer(a, callee);
    if (a instanceof PrimOp && (a.tag === 'tuple' || a.tag === 'struct_agg') && a.ops.some((o) => typeOrder(o.type) > 0)) {
      const ops = a.ops.map((o) => this.foreignArgument(o, callee, value));
      return a.tag === 'tuple' ? this.world.tuple(ops) : this.world.structAgg(a.type as StructType, ops);
    }
    return value(a);
  }

  private foreignPointer(d: Def, callee: Continuation): Def {
    if (d instanceof Continuation && this.cv.kinds.get(d) === 'closed') return this.cv.global(d);
    if (d instanceof Continuation && d.isImported) return d;
    throw new Error(`internal: a closure is passed to the foreign function ${callee.name}`);
  }

  /**
   * Environments of the lifted closures `old`'s body creates or calls. They are
   * allocated on entry (the rest of the body sees the memory after the
   * allocations) and filled at the end of the body's memory chain, where every
   * captured value is computed; nothing can call a closure before the body's
   * final jump.
   */
  private allocateEnvironments(old: Continuation): { pointers: Map<Continuation, Def>; fill: (mem: Def) => Def } {
    const pointers = new Map<Continuation, Def>();
    const created = closuresCreatedBy(old, this.cv.kinds, this.self?.entry ?? null).filter((c) => !this.cv.lifted.get(c)!.byValue);
    if (!created.length) return { pointers, fill: (mem) => mem };
    const w = this.world;
    const types = this.cv.types;
    let mem = this.rewrite(old.param(0));
    const raw = new Map<Continuation, Def>();
    for (const c of created) {
      const info = this.cv.lifted.get(c)!;
      const alloc = w.alloc(mem, w.types.tuple(info.env.map((d) => types.value(d.type))), w.litI32(1));
      mem = w.extract(alloc, 0);
      raw.set(c, w.extract(alloc, 1));
      pointers.set(c, w.bitcast(types.envType, w.extract(alloc, 1)));
    }
    this.map.set(old.param(0), mem);
    const fill = (m: Def): Def => {
      for (const c of created) m = w.store(m, raw.get(c)!, w.tuple(this.cv.lifted.get(c)!.env.map((d) => this.rewrite(d))));
      return m;
    };
    return { pointers, fill };
  }

  /** The record of a lifted closure created in the body being rewritten. */
  record(c: Continuation, envs: Map<Continuation, Def>): Def {
    return this.world.tuple([this.cv.code(c), envs.get(c)!]);
  }
}

/** Lifted closures (other than `self`) that `c`'s body mentions, through primops included. */
function closuresCreatedBy(c: Continuation, kinds: Map<Continuation, Kind>, self: Continuation | null): Continuation[] {
  return [...bodyRefs(c).continuations].filter((d) => d !== self && kinds.get(d) === 'lifted').sort((a, b) => a.gid - b.gid);
}

/**
 * Rewrites the operands of one body: primops that contain a closure created by
 * this body are rebuilt privately (their records use this body's environments);
 * everything else goes through the scope-wide rewrite.
 */
class LocalRewriter {
  private readonly memo = new Map<Def, Def>();
  private readonly tainted = new Map<PrimOp, boolean>();

  constructor(private readonly cloner: ConvertCloner, private readonly envs: Map<Continuation, Def>) {}

  rewrite(root: Def): Def {
    if (!this.envs.size) return this.cloner.rewrite(root);
    // Only tainted primops are rebuilt here from their rewritten operands; everything else is a leaf.
    const operands = (d: Def): readonly Def[] => (d instanceof PrimOp && this.isTainted(d) ? d.ops : []);
    return foldUp(root, this.memo, operands, (d) => {
      if (d instanceof Continuation && this.envs.has(d)) return this.cloner.record(d, this.envs);
      if (!(d instanceof PrimOp) || !this.isTainted(d)) return this.cloner.rewrite(d);
      return this.cloner.rebuildOp(d, d.ops.map((o) => this.memo.get(o)!));
    });
  }

  /** Whether `p` contains, through primops, a closure this body creates. */
  private isTainted(p: PrimOp): boolean {
    const operands = (d: PrimOp): PrimOp[] => d.ops.filter((o): o is PrimOp => o instanceof PrimOp);
    return foldUp(p, this.tainted, operands, (d) =>
      d.ops.some((o) => (o instanceof Continuation ? this.envs.has(o) : o instanceof PrimOp && this.tainted.get(o)!)),
    );
  }
}
