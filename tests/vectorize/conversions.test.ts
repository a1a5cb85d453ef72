// Float-to-integer `as` under `vectorize`: saturated at both ends of the target type and NaN to
// 0, lane by lane as the scalar conversion (docs/language.md, "Defined semantics of
// arithmetic"). The backend writes the vector form as a plain conversion with compares and
// selects instead of llvm.fpto[su]i.sat, which LLVM 19 lowers one lane at a time on x86; the
// native results must equal the interpreter's on values at, inside and past every bound.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Arg, type Native, buildNative, expectSameMemory, random } from './support.ts';

interface Target {
  array(len: number): Arg;
  bits: number;
  signed: boolean;
}

const targets: Record<string, Target> = {
  i8: { array: (n) => new Int8Array(n), bits: 8, signed: true },
  u8: { array: (n) => new Uint8Array(n), bits: 8, signed: false },
  i16: { array: (n) => new Int16Array(n), bits: 16, signed: true },
  u16: { array: (n) => new Uint16Array(n), bits: 16, signed: false },
  i32: { array: (n) => new Int32Array(n), bits: 32, signed: true },
  u32: { array: (n) => new Uint32Array(n), bits: 32, signed: false },
};
const sources = { f32: (xs: number[]) => Float32Array.from(xs), f64: (xs: number[]) => Float64Array.from(xs) };
const WIDTHS = [4, 8, 16];

function kernel(from: string, to: string, w: number): string {
  return `extern fn cv_${from}_${to}_w${w}(n: i32, x: &[${from}], y: &mut [${to}]) -> () { vectorize(${w}, 0, n, |i| { y(i) = x(i) as ${to}; }); }`;
}

/** The bounds of `t` and their neighbours, NaN, the infinities, zeros, halves, and random values across and past the range. */
function inputs(t: Target, seed: number): number[] {
  const [lo, hi] = t.signed ? [-(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1] : [0, 2 ** t.bits - 1];
  const edges = [lo, hi, lo - 1, hi + 1, lo - 0.5, hi + 0.5, lo + 0.5, hi - 0.5, lo - 1e6, hi + 1e6, 2 ** 31, -(2 ** 31), 2147483520, 4294967040, 3e9, -3e9, 1e30, -1e30];
  const special = [Number.NaN, Infinity, -Infinity, 0, -0, 0.5, -0.5, 0.99, -0.99, 1.5, -1.5, 255.5, 256, 65535.5, 65536, 32767.9, -32768.9];
  const rnd = random(seed);
  const spread = Array.from({ length: 40 }, () => (rnd() * 2 - 1) * 2 ** (1 + Math.floor(rnd() * 34)));
  return [...edges, ...special, ...spread];
}

describe('float-to-integer conversions of vectors saturate like the scalar ones', () => {
  const source = Object.keys(sources).flatMap((f) => Object.keys(targets).flatMap((t) => WIDTHS.map((w) => kernel(f, t, w)))).join('\n');
  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(source);
  });

  it('the vector conversions are not llvm.fpto[su]i.sat calls', () => {
    expect(lib.llvm).not.toMatch(/fpto[su]i\.sat\.v/);
  });

  it.each(Object.keys(sources).flatMap((f) => Object.keys(targets).map((t) => [f, t] as const)))('%s to %s', (from, to) => {
    const t = targets[to]!;
    for (const w of WIDTHS) {
      const xs = inputs(t, w * 131 + t.bits);
      const x = sources[from as keyof typeof sources](xs);
      expectSameMemory(lib, kernel(from, to, w), `cv_${from}_${to}_w${w}`, [xs.length, x, t.array(xs.length)], { from, to, w });
    }
  });
});
