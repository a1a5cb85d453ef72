// Instruction selection for primops, one LLVM instruction (or a short fixed
// sequence) per primop. Aggregates that LLVM cannot index dynamically, and
// variants, go through a stack temporary.
import { type AsmInfo, type Def, PrimOp, isLit } from '../ir/defs.ts';
import { cpuLayout } from '../ir/layout.ts';
import {
  DefiniteArrayType, FnType, IndefiniteArrayType, type IRType, PrimType, PtrType, PtrVectorType, StructType, TupleType,
  type VariantType,
} from '../ir/types.ts';
import { describe } from './errors.ts';
import { escapeBytes, formatLit } from './llvm-consts.ts';
import type { ModuleContext } from './llvm-module.ts';
import { isErased, llvmType } from './llvm-types.ts';
import { isConstant } from './schedule.ts';

/** What primop selection needs from the function being emitted. */
export interface InstrContext {
  readonly mod: ModuleContext;
  value(d: Def): string;
  /** `type value`, as an instruction operand. */
  typed(d: Def): string;
  /** Emits `%x = rhs` and returns `%x`. */
  instr(hint: string, rhs: string): string;
  line(text: string): void;
  bind(d: Def, value: string): void;
  /** The value an effect (load, alloc) yields next to its mem. */
  bindEffect(p: PrimOp, value: string): void;
  effectValue(p: PrimOp): string;
  /** A stack temporary in the entry block. */
  alloca(type: string, align?: number): string;
  fail(what: string): never;
}

const effects = new Set(['load', 'store', 'alloc', 'enter', 'slot', 'asm']);

export function emitPrimOp(cx: InstrContext, p: PrimOp): void {
  // Values without run-time content (mem, frame, unit) need no instruction; effects still run.
  if (isErased(p.type) && !effects.has(p.tag)) return;
  const [a, b, c] = p.ops;
  switch (p.tag) {
    case 'div': case 'rem':
      if (scalarOf(cx, p).isInt) return cx.bind(p, intDivision(cx, p, a!, b!));
      return cx.bind(p, cx.instr(p.tag, `${arithOpcode(cx, p)} ${cx.typed(a!)}, ${cx.value(b!)}`));
    case 'shl': case 'shr':
      return cx.bind(p, cx.instr(p.tag, `${arithOpcode(cx, p)} ${cx.typed(a!)}, ${shiftAmount(cx, b!)}`));
    case 'add': case 'sub': case 'mul':
    case 'and': case 'or': case 'xor':
      return cx.bind(p, cx.instr(p.tag, `${arithOpcode(cx, p)} ${cx.typed(a!)}, ${cx.value(b!)}`));
    case 'eq': case 'ne': case 'lt': case 'le': case 'gt': case 'ge':
      return cx.bind(p, cx.instr(p.tag, `${cmpOpcode(cx, p)} ${cx.typed(a!)}, ${cx.value(b!)}`));
    case 'cast':
      return cx.bind(p, convert(cx, a!, p.type));
    case 'bitcast':
      return cx.bind(p, reinterpret(cx, a!, p.type));
    case 'select':
      return cx.bind(p, cx.instr('select', `select ${cx.typed(a!)}, ${cx.typed(b!)}, ${cx.typed(c!)}`));
    case 'tuple': case 'struct_agg': case 'definite_array': case 'repeat_array': case 'vector':
      return cx.bind(p, aggregate(cx, p));
    case 'extract':
      if (isVector(a!.type) && onlyShuffled(p)) return;
      return cx.bind(p, extract(cx, p, a!, b!));
    case 'insert':
      return cx.bind(p, insert(cx, p, a!, b!, c!));
    case 'lea':
      return cx.bind(p, lea(cx, a!, b!));
    case 'load': {
      const loaded = (p.type as TupleType).elems[1]!;
      return cx.bindEffect(p, isErased(loaded) ? 'zeroinitializer' : cx.instr('load', `load ${llvmType(loaded)}, ${cx.typed(b!)}`));
    }
    case 'store':
      // A `nontemporal` hint streams vector stores only (streaming.ts).
      if (!isErased(c!.type)) cx.line(`store ${cx.typed(c!)}, ${cx.typed(b!)}`);
      return;
    case 'enter':
      return;
    case 'slot':
      return cx.bind(p, cx.alloca(llvmType((p.type as PtrType).pointee)));
    case 'alloc':
      return cx.bindEffect(p, alloc(cx, p, b!));
    case 'variant':
      return cx.bind(p, variant(cx, p, a!));
    case 'variant_index':
      return cx.bind(p, cx.instr('tag', `extractvalue ${cx.typed(a!)}, 0`));
    case 'variant_extract':
      return cx.bind(p, variantPayload(cx, p, a!));
    case 'run': case 'hlt':
      return cx.bind(p, cx.value(a!));
    case 'asm':
      return inlineAsm(cx, p);
    default:
      return cx.fail(`cannot emit '${describe(p)}' as an instruction`);
  }
}

