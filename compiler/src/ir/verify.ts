// Consistency checks of a World, for tests and for running between passes.
// `verify` returns one line per problem (empty: the graph is well formed); lines
// starting with `note:` are warnings about garbage that cleanup should have removed.
import { Continuation, type Def, isLit, PrimOp } from './defs.ts';
import { defRef } from './printer.ts';
import { reachableFrom } from './reachable.ts';
import {
  DefiniteArrayType, FnType, FrameType, IndefiniteArrayType, type IRType, MemType, PrimType, PtrType, PtrVectorType,
  StructType, TupleType, VariantType,
} from './types.ts';
import { normaliseLit, type World } from './world.ts';

export function verify(world: World): string[] {
  return new Verifier(world).run();
}

/** Every def reachable from the world's continuations (params, bodies, primop operands). */
function collectDefs(world: World): Set<Def> {
  const seen = new Set<Def>();
  const stack: Def[] = [...world.continuations];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    if (d instanceof Continuation) stack.push(...d.params);
    for (const o of d.ops) stack.push(o); // not push(...): a string literal has an op per byte
  }
  return seen;
}

class Verifier {
  private readonly problems: string[] = [];
  private readonly basicBlock: FnType;

  constructor(private readonly world: World) {
    this.basicBlock = world.fnType([world.mem]);
  }

  run(): string[] {
    const defs = collectDefs(this.world);
    for (const d of defs) {
      this.checkUses(d);
      if (d instanceof Continuation) this.checkContinuation(d);
      else if (d instanceof PrimOp) this.checkPrimOp(d);
    }
    this.checkReachability();
    return this.problems;
  }

  private report(at: Def, message: string): void {
    this.problems.push(`${at.label}: ${message}`);
  }

  /** Each operand records the use, and each recorded use is an operand. */
  private checkUses(d: Def): void {
    d.ops.forEach((op, i) => {
      const use = op.uses.get(`${d.gid}:${i}`);
      if (!use || use.user !== d || use.index !== i) this.report(d, `operand ${i} (${op.label}) does not record this use`);
    });
    for (const [key, use] of d.uses) {
      if (use.user.ops[use.index] !== d || key !== `${use.user.gid}:${use.index}`) {
        this.report(d, `stale use: ${use.user.label} operand ${use.index} is no longer ${d.label}`);
      }
    }
  }

  private checkContinuation(c: Continuation): void {
    const params = c.fnType.params;
    c.params.forEach((p, i) => {
      if (p.continuation !== c || p.index !== i || p.type !== params[i]) {
        this.report(c, `param ${i} (${p.label}) does not match the continuation's type ${c.type}`);
      }
    });
    if (c.params.length !== params.length) this.report(c, `has ${c.params.length} params but type ${c.type}`);
    if (!this.world.continuations.has(c)) this.report(c, 'is used but no longer in the world (forgotten while still referenced)');
    if (!c.hasBody) {
      if (!c.external && !c.isIntrinsic && c.numUses > 0) this.report(c, 'has no body but is used');
      return;
    }
    if (!(params[0] instanceof MemType)) this.report(c, `first param is ${params[0] ?? 'missing'}, not mem`);
    this.checkJump(c);
  }

  private checkJump(c: Continuation): void {
    const callee = c.callee;
    const ct = callee.type;
    const name = defRef(callee);
    if (!(ct instanceof FnType)) {
      this.report(c, `jumps to ${name} of type ${ct}, which is not a continuation type`);
      return;
    }
    const args = c.args;
    if (callee instanceof Continuation && callee.intrinsic === 'match') {
      const extra = args.length - ct.params.length;
      if (extra < 0 || extra % 2 !== 0) {
        this.report(c, `match takes (mem, value, otherwise) and (literal, target) pairs, got ${args.length} arguments`);
        return;
      }
      this.checkArgs(c, name, args.slice(0, ct.params.length), ct.params);
      for (let i = ct.params.length; i < args.length; i += 2) {
        const lit = args[i]!;
        const target = args[i + 1]!;
        if (!isLit(lit) || lit.type !== args[1]!.type) {
          this.report(c, `match case ${defRef(lit)} is not a literal of type ${args[1]!.type}`);
        }
        if (target.type !== this.basicBlock) this.report(c, `match target ${defRef(target)} has type ${target.type}, expected fn(mem)`);
      }
      return;
    }
    if (args.length !== ct.params.length) {
      this.report(c, `jump to ${name} passes ${args.length} arguments, but its type ${ct} takes ${ct.params.length}`);
      return;
    }
    this.checkArgs(c, name, args, ct.params);
  }

