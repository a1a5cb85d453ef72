// Numeric literals: their type (suffix, or an inference variable that defaults to
// i32 / f64) and, once the type is final, the range check.
import type { Expr, FloatSuffix, IntSuffix, Literal, PrimName } from '../syntax/ast.ts';
import type { Span } from '../syntax/diagnostics.ts';
import type { Checker } from './checker.ts';
import { isFloat, isSigned, primBits, prune, type Type } from './types.ts';

const suffixType: Record<IntSuffix | FloatSuffix, PrimName> = {
  i: 'i32', u: 'u32', i8: 'i8', i16: 'i16', i32: 'i32', i64: 'i64',
  u8: 'u8', u16: 'u16', u32: 'u32', u64: 'u64',
  h: 'f16', f: 'f32', f16: 'f16', f32: 'f32', f64: 'f64',
};

export function suffixPrim(s: IntSuffix | FloatSuffix): PrimName {
  return suffixType[s];
}

/**
 * The smallest magnitude that rounds to infinity in each narrow float type (the largest
 * finite value plus half an ulp): a literal below it rounds to a finite value, so
 * `3.4028234664e+38f` (a little above FLT_MAX, as the 2018 code spells it) is in range.
 */
const floatOverflow: Partial<Record<PrimName, number>> = { f16: 65520, f32: 2 ** 128 - 2 ** 103 };

export function checkIntLiteral(ck: Checker, e: Expr, lit: Extract<Literal, { kind: 'int' }>): Type {
  const t: Type = lit.suffix ? { tag: 'prim', name: suffixType[lit.suffix] } : ck.u.fresh('int');
  ck.u.finalCheck(() => {
    const p = prune(e.type!);
    if (p.tag !== 'prim' || isFloat(p.name) || p.name === 'bool') return;
    if (!fitsInt(lit.value, p.name, ck.negated.has(e), !isDecimalSpelling(lit, e.span))) {
      ck.error(e.span, `literal out of range for type '${p.name}'`);
    }
  });
  return t;
}

/**
 * Whether the literal was written in decimal. The AST keeps no radix, so this compares
 * the source width with the decimal digits: any prefix or `_` makes it wider.
 */
export function isDecimalSpelling(lit: Extract<Literal, { kind: 'int' }>, span: Span, extraChars = 0): boolean {
  const digits = (lit.value < 0n ? -lit.value : lit.value).toString().length;
  return span.line === span.endLine && span.endCol - span.col + 1 === digits + (lit.suffix?.length ?? 0) + extraChars;
}

export function checkFloatLiteral(ck: Checker, e: Expr, lit: Extract<Literal, { kind: 'float' }>): Type {
  const t: Type = lit.suffix ? { tag: 'prim', name: suffixType[lit.suffix] } : ck.u.fresh('float');
  ck.u.finalCheck(() => {
    const p = prune(e.type!);
    const overflow = p.tag === 'prim' ? floatOverflow[p.name] : undefined;
    if (overflow !== undefined && Math.abs(lit.value) >= overflow) ck.error(e.span, `literal out of range for type '${p.tag === 'prim' ? p.name : ''}'`);
  });
  return t;
}

/**
 * Whether the literal `value` (negated when under a unary minus) fits the integer
 * type. `bitPattern`: hex, octal and binary literals may spell any bit pattern of a
 * signed type (`0xFFFF_FFFF` as an i32), as in C.
 */
export function fitsInt(value: bigint, name: PrimName, negated: boolean, bitPattern = false): boolean {
  const bits = BigInt(primBits(name));
  if (!isSigned(name) || (bitPattern && !negated)) return negated ? value === 0n : value < 1n << bits;
  const limit = 1n << (bits - 1n);
  return negated ? value <= limit : value < limit;
}