/**
 * Inline assembly as LLVM's `call … asm`: the template as written, the constraints of
 * the outputs, then the inputs, then `~{clobber}`s. One without outputs is kept as a
 * side effect (LLVM would drop it); `volatile` asks for that in any case.
 */
function inlineAsm(cx: InstrContext, p: PrimOp): void {
  const info = p.payload as AsmInfo;
  const constraints = [...info.outputs, ...info.inputs, ...info.clobbers.map((c) => `~{${c}}`)].join(',');
  const flags = [
    info.options.includes('volatile') || info.outputs.length === 0 ? ' sideeffect' : '',
    info.options.includes('alignstack') ? ' alignstack' : '',
    info.options.includes('intel') ? ' inteldialect' : '',
  ].join('');
  const args = p.ops.slice(1).map((o) => cx.typed(o)).join(', ');
  const call = `asm${flags} "${escapeBytes(utf8.encode(info.template))}", "${escapeBytes(utf8.encode(constraints))}"(${args})`;
  if (info.outputs.length === 0) return cx.line(`call void ${call}`);
  cx.bindEffect(p, cx.instr('asm', `call ${llvmType((p.type as TupleType).elems[1]!)} ${call}`));
}

const utf8 = new TextEncoder();

function scalarOf(cx: InstrContext, d: Def): PrimType {
  if (!(d.type instanceof PrimType)) cx.fail(`'${describe(d)}' is not a number`);
  return d.type.scalar;
}

function arithOpcode(cx: InstrContext, p: PrimOp): string {
  const t = scalarOf(cx, p);
  if (t.isFloat) {
    const op = ({ add: 'fadd', sub: 'fsub', mul: 'fmul', div: 'fdiv', rem: 'frem' } as Record<string, string>)[p.tag];
    return op ?? cx.fail(`'${p.tag}' on floats in '${describe(p)}'`);
  }
  if (t.isBool) {
    // Arithmetic modulo 2: + and - are xor, * is and.
    const op = ({ and: 'and', or: 'or', xor: 'xor', add: 'xor', sub: 'xor', mul: 'and' } as Record<string, string>)[p.tag];
    return op ?? cx.fail(`'${p.tag}' on bool in '${describe(p)}'`);
  }
  switch (p.tag) {
    case 'div': return t.isSigned ? 'sdiv' : 'udiv';
    case 'rem': return t.isSigned ? 'srem' : 'urem';
    case 'shr': return t.isSigned ? 'ashr' : 'lshr';
    default: return p.tag;
  }
}

// Integer division, shifts and float-to-integer conversions have one defined result at
// every -O (docs/language.md, "Defined semantics of arithmetic"), where LLVM's plain
// instructions would give poison or undefined behaviour:
// - a shift amount is masked to the width (the World masks constant amounts already);
// - a zero divisor calls the module's check, which reports it through anydsl_fatal;
// - the most negative value divided by -1 wraps to itself (remainder 0);
// - float to integer saturates, NaN to 0 (llvm.fpto[su]i.sat).

