// Scalar and SIMD arithmetic with the semantics of the LLVM code the backend emits:
// integers wrap to their width, f32/f16 round after every operation, vectors work lane by lane.
import type { ArithOpTag, CmpOpTag } from '../ir/defs.ts';
import { compareLits, floatToInt, normaliseLit, shiftAmount } from '../ir/world.ts';
import type { PrimType } from '../ir/types.ts';
import { InterpError, type Value } from './values.ts';

type Scalar = bigint | number | boolean;

/** Width and signedness per integer type (PrimType computes them from its name on every access). */
const intInfo = new WeakMap<PrimType, { bits: number; signed: boolean }>();

export function wrapInt(t: PrimType, v: bigint): bigint {
  let info = intInfo.get(t);
  if (!info) intInfo.set(t, (info = { bits: t.bits, signed: t.isSigned }));
  return info.signed ? BigInt.asIntN(info.bits, v) : BigInt.asUintN(info.bits, v);
}

/** `n * 2^e` rounded half to even to a binary float of `precision` significand bits. */
function roundBinary(n: bigint, e: number, precision: number, minExp: number): number {
  const negative = n < 0n;
  let m = negative ? -n : n;
  if (m === 0n) return negative ? -0 : 0;
  let drop = m.toString(2).length - precision;
  // Subnormals keep fewer bits: nothing below 2^minExp survives.
  if (e + drop < minExp) drop = minExp - e;
  if (drop > 0) {
    const q = m >> BigInt(drop);
    const rest = m - (q << BigInt(drop));
    const half = 1n << BigInt(drop - 1);
    m = rest > half || (rest === half && (q & 1n) === 1n) ? q + 1n : q;
    e += drop;
  }
  // Scaling by powers of two is exact until the result itself overflows.
  let r = Number(m);
  while (e > 1000) {
    r *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    r *= 2 ** -1000;
    e += 1000;
  }
  r *= 2 ** e;
  return negative ? -r : r;
}

const formats = { f16: { bits: 11, minExp: -24, max: 65504 }, f32: { bits: 24, minExp: -149, max: 3.4028234663852886e38 } };

/** Rounds a double (or an exact integer) to the float type `t`. */
export function roundFloat(t: PrimType, x: number | bigint): number {
  const prim = t.scalar.prim;
  if (prim === 'f64') return Number(x);
  if (typeof x === 'number') {
    if (prim === 'f32') return Math.fround(x);
    if (!Number.isFinite(x) || x === 0) return x;
  }
  const f = formats[prim === 'f16' ? 'f16' : 'f32'];
  const { n, e } = typeof x === 'bigint' ? { n: x, e: 0 } : exactBinary(x);
  const r = roundBinary(n, e, f.bits, f.minExp);
  return Math.abs(r) > f.max ? (r < 0 ? -Infinity : Infinity) : r;
}

/** A finite double as the exact `n * 2^e`. */
export function exactBinary(x: number): { n: bigint; e: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const m = biased === 0 ? fraction : fraction | (1n << 52n);
  return { n: x < 0 || Object.is(x, -0) ? -m : m, e: (biased === 0 ? 1 : biased) - 1075 };
}

/** `a * b + c` with a single rounding, as `llvm.fma` computes it. */
export function fusedMultiplyAdd(t: PrimType, a: number, b: number, c: number): number {
  if (![a, b, c].every(Number.isFinite)) return roundFloat(t, a * b + c);
  const x = exactBinary(a);
  const y = exactBinary(b);
  const z = exactBinary(c);
  const pe = x.e + y.e;
  const low = Math.min(pe, z.e);
  const sum = ((x.n * y.n) << BigInt(pe - low)) + (z.n << BigInt(z.e - low));
  if (sum === 0n) return roundFloat(t, a * b + c);
  const f = t.scalar.prim === 'f64' ? { bits: 53, minExp: -1074 } : t.scalar.prim === 'f32' ? { bits: 24, minExp: -149 } : { bits: 11, minExp: -24 };
  return roundFloat(t, roundBinary(sum, low, f.bits, f.minExp));
}

/** Applies `f` lane by lane when `t` is a vector. */
export function lanes(t: PrimType, f: (...xs: Scalar[]) => Value, ...xs: Value[]): Value {
  if (t.length === 1) return f(...(xs as Scalar[]));
  return Array.from({ length: t.length }, (_, i) => f(...xs.map((x) => (x as Scalar[])[i]!)));
}

export function arith(tag: ArithOpTag, t: PrimType, a: Value, b: Value): Value {
  if (t.length === 1) return scalarArith(tag, t, a as Scalar, b as Scalar);
  const s = t.scalar;
  return lanes(t, (x, y) => scalarArith(tag, s, x, y), a, b);
}

