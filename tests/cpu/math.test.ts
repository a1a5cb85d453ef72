// The prelude's math (compiler/lib/math.impala) against JavaScript's Math on sample
// values: natively (each function exported from a shared library) and in the
// interpreter. The interpreter computes with Math, so it must agree exactly;
// the native transcendentals come from libm and may differ in the last bit.
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompiledLibrary } from '../../compiler/src/driver/compile.ts';
import type { Value } from '../../compiler/src/interp/index.ts';
import { emitted, nativeLibrary } from './support.ts';

type Ty = 'f32' | 'f64' | 'i32' | 'u32' | 'i64' | 'u64';

interface Case {
  /** The Impala function under test, `math::` omitted. */
  fn: string;
  ty: Ty;
  arity: number;
  ref: (...xs: number[]) => number;
  /** Error allowed relative to the result, in units of the type's epsilon (0: exact). */
  ulps: number;
  samples: number[][];
}

const unary = [0, 0.5, 1, 2, 2.5, -2.5, 3.25, 10, 100.75, 1e-3, -0.75, 1234.5];
const positive = unary.filter((x) => x > 0);
const binary = [[0, 1], [2, 3], [-1.5, 4], [2.5, 2.5], [10, -0.5], [1e-3, 7], [-8, -2]];
const powers = [[2, 10], [2.5, 2], [10, -2], [9, 0.5], [1.5, 3.25], [0.5, -3]];
// Products and sums exact in f32, so fused and unfused agree and JS can check fma.
const triples = [[2, 3, 1], [-1.5, 4, 0.25], [0.5, 0.5, -0.25], [100, 0.125, 7], [-3, -3, -9]];

const fround = Math.fround;
const fma = (a: number, b: number, c: number): number => a * b + c;
const float = (name: string, ref: (...xs: number[]) => number, arity: number, samples: number[][], ulps: number): Case[] => [
  { fn: name, ty: 'f64', arity, ref, ulps, samples },
  { fn: `${name}f`, ty: 'f32', arity, ref: (...xs) => fround(ref(...xs)), ulps, samples },
];
const one = (xs: number[]): number[][] => xs.map((x) => [x]);

const cases: Case[] = [
  ...float('sqrt', Math.sqrt, 1, one([0, ...positive]), 0),
  ...float('fma', fma, 3, triples, 0),
  ...float('fmin', Math.min, 2, binary, 0),
  ...float('fmax', Math.max, 2, binary, 0),
  ...float('fabs', Math.abs, 1, one(unary), 0),
  ...float('floor', Math.floor, 1, one(unary), 0),
  ...float('ceil', Math.ceil, 1, one(unary), 0),
  ...float('exp', Math.exp, 1, one(unary.filter((x) => x < 80)), 2),
  ...float('log', Math.log, 1, one(positive), 2),
  ...float('pow', Math.pow, 2, powers, 2),
  ...float('sin', Math.sin, 1, one(unary), 2),
  ...float('cos', Math.cos, 1, one(unary), 2),
  { fn: 'min', ty: 'i32', arity: 2, ref: Math.min, ulps: 0, samples: [[3, -4], [-7, -7], [2147483647, -2147483648], [0, 5]] },
  { fn: 'max', ty: 'i32', arity: 2, ref: Math.max, ulps: 0, samples: [[3, -4], [-7, -7], [2147483647, -2147483648], [0, 5]] },
  { fn: 'abs', ty: 'i32', arity: 1, ref: (x) => (Math.abs(x) | 0), ulps: 0, samples: [[5], [-5], [0], [-2147483648], [2147483647]] },
  { fn: 'min_u32', ty: 'u32', arity: 2, ref: Math.min, ulps: 0, samples: [[1, 4294967295], [2147483648, 2147483647], [0, 0]] },
  { fn: 'max_u32', ty: 'u32', arity: 2, ref: Math.max, ulps: 0, samples: [[1, 4294967295], [2147483648, 2147483647], [0, 0]] },
  { fn: 'min_i64', ty: 'i64', arity: 2, ref: Math.min, ulps: 0, samples: [[-(2 ** 40), 3], [2 ** 40, 2 ** 41]] },
  { fn: 'max_i64', ty: 'i64', arity: 2, ref: Math.max, ulps: 0, samples: [[-(2 ** 40), 3], [2 ** 40, 2 ** 41]] },
  { fn: 'abs_i64', ty: 'i64', arity: 1, ref: Math.abs, ulps: 0, samples: [[-(2 ** 40)], [7], [0]] },
  { fn: 'min_u64', ty: 'u64', arity: 2, ref: Math.min, ulps: 0, samples: [[2 ** 40, 3], [2 ** 33, 2 ** 32]] },
  { fn: 'max_u64', ty: 'u64', arity: 2, ref: Math.max, ulps: 0, samples: [[2 ** 40, 3], [2 ** 33, 2 ** 32]] },
];

