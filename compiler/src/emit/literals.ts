// Literal values, and the constants the operators need (zero, one, all ones),
// splatted across the lanes of SIMD types.
import type { Def, IRType, LitValue, PrimType, World } from '../ir/index.ts';
import type { Literal } from '../syntax/ast.ts';

/** `lit` at the IR type sema gave it: an integer literal may have a float type (`1024f`, or inferred). */
export function literalDef(w: World, lit: Literal, t: IRType): Def {
  switch (lit.kind) {
    case 'int':
    case 'float':
      return constant(w, t as PrimType, (t as PrimType).isFloat ? Number(lit.value) : BigInt(lit.value));
    case 'bool':
      return w.litBool(lit.value);
    case 'char':
      return w.lit(w.prim('u8'), BigInt(lit.value));
    case 'str':
      return stringBytes(w, lit.value);
  }
}

/** A string literal's value: its bytes and a terminating NUL, a `[u8 * N]`. */
export function stringBytes(w: World, bytes: Uint8Array): Def {
  const u8 = w.prim('u8');
  return w.definiteArray(u8, [...bytes, 0].map((b) => w.lit(u8, BigInt(b))));
}

/** A literal of the scalar or SIMD type `t` (every lane the same). */
export function constant(w: World, t: PrimType, v: LitValue): Def {
  if (t.length === 1) return w.lit(t, v);
  const lane = w.lit(t.scalar, v);
  return w.vector(Array.from({ length: t.length }, () => lane));
}

export function one(w: World, t: PrimType): Def {
  return constant(w, t, t.isFloat ? 1 : 1n);
}

/** The left operand of negation: `-0.0` for floats, so that `-x` is exact for `x = 0.0` too. */
export function negZero(w: World, t: PrimType): Def {
  return constant(w, t, t.isFloat ? -0 : 0n);
}

/** The right operand of `!` as an xor: true, or an integer with every bit set. */
export function allOnes(w: World, t: PrimType): Def {
  return constant(w, t, t.isBool ? true : -1n);
}
