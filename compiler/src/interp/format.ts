// C printf's `%g` and `%.*f` exactly as glibc prints them, so the interpreter's
// output can be compared byte for byte with native code. JS's own formatting
// rounds ties away from zero; glibc rounds the exact binary value half to even,
// so both conversions work on the exact decimal expansion of the double.
import { exactBinary } from './numeric.ts';

/** The exact value of a finite, positive double as `n / 10^scale`. */
function exactDecimal(x: number): { n: bigint; scale: number } {
  const { n, e } = exactBinary(x);
  if (e >= 0) return { n: n << BigInt(e), scale: 0 };
  // m / 2^k = m * 5^k / 10^k
  return { n: n * 5n ** BigInt(-e), scale: -e };
}

/** n / 10^digits rounded half to even. */
function dropDigits(n: bigint, digits: number): bigint {
  if (digits <= 0) return n * 10n ** BigInt(-digits);
  const d = 10n ** BigInt(digits);
  const q = n / d;
  const twice = 2n * (n % d);
  return twice > d || (twice === d && (q & 1n) === 1n) ? q + 1n : q;
}

function signBit(x: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return (view.getUint8(0) & 0x80) !== 0;
}

/** inf and nan as glibc writes them (the sign of a NaN is kept, as glibc does: `-nan`). */
function special(x: number): string | null {
  if (Number.isNaN(x)) return signBit(x) ? '-nan' : 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return null;
}

/** `printf("%.*f", precision, x)`; a negative precision means the default 6, as in C. */
export function formatFixed(x: number, precision: number): string {
  const s = special(x);
  if (s !== null) return s;
  const p = precision < 0 ? 6 : precision;
  const sign = signBit(x) ? '-' : '';
  const { n, scale } = exactDecimal(Math.abs(x));
  const digits = dropDigits(n, scale - p).toString().padStart(p + 1, '0');
  const int = digits.slice(0, digits.length - p);
  return p > 0 ? `${sign}${int}.${digits.slice(digits.length - p)}` : `${sign}${int}`;
}

/** `printf("%.*g", precision, x)`: `%g` is precision 6. */
export function formatG(x: number, precision = 6): string {
  const s = special(x);
  if (s !== null) return s;
  const sign = signBit(x) ? '-' : '';
  if (x === 0) return `${sign}0`;
  const p = precision === 0 ? 1 : precision < 0 ? 6 : precision;
  const { n, scale } = exactDecimal(Math.abs(x));
  const all = n.toString();
  // X: the decimal exponent the %e conversion would print (after rounding to p digits).
  let exp = all.length - 1 - scale;
  let digits = dropDigits(n, all.length - p).toString();
  if (digits.length > p) {
    digits = digits.slice(0, p);
    exp += 1;
  }
  if (exp < p && exp >= -4) {
    const int = exp >= 0 ? digits.slice(0, exp + 1) : '0';
    const frac = (exp >= 0 ? digits.slice(exp + 1) : '0'.repeat(-exp - 1) + digits).replace(/0+$/, '');
    return frac ? `${sign}${int}.${frac}` : `${sign}${int}`;
  }
  const rest = digits.slice(1).replace(/0+$/, '');
  const mantissa = rest ? `${digits[0]}.${rest}` : digits[0]!;
  const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return `${sign}${mantissa}e${e}`;
}
