// The OpenCL backend: the kernels of `opencl` launches (transform/kernels.ts) as OpenCL C
// 1.2 source, the way AnyDSL's C backend writes them: one C function per function of
// the device program, its blocks as labels, block parameters as variables assigned
// before each `goto`, the primops placed by the CPU backend's scheduler as assignments
// to variables declared at the top. PoCL (and any OpenCL 1.2 driver) compiles it; the
// driver embeds it in the host library (driver/device-code.ts).
//
// The semantics are the IR's, not C's: integer arithmetic wraps (computed on unsigned
// types), shift amounts are masked, a signed division by -1 negates, float to integer
// conversion saturates (NaN gives 0, `convert_T_sat`), and a division by zero gives 0
// (a kernel cannot stop the program). Types: numbers are OpenCL's scalars, tuples and
// structs C structs, definite arrays a struct around a C array (so they are values).
// OpenCL 1.2 has no generic address space, so every pointer gets the space it points
// into: a kernel's pointer parameters are `__global`, `reserve_shared` arrays `__local`
// (declared at kernel scope, where OpenCL wants them), stack slots `__private`, constant
// globals `__constant`; a value derived from a pointer keeps its operand's space, and a
// block parameter takes the space of what is passed to it. The work-item functions and
// `barrier` are OpenCL's; the prelude's math intrinsics (`llvm.sqrt.f32`, …) become the
// OpenCL built-ins of the same meaning. Float arithmetic is IEEE's, as on the CPU: no fma
// contraction (`FP_CONTRACT OFF`), and the runtime builds with correctly rounded f32
// division and sqrt where the device offers them. What OpenCL C cannot express here (SIMD values,
// enums, f16, heap allocation, 64-bit or float atomics, host functions) is a BackendError.
import { Continuation, type Def, isLit, Param, PrimOp } from '../ir/defs.ts';
import { cpuLayout } from '../ir/layout.ts';
import {
  DefiniteArrayType, FnType, IndefiniteArrayType, type IRType, PrimType, PtrType, StructType, TupleType,
} from '../ir/types.ts';
import type { CallCont, Target, Terminator } from './cfg.ts';
import { describe, fail } from './errors.ts';
import { isErased, returnValueType, valueParamTypes } from './llvm-types.ts';
import { NameTable } from './names.ts';
import { collectProgram, type Program } from './program.ts';
import { isConstant, type Schedule, scheduleFunction } from './schedule.ts';

type Space = '__global' | '__local' | '__private' | '__constant';

/** The OpenCL C program of `kernels` (exported `device` continuations named as their kernels). */
export function emitOpenCL(kernels: readonly Continuation[]): string {
  const mod = new CModule(collectProgram(kernels));
  const bodies = mod.program.functions.map((f) => new CFunction(mod, f, scheduleFunction(f, mod.program)).emit());
  return mod.text(bodies);
}

const scalarNames: Record<string, string> = {
  bool: 'bool', i8: 'char', u8: 'uchar', i16: 'short', u16: 'ushort', i32: 'int', u32: 'uint', i64: 'long', u64: 'ulong',
  f32: 'float', f64: 'double',
};

const unsignedOf: Record<string, string> = { char: 'uchar', short: 'ushort', int: 'uint', long: 'ulong' };

/** Module-level state: C names of functions, the typedefs of aggregates, constant globals, prototypes. */
class CModule {
  readonly names = new NameTable();
  private readonly symbols = new Map<Continuation, string>();
  private readonly typedefs = new Map<IRType, string>();
  private readonly typedefLines: string[] = [];
  private readonly globals = new Map<PrimOp, string>();
  private readonly globalLines: string[] = [];
  private readonly prototypes: string[] = [];
  usesDouble = false;

  constructor(readonly program: Program) {
    for (const f of program.functions.filter((c) => c.external)) {
      const name = f.linkName ?? f.name;
      if (!this.names.claim(name)) fail(f, `a second kernel is named '${name}'`);
      this.symbols.set(f, name);
    }
    for (const f of program.functions.filter((c) => !c.external)) this.symbols.set(f, cName(this.names, 'f', f.name));
  }

  functionName(c: Continuation): string {
    return this.symbols.get(c)!;
  }

  addPrototype(text: string): void {
    this.prototypes.push(text);
  }