  private checkArgs(c: Continuation, name: string, args: readonly Def[], params: readonly IRType[]): void {
    args.forEach((a, i) => {
      if (a.type !== params[i]) {
        this.report(c, `argument ${i} (${defRef(a)}) of the jump to ${name} has type ${a.type}, expected ${params[i]}`);
      }
    });
  }

  // ------------------------------------------------------------ primops

  private checkPrimOp(p: PrimOp): void {
    const problem = primOpProblem(this.world, p);
    if (problem) this.report(p, problem);
  }

  // ------------------------------------------------------------ garbage

  /**
   * Continuations with a body that no exported function reaches, but that dead code
   * still references: cleanup missed them. Worlds without exports have no roots to judge by.
   */
  private checkReachability(): void {
    const roots = [...this.world.continuations].filter((c) => c.external && c.hasBody);
    if (!roots.length) return;
    const reached = new Set<Def>(reachableFrom(roots).continuations);
    for (const c of this.world.continuations) {
      if (!c.hasBody || reached.has(c) || c.numUses === 0) continue;
      const users = [...c.uses.values()].map((u) => u.user.label).sort();
      this.problems.push(`note: ${c.label} is unreachable but still used by dead code (${users.join(', ')})`);
    }
  }
}

const ARITH = new Set(['add', 'sub', 'mul', 'div', 'rem', 'and', 'or', 'xor', 'shl', 'shr']);
const BITWISE = new Set(['and', 'or', 'xor', 'shl', 'shr']);
const CMP = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge']);

function isIndex(t: IRType): boolean {
  return t instanceof PrimType && t.length === 1 && t.isInt;
}

/** The type of element `index` of an aggregate, or a problem. */
function elementOf(agg: IRType, index: Def, what: string): IRType | string {
  if (!isIndex(index.type)) return `${what} index ${defRef(index)} is not an integer`;
  if (agg instanceof TupleType || agg instanceof StructType) {
    const elems = agg instanceof TupleType ? agg.elems : agg.fields;
    if (!isLit(index)) return `${what} index into ${agg} must be a literal`;
    const i = Number(index.payload);
    return i >= 0 && i < elems.length ? elems[i]! : `${what} index ${i} out of range for ${agg}`;
  }
  if (agg instanceof DefiniteArrayType || agg instanceof IndefiniteArrayType) return agg.elem;
  if (agg instanceof PrimType && agg.length > 1) return agg.scalar;
  if (agg instanceof PtrVectorType) return agg.lane;
  return `${what} from ${agg}, which is not an aggregate`;
}