const exportName = (c: Case): string => `test_${c.fn}`;

const source = cases
  .map((c) => {
    const params = Array.from({ length: c.arity }, (_, i) => `x${i}: ${c.ty}`).join(', ');
    const args = Array.from({ length: c.arity }, (_, i) => `x${i}`).join(', ');
    return `extern fn ${exportName(c)}(${params}) -> ${c.ty} { math::${c.fn}(${args}) }`;
  })
  .join('\n');

function close(got: number, want: number, c: Case): boolean {
  if (c.ulps === 0) return Object.is(got, want) || (got === 0 && want === 0);
  const eps = c.ty === 'f32' ? 2 ** -23 : 2 ** -52;
  return Math.abs(got - want) <= c.ulps * eps * Math.max(Math.abs(want), Number.MIN_VALUE);
}

/** The interpreter's argument for `x`: integers are bigints, f32 values are already rounded. */
function interpArg(x: number, ty: Ty): Value {
  if (ty === 'f64') return x;
  if (ty === 'f32') return fround(x);
  return BigInt(x);
}

function sampleArgs(c: Case, xs: number[]): number[] {
  return c.ty === 'f32' ? xs.map(fround) : xs;
}

describe('math in the prelude', () => {
  let lib: CompiledLibrary;
  beforeAll(async () => {
    lib = await nativeLibrary(source, 'math_samples');
  });

  it('the interpreter matches JS Math exactly', () => {
    const e = emitted(source, 'math_samples');
    const wrong: string[] = [];
    for (const c of cases) {
      const entry = e.exports.get(exportName(c))!;
      for (const xs of c.samples) {
        const args = sampleArgs(c, xs);
        const got = Number(e.run(entry, args.map((x) => interpArg(x, c.ty))).result);
        const want = c.ref(...args);
        if (!close(got, want, { ...c, ulps: 0 })) wrong.push(`${c.fn}(${args}) = ${got}, JS says ${want}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('native code matches JS Math (within two ulps for exp, log, pow, sin and cos) and the interpreter', () => {
    const e = emitted(source, 'math_samples');
    const wrong: string[] = [];
    for (const c of cases) {
      const f = lib.fn(exportName(c));
      const entry = e.exports.get(exportName(c))!;
      for (const xs of c.samples) {
        const args = sampleArgs(c, xs);
        const got = Number(f(...args));
        const want = c.ref(...args);
        const interp = Number(e.run(entry, args.map((x) => interpArg(x, c.ty))).result);
        if (!close(got, want, c)) wrong.push(`${c.fn}(${args}) = ${got} natively, JS says ${want}`);
        if (!close(got, interp, c)) wrong.push(`${c.fn}(${args}) = ${got} natively, ${interp} interpreted`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a program that declares the C names itself still compiles next to the prelude', async () => {
    const own = `
      extern "device" { fn "llvm.sqrt.f64" sqrt(f64) -> f64; fn "llvm.fabs.f32" fabsf(f32) -> f32; }
      fn min(a: i32, b: i32) -> i32 { if a < b { a } else { b } }
      extern fn mixed(x: f64) -> f64 { sqrt(x) + math::sqrt(x) + fabsf(-1.0f) as f64 + min(1, 2) as f64 }`;
    const mixed = (await nativeLibrary(own, 'math_own')).fn('mixed');
    expect(mixed(16)).toBe(10);
  });
});