  /** The C type of values of `t`; pointers point into `space` (their own when the type says). */
  type(t: IRType, fn: Continuation | null, space: Space = '__global'): string {
    if (t instanceof PrimType) {
      if (t.length !== 1) fail(fn, `the SIMD type ${t} in an OpenCL kernel`);
      const s = scalarNames[t.prim];
      if (!s) fail(fn, `the type ${t} in an OpenCL kernel`);
      if (s === 'double') this.usesDouble = true;
      return s;
    }
    if (t instanceof PtrType) return `${typeSpace(t) ?? space} ${this.type(elementOf(t), fn)}*`;
    if (t instanceof TupleType || t instanceof StructType || t instanceof DefiniteArrayType) return this.typedef(t, fn);
    return fail(fn, `the type ${t} in an OpenCL kernel`);
  }

  private typedef(t: TupleType | StructType | DefiniteArrayType, fn: Continuation | null): string {
    let name = this.typedefs.get(t);
    if (name) return name;
    const fields = t instanceof DefiniteArrayType ? [`${this.type(t.elem, fn)} a[${Math.max(t.dim, 1)}];`]
      : (t instanceof TupleType ? t.elems : t.fields).map((e, i) => isErased(e) ? `uchar e${i};` : `${this.type(e, fn)} e${i};`);
    name = cName(this.names, 't', t instanceof DefiniteArrayType ? 'array' : t instanceof StructType ? t.name : 'tuple');
    this.typedefs.set(t, name);
    this.typedefLines.push(`typedef struct { ${fields.join(' ')} } ${name};`);
    return name;
  }

  /** `&name` of a constant global, defined on first use. */
  global(g: PrimOp, fn: Continuation): string {
    let name = this.globals.get(g);
    if (name) return `(&${name})`;
    const { mutable, name: hint } = g.payload as { mutable: boolean; name: string };
    if (mutable) fail(fn, `uses the mutable global '${describe(g)}': OpenCL kernels only read constant globals`);
    name = cName(this.names, 'g', hint);
    this.globals.set(g, name);
    const init = g.op(0);
    this.globalLines.push(`__constant ${this.type(init.type, fn, '__constant')} ${name} = ${this.initializer(init, fn)};`);
    return `(&${name})`;
  }

  /** A constant as a C initialiser (braces for aggregates). */
  initializer(d: Def, fn: Continuation): string {
    const p = d as PrimOp;
    if (p.tag === 'run' || p.tag === 'hlt') return this.initializer(p.op(0), fn);
    if (p.tag === 'bottom' && !(p.type instanceof PrimType)) return '{0}';
    switch (p.tag) {
      case 'tuple': case 'struct_agg':
        return p.ops.length ? `{ ${p.ops.map((o) => isErased(o.type) ? '0' : this.initializer(o, fn)).join(', ')} }` : '{0}';
      case 'definite_array':
        return p.ops.length ? `{ { ${p.ops.map((o) => this.initializer(o, fn)).join(', ')} } }` : '{0}';
      case 'repeat_array': {
        const e = this.initializer(p.op(0), fn);
        return `{ { ${Array.from({ length: (p.type as DefiniteArrayType).dim }, () => e).join(', ')} } }`;
      }
      default:
        return this.scalarConstant(p, fn);
    }
  }

  /** A scalar constant as a C expression. */
  scalarConstant(p: PrimOp, fn: Continuation): string {
    switch (p.tag) {
      case 'lit': return literal(p.type as PrimType, p.payload as bigint | number | boolean, fn);
      case 'bottom': return p.type instanceof PtrType ? '0' : literal(p.type as PrimType, p.type instanceof PrimType && p.type.isFloat ? 0 : 0n, fn);
      case 'sizeof': return String(cpuLayout.size(p.payload as IRType));
      case 'alignof': return String(cpuLayout.align(p.payload as IRType));
      case 'known': return 'false';
      case 'run': case 'hlt': return this.scalarConstant(p.op(0) as PrimOp, fn);
      case 'global': return this.global(p, fn);
      default: return fail(fn, `'${describe(p)}' is not a scalar constant`);
    }
  }

