// Lane queries, math intrinsics and calls inside `vectorize`, the one-lane meaning
// of lane queries elsewhere, and what the vectoriser refuses.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Native, buildNative, interpretScalar, random, vectorised } from './support.ts';

describe('lane queries', () => {
  const src = [8, 16]
    .map((w) => `
      extern fn queries_w${w}(n: i32, x: &[i32], y: &mut [i32]) -> () {
        vectorize(${w}, 0, n, |i| {
          let c = x(i) > 50;
          let mut r = lane_id() * 1000 + num_lanes() * 100;
          if any(c) { r += 10; }
          if all(c) { r += 20; }
          if c { r += extract(i, 1) * 100000; }
          y(i) = r;
        });
      }
      extern fn ballots_w${w}(n: i32, x: &[i32], y: &mut [i32]) -> () {
        vectorize(${w}, 0, n, |i| { if x(i) % 3 != 0 { y(i) = ballot(x(i) > 50); } });
      }`)
    .join('\n') + `
      extern fn outside(v: i32) -> i32 {
        lane_id() + num_lanes() * 10 + ballot(v > 3) * 100 + extract(v, 5) * 1000 + (if any(v > 0) && all(v > 1) { 10000 } else { 0 })
      }`;

  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(src);
  });

  it('see the active lanes of the group', () => {
    const rnd = random(17);
    for (const w of [8, 16]) {
      for (const n of [3, w, 2 * w + 5]) {
        const x = Int32Array.from({ length: n }, () => Math.floor(rnd() * 100));
        const y = new Int32Array(n);
        const b = new Int32Array(n);
        lib.call(`queries_w${w}`, n, x, y);
        lib.call(`ballots_w${w}`, n, x, b);
        const expected = new Int32Array(n);
        const ballots = new Int32Array(n);
        for (let g = 0; g < n; g += w) {
          const lanes = [...Array(w).keys()].filter((l) => g + l < n);
          const c = lanes.map((l) => x[g + l]! > 50);
          for (const [k, l] of lanes.entries()) {
            expected[g + l] = l * 1000 + w * 100 + (c.some(Boolean) ? 10 : 0) + (c.every(Boolean) ? 20 : 0) + (c[k] ? (g + 1) * 100000 : 0);
          }
          // ballot sees the lanes that are active where it is called: those with x % 3 != 0.
          const active = lanes.filter((l) => x[g + l]! % 3 !== 0);
          const bits = active.reduce((acc, l) => acc | (x[g + l]! > 50 ? 1 << l : 0), 0);
          for (const l of active) ballots[g + l] = bits;
        }
        expect(Array.from(y)).toEqual(Array.from(expected));
        expect(Array.from(b)).toEqual(Array.from(ballots));
      }
    }
  });

  it('mean one lane outside vectorize', () => {
    for (const v of [-2, 1, 7]) {
      expect(lib.call('outside', v)).toBe(interpretScalar(src, 'outside', v));
    }
    expect(lib.call('outside', 7)).toBe(0 + 10 + 100 + 7000 + 10000);
  });
});