/** The amount operand of a shift (without its type): masked unless it is a literal, which the World keeps in range. */
function shiftAmount(cx: InstrContext, amount: Def): string {
  if (isLit(amount)) return cx.value(amount);
  const t = amount.type as PrimType;
  return cx.instr('amount', `and ${cx.typed(amount)}, ${splat(t, String(t.scalar.bits - 1))}`);
}

/** A scalar constant, or the vector of `t.length` copies of it. */
function splat(t: PrimType, scalar: string): string {
  if (t.length === 1) return scalar;
  return `<${Array.from({ length: t.length }, () => `${llvmType(t.scalar)} ${scalar}`).join(', ')}>`;
}

function intDivision(cx: InstrContext, p: PrimOp, a: Def, b: Def): string {
  const t = p.type as PrimType;
  const opcode = arithOpcode(cx, p);
  const ty = llvmType(t);
  const zero = t.length === 1 ? '0' : 'zeroinitializer';
  if (isLit(b)) {
    const d = b.payload as bigint;
    if (d === 0n) {
      // Only reachable when the program divides by zero: the check stops it.
      cx.line(`call void ${divisionCheck(cx)}(i1 true)`);
      return zero;
    }
    if (t.isSigned && d === -1n) return p.tag === 'rem' ? zero : cx.instr('neg', `sub ${ty} ${zero}, ${cx.value(a)}`);
    return cx.instr(p.tag, `${opcode} ${cx.typed(a)}, ${cx.value(b)}`);
  }
  let isZero = cx.instr('divisor.zero', `icmp eq ${cx.typed(b)}, ${zero}`);
  if (t.length > 1) isZero = cx.instr('divisor.zero', `call i1 @llvm.vector.reduce.or.v${t.length}i1(<${t.length} x i1> ${isZero})`);
  if (t.length > 1) cx.mod.requireRuntime(`llvm.vector.reduce.or.v${t.length}i1`, 'i1', [`<${t.length} x i1>`]);
  cx.line(`call void ${divisionCheck(cx)}(i1 ${isZero})`);
  if (!t.isSigned) return cx.instr(p.tag, `${opcode} ${cx.typed(a)}, ${cx.value(b)}`);
  // x / -1 is -x and x % -1 is 0; dividing by 1 instead gives x and 0 without the overflow.
  const minusOne = cx.instr('divisor.m1', `icmp eq ${cx.typed(b)}, ${splat(t, '-1')}`);
  const divisor = cx.instr('divisor', `select ${boolsOf(t)} ${minusOne}, ${ty} ${splat(t, '1')}, ${cx.typed(b)}`);
  const q = cx.instr(p.tag, `${opcode} ${cx.typed(a)}, ${divisor}`);
  if (p.tag === 'rem') return q;
  const negated = cx.instr('neg', `sub ${ty} ${zero}, ${cx.value(a)}`);
  return cx.instr(p.tag, `select ${boolsOf(t)} ${minusOne}, ${ty} ${negated}, ${ty} ${q}`);
}

function boolsOf(t: PrimType): string {
  return t.length === 1 ? 'i1' : `<${t.length} x i1>`;
}

/**
 * `@check(i1 zero)`: stops the program with "integer division by zero" when `zero` holds.
 * Always inlined, so the division after it is only reached with a non-zero divisor.
 */
function divisionCheck(cx: InstrContext): string {
  if (cx.mod.device) {
    // A GPU has no C runtime to report with: the kernel traps, and the launch fails.
    const trap = cx.mod.requireRuntime('llvm.trap', 'void', []);
    return cx.mod.helper('anydsl.division_check', (ref) => [
      `define private void ${ref}(i1 %zero) alwaysinline {`,
      'entry:',
      '  br i1 %zero, label %trap, label %ok',
      'trap:',
      `  call void ${trap}()`,
      '  unreachable',
      'ok:',
      '  ret void',
      '}',
    ]);
  }
  const fatal = cx.mod.requireRuntime('anydsl_fatal', 'void', ['ptr', '...']);
  return cx.mod.helper('anydsl.division_check', (ref) => {
    const text = 'integer division by zero';
    return [
      `${ref}.msg = private unnamed_addr constant [${text.length + 1} x i8] c"${text}\\00"`,
      `define private void ${ref}(i1 %zero) alwaysinline {`,
      'entry:',
      '  br i1 %zero, label %trap, label %ok, !prof !{!"branch_weights", i32 1, i32 1048575}',
      'trap:',
      `  call void (ptr, ...) ${fatal}(ptr ${ref}.msg)`,
      '  unreachable',
      'ok:',
      '  ret void',
      '}',
    ];
  });
}