  text(bodies: readonly string[]): string {
    // No contraction of a multiply and an add into one fma: each float operation rounds on
    // its own, as on the CPU and in NVVM's mul.rn/add.rn, so a kernel computes what `opt` does.
    const out = ['// Generated by the AnyDSL TypeScript compiler (OpenCL C 1.2).', '#pragma OPENCL FP_CONTRACT OFF'];
    if (this.usesDouble) out.push('#pragma OPENCL EXTENSION cl_khr_fp64 : enable');
    out.push(...this.typedefLines, ...this.globalLines, ...this.prototypes, '', bodies.join('\n\n'));
    return `${out.join('\n')}\n`;
  }
}

/**
 * A fresh C identifier: a one-letter prefix per kind (`v_` values, `l_` labels, `f_`
 * functions, `t_` types, `g_` globals) keeps a user's names clear of OpenCL C's keywords
 * (`local`, `global`, `half`, …) and of each other.
 */
function cName(table: NameTable, prefix: string, hint: string): string {
  // Hints never hold `__`, so the table's `.n` suffix, spelled `__n`, cannot collide with one.
  return table.fresh(`${prefix}_${hint.replace(/[^A-Za-z0-9]+/g, '_')}`).replace(/\./g, '__');
}

/** What a pointer of type `t` addresses, as an element type: an indefinite array's element, else the pointee. */
function elementOf(t: PtrType): IRType {
  return t.pointee instanceof IndefiniteArrayType ? t.pointee.elem : t.pointee;
}

/** The space a pointer type names itself (LLVM's NVPTX/AMDGPU numbering, which Impala's `&[1]`/`&[3]` follow). */
function typeSpace(t: PtrType): Space | null {
  switch (t.addrSpace) {
    case 1: return '__global';
    case 3: return '__local';
    case 4: return '__constant';
    default: return null;
  }
}

/** A literal of the scalar type `t` as a C expression of exactly that type. */
function literal(t: PrimType, v: bigint | number | boolean, fn: Continuation): string {
  if (t.isBool) return v ? 'true' : 'false';
  const c = scalarNames[t.prim];
  if (!c || t.length !== 1) return fail(fn, `a literal of type ${t} in an OpenCL kernel`);
  if (t.isFloat) {
    const n = t.prim === 'f32' ? Math.fround(Number(v)) : Number(v);
    const view = new DataView(new ArrayBuffer(8));
    if (t.prim === 'f32') {
      view.setFloat32(0, n);
      return Number.isFinite(n) && !Object.is(n, -0) && Math.fround(Number(String(n))) === n ? `${floatText(n)}f` : `as_float(0x${view.getUint32(0).toString(16)}u)`;
    }
    view.setFloat64(0, n);
    return Number.isFinite(n) && !Object.is(n, -0) ? floatText(n) : `as_double(0x${view.getBigUint64(0).toString(16)}UL)`;
  }
  const b = BigInt.asIntN(t.bits, typeof v === 'bigint' ? v : BigInt(Number(v)));
  const value = t.isSigned ? b : BigInt.asUintN(t.bits, b);
  switch (c) {
    case 'int': return value === -(2n ** 31n) ? '(-2147483647 - 1)' : value < 0n ? `(${value})` : String(value);
    case 'uint': return `${value}u`;
    case 'long': return value === -(2n ** 63n) ? '(-9223372036854775807L - 1L)' : value < 0n ? `(${value}L)` : `${value}L`;
    case 'ulong': return `${value}UL`;
    default: return `((${c})${value < 0n ? `(${value})` : value})`;
  }
}