describe('calls', () => {
  const src = `
    extern fn roots(n: i32, x: &mut [f32]) -> () {
      vectorize(16, 0, n, |i| {
        if x(i) > 0.5f { x(i) = math::sqrtf(x(i)) + math::fmaf(x(i), 2.0f, 1.0f); } else { x(i) = math::fminf(x(i), 0.25f); }
      });
    }
    extern fn uniform_math(n: i32, a: f32, x: &mut [f32]) -> () {
      vectorize(8, 0, n, |i| { x(i) = x(i) + math::sqrtf(a); });
    }
    fn @(false) twice(v: i32) -> i32 { print_i32(v); print_char(' '); v * 2 }
    extern fn calls(n: i32, x: &mut [i32]) -> () {
      vectorize(4, 0, n, |i| { if x(i) % 2 == 0 { x(i) = twice(x(i)); } });
    }
    fn helper(v: i32, k: i32) -> i32 { if v > k { v * 2 } else { v - k } }
    extern fn inlined(n: i32, x: &mut [i32]) -> () {
      vectorize(8, 0, n, |i| { x(i) = helper(x(i), 3) + helper(i, 5); });
    }
    extern fn histogram(n: i32, x: &[i32], h: &mut [i32]) -> () {
      vectorize(8, 0, n, |i| { if x(i) > 0 { atomic[i32](1u32, &mut h(x(i) % 8), 1); } });
    }
    extern fn swap(n: i32, x: &mut [i32], out: &mut [i32]) -> () {
      vectorize(8, 0, n, |i| { let (old, ok) = cmpxchg[i32](&mut x(i), 5, 50); out(i) = if ok { old + 1000 } else { old }; });
    }`;

  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(src);
  });

  it('widen element-wise LLVM intrinsics and call anything else once per active lane', () => {
    expect(lib.llvm).toMatch(/declare <16 x float> @llvm\.sqrt\.v16f32\(<16 x float>\)/);
    expect(lib.llvm).toMatch(/declare <16 x float> @llvm\.fma\.v16f32\(/);
    expect(lib.llvm).toMatch(/declare <16 x float> @llvm\.minnum\.v16f32\(/);
    // A uniform argument keeps the scalar intrinsic.
    expect(lib.llvm).toMatch(/declare float @llvm\.sqrt\.f32\(float\)/);
    const x = Float32Array.from({ length: 21 }, (_, k) => k / 7);
    const expected = x.slice();
    lib.call('roots', 21, x);
    interpretScalar(src, 'roots', 21, expected);
    for (let k = 0; k < 21; k++) expect(x[k]).toBeCloseTo(expected[k]!, 5);
    const xi = Int32Array.from({ length: 10 }, (_, k) => k * 3);
    const xe = xi.slice();
    lib.call('calls', 10, xi);
    interpretScalar(src, 'calls', 10, xe);
    expect(Array.from(xi)).toEqual(Array.from(xe));
  });

  it('inline functions with a body, whose code is vectorised with the body', () => {
    const start = lib.llvm.indexOf('@inlined(');
    expect(lib.llvm.slice(start, lib.llvm.indexOf('\n}', start))).not.toMatch(/@helper/);
    const x = Int32Array.from({ length: 19 }, (_, k) => (k * 7) % 11 - 2);
    const expected = x.slice();
    lib.call('inlined', 19, x);
    interpretScalar(src, 'inlined', 19, expected);
    expect(Array.from(x)).toEqual(Array.from(expected));
  });

  it('make atomic operations once per active lane', () => {
    const rnd = random(3);
    for (const n of [5, 8, 21]) {
      const x = Int32Array.from({ length: n }, () => Math.floor(rnd() * 20) - 5);
      const h = new Int32Array(8);
      const he = new Int32Array(8);
      lib.call('histogram', n, x, h);
      interpretScalar(src, 'histogram', n, x, he);
      expect(Array.from(h)).toEqual(Array.from(he));
      const y = Int32Array.from({ length: n }, () => Math.floor(rnd() * 8));
      const ye = y.slice();
      const out = new Int32Array(n);
      const oute = new Int32Array(n);
      lib.call('swap', n, y, out);
      interpretScalar(src, 'swap', n, ye, oute);
      expect([...y, ...out]).toEqual([...ye, ...oute]);
    }
  });
});

describe('what cannot be vectorised is reported', () => {
  it('needs a vector length known at compile time, a power of two up to 64', () => {
    const r = vectorised('extern fn f(w: i32, n: i32, y: &mut [i32]) -> () { vectorize(w, 0, n, |i| { y(i) = i; }); }');
    expect(r.errors).toEqual(['vectorize: the vector length must be a power of two from 1 to 64 known at compile time']);
    expect(vectorised('extern fn f(n: i32, y: &mut [i32]) -> () { vectorize(3, 0, n, |i| { y(i) = i; }); }').errors).toHaveLength(1);
  });

  it('gives a local variable whose address escapes a copy per lane (tests/compat/vectorize.test.ts runs such bodies)', () => {
    const src = `
      extern "C" { fn consume(&mut i32) -> (); }
      extern fn f(n: i32, y: &mut [i32]) -> () { vectorize(4, 0, n, |i| { let mut v = i; consume(&mut v); y(i) = v; }); }`;
    expect(vectorised(src).errors).toEqual([]);
  });
});

describe('width 1', () => {
  it('is a plain loop', async () => {
    const src = 'extern fn f(n: i32, y: &mut [i32]) -> () { vectorize(1, 0, n, |i| { if i % 2 == 0 { y(i) = i * lane_id() + num_lanes(); } }); }';
    const lib = await buildNative(src);
    const y = new Int32Array(7);
    lib.call('f', 7, y);
    expect(Array.from(y)).toEqual([1, 0, 1, 0, 1, 0, 1]);
    expect(lib.llvm).not.toMatch(/<\d+ x /);
  });
});
