// Literal values and strings in LLVM syntax. Floats are written as the hexadecimal bit pattern
// of a double (`0x…`; LLVM's form for float and double) or of a half (`0xH…`) so
// that every value, NaNs and infinities included, round-trips exactly.
import type { LitValue } from '../ir/defs.ts';
import type { PrimType } from '../ir/types.ts';

export function formatLit(t: PrimType, v: LitValue): string {
  const s = t.scalar;
  if (s.isBool) return v ? 'true' : 'false';
  if (s.isFloat) {
    const n = Number(v);
    if (s.prim === 'f16') return `0xH${halfBits(n).toString(16).toUpperCase().padStart(4, '0')}`;
    return doubleHex(s.prim === 'f32' ? Math.fround(n) : n);
  }
  const b = typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
  return BigInt.asIntN(s.bits, b).toString();
}

function doubleHex(n: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, n);
  return `0x${view.getBigUint64(0).toString(16).toUpperCase().padStart(16, '0')}`;
}

/** IEEE binary16 bits of `n`, rounded to nearest even. */
/** Bytes in the syntax of an LLVM string (without the quotes): printable ASCII as is; `"`, the backslash and every other byte as `\XX`. */
export function escapeBytes(bytes: Iterable<number>): string {
  let s = '';
  for (const b of bytes) s += b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return s;
}

export function halfBits(n: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, n);
  const bits = view.getBigUint64(0);
  const sign = Number(bits >> 63n) << 15;
  const exp = Number((bits >> 52n) & 0x7ffn);
  const mant = bits & 0xfffffffffffffn;
  if (exp === 0x7ff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 1023 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  // Full significand with the implicit bit, then the shift that leaves 10 fraction bits
  // (more for subnormals, where the exponent is pinned at its minimum).
  const full = exp === 0 ? mant : mant | (1n << 52n);
  const shift = BigInt(42 + (e <= 0 ? 1 - e : 0));
  if (shift > 64n) return sign;
  let m = full >> shift;
  const rest = full & ((1n << shift) - 1n);
  const half = 1n << (shift - 1n);
  if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
  // Adding (rather than or-ing) lets a rounding carry out of the fraction bump the exponent.
  if (e <= 0) return sign | Number(m);
  return sign | ((e << 10) + Number(m) - 0x400);
}