function primOpProblem(world: World, p: PrimOp): string | null {
  const t = p.type;
  const ot = (i: number): IRType => p.op(i).type;
  const expect = (actual: IRType, expected: IRType, what: string): string | null =>
    actual === expected ? null : `${what} has type ${actual}, expected ${expected}`;
  if (ARITH.has(p.tag)) {
    if (!(t instanceof PrimType)) return `${p.tag} on ${t}`;
    if (ot(0) !== t || ot(1) !== t) return `${p.tag} operands ${ot(0)} and ${ot(1)} differ from the result ${t}`;
    if (t.isFloat && BITWISE.has(p.tag)) return `${p.tag} on floats`;
    if (t.isBool && !['and', 'or', 'xor'].includes(p.tag)) return `${p.tag} on bool`;
    return null;
  }
  if (CMP.has(p.tag)) {
    const a = ot(0);
    if (a !== ot(1)) return `${p.tag} compares ${a} with ${ot(1)}`;
    const lanes = a instanceof PrimType ? a.length : 1;
    if (!(a instanceof PrimType) && !(a instanceof PtrType && (p.tag === 'eq' || p.tag === 'ne'))) return `${p.tag} on ${a}`;
    return expect(t, world.prim('bool', lanes), 'comparison result');
  }
  switch (p.tag) {
    case 'lit': {
      if (!(t instanceof PrimType)) return `literal of type ${t}`;
      const v = p.payload as bigint | number | boolean;
      const kind = t.isBool ? 'boolean' : t.isFloat ? 'number' : 'bigint';
      if (typeof v !== kind) return `literal ${String(v)} of type ${t} is a JS ${typeof v}, expected ${kind}`;
      return normaliseLit(t.scalar, v) === v || Number.isNaN(v) ? null : `literal ${String(v)} is out of range for ${t}`;
    }
    case 'bottom':
      return null;
    case 'cast': {
      const from = ot(0);
      if (from instanceof PtrType && t instanceof PtrType) return null;
      if (!(from instanceof PrimType && t instanceof PrimType) || from.length !== t.length) return `cast from ${from} to ${t}`;
      return null;
    }
    case 'bitcast': {
      const from = ot(0);
      if (from instanceof PtrType && t instanceof PtrType) return null;
      if (from instanceof PrimType && t instanceof PrimType && from.bits * from.length === t.bits * t.length) return null;
      return `bitcast from ${from} to ${t} (sizes or kinds differ)`;
    }
    case 'select': {
      const c = ot(0);
      if (!(c instanceof PrimType && c.isBool)) return `select condition has type ${c}`;
      const lanes = t instanceof PrimType || t instanceof PtrVectorType ? t.length : 1;
      if (c.length > 1 && lanes !== c.length) return `select mask ${c} does not fit ${t}`;
      return expect(ot(1), t, 'select operand 1') ?? expect(ot(2), t, 'select operand 2');
    }
    case 'tuple':
      return expect(t, world.types.tuple(p.ops.map((o) => o.type)), 'tuple');
    case 'struct_agg': {
      if (!(t instanceof StructType) || t.fields.length !== p.ops.length) return `struct_agg with ${p.ops.length} fields for ${t}`;
      const bad = p.ops.findIndex((o, i) => o.type !== t.fields[i]);
      return bad < 0 ? null : `field ${bad} has type ${ot(bad)}, expected ${t.fields[bad]}`;
    }
    case 'definite_array': {
      if (!(t instanceof DefiniteArrayType) || t.dim !== p.ops.length) return `definite_array of ${p.ops.length} for ${t}`;
      const bad = p.ops.findIndex((o) => o.type !== t.elem);
      return bad < 0 ? null : `element ${bad} has type ${ot(bad)}, expected ${t.elem}`;
    }
    case 'repeat_array':
      if (!(t instanceof DefiniteArrayType)) return `repeat_array of type ${t}`;
      return expect(ot(0), t.elem, 'repeated element');
    case 'vector': {
      if (!(t instanceof PrimType) || t.length !== p.ops.length) return `vector of ${p.ops.length} lanes for ${t}`;
      const bad = p.ops.findIndex((o) => o.type !== t.scalar);
      return bad < 0 ? null : `lane ${bad} has type ${ot(bad)}, expected ${t.scalar}`;
    }
    case 'extract': {
      const e = elementOf(ot(0), p.op(1), 'extract');
      return typeof e === 'string' ? e : expect(t, e, 'extract result');
    }
    case 'insert': {
      const e = elementOf(ot(0), p.op(1), 'insert');
      if (typeof e === 'string') return e;
      return expect(ot(2), e, 'inserted value') ?? expect(t, ot(0), 'insert result');
    }
    case 'lea': {
      const ptr = ot(0);
      const idx = ot(1);
      // A vector of pointers or of indices (the vectoriser's gathers) gives a vector of pointers.
      const lanes = ptr instanceof PtrVectorType ? ptr.length : idx instanceof PrimType ? idx.length : 1;
      const base = ptr instanceof PtrVectorType ? ptr.lane : ptr;
      if (!(base instanceof PtrType)) return `lea from ${ptr}, which is not a pointer`;
      let e: IRType | string;
      if (idx instanceof PrimType && idx.length > 1) {
        const arr = base.pointee;
        if (idx.length !== lanes || !idx.isInt) return `lea index ${idx} for ${ptr}`;
        if (!(arr instanceof DefiniteArrayType || arr instanceof IndefiniteArrayType)) return `lea with lane indices into ${arr}`;
        e = arr.elem;
      } else {
        e = elementOf(base.pointee, p.op(1), 'lea');
        if (typeof e === 'string') return e;
      }
      const lane = world.types.ptr(e, base.addrSpace);
      return expect(t, lanes > 1 ? world.types.ptrVector(lane, lanes) : lane, 'lea result');
    }
    case 'load': {
      const ptr = ot(1);
      if (!(ot(0) instanceof MemType)) return `load takes mem first, got ${ot(0)}`;
      if (!(ptr instanceof PtrType)) return `load from ${ptr}, which is not a pointer`;
      return expect(t, world.types.tuple([world.mem, ptr.pointee]), 'load result');
    }
    case 'store': {
      const ptr = ot(1);
      if (!(ot(0) instanceof MemType)) return `store takes mem first, got ${ot(0)}`;
      if (!(ptr instanceof PtrType)) return `store to ${ptr}, which is not a pointer`;
      return expect(ot(2), ptr.pointee, 'stored value') ?? expect(t, world.mem, 'store result');
    }
    case 'enter':
      return ot(0) instanceof MemType ? expect(t, world.types.tuple([world.mem, world.types.frame]), 'enter result') : `enter takes mem, got ${ot(0)}`;
    case 'slot':
      if (!(ot(0) instanceof FrameType)) return `slot takes a frame, got ${ot(0)}`;
      return t instanceof PtrType ? null : `slot of type ${t}`;
    case 'alloc': {
      if (!(ot(0) instanceof MemType)) return `alloc takes mem first, got ${ot(0)}`;
      if (!isIndex(ot(1))) return `alloc count has type ${ot(1)}`;
      const ok = t instanceof TupleType && t.elems.length === 2 && t.elems[0] instanceof MemType && t.elems[1] instanceof PtrType;
      return ok ? null : `alloc result has type ${t}, expected (mem, T*)`;
    }
    case 'global':
      return expect(t, world.types.ptr(ot(0)), 'global');
    case 'sizeof':
    case 'alignof':
      return expect(t, world.prim('i32'), p.tag);
    case 'variant':
    case 'variant_extract': {
      const vt = p.tag === 'variant' ? t : ot(0);
      const i = p.payload as number;
      if (!(vt instanceof VariantType) || !(i >= 0 && i < vt.variants.length)) return `${p.tag} #${i} of ${vt}`;
      return p.tag === 'variant' ? expect(ot(0), vt.variants[i]!, 'variant payload') : expect(t, vt.variants[i]!, 'variant_extract result');
    }
    case 'variant_index':
      return ot(0) instanceof VariantType ? expect(t, world.prim('u32'), 'variant_index') : `variant_index of ${ot(0)}`;
    case 'run':
    case 'hlt':
      return expect(t, ot(0), p.tag);
    case 'known':
      return expect(t, world.prim('bool'), 'known');
    case 'asm': {
      if (!(ot(0) instanceof MemType)) return `asm takes mem first, got ${ot(0)}`;
      const ok = t instanceof TupleType && t.elems.length === 2 && t.elems[0] instanceof MemType;
      return ok ? null : `asm result has type ${t}, expected (mem, R)`;
    }
  }
  return `unknown primop tag ${String(p.tag)}`;
}
