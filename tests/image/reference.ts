// Plain TypeScript definitions of the pipelines, written from their mathematical
// definition (each stage over the whole plane, the boundary mode applied to the input
// only) rather than from the Impala, so that agreement means something.
import type { Image } from '../../libs/image/image.ts';
import { makeImage } from '../../libs/image/image.ts';
import { type Boundary, DEFAULT_ITER, type Pipeline } from '../../libs/image/variants.ts';

type Plane = (x: number, y: number) => number;

/** Coordinate i of the plane mapped into [0, n) by the mode, at any distance from the image. */
export function wrap(mode: Exclude<Boundary, 'const'>, i: number, n: number): number {
  switch (mode) {
    case 'clamp':
      return Math.min(Math.max(i, 0), n - 1);
    case 'mirror': {
      const m = ((i % (2 * n)) + 2 * n) % (2 * n);
      return m >= n ? 2 * n - 1 - m : m;
    }
    case 'repeat':
      return ((i % n) + n) % n;
  }
}

/** `at` (valid on [0, w) × [0, h)) extended to the plane by `mode`. Coordinates within PAD of the image are mapped through tables, which keeps the reference quick on large images. */
const PAD = 4;
function extend(mode: Boundary, outside: number, w: number, h: number, at: (x: number, y: number) => number): Plane {
  if (mode === 'const') return (x, y) => (x < 0 || x >= w || y < 0 || y >= h ? outside : at(x, y));
  const table = (n: number) => Int32Array.from({ length: n + 2 * PAD }, (_, i) => wrap(mode, i - PAD, n));
  const xs = table(w);
  const ys = table(h);
  return (x, y) => at(xs[x + PAD]!, ys[y + PAD]!);
}

const idiv = (a: number, b: number) => Math.trunc(a / b);

const INTEGER_OPS: Record<Exclude<Pipeline, 'harris' | 'heat' | 'wave' | 'bilateral' | 'interpolate' | 'local_laplacian'>, (r: Plane, x: number, y: number) => number> = {
  box3(r, x, y) {
    const bx = (x: number, y: number) => idiv(r(x - 1, y) + r(x, y) + r(x + 1, y), 3);
    return idiv(bx(x, y - 1) + bx(x, y) + bx(x, y + 1), 3);
  },
  gauss5: (r, x, y) => gauss5(r, x, y),
  unsharp: (r, x, y) => 2 * r(x, y) - gauss5(r, x, y),
  sobel(r, x, y) {
    const gx = r(x + 1, y - 1) + 2 * r(x + 1, y) + r(x + 1, y + 1) - (r(x - 1, y - 1) + 2 * r(x - 1, y) + r(x - 1, y + 1));
    const gy = r(x - 1, y + 1) + 2 * r(x, y + 1) + r(x + 1, y + 1) - (r(x - 1, y - 1) + 2 * r(x, y - 1) + r(x + 1, y - 1));
    return Math.abs(gx) + Math.abs(gy);
  },
  gradient: (r, x, y) => convolve(GRADIENT, r, x, y),
};

// Herrmann and Langhammer (SCP 2006), Section 7: matrices indexed [row][column].
const GRADIENT = [
  [1, 0, -1],
  [2, 0, -2],
  [1, 0, -1],
];
const HEAT = [
  [0, 1, 3, 1, 0],
  [1, 2, 4, 2, 1],
  [3, 4, 6, 4, 3],
  [1, 2, 4, 2, 1],
  [0, 1, 3, 1, 0],
];

/** The paper's convolution (Section 7.1): J(row, col) = Σ M(i, j) · I(row − i + k, col − j + k), k = ⌊(m − 1) / 2⌋. */
function convolve(m: number[][], r: Plane, x: number, y: number): number {
  const k = Math.floor((m.length - 1) / 2);
  let sum = 0;
  for (let i = 0; i < m.length; i++) {
    for (let j = 0; j < m.length; j++) sum += m[i]![j]! * r(x - j + k, y - i + k);
  }
  return sum;
}

/** Temperature distribution (Section 7.2) on one channel: `iterations` blur steps with the paper's matrix, rounded, each but a disc of radius 20 that moves with the step number, which is held at 0. */
function heat(plane: Int32Array, w: number, h: number, mode: Boundary, outside: number, iterations: number): Int32Array {
  const weight = HEAT.flat().reduce((a, b) => a + b, 0);
  let cur = plane;
  for (let iter = 0; iter < iterations; iter++) {
    const obr = Math.trunc(h / 10) + iter * (h / 150) + Math.trunc(h / 4) * Math.sin(iter / 10);
    const obc = Math.trunc(w / 2) + Math.trunc(w / 4) * Math.cos(iter / 30);
    // The step's input on the plane as far as the matrix reaches, in a table for speed.
    const src = cur;
    const r = extend(mode, outside, w, h, (x, y) => src[y * w + x]!);
    const ew = w + 4;
    const extended = Int32Array.from({ length: ew * (h + 4) }, (_, i) => r((i % ew) - 2, Math.floor(i / ew) - 2));
    const e: Plane = (x, y) => extended[(y + 2) * ew + x + 2]!;
    const next = new Int32Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const dc = x - obc;
        const dr = y - obr;
        next[y * w + x] = dc * dc + dr * dr <= 20 * 20 ? 0 : idiv(convolve(HEAT, e, x, y) + weight / 2, weight);
      }
    }
    cur = next;
  }
  return cur;
}