function cmpOpcode(cx: InstrContext, p: PrimOp): string {
  const operand = p.op(0);
  if (operand.type instanceof PtrType || operand.type instanceof FnType) return `icmp ${unsignedCmp[p.tag]}`;
  const t = scalarOf(cx, operand);
  if (t.isFloat) return `fcmp ${floatCmp[p.tag]}`;
  return `icmp ${(t.isSigned ? signedCmp : unsignedCmp)[p.tag]}`;
}

const floatCmp: Record<string, string> = { eq: 'oeq', ne: 'une', lt: 'olt', le: 'ole', gt: 'ogt', ge: 'oge' };
const signedCmp: Record<string, string> = { eq: 'eq', ne: 'ne', lt: 'slt', le: 'sle', gt: 'sgt', ge: 'sge' };
const unsignedCmp: Record<string, string> = { eq: 'eq', ne: 'ne', lt: 'ult', le: 'ule', gt: 'ugt', ge: 'uge' };

/** `as`: numeric conversion with Rust's rules (extension follows the source's signedness). */
function convert(cx: InstrContext, v: Def, to: IRType): string {
  const from = v.type;
  const castInstr = (op: string): string => cx.instr('cast', `${op} ${cx.typed(v)} to ${llvmType(to)}`);
  if (llvmType(from) === llvmType(to)) return cx.value(v);
  if (isPointer(from) && isPointer(to)) return castInstr('addrspacecast');
  if (isPointer(from) && to instanceof PrimType && to.isInt) return castInstr('ptrtoint');
  if (from instanceof PrimType && from.isInt && isPointer(to)) return castInstr('inttoptr');
  if (!(from instanceof PrimType) || !(to instanceof PrimType) || from.length !== to.length) {
    return cx.fail(`cannot convert '${describe(v)}' to ${to}`);
  }
  const f = from.scalar;
  const t = to.scalar;
  if (t.isBool) {
    const zero = f.isFloat ? '0.0' : '0';
    const rhs = from.length === 1 ? zero : 'zeroinitializer';
    return cx.instr('tobool', `${f.isFloat ? 'fcmp une' : 'icmp ne'} ${cx.typed(v)}, ${rhs}`);
  }
  if (f.isBool) return castInstr(t.isFloat ? 'uitofp' : 'zext');
  if (f.isFloat && t.isFloat) return castInstr(t.bits > f.bits ? 'fpext' : 'fptrunc');
  if (f.isFloat && from.length > 1 && f.prim !== 'f16') return saturatingVectorConversion(cx, v, from, to);
  if (f.isFloat) {
    const intrinsic = `llvm.${t.isSigned ? 'fptosi' : 'fptoui'}.sat.${overloadName(to)}.${overloadName(from)}`;
    const fn = cx.mod.requireRuntime(intrinsic, llvmType(to), [llvmType(from)]);
    return cx.instr('cast', `call ${llvmType(to)} ${fn}(${cx.typed(v)})`);
  }
  if (t.isFloat) return castInstr(f.isSigned ? 'sitofp' : 'uitofp');
  if (t.bits < f.bits) return castInstr('trunc');
  return castInstr(f.isSigned ? 'sext' : 'zext');
}