/** A finite number in C syntax, exactly (JavaScript's shortest round-trip text, with a point or an exponent). */
function floatText(n: number): string {
  const s = String(n);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

/** OpenCL built-ins for the prelude's LLVM intrinsics (compiler/lib/math.impala). */
function builtinFor(name: string): string | null {
  const m = /^llvm\.(\w+)\.(f32|f64|i32|i64)$/.exec(name);
  if (!m) return null;
  const op = m[1]!;
  if (['sqrt', 'fma', 'fabs', 'floor', 'ceil', 'exp', 'log', 'pow', 'sin', 'cos'].includes(op)) return op;
  const renamed: Record<string, string> = { minnum: 'fmin', maxnum: 'fmax', smin: 'min', smax: 'max', umin: 'min', umax: 'max' };
  return renamed[op] ?? null;
}

const WORK_ITEM_FUNCTIONS = new Set(['get_local_id', 'get_group_id', 'get_local_size', 'get_num_groups', 'get_global_id', 'get_global_size']);

const ATOMICS: readonly (string | null)[] = ['atomic_xchg', 'atomic_add', 'atomic_sub', 'atomic_and', null, 'atomic_or', 'atomic_xor', 'atomic_max', 'atomic_min', 'atomic_max', 'atomic_min'];

class CFunction {
  private readonly locals = new NameTable();
  private readonly values = new Map<Def, string>();
  private readonly effects = new Map<PrimOp, string>();
  private readonly labels = new Map<Continuation, string>();
  private readonly decls: string[] = [];
  private readonly lines: string[] = [];
  /** Arguments jumps pass to each block param, for the address spaces of pointers. */
  private readonly incoming = new Map<Param, Def[]>();
  private readonly spaces = new Map<Def, Space | null>();
  private readonly isKernel: boolean;

  constructor(
    private readonly mod: CModule,
    private readonly fn: Continuation,
    private readonly schedule: Schedule,
  ) {
    this.isKernel = fn.external;
  }

  emit(): string {
    const { cfg } = this.schedule;
    for (const term of cfg.terminators.values()) {
      if (term.kind === 'jump') term.args.forEach((a, i) => this.addIncoming(term.block.param(i), a));
    }
    const params: string[] = [];
    const prologue: string[] = [];
    for (const p of this.fn.params) {
      if (p === this.fn.retParam || isErased(p.type)) continue;
      const name = cName(this.locals, 'v', p.name);
      this.values.set(p, name);
      if (this.isKernel && p.type instanceof PrimType && p.type.isBool) {
        // OpenCL kernels cannot take bool: the host passes a byte.
        params.push(`uchar ${name}_byte`);
        prologue.push(`  bool ${name} = ${name}_byte != 0;`);
      } else params.push(`${this.cType(p)} ${name}`);
    }
    for (const b of cfg.blocks) {
      this.labels.set(b, cName(this.locals, 'l', b.name));
      if (b === this.fn) continue;
      for (const p of b.params) {
        if (isErased(p.type)) continue;
        const name = cName(this.locals, 'v', p.name);
        this.values.set(p, name);
        this.decls.push(`  ${this.cType(p)} ${name};`);
      }
    }
    for (const b of cfg.blocks) {
      if (b !== this.fn) this.lines.push(`${this.labels.get(b)!}: ;`);
      for (const p of this.schedule.placed.get(b)!) this.primop(p);
      this.lines.push(...this.terminate(cfg.terminator(b)).map((l) => `  ${l}`));
    }
    const ret = returnValueType(this.fn.fnType);
    if (this.isKernel && ret) fail(this.fn, 'a GPU kernel returns a value');
    const head = `${this.isKernel ? '__kernel void' : ret ? this.mod.type(ret, this.fn) : 'void'} ${this.mod.functionName(this.fn)}(${params.join(', ') || 'void'})`;
    if (!this.isKernel) this.mod.addPrototype(`${head};`);
    return `${head} {\n${[...prologue, ...this.decls, ...this.lines].join('\n')}\n}`;
  }

  private addIncoming(p: Param | undefined, a: Def): void {
    if (!p) return;
    const list = this.incoming.get(p) ?? [];
    list.push(a);
    this.incoming.set(p, list);
  }

  // ---------------------------------------------------------- address spaces

  /** The space a pointer value points into; null while unknown (a cycle of block params). */
  private spaceOf(d: Def): Space | null {
    if (d.type instanceof PtrType) {
      const own = typeSpace(d.type);
      if (own) return own;
    }
    if (this.spaces.has(d)) return this.spaces.get(d)!;
    this.spaces.set(d, null);
    const s = this.findSpace(d);
    this.spaces.set(d, s);
    return s;
  }

  private findSpace(d: Def): Space | null {
    if (d instanceof Param) {
      const from = this.incoming.get(d);
      if (!from) return '__global';
      const found = new Set(from.map((a) => this.spaceOf(a)).filter((s): s is Space => s !== null));
      if (found.size > 1) fail(this.fn, `'${describe(d)}' points into different address spaces (${[...found].join(', ')}), which OpenCL C cannot express`);
      return [...found][0] ?? null;
    }
    if (d instanceof PrimOp) {
      switch (d.tag) {
        case 'slot': return '__private';
        case 'global': return '__constant';
        case 'lea': case 'bitcast': case 'cast': case 'run': case 'hlt': return this.spaceOf(d.op(0));
        case 'select': return this.spaceOf(d.op(1)) ?? this.spaceOf(d.op(2));
        default: return '__global';
      }
    }
    return '__global';
  }

  private cType(d: Def): string {
    return this.mod.type(d.type, this.fn, d.type instanceof PtrType ? (this.spaceOf(d) ?? '__global') : '__global');
  }

  // ---------------------------------------------------------- values

  private value(d: Def): string {
    if (isErased(d.type)) return '0';
    const v = this.values.get(d);
    if (v !== undefined) return v;
    if (d instanceof Continuation) return fail(this.fn, `'${describe(d)}' is used as a value: function pointers do not exist in OpenCL C`);
    if (isConstant(d)) return this.constant(d as PrimOp);
    return fail(this.fn, `'${describe(d)}' is used before it is defined (a free variable, or a scheduling bug)`);
  }

  /** A constant in an expression: scalars inline, aggregates as compound literals. */
  private constant(p: PrimOp): string {
    if (p.type instanceof PrimType || p.type instanceof PtrType) return this.mod.scalarConstant(p, this.fn);
    return `((${this.mod.type(p.type, this.fn)})${this.mod.initializer(p, this.fn)})`;
  }

  /** Declares a variable for `d` and assigns `expr` to it. */
  private assign(d: Def, expr: string, hint = 'v'): void {
    const name = cName(this.locals, 'v', hint);
    this.decls.push(`  ${this.cType(d)} ${name};`);
    this.lines.push(`  ${name} = ${expr};`);
    this.values.set(d, name);
  }

  private primop(p: PrimOp): void {
    const effects = ['load', 'store', 'enter', 'slot', 'alloc'];
    if (isErased(p.type) && !effects.includes(p.tag)) return;
    const [a, b, c] = p.ops;
    switch (p.tag) {
      case 'add': case 'sub': case 'mul': case 'div': case 'rem': case 'and': case 'or': case 'xor': case 'shl': case 'shr':
        return this.assign(p, this.arith(p, a!, b!), p.tag);
      case 'eq': case 'ne': case 'lt': case 'le': case 'gt': case 'ge': {
        const op = { eq: '==', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=' }[p.tag];
        return this.assign(p, `${this.value(a!)} ${op} ${this.value(b!)}`, p.tag);
      }
      case 'cast':
        return this.assign(p, this.convert(a!, p), 'cast');
      case 'bitcast':
        return this.assign(p, this.reinterpret(a!, p), 'bits');
      case 'select':
        return this.assign(p, `${this.value(a!)} ? ${this.value(b!)} : ${this.value(c!)}`, 'select');
      case 'tuple': case 'struct_agg': case 'definite_array': case 'repeat_array':
        return this.aggregate(p);
      case 'extract':
        if (a instanceof PrimOp && (a.tag === 'load' || a.tag === 'alloc' || a.tag === 'enter')) {
          const v = this.effects.get(a);
          if (v === undefined) fail(this.fn, `the value of '${describe(a)}' is used before the effect runs`);
          this.values.set(p, v);
          return;
        }
        return this.assign(p, this.element(a!, b!), 'elem');
      case 'insert': {
        this.assign(p, this.value(a!), 'ins');
        this.lines.push(`  ${this.element(p, b!, this.values.get(p))} = ${this.value(c!)};`);
        return;
      }
      case 'lea':
        return this.assign(p, this.lea(a!, b!), 'lea');
      case 'load': {
        const loaded = (p.type as TupleType).elems[1]!;
        if (isErased(loaded)) return void this.effects.set(p, '0');
        const name = cName(this.locals, 'v', 'load');
        this.decls.push(`  ${this.mod.type(loaded, this.fn)} ${name};`);
        this.lines.push(`  ${name} = *${this.value(b!)};`);
        this.effects.set(p, name);
        return;
      }
      case 'store':
        if (!isErased(c!.type)) this.lines.push(`  *${this.value(b!)} = ${this.value(c!)};`);
        return;
      case 'enter':
        return;
      case 'slot': {
        const name = cName(this.locals, 'v', 'slot');
        this.decls.push(`  ${this.mod.type((p.type as PtrType).pointee, this.fn)} ${name};`);
        this.values.set(p, `(&${name})`);
        return;
      }
      case 'run': case 'hlt':
        this.values.set(p, this.value(a!));
        return;
      case 'alloc':
        return fail(this.fn, 'allocates heap memory in a GPU kernel');
      default:
        return fail(this.fn, `cannot emit '${describe(p)}' in OpenCL C`);
    }
  }

  private arith(p: PrimOp, a: Def, b: Def): string {
    const t = p.type as PrimType;
    const c = this.mod.type(t, this.fn);
    const x = this.value(a);
    const y = this.value(b);
    if (t.isFloat) return p.tag === 'rem' ? `fmod(${x}, ${y})` : `${x} ${opText[p.tag]} ${y}`;
    if (t.isBool) return `${x} ${opText[p.tag]} ${y}`;
    const u = unsignedOf[c] ?? c;
    switch (p.tag) {
      case 'add': case 'sub': case 'mul':
        return `(${c})((${u})${x} ${opText[p.tag]} (${u})${y})`;
      case 'and': case 'or': case 'xor':
        return `(${c})(${x} ${opText[p.tag]} ${y})`;
      case 'shl':
        return `(${c})((${u})${x} << (${y} & ${t.bits - 1}))`;
      case 'shr':
        return `(${c})(${x} >> (${y} & ${t.bits - 1}))`;
      case 'div': case 'rem': {
        const q = `${x} ${opText[p.tag]} ${y}`;
        if (isLit(b) && b.payload !== 0n && !(t.isSigned && BigInt.asIntN(t.bits, b.payload as bigint) === -1n)) return `(${c})(${q})`;
        const minusOne = t.isSigned ? ` : ${y} == (${c})-1 ? (${c})(${p.tag === 'rem' ? '0' : `(${u})0 - (${u})${x}`})` : '';
        return `${y} == 0 ? (${c})0${minusOne} : (${c})(${q})`;
      }
      default:
        return fail(this.fn, `'${describe(p)}' is not arithmetic`);
    }
  }

  /** `as`: Rust's conversions (float to integer saturates, NaN to 0). */
  private convert(v: Def, p: PrimOp): string {
    const from = v.type;
    const to = p.type;
    const x = this.value(v);
    if (to instanceof PtrType || from instanceof PtrType) return `(${this.cType(p)})${x}`;
    if (!(from instanceof PrimType) || !(to instanceof PrimType)) return fail(this.fn, `cannot convert '${describe(v)}' to ${to}`);
    const c = this.mod.type(to, this.fn);
    if (to.isBool) return `${x} != 0`;
    if (from.isFloat && to.isInt) return `convert_${c}_sat(${x})`;
    return `(${c})${x}`;
  }

  /** `bitcast`: the same bits as another type. */
  private reinterpret(v: Def, p: PrimOp): string {
    const from = v.type;
    const to = p.type;
    const x = this.value(v);
    if (to instanceof PtrType || from instanceof PtrType) return `(${this.cType(p)})${x}`;
    if (from instanceof PrimType && to instanceof PrimType && from.bits === to.bits && from.length === 1 && to.length === 1) {
      const c = this.mod.type(to, this.fn);
      return from.isFloat || to.isFloat ? `as_${c}(${x})` : `(${c})${x}`;
    }
    return fail(this.fn, `cannot bitcast '${describe(v)}' to ${to} in OpenCL C`);
  }

  private aggregate(p: PrimOp): void {
    const name = cName(this.locals, 'v', 'agg');
    this.decls.push(`  ${this.cType(p)} ${name};`);
    if (p.tag === 'repeat_array') {
      const dim = (p.type as DefiniteArrayType).dim;
      this.lines.push(`  for (int i = 0; i < ${dim}; i++) ${name}.a[i] = ${this.value(p.op(0))};`);
    } else {
      p.ops.forEach((o, i) => {
        if (!isErased(o.type)) this.lines.push(`  ${name}.${p.tag === 'definite_array' ? `a[${i}]` : `e${i}`} = ${this.value(o)};`);
      });
    }
    this.values.set(p, name);
  }

  /** The element `idx` of the aggregate `agg` (as an lvalue when `name` is its variable). */
  private element(agg: Def, idx: Def, name = this.value(agg)): string {
    const t = agg.type;
    if (t instanceof DefiniteArrayType) return `${name}.a[${this.value(idx)}]`;
    if (t instanceof TupleType || t instanceof StructType) {
      if (!isLit(idx)) fail(this.fn, `indexes ${t} with a run-time index`);
      return `${name}.e${idx.payload}`;
    }
    return fail(this.fn, `extracts from '${describe(agg)}' of type ${t} in OpenCL C`);
  }

  private lea(ptr: Def, idx: Def): string {
    const pt = ptr.type as PtrType;
    const p = this.value(ptr);
    const pointee = pt.pointee;
    if (pointee instanceof TupleType || pointee instanceof StructType) {
      if (!isLit(idx)) fail(this.fn, `lea into ${pointee} with a run-time index`);
      return `(&(${p})->e${idx.payload})`;
    }
    if (pointee instanceof DefiniteArrayType) return `(&(${p})->a[${this.value(idx)}])`;
    if (pointee instanceof IndefiniteArrayType) return `(${p} + ${this.value(idx)})`;
    return fail(this.fn, `lea into ${pointee}, which has no elements`);
  }

  // ---------------------------------------------------------- control flow

  /** The statements that end a block. */
  private terminate(term: Terminator): string[] {
    switch (term.kind) {
      case 'jump':
        return [...this.pass(term.block, term.args), `goto ${this.labels.get(term.block)!};`];
      case 'branch':
        return [`if (${this.value(term.cond)}) {`, ...this.target(term.then), '} else {', ...this.target(term.else), '}'];
      case 'match': {
        const out = [`switch (${this.value(term.value)}) {`];
        const seen = new Set<string>();
        for (const c of term.cases) {
          const v = this.value(c.lit);
          if (seen.has(v)) continue;
          seen.add(v);
          out.push(`case ${v}: {`, ...this.target(c.target), '}');
        }
        out.push('default: {', ...this.target(term.otherwise), '}', '}');
        return out;
      }
      case 'return':
        return [this.ret(term.args)];
      case 'call':
        return this.call(term);
      case 'intrinsic':
        return this.intrinsic(term);
    }
  }

  private target(t: Target): string[] {
    return (t.kind === 'block' ? [`goto ${this.labels.get(t.block)!};`] : this.terminate(t.term)).map((l) => `  ${l}`);
  }

  /** Assigns `args` to `block`'s params, all read before any is written. */
  private pass(block: Continuation, args: readonly Def[]): string[] {
    const moves = block.params.map((p, i) => [p, args[i]!] as const).filter(([p]) => !isErased(p.type));
    if (moves.length === 1) return [`${this.values.get(moves[0]![0])!} = ${this.value(moves[0]![1])};`];
    const temps = moves.map(([p, a], i) => `${this.cType(p)} t${i} = ${this.value(a)};`);
    return moves.length ? ['{', ...temps.map((t) => `  ${t}`), ...moves.map(([p], i) => `  ${this.values.get(p)!} = t${i};`), '}'] : [];
  }

  private ret(args: readonly Def[]): string {
    const values = args.filter((a) => !isErased(a.type));
    return values.length ? `return ${this.value(values[0]!)};` : 'return;';
  }

  /** Goes on where `cont` says with `result` (a C expression, or null for none). */
  private continueWith(cont: CallCont, result: string | null, call: string | null): string[] {
    const effect = call ?? result;
    const statement = effect !== null ? [`${effect};`] : [];
    switch (cont.kind) {
      case 'block': {
        const param = cont.block.params.find((p, i) => i > 0 && !isErased(p.type));
        const label = `goto ${this.labels.get(cont.block)!};`;
        if (param && result !== null) return [`${this.values.get(param)!} = ${result};`, label];
        return [...statement, label];
      }
      case 'tail':
        return result !== null ? [`return ${result};`] : [...statement, 'return;'];
      case 'none':
        return [...statement, 'return;'];
    }
  }

  private call(term: Extract<Terminator, { kind: 'call' }>): string[] {
    const callee = term.callee;
    if (!(callee instanceof Continuation)) return fail(this.fn, `an indirect call of '${describe(callee)}': OpenCL C has no function pointers`);
    const args = term.args.filter((a) => !isErased(a.type)).map((a) => this.value(a));
    const returns = returnValueType(term.calleeType) !== null;
    let expr: string;
    if (callee.isImported) {
      const name = callee.linkName ?? callee.name;
      if (callee.cc !== 'device') return fail(this.fn, `calls the host function '${name}' in a GPU kernel`);
      if (WORK_ITEM_FUNCTIONS.has(name)) expr = `(ulong)${name}(${args.join(', ')})`;
      else if (name === 'barrier') expr = `barrier(${args.join(', ')})`;
      else {
        const builtin = builtinFor(name);
        if (!builtin) return fail(this.fn, `calls '${name}', which OpenCL kernels do not have`);
        const ret = returnValueType(term.calleeType)!;
        expr = `(${this.mod.type(ret, this.fn)})${builtin}(${args.join(', ')})`;
      }
    } else {
      if (valueParamTypes(callee.fnType).some((t) => t instanceof FnType)) fail(this.fn, `passes a function to '${describe(callee)}'`);
      expr = `${this.mod.functionName(callee)}(${args.join(', ')})`;
    }
    return this.continueWith(term.cont, returns ? expr : null, returns ? null : expr);
  }

  private intrinsic(term: Extract<Terminator, { kind: 'intrinsic' }>): string[] {
    const [, a, b, c] = term.args;
    if (term.intrinsic === 'reserve_shared') {
      if (!this.isKernel) fail(this.fn, 'reserve_shared outside the kernel function itself: OpenCL declares __local arrays at kernel scope');
      if (!isLit(a!)) fail(this.fn, 'reserve_shared with a size that is not known at compile time');
      const result = term.cont.kind === 'block' ? term.cont.block.params[1] : undefined;
      if (!result || !(result.type instanceof PtrType)) return fail(this.fn, 'reserve_shared must return to a block that takes the array');
      const name = cName(this.locals, 'v', 'shared');
      this.decls.unshift(`  __local ${this.mod.type(elementOf(result.type), this.fn)} ${name}[${Number(a.payload as bigint)}];`);
      return this.continueWith(term.cont, name, null);
    }
    if (term.intrinsic === 'cmpxchg') {
      const t = b!.type;
      if (!(t instanceof PrimType) || t.bits !== 32 || !t.isInt) fail(this.fn, `cmpxchg on ${t}: OpenCL 1.2 has 32-bit integer atomics only`);
      const old = cName(this.locals, 'v', 'old');
      this.decls.push(`  ${this.mod.type(t, this.fn)} ${old};`);
      this.lines.push(`  ${old} = atomic_cmpxchg(${this.volatile(a!)}, ${this.value(b!)}, ${this.value(c!)});`);
      const pair = (term.cont.kind === 'block' ? term.cont.block.params[1]?.type : null) ?? null;
      if (!pair) return this.continueWith(term.cont, null, null);
      return this.continueWith(term.cont, `((${this.mod.type(pair, this.fn)}){ ${old}, ${old} == ${this.value(b!)} })`, null);
    }
    const code = isLit(a!) ? Number(a.payload) : -1;
    const op = ATOMICS[code];
    const t = c!.type;
    if (!op || !(t instanceof PrimType) || t.bits !== 32 || (t.isFloat && op !== 'atomic_xchg')) {
      return fail(this.fn, `atomic operation ${code} on ${t}: OpenCL 1.2 has 32-bit integer atomics (and float exchange) only`);
    }
    // max/min compare as signed, umax/umin as unsigned, whatever the type's signedness.
    const as = t.isFloat ? 'float' : code === 7 || code === 8 ? 'int' : code === 9 || code === 10 ? 'uint' : this.mod.type(t, this.fn);
    const space = this.spaceOf(b!) ?? '__global';
    const expr = `(${this.mod.type(t, this.fn)})${op}((volatile ${space} ${as}*)${this.value(b!)}, (${as})${this.value(c!)})`;
    return this.continueWith(term.cont, expr, null);
  }

  private volatile(ptr: Def): string {
    const t = elementOf(ptr.type as PtrType);
    return `(volatile ${this.spaceOf(ptr) ?? '__global'} ${this.mod.type(t, this.fn)}*)${this.value(ptr)}`;
  }
}

const opText: Record<string, string> = {
  add: '+', sub: '-', mul: '*', div: '/', rem: '%', and: '&', or: '|', xor: '^', shl: '<<', shr: '>>',
};
