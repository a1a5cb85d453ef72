// Strided accesses under `vectorize`: lanes S elements apart (a channel of an
// interleaved image), loaded as one span and a shuffle and stored as a shuffle and
// one masked store. Native results must equal the interpreter's, with divergent
// masks, remainders, the channels between the lanes left as they were, and indices
// that wrap around the i32 range.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Arg, type Native, buildNative, expectSameMemory, random } from './support.ts';

const STRIDES = [2, 3, 4, 8];

interface ElementType {
  widths: number[];
  /** A literal of the type. */
  lit(v: number): string;
  array(len: number, rnd: () => number): Arg;
}

const types: Record<string, ElementType> = {
  u8: { widths: [4, 8, 16, 32], lit: (v) => `${v}u8`, array: (len, r) => Uint8Array.from({ length: len }, () => Math.floor(r() * 256)) },
  u16: { widths: [4, 8, 16, 32], lit: (v) => `${v}u16`, array: (len, r) => Uint16Array.from({ length: len }, () => Math.floor(r() * 65536)) },
  i32: { widths: [4, 8, 16], lit: (v) => `${v}`, array: (len, r) => Int32Array.from({ length: len }, () => Math.floor(r() * 2000) - 1000) },
  f32: { widths: [4, 8, 16], lit: (v) => `${v}.0f`, array: (len, r) => Float32Array.from({ length: len }, () => r() * 2 - 1) },
  f64: { widths: [4, 8], lit: (v) => `${v}.0`, array: (len, r) => Float64Array.from({ length: len }, () => r() * 2 - 1) },
};

/**
 * `ch_*`: strided loads in all lanes and under a mask, and stores to two channels
 * under complementary masks (the others must stay). `img_*`: an interleaved image
 * whose rows are vectorised per channel from pixel 1 on, the last channel untouched.
 */
function kernels(t: string, s: number, w: number): string {
  const two = types[t]!.lit(2);
  return `
extern fn ch_${t}_s${s}_w${w}(n: i32, x: &[${t}], y: &mut [${t}]) -> () {
  vectorize(${w}, 0, n, |i| {
    let a = x(${s} * i);
    let b = x(${s} * i + ${s - 1});
    if a > b { y(${s} * i + 1) = a - b; } else { y(${s} * i) = b / ${two} + x(${s} * i + 1) / ${two}; }
  });
}
extern fn img_${t}_s${s}_w${w}(w: i32, h: i32, x: &[${t}], y: &mut [${t}]) -> () {
  for r in range(0, h) {
    for c in unroll(0, ${s - 1}) {
      vectorize(${w}, 1, w, |p| { y((r * w + p) * ${s} + c) = x((r * w + p - 1) * ${s} + c) / ${two} + x((r * w + p) * ${s} + c) / ${two}; });
    }
  }
}`;
}

function wrapping(s: number, w: number): string {
  return `extern fn wrap_s${s}_w${w}(lo: i32, hi: i32, k: i32, x: &[i32], y: &mut [i32]) -> () { vectorize(${w}, lo, hi, |i| { y(${s} * i + k) = x(${s} * i + k) * 3 + i; }); }`;
}

function source(): string {
  const out: string[] = [];
  for (const [t, { widths }] of Object.entries(types)) {
    for (const s of STRIDES) for (const w of widths) out.push(kernels(t, s, w));
  }
  for (const s of STRIDES) for (const w of [4, 8, 16]) out.push(wrapping(s, w));
  return out.join('\n');
}