/**
 * Float vector to integer vector with llvm.fpto[su]i.sat's meaning (saturated at both ends, NaN
 * to 0) as the plain conversion plus compares and selects: LLVM 19 lowers the vector intrinsic on
 * x86 one lane at a time (a scalar convert and an insert per lane), these stay vector
 * instructions. A select takes the right lane whatever poison the plain conversion left in the
 * others. The bounds -2^(b-1), 2^(b-1) (0, 2^b unsigned) are exact in f32 and f64; f16 keeps
 * the intrinsic, whose bounds it cannot represent.
 */
function saturatingVectorConversion(cx: InstrContext, v: Def, from: PrimType, to: PrimType): string {
  const t = to.scalar;
  const bits = BigInt(t.bits);
  const [lowest, highest] = t.isSigned ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
  const floatSplat = (n: number) => splat(from, formatLit(from, n));
  const intSplat = (n: bigint) => splat(to, formatLit(to, n));
  const plain = cx.instr('cast', `${t.isSigned ? 'fptosi' : 'fptoui'} ${cx.typed(v)} to ${llvmType(to)}`);
  const below = cx.instr('below', `fcmp olt ${cx.typed(v)}, ${floatSplat(Number(lowest))}`);
  const above = cx.instr('above', `fcmp oge ${cx.typed(v)}, ${floatSplat(Number(highest + 1n))}`);
  const nan = cx.instr('nan', `fcmp uno ${cx.typed(v)}, ${cx.value(v)}`);
  const vt = llvmType(to);
  const low = cx.instr('cast', `select ${boolVector(from)} ${below}, ${vt} ${intSplat(lowest)}, ${vt} ${plain}`);
  const high = cx.instr('cast', `select ${boolVector(from)} ${above}, ${vt} ${intSplat(highest)}, ${vt} ${low}`);
  return cx.instr('cast', `select ${boolVector(from)} ${nan}, ${vt} zeroinitializer, ${vt} ${high}`);
}

function boolVector(t: PrimType): string {
  return `<${t.length} x i1>`;
}

/** The type's part of an overloaded intrinsic's name: `i32`, `f64`, `v8f32`. */
function overloadName(t: PrimType): string {
  const s = t.scalar;
  const scalar = `${s.isFloat ? 'f' : 'i'}${s.bits}`;
  return t.length === 1 ? scalar : `v${t.length}${scalar}`;
}

/** `bitcast[D](v)`: the same bits seen as another type of the same size. */
function reinterpret(cx: InstrContext, v: Def, to: IRType): string {
  const from = v.type;
  const castInstr = (op: string): string => cx.instr('bits', `${op} ${cx.typed(v)} to ${llvmType(to)}`);
  if (llvmType(from) === llvmType(to)) return cx.value(v);
  if (isPointer(from) && isPointer(to)) return castInstr('addrspacecast');
  if (isPointer(from) && to instanceof PrimType) return castInstr('ptrtoint');
  if (from instanceof PrimType && isPointer(to)) return castInstr('inttoptr');
  if (from instanceof PrimType && to instanceof PrimType && from.bits * from.length === to.bits * to.length) {
    return castInstr('bitcast');
  }
  return cx.fail(`cannot bitcast '${describe(v)}' to ${to}: not a number or pointer of the same size`);
}

function isPointer(t: IRType): boolean {
  return t instanceof PtrType || t instanceof FnType;
}