function scalarArith(tag: ArithOpTag, t: PrimType, x: Scalar, y: Scalar): Scalar {
  if (typeof x === 'boolean' && typeof y === 'boolean') {
    switch (tag) {
      case 'and': return x && y;
      case 'or': return x || y;
      case 'xor': return x !== y;
      default: throw new InterpError(`'${tag}' on bool`);
    }
  }
  if (typeof x === 'number' && typeof y === 'number') {
    switch (tag) {
      case 'add': return roundFloat(t, x + y);
      case 'sub': return roundFloat(t, x - y);
      case 'mul': return roundFloat(t, x * y);
      case 'div': return roundFloat(t, x / y);
      case 'rem': return roundFloat(t, x % y);
      default: throw new InterpError(`'${tag}' on ${t}`);
    }
  }
  const a = x as bigint;
  const b = y as bigint;
  switch (tag) {
    case 'add': return wrapInt(t, a + b);
    case 'sub': return wrapInt(t, a - b);
    case 'mul': return wrapInt(t, a * b);
    case 'div':
    case 'rem':
      // The same trap as the native code's (docs/language.md, "Defined semantics of arithmetic").
      if (b === 0n) throw new InterpError(`integer division by zero (${t} ${tag})`);
      // BigInt division truncates toward zero and the remainder takes the dividend's sign, as in C;
      // the most negative value divided by -1 wraps to itself.
      return wrapInt(t, tag === 'div' ? a / b : a % b);
    case 'and': return wrapInt(t, a & b);
    case 'or': return wrapInt(t, a | b);
    case 'xor': return wrapInt(t, a ^ b);
    // The amount is masked to the width, as the World folds it and the backend emits it.
    case 'shl': return wrapInt(t, a << shiftAmount(t, b));
    case 'shr': return wrapInt(t, a >> shiftAmount(t, b));
  }
}

/** `t` is the operand type; the result is bool (or a vector of bools). */
export function compare(tag: CmpOpTag, t: PrimType, a: Value, b: Value): Value {
  if (t.length === 1) return compareLits(tag, a as Scalar, b as Scalar);
  return lanes(t, (x, y) => compareLits(tag, x, y), a, b);
}

/** `as` between numeric types (the same conversions the World folds literals with). */
export function convert(from: PrimType, to: PrimType, v: Value): Value {
  const t = to.scalar;
  return lanes(from, (x) => convertScalar(t, x), v);
}

function convertScalar(to: PrimType, x: Scalar): Scalar {
  if (to.isBool) return typeof x === 'boolean' ? x : x !== 0 && x !== 0n;
  if (to.isFloat) {
    if (typeof x === 'boolean') return x ? 1 : 0;
    return roundFloat(to, x);
  }
  // Saturating, NaN to 0, like the World's literal folding and the backend's fpto[su]i.sat.
  if (typeof x === 'number') return floatToInt(to, x);
  return normaliseLit(to, x) as bigint;
}

/** Reinterprets the bits of a scalar or vector as another type of the same size. */
export function bitcastPrim(from: PrimType, to: PrimType, v: Value): Value {
  // A mask `<N x bool>` is N bits, lane 0 the lowest (LLVM's `<N x i1>`), as the vectoriser's `any`/`ballot` read it.
  if (from.isBool && from.length > 1 && !to.isBool && to.length === 1 && to.bits === from.length) {
    return wrapInt(to, (v as boolean[]).reduce((bits, on, l) => (on ? bits | (1n << BigInt(l)) : bits), 0n));
  }
  if (to.isBool && to.length > 1 && !from.isBool && from.length === 1 && from.bits === to.length) {
    const bits = BigInt.asUintN(from.bits, v as bigint);
    return Array.from({ length: to.length }, (_, l) => ((bits >> BigInt(l)) & 1n) === 1n);
  }
  if (from.isBool || to.isBool || from.bits * from.length !== to.bits * to.length) {
    throw new InterpError(`unsupported in interpreter: bitcast from ${from} to ${to}`);
  }
  const bytes = new DataView(new ArrayBuffer((from.bits * from.length) / 8));
  const inLanes = from.length === 1 ? [v as Scalar] : (v as Scalar[]);
  inLanes.forEach((x, i) => writeLane(bytes, (i * from.bits) / 8, from.scalar, x));
  const out = Array.from({ length: to.length }, (_, i) => readLane(bytes, (i * to.bits) / 8, to.scalar));
  return to.length === 1 ? out[0]! : out;
}

function writeLane(view: DataView, at: number, t: PrimType, x: Scalar): void {
  if (t.isFloat) {
    if (t.bits === 64) view.setFloat64(at, x as number, true);
    else if (t.bits === 32) view.setFloat32(at, x as number, true);
    else view.setUint16(at, f16Bits(x as number), true);
    return;
  }
  const u = BigInt.asUintN(t.bits, x as bigint);
  if (t.bits === 64) view.setBigUint64(at, u, true);
  else if (t.bits === 32) view.setUint32(at, Number(u), true);
  else if (t.bits === 16) view.setUint16(at, Number(u), true);
  else view.setUint8(at, Number(u));
}

function readLane(view: DataView, at: number, t: PrimType): Scalar {
  if (t.isFloat) {
    if (t.bits === 64) return view.getFloat64(at, true);
    if (t.bits === 32) return view.getFloat32(at, true);
    return f16Value(view.getUint16(at, true));
  }
  const raw =
    t.bits === 64 ? view.getBigUint64(at, true)
    : t.bits === 32 ? BigInt(view.getUint32(at, true))
    : t.bits === 16 ? BigInt(view.getUint16(at, true))
    : BigInt(view.getUint8(at));
  return wrapInt(t, raw);
}

/** IEEE half-precision bits of a value that is already rounded to f16. */
function f16Bits(x: number): number {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (Number.isNaN(x)) return 0x7e00;
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | Math.round(a / 2 ** -24);
  const e = Math.floor(Math.log2(a));
  const exp = a / 2 ** e >= 2 ? e + 1 : a / 2 ** e < 1 ? e - 1 : e;
  return sign | ((exp + 15) << 10) | Math.round((a / 2 ** exp - 1) * 1024);
}

function f16Value(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}
