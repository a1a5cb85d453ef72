// Divergent control flow under `vectorize`: the vectorised native code must
// compute what the interpreter computes running one iteration at a time, for
// random inputs, every width, and sizes with remainders.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Native, buildNative, interpretScalar, random } from './support.ts';

const widths = [4, 8, 16];

/** Kernels `name(n, x: &[i32], y: &mut [i32])`, one per width (`name_w8`). */
const kernels: Record<string, string> = {
  // if/else with both sides storing, and an if without else.
  ifelse: `
    let v = x(i);
    if v % 3 == 0 { y(i) = v * 2; } else if v > 40 { y(i) = v - 40; } else { y(i) = -v; }
    if v < 10 { y(i) = y(i) + 1000; }`,
  // Values merged at joins of divergent branches (params of join blocks).
  joins: `
    let v = x(i);
    let a = if v > 50 { v * 3 } else { v + 7 };
    let b = if a % 2 == 0 { a / 2 } else { 3 * a + 1 };
    y(i) = a + b;`,
  match: `
    y(i) = match x(i) % 5 { 0 => 10, 1 => x(i), 2 => -x(i), 3 => y(i) * 2, _ => 7 };`,
  // Early returns: each lane leaves at its own point.
  early: `
    let v = x(i);
    if v < 0 { return() }
    y(i) = v * 2;
    if v > 50 { y(i) = 1000; return() }
    y(i) = y(i) + 1;`,
  // A loop whose trip count differs per lane, with continue and break.
  loops: `
    let mut s = 0;
    let mut j = 0;
    while j < x(i) {
        j++;
        if j % 3 == 0 { continue() }
        if s > 200 { break() }
        let mut k = 0;
        while k < j { s += k; k++; }
    }
    y(i) = s + j;`,
  // Return from inside a nested loop.
  nested_return: `
    let mut j = 0;
    while j < 10 {
        let mut k = 0;
        while k < x(i) % 7 {
            if j * k > x(i) { y(i) = j * 100 + k; return() }
            k++;
        }
        j++;
    }
    y(i) = -1;`,
  // Uniform loops (bounds from outside the body) inside divergent code, with a value read after them.
  uniform_loop: `
    let v = x(i);
    if v > 30 {
        let mut s = 0;
        for k in range(0, n % 5 + 2) { s += k * v; }
        y(i) = s;
    } else {
        let mut k = 0;
        while k < n % 3 { k++; }
        y(i) = k + v;
    }`,
  // A uniform loop inside a divergent one.
  mixed_loops: `
    let mut s = 0;
    let mut j = 0;
    while j < x(i) % 9 {
        for k in range(0, 3) { s += j * k; }
        j++;
    }
    y(i) = s;`,
};

function source(): string {
  const out: string[] = [];
  for (const [name, body] of Object.entries(kernels)) {
    for (const w of widths) {
      out.push(`extern fn ${name}_w${w}(n: i32, x: &[i32], y: &mut [i32]) -> () { vectorize(${w}, 0, n, |i| { ${body} }); }`);
    }
  }
  return out.join('\n');
}

describe('vectorised control flow matches the interpreter', () => {
  const src = source();
  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(src);
  });

  it.each(Object.keys(kernels))('%s', (name) => {
    const rnd = random(name.length * 7919);
    for (const w of widths) {
      for (const n of [0, 1, w - 1, w, 2 * w + 3, 50]) {
        const x = Int32Array.from({ length: n }, () => Math.floor(rnd() * 120) - 20);
        const y = Int32Array.from({ length: n }, () => Math.floor(rnd() * 10));
        const expected = Int32Array.from(y);
        lib.call(`${name}_w${w}`, n, x, y);
        interpretScalar(src, `${name}_w${w}`, n, x, expected);
        expect({ w, n, y: Array.from(y) }).toEqual({ w, n, y: Array.from(expected) });
      }
    }
  });
});

describe('Mandelbrot (per-lane trip counts of a loop with a break)', () => {
  const body = `
    let cr = (x as f32) * 3.0f / (w as f32) - 2.0f;
    let ci = (y as f32) * 2.0f / (h as f32) - 1.0f;
    let mut zr = 0.0f;
    let mut zi = 0.0f;
    let mut k = 0;
    while k < maxit {
        let zr2 = zr * zr;
        let zi2 = zi * zi;
        if zr2 + zi2 > 4.0f { break() }
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        k++;
    }
    out(y * w + x) = k;`;
  const src = widths
    .map((v) => `extern fn mandel_w${v}(w: i32, h: i32, maxit: i32, out: &mut [i32]) -> () {
      for y in range(0, h) { vectorize(${v}, 0, w, |x| { ${body} }); } }`)
    .join('\n');

  it('agrees with the interpreter at every width', async () => {
    const lib = await buildNative(src);
    const [w, h, maxit] = [37, 9, 60];
    const expected = new Int32Array(w * h);
    interpretScalar(src, 'mandel_w4', w, h, maxit, expected);
    expect(new Set(expected).size).toBeGreaterThan(10);
    for (const v of widths) {
      const out = new Int32Array(w * h);
      lib.call(`mandel_w${v}`, w, h, maxit, out);
      expect(Array.from(out)).toEqual(Array.from(expected));
    }
  });
});