/** A non-constant aggregate: a constant skeleton with the dynamic elements inserted. */
function aggregate(cx: InstrContext, p: PrimOp): string {
  const ty = llvmType(p.type);
  const dynamic = (o: Def): boolean => !isErased(o.type) && !isConstant(o);
  // A repeat_array reaches here only with a dynamic element (a constant one is a constant).
  const ops = p.tag === 'repeat_array' ? Array.from({ length: (p.type as DefiniteArrayType).dim }, () => p.op(0)) : p.ops;
  const isArray = p.tag === 'definite_array' || p.tag === 'repeat_array';
  // The vectoriser's splats (one value in every lane) are most vectors: one insertelement
  // and a shufflevector instead of one insertelement per lane keep the text, and LLVM's
  // parsing of it, short.
  if (p.tag === 'vector' && isSplat(ops)) {
    const first = cx.instr('vec', `insertelement ${ty} poison, ${cx.typed(ops[0]!)}, i64 0`);
    return cx.instr('splat', `shufflevector ${ty} ${first}, ${ty} poison, <${ops.length} x i32> zeroinitializer`);
  }
  const plan = p.tag === 'vector' ? planOf(p) : undefined;
  if (plan) return shuffle(cx, ty, ops, plan);
  const skeleton = ops.map((o) => `${llvmType(o.type)} ${dynamic(o) ? 'undef' : cx.value(o)}`).join(', ');
  const open = p.tag === 'vector' ? '<' : isArray ? '[' : '{ ';
  const close = p.tag === 'vector' ? '>' : isArray ? ']' : ' }';
  let cur = ops.every(dynamic) ? 'undef' : `${open}${skeleton}${close}`;
  ops.forEach((o, i) => {
    if (!dynamic(o)) return;
    cur = p.tag === 'vector'
      ? cx.instr('vec', `insertelement ${ty} ${cur}, ${cx.typed(o)}, i32 ${i}`)
      : cx.instr('agg', `insertvalue ${ty} ${cur}, ${cx.typed(o)}, ${i}`);
  });
  return cur;
}

/** One dynamic value in every lane. */
function isSplat(ops: readonly Def[]): boolean {
  return ops.length > 1 && !isErased(ops[0]!.type) && !isConstant(ops[0]!) && ops.every((o) => o === ops[0]);
}

/** Where each lane of a shuffled vector comes from: a source vector's element (index into both sources), or its constant operand. */
interface ShufflePlan {
  sources: Def[];
  picks: (number | undefined)[];
}

/**
 * A vector (not a splat) whose lanes are elements of at most two vectors of one type at
 * constant indices, or constants: one shufflevector (and a select of the constant lanes).
 * The strided accesses of the vectoriser pick every s-th element of a load, or spread
 * lanes for a store, this way. Null for any other vector.
 */
function shufflePlan(ops: readonly Def[]): ShufflePlan | null {
  if (isSplat(ops)) return null;
  const sources: Def[] = [];
  const picks: (number | undefined)[] = [];
  for (const o of ops) {
    if (isConstant(o)) {
      picks.push(undefined);
      continue;
    }
    if (!(o instanceof PrimOp) || o.tag !== 'extract' || !isVector(o.op(0).type)) return null;
    const [source, at] = [o.op(0), o.op(1)];
    if (!isLit(at)) return null;
    const length = (source.type as PrimType | PtrVectorType).length;
    const index = Number(at.payload);
    if (!(index >= 0 && index < length)) return null;
    let k = sources.indexOf(source);
    if (k < 0) {
      if (sources.length === 2 || (sources.length === 1 && sources[0]!.type !== source.type)) return null;
      k = sources.push(source) - 1;
    }
    picks.push(k * length + index);
  }
  return sources.length > 0 ? { sources, picks } : null;
}

/** Shuffle plans by vector primop: every extract a vector reads asks for its plan (`onlyShuffled`). */
const plans = new WeakMap<PrimOp, ShufflePlan | null>();

function planOf(v: PrimOp): ShufflePlan | undefined {
  let plan = plans.get(v);
  if (plan === undefined) plans.set(v, (plan = shufflePlan(v.ops)));
  return plan ?? undefined;
}

function shuffle(cx: InstrContext, ty: string, ops: readonly Def[], { sources, picks }: ShufflePlan): string {
  const sourceType = llvmType(sources[0]!.type);
  const second = sources[1] ? cx.value(sources[1]) : 'poison';
  const mask = picks.map((i) => `i32 ${i ?? 0}`).join(', ');
  const picked = cx.instr('shuffle', `shufflevector ${sourceType} ${cx.value(sources[0]!)}, ${sourceType} ${second}, <${ops.length} x i32> <${mask}>`);
  if (picks.every((i) => i !== undefined)) return picked;
  const elem = llvmType(ops[0]!.type);
  const isConstantLane = picks.map((i) => `i1 ${i === undefined}`).join(', ');
  const constants = ops.map((o, i) => `${elem} ${picks[i] === undefined ? cx.value(o) : 'undef'}`).join(', ');
  return cx.instr('vec', `select <${ops.length} x i1> <${isConstantLane}>, ${ty} <${constants}>, ${ty} ${picked}`);
}