/** Wave animation (Section 7.3), frame `iter`: row y shows row y + ⌊20 · sin((iter + y) · 3.14 / 30)⌋, that row placed by the boundary mode. */
function wave(plane: Int32Array, w: number, h: number, mode: Boundary, outside: number, iter: number): Int32Array {
  const out = new Int32Array(w * h);
  for (let y = 0; y < h; y++) {
    const from = y + Math.floor(20 * Math.sin(((iter + y) * 3.14) / 30));
    const inside = from >= 0 && from < h;
    for (let x = 0; x < w; x++) {
      if (mode === 'const') out[y * w + x] = inside ? plane[from * w + x]! : outside;
      else out[y * w + x] = plane[wrap(mode, from, h) * w + x]!;
    }
  }
  return out;
}

const BINOMIAL = [1, 4, 6, 4, 1];

function gauss5(r: Plane, x: number, y: number): number {
  let sum = 0;
  for (let dy = -2; dy <= 2; dy++) {
    let row = 0;
    for (let dx = -2; dx <= 2; dx++) row += BINOMIAL[dx + 2]! * r(x + dx, y + dy);
    sum += BINOMIAL[dy + 2]! * row;
  }
  return idiv(sum + 128, 256);
}

/** An integer pipeline on a u8 or i32 image, channel by channel; `iter` is the frame of heat and wave. */
export function referenceInteger(pipeline: Exclude<Pipeline, 'harris'>, img: Image, mode: Boundary, outside: number, iter = DEFAULT_ITER): Image {
  const { width: w, height: h, channels: ch } = img;
  const out = makeImage(img.type, w, h, ch);
  if (pipeline === 'heat' || pipeline === 'wave') {
    const animate = pipeline === 'heat' ? heat : wave;
    for (let c = 0; c < ch; c++) {
      const result = animate(Int32Array.from({ length: w * h }, (_, i) => img.data[i * ch + c]!), w, h, mode, outside, iter);
      result.forEach((v, i) => (out.data[i * ch + c] = img.type === 'u8' ? Math.min(255, Math.max(0, v)) : v));
    }
    return out;
  }
  // Halide's app pipelines compute in f32: their references are in reference-apps.ts.
  if (!(pipeline in INTEGER_OPS)) throw new Error(`${pipeline} has no integer reference (see reference-apps.ts)`);
  const op = INTEGER_OPS[pipeline as keyof typeof INTEGER_OPS];
  for (let c = 0; c < ch; c++) {
    const r = extend(mode, outside, w, h, (x, y) => img.data[(y * w + x) * ch + c]!);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const v = op(r, x, y);
        out.data[(y * w + x) * ch + c] = img.type === 'u8' ? Math.min(255, Math.max(0, v)) : v;
      }
    }
  }
  return out;
}

const f = Math.fround;

/** The gray image in [0, 1] the way the library computes it (f32 at every step). */
function gray(img: Image): (x: number, y: number) => number {
  const { width: w, channels: ch } = img;
  if (img.type === 'f32') return (x, y) => img.data[y * w + x]!;
  const v = (x: number, y: number, c: number) => f(img.data[(y * w + x) * ch + c]! * f(1 / 255));
  if (ch < 3) return (x, y) => v(x, y, 0);
  return (x, y) => f(f(f(f(0.299) * v(x, y, 0)) + f(f(0.587) * v(x, y, 1))) + f(f(0.114) * v(x, y, 2)));
}

/** Harris response (f32, one channel) with Halide's definition and the boundary on the gray input. */
export function referenceHarris(img: Image, mode: Boundary, outside: number): Image {
  const { width: w, height: h } = img;
  const g = extend(mode, f(outside), w, h, gray(img));
  const k = f(1 / 12);
  const ix = (x: number, y: number) =>
    f(f(f(f(g(x + 1, y - 1) - g(x - 1, y - 1)) + f(2 * f(g(x + 1, y) - g(x - 1, y)))) + f(g(x + 1, y + 1) - g(x - 1, y + 1))) * k);
  const iy = (x: number, y: number) =>
    f(f(f(f(g(x - 1, y + 1) - g(x - 1, y - 1)) + f(2 * f(g(x, y + 1) - g(x, y - 1)))) + f(g(x + 1, y + 1) - g(x + 1, y - 1))) * k);
  // The products on the image grown by one pixel, then their 3 × 3 sums.
  const pw = w + 2;
  const pxx = new Float32Array(pw * (h + 2));
  const pyy = new Float32Array(pw * (h + 2));
  const pxy = new Float32Array(pw * (h + 2));
  for (let y = -1; y <= h; y++) {
    for (let x = -1; x <= w; x++) {
      const a = ix(x, y);
      const b = iy(x, y);
      const i = (y + 1) * pw + x + 1;
      pxx[i] = a * a;
      pyy[i] = b * b;
      pxy[i] = a * b;
    }
  }
  const box = (p: Float32Array, x: number, y: number) => {
    const row = (dy: number) => {
      const i = (y + 1 + dy) * pw + x + 1;
      return f(f(p[i - 1]! + p[i]!) + p[i + 1]!);
    };
    return f(f(row(-1) + row(0)) + row(1));
  };
  const out = makeImage('f32', w, h, 1);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const sxx = box(pxx, x, y);
      const syy = box(pyy, x, y);
      const sxy = box(pxy, x, y);
      const det = f(f(sxx * syy) - f(sxy * sxy));
      const trace = f(sxx + syy);
      out.data[y * w + x] = f(det - f(f(f(0.04) * trace) * trace));
    }
  }
  return out;
}
