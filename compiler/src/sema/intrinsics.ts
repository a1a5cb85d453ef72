// The LLVM intrinsics the compiler knows by family (`llvm.<op>.<type>`): what each takes and
// gives, in terms of the one type it is overloaded on. Sema checks `extern "device"`
// declarations of them against this, so a wrong signature is a located error and not IR
// that LLVM refuses; the vectoriser widens exactly these lane by lane. Intrinsics outside
// the table are passed to LLVM as declared.
import type { FnDecl } from '../syntax/ast.ts';
import type { Checker } from './checker.ts';
import { showType } from './infer.ts';
import { fnSig } from './items.ts';
import { isFloat, isInt, primBits, prune, type Type } from './types.ts';

/** `T`: the overloaded type; `flag`: an i1 constant such as ctlz's is_zero_poison. */
type Operand = 'T' | 'flag';

interface Family {
  operands: readonly Operand[];
  /** Which scalars the overloaded type may have. */
  scalars: 'float' | 'int';
}

const unaryFloat: Family = { operands: ['T'], scalars: 'float' };
const binaryFloat: Family = { operands: ['T', 'T'], scalars: 'float' };
const ternaryFloat: Family = { operands: ['T', 'T', 'T'], scalars: 'float' };
const unaryInt: Family = { operands: ['T'], scalars: 'int' };
const binaryInt: Family = { operands: ['T', 'T'], scalars: 'int' };
const intWithFlag: Family = { operands: ['T', 'flag'], scalars: 'int' };

export const ELEMENT_WISE_INTRINSICS: ReadonlyMap<string, Family> = new Map([
  ...['sqrt', 'fabs', 'floor', 'ceil', 'trunc', 'round', 'rint', 'nearbyint', 'exp', 'exp2', 'log', 'log2', 'log10', 'sin', 'cos'].map((op) => [op, unaryFloat] as const),
  ...['pow', 'minnum', 'maxnum', 'minimum', 'maximum', 'copysign'].map((op) => [op, binaryFloat] as const),
  ...['fma', 'fmuladd'].map((op) => [op, ternaryFloat] as const),
  ...['smin', 'smax', 'umin', 'umax'].map((op) => [op, binaryInt] as const),
  ...['ctpop', 'bitreverse', 'bswap'].map((op) => [op, unaryInt] as const),
  ...['abs', 'ctlz', 'cttz'].map((op) => [op, intWithFlag] as const),
]);

/** `llvm.<op>.<suffix>` with a suffix of one scalar or vector type: `f32`, `v8i32`. */
const NAME = /^llvm\.([a-z0-9]+)\.(?:v(\d+))?(f16|f32|f64|i8|i16|i32|i64)$/;

/** Reports an `extern "device"` declaration of a known family whose signature LLVM would refuse. */
export function checkIntrinsicDeclaration(ck: Checker, decl: FnDecl, linkName: string): void {
  const m = NAME.exec(linkName);
  const family = m && ELEMENT_WISE_INTRINSICS.get(m[1]!);
  if (!m || !family) return;
  const lanes = m[2] === undefined ? null : Number(m[2]);
  const suffix = m[3]!;
  const scalarOk = family.scalars === 'float' ? suffix[0] === 'f' : suffix[0] === 'i';
  const expected = `fn(${family.operands.map((o) => (o === 'T' ? 'T' : 'bool')).join(', ')}) -> T`;
  const wrong = (why: string) => ck.error(decl.span, `declaration of LLVM intrinsic '${linkName}' does not match it (${expected} with T ${lanes ? `simd[${suffix} * ${lanes}]` : suffix}): ${why}`);
  if (!scalarOk || (m[1] === 'bswap' && Number(suffix.slice(1)) % 16 !== 0)) return wrong(`it is not defined on '${suffix}'`);
  const isT = (t: Type): boolean => {
    const u = prune(t);
    if (u.tag === 'error') return true;
    const scalar = lanes === null ? u : u.tag === 'simd' && u.size === lanes ? prune(u.elem) : null;
    if (!scalar || scalar.tag !== 'prim') return false;
    const name = scalar.name;
    // Signedness does not show in LLVM's types: u32 is i32.
    return (isFloat(name) ? name : isInt(name) ? `i${primBits(name)}` : '') === suffix;
  };
  const isFlag = (t: Type): boolean => {
    const u = prune(t);
    return u.tag === 'error' || (u.tag === 'prim' && u.name === 'bool');
  };
  const sig = fnSig(ck, decl);
  if (sig.params.length !== family.operands.length) return wrong(`it takes ${family.operands.length} operands, not ${sig.params.length}`);
  for (let i = 0; i < sig.params.length; i++) {
    const p = sig.params[i]!;
    if (!(family.operands[i] === 'T' ? isT(p) : isFlag(p))) return wrong(`operand ${i + 1} is '${showType(p)}'`);
  }
  if (!sig.ret || !isT(sig.ret)) return wrong(`it returns '${sig.ret ? showType(sig.ret) : '!'}'`);
}