/** A lane of a vector that only shuffles read (no instruction of its own: they pick it from the vector). */
function onlyShuffled(p: PrimOp): boolean {
  if (p.uses.size === 0) return false;
  for (const { user } of p.uses.values()) {
    if (!(user instanceof PrimOp) || user.tag !== 'vector' || !planOf(user)) return false;
  }
  return true;
}

const effectsWithValue = new Set(['load', 'alloc', 'enter', 'asm']);

function extract(cx: InstrContext, p: PrimOp, agg: Def, idx: Def): string {
  // The (mem, value) pair of an effect is not a real aggregate: component 1 is the effect's value.
  if (agg instanceof PrimOp && effectsWithValue.has(agg.tag)) return cx.effectValue(agg);
  const t = agg.type;
  if (isVector(t)) return cx.instr('elem', `extractelement ${cx.typed(agg)}, ${cx.typed(idx)}`);
  if (isLit(idx) && constantIndexFits(t, idx)) return cx.instr('elem', `extractvalue ${cx.typed(agg)}, ${idx.payload}`);
  if (t instanceof DefiniteArrayType) {
    const { at } = spill(cx, agg, idx);
    return cx.instr('elem', `load ${llvmType(p.type)}, ptr ${at}`);
  }
  return cx.fail(`'${describe(p)}' indexes a ${t} with a run-time index`);
}

function insert(cx: InstrContext, p: PrimOp, agg: Def, idx: Def, val: Def): string {
  const t = agg.type;
  if (isVector(t)) return cx.instr('ins', `insertelement ${cx.typed(agg)}, ${cx.typed(val)}, ${cx.typed(idx)}`);
  if (isLit(idx) && constantIndexFits(t, idx)) return cx.instr('ins', `insertvalue ${cx.typed(agg)}, ${cx.typed(val)}, ${idx.payload}`);
  if (t instanceof DefiniteArrayType) {
    const { base, at } = spill(cx, agg, idx);
    cx.line(`store ${cx.typed(val)}, ptr ${at}`);
    return cx.instr('ins', `load ${llvmType(t)}, ptr ${base}`);
  }
  return cx.fail(`'${describe(p)}' indexes a ${t} with a run-time index`);
}

/**
 * Whether a literal index can be an extractvalue/insertvalue operand, which LLVM rejects out of
 * range. An array index out of bounds (`[](4)`, or one the evaluator made constant) is left to
 * memory like a run-time index; tuple and struct indices are in range by typing.
 */
function constantIndexFits(t: IRType, idx: PrimOp): boolean {
  if (!(t instanceof DefiniteArrayType)) return true;
  const i = idx.payload as bigint;
  return i >= 0n && i < BigInt(t.dim);
}

/** A SIMD vector of numbers or of pointers. */
function isVector(t: IRType): boolean {
  return (t instanceof PrimType && t.length > 1) || t instanceof PtrVectorType;
}

/** Stores an array to a stack temporary `base`; `at` is the address of element `idx`. */
function spill(cx: InstrContext, agg: Def, idx: Def): { base: string; at: string } {
  const ty = llvmType(agg.type);
  const base = cx.alloca(ty);
  cx.line(`store ${cx.typed(agg)}, ptr ${base}`);
  const at = cx.instr('elem.ptr', `getelementptr inbounds ${ty}, ptr ${base}, i64 0, ${index64(cx, idx)}`);
  return { base, at };
}

/**
 * An index operand for getelementptr: unsigned indices are zero-extended (GEP sign-extends).
 * A vector of indices (the vectoriser's gathers) makes the GEP a vector of pointers.
 */