describe('strided accesses match the interpreter', () => {
  const src = source();
  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(src);
  });

  // The interpreter reads only the kernel's own source: the whole one takes long to check.
  const run = (kernel: string, name: string, args: Arg[], context: object): void => expectSameMemory(lib, kernel, name, args, context);

  it.each(Object.keys(types))('%s', (t) => {
    const { widths, array } = types[t]!;
    const rnd = random(t.length * 7919 + t.charCodeAt(0));
    for (const s of STRIDES) {
      for (const w of widths) {
        const kernel = kernels(t, s, w);
        for (const n of [0, 1, w - 1, w, 3 * w + 1, 70]) {
          run(kernel, `ch_${t}_s${s}_w${w}`, [n, array(s * n, rnd), array(s * n, rnd)], { s, w, n });
        }
        for (const [width, height] of [[1, 2], [w + 1, 3], [2 * w + 3, 2]] as const) {
          const len = s * width * height;
          run(kernel, `img_${t}_s${s}_w${w}`, [width, height, array(len, rnd), array(len, rnd)], { s, w, width, height });
        }
      }
    }
  });

  // Indices that stay small in the first case (the full iterations use 64-bit
  // addresses) and in the second wrap around the i32 range for every lane
  // (S·i + k exceeds 2^32 and wraps to S·(i - lo)): only the masked iterations
  // compute them as the body does.
  it.each(STRIDES)('stride %d, indices near the ends of the i32 range', (s) => {
    const rnd = random(s * 31);
    const cases: [lo: number, hi: number, k: number][] = [
      [5, 40, -s * 5],
      [2 ** 31 - 40, 2 ** 31 - 3, Number(BigInt.asIntN(32, -BigInt(s) * BigInt(2 ** 31 - 40)))],
    ];
    for (const [lo, hi, k] of cases) {
      for (const w of [4, 8, 16]) {
        run(wrapping(s, w), `wrap_s${s}_w${w}`, [lo, hi, k, types.i32!.array(s * 40, rnd), types.i32!.array(s * 40, rnd)], { w, lo });
      }
    }
  });
});

describe('the code of strided accesses', () => {
  it('loads and stores spans, with 64-bit addresses in the full iterations, and neither gathers nor scatters', async () => {
    const lib = await buildNative(kernels('u8', 3, 16) + kernels('f32', 3, 8));
    const fn = (name: string): string => {
      const start = lib.llvm.indexOf(`@${name}(`);
      return lib.llvm.slice(start, lib.llvm.indexOf('\n}', start));
    };
    for (const name of ['ch_u8_s3_w16', 'img_u8_s3_w16', 'ch_f32_s3_w8', 'img_f32_s3_w8']) {
      expect(fn(name)).not.toMatch(/masked\.(gather|scatter)/);
    }
    expect(fn('ch_u8_s3_w16')).toMatch(/llvm\.masked\.load\.v48i8\.p0/);
    expect(fn('ch_u8_s3_w16')).toMatch(/llvm\.masked\.store\.v48i8\.p0/);
    expect(fn('img_f32_s3_w8')).toMatch(/llvm\.masked\.load\.v24f32\.p0/);
    expect(fn('img_f32_s3_w8')).toMatch(/llvm\.masked\.store\.v24f32\.p0/);
    expect(fn('img_f32_s3_w8')).toMatch(/getelementptr inbounds float, ptr %x, i64 /);
  });
});

// Indices computed by called functions (an image library's boundary handling passes
// coordinates through its read functions): the vectoriser inlines every call, however
// many (72 here), and the block each call returns to, so that the index it uses is
// still `uniform + 2·lane` and the load a span, not a gather.
const CALLED = `
fn coords(u: i32, v: i32) -> (i32, i32) { (u + 4, clamp_row(v)) }
fn clamp_row(v: i32) -> i32 { if v < 0 { 0 } else if v > 7 { 7 } else { v } }
extern fn called_w16(n: i32, x: &[f32], y: &mut [f32]) -> () {
  vectorize(16, 0, n, |i| {
    let mut s = 0.0f;
    for c in unroll(0, 8) {
      for d in unroll(-4, 5) {
        let (u, v) = coords(2 * i + d, c);
        s += x(v * (2 * n + 8) + u) * (d + 5) as f32;
      }
    }
    y(i) = s;
  });
}`;

describe('indices computed by called functions', () => {
  it('match the interpreter and are loaded as spans', async () => {
    const lib = await buildNative(CALLED);
    const start = lib.llvm.indexOf('@called_w16(');
    const code = lib.llvm.slice(start, lib.llvm.indexOf('\n}', start));
    expect(code).not.toMatch(/masked\.gather|call .*@coords|call .*@clamp_row/);
    expect(code).toMatch(/llvm\.masked\.load\.v32f32\.p0/);
    const rnd = random(4242);
    for (const n of [0, 1, 15, 16, 33, 70]) {
      const x = Float32Array.from({ length: 8 * (2 * n + 8) }, () => rnd() * 2 - 1);
      expectSameMemory(lib, CALLED, 'called_w16', [n, x, new Float32Array(n)], { n });
    }
  });
});