function index64(cx: InstrContext, idx: Def): string {
  const t = idx.type as PrimType;
  const wide = t.length > 1 ? `<${t.length} x i64>` : 'i64';
  if (isLit(idx) && t.length === 1) return `i64 ${typeof idx.payload === 'boolean' ? Number(idx.payload) : idx.payload}`;
  if (!t.isSigned && t.bits < 64) return `${wide} ${cx.instr('idx', `zext ${cx.typed(idx)} to ${wide}`)}`;
  return cx.typed(idx);
}

function lea(cx: InstrContext, ptr: Def, idx: Def): string {
  const pointee = ptr.type instanceof PtrVectorType ? ptr.type.lane.pointee : (ptr.type as PtrType).pointee;
  const gep = (rest: string): string => cx.instr('lea', `getelementptr inbounds ${rest}`);
  if (pointee instanceof TupleType || pointee instanceof StructType) {
    if (!isLit(idx)) cx.fail(`lea into ${pointee} with a run-time index`);
    return gep(`${llvmType(pointee)}, ${cx.typed(ptr)}, i32 0, i32 ${idx.payload}`);
  }
  if (pointee instanceof DefiniteArrayType) return gep(`${llvmType(pointee)}, ${cx.typed(ptr)}, i64 0, ${index64(cx, idx)}`);
  if (pointee instanceof IndefiniteArrayType) return gep(`${llvmType(pointee.elem)}, ${cx.typed(ptr)}, ${index64(cx, idx)}`);
  if (pointee instanceof PrimType && pointee.length > 1) return gep(`${llvmType(pointee.scalar)}, ${cx.typed(ptr)}, ${index64(cx, idx)}`);
  return cx.fail(`lea into ${pointee}, which has no elements`);
}

/** `alloc`: the runtime's allocator on device 0 (the CPU). */
function alloc(cx: InstrContext, p: PrimOp, count: Def): string {
  const allocated = ((p.type as TupleType).elems[1] as PtrType).pointee;
  const elemSize = cpuLayout.size(allocated instanceof IndefiniteArrayType ? allocated.elem : allocated);
  let size: string;
  if (isLit(count)) size = String(BigInt(elemSize) * BigInt(count.payload as bigint));
  else {
    const t = count.type as PrimType;
    const wide = t.bits === 64 ? cx.value(count) : cx.instr('count', `${t.isSigned ? 'sext' : 'zext'} ${cx.typed(count)} to i64`);
    size = cx.instr('size', `mul i64 ${wide}, ${elemSize}`);
  }
  if (cx.mod.device) cx.fail('allocates heap memory in a GPU kernel');
  const fn = cx.mod.requireRuntime('anydsl_alloc', 'ptr', ['i32', 'i64']);
  return cx.instr('alloc', `call ptr ${fn}(i32 0, i64 ${size})`);
}

/** Variants are built in memory: the tag at offset 0, the payload in the area ir/layout.ts places after it. */
function variant(cx: InstrContext, p: PrimOp, payload: Def): string {
  const ty = llvmType(p.type);
  const { align, payloadAlign } = cpuLayout.variant(p.type as VariantType);
  const slot = cx.alloca(ty, align);
  cx.line(`store i32 ${p.payload as number}, ptr ${slot}`);
  if (!isErased(payload.type)) {
    const at = cx.instr('payload.ptr', `getelementptr inbounds ${ty}, ptr ${slot}, i32 0, i32 1`);
    cx.line(`store ${cx.typed(payload)}, ptr ${at}, align ${payloadAlign}`);
  }
  return cx.instr('variant', `load ${ty}, ptr ${slot}`);
}

function variantPayload(cx: InstrContext, p: PrimOp, v: Def): string {
  const ty = llvmType(v.type);
  const { align, payloadAlign } = cpuLayout.variant(v.type as VariantType);
  const slot = cx.alloca(ty, align);
  cx.line(`store ${cx.typed(v)}, ptr ${slot}`);
  const at = cx.instr('payload.ptr', `getelementptr inbounds ${ty}, ptr ${slot}, i32 0, i32 1`);
  return cx.instr('payload', `load ${llvmType(p.type)}, ptr ${at}, align ${payloadAlign}`);
}
