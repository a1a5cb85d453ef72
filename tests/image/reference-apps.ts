// Plain TypeScript definitions of the pipelines of Halide's apps in the image library (the
// bilateral grid and multi-scale interpolation), written from their definition: every
// stage as an array over the whole domain it is needed on, f32 rounding after every
// operation (Math.fround), the boundary mode applied to the input only. Like reference.ts,
// they are written from the algorithm rather than from the Impala.
import type { Image } from '../../libs/image/image.ts';
import { makeImage } from '../../libs/image/image.ts';
import type { Boundary } from '../../libs/image/variants.ts';
import { wrap } from './reference.ts';

const f = Math.fround;
type Plane = (x: number, y: number) => number;

function extendPlane(mode: Boundary, outside: number, w: number, h: number, at: Plane): Plane {
  if (mode === 'const') return (x, y) => (x >= 0 && x < w && y >= 0 && y < h ? at(x, y) : outside);
  return (x, y) => at(wrap(mode, x, w), wrap(mode, y, h));
}

/** Channel c of an image as values in [0, 1]: u8 as v / 255 in f32, f32 as it is. */
function unitChannel(img: Image, c: number): Plane {
  const { width: w, channels: ch } = img;
  if (img.type === 'f32') return (x, y) => img.data[(y * w + x) * ch + c]!;
  const scale = f(1 / 255);
  return (x, y) => f(img.data[(y * w + x) * ch + c]! * scale);
}

function unitOutside(img: Image, outside: number): number {
  return img.type === 'u8' ? f(outside * f(1 / 255)) : f(outside);
}

/** A value in [0, 1] stored into the output's type: u8 rounds to the nearest level (halves up) and saturates, NaN giving 0. */
function storeUnit(type: Image['type'], v: number): number {
  if (type !== 'u8') return v;
  const t = Math.trunc(f(f(v * 255) + 0.5));
  return Number.isNaN(t) ? 0 : Math.min(255, Math.max(0, t));
}

const clampUnit = (v: number) => Math.min(Math.max(v, 0), 1);
const lerp = (a: number, b: number, t: number) => f(f(a * f(1 - t)) + f(b * t));
/** 1 4 6 4 1 over taps t(−2) … t(2), summed from the left. */
const binomial5 = (t: (d: number) => number) => f(f(f(f(t(-2) + f(t(-1) * 4)) + f(t(0) * 6)) + f(t(1) * 4)) + t(2));

/** A grid of `planes` planes over cells [x0, x0 + w) × [y0, y0 + h). */
class Grid {
  readonly data: Float32Array;
  constructor(readonly planes: number, readonly x0: number, readonly y0: number, readonly w: number, readonly h: number) {
    this.data = new Float32Array(planes * w * h);
  }
  index(p: number, x: number, y: number): number {
    return (p * this.h + y - this.y0) * this.w + x - this.x0;
  }
  get(p: number, x: number, y: number): number {
    return this.data[this.index(p, x, y)]!;
  }
}

const S_SIGMA = 8;
const INV_R_SIGMA = 10; // 1 / 0.1 rounded to f32
const BINS = 11;
const NZ = 12;

/**
 * The bilateral grid of Halide's apps/bilateral_grid (s_sigma 8, r_sigma 0.1) on every channel:
 * the histogram of each 8 × 8 cell (centred on 8x − 0.5), blurred 1 4 6 4 1 in z, x and y, and
 * sampled trilinearly at each pixel's position and value.
 */
export function referenceBilateral(img: Image, mode: Boundary, outside: number): Image {
  const { width: w, height: h, channels: ch } = img;
  const out = makeImage(img.type, w, h, ch);
  const gw = Math.floor((w - 1) / S_SIGMA) + 2;
  const gh = Math.floor((h - 1) / S_SIGMA) + 2;
  for (let c = 0; c < ch; c++) {
    const inp = unitChannel(img, c);
    const r = extendPlane(mode, unitOutside(img, outside), w, h, inp);
    // Histogram (values in bins 0..10, counts in BINS + bin) on the cells blurx and blury reach.
    const hist = new Grid(2 * BINS, -2, -2, gw + 4, gh + 4);
    for (let y = -2; y < gh + 2; y++) {
      for (let x = -2; x < gw + 2; x++) {
        for (let ry = 0; ry < S_SIGMA; ry++) {
          for (let rx = 0; rx < S_SIGMA; rx++) {
            const v = clampUnit(r(x * S_SIGMA + rx - S_SIGMA / 2, y * S_SIGMA + ry - S_SIGMA / 2));
            const zi = Math.trunc(f(f(v * INV_R_SIGMA) + 0.5));
            hist.data[hist.index(zi, x, y)] = f(hist.get(zi, x, y) + v);
            hist.data[hist.index(BINS + zi, x, y)] = f(hist.get(BINS + zi, x, y) + 1);
          }
        }
      }
    }
    const bin = (k: number, z: number, x: number, y: number) => (z < 0 || z >= BINS ? 0 : hist.get(k * BINS + z, x, y));
    const blurz = new Grid(2 * NZ, -2, -2, gw + 4, gh + 4);
    const blurx = new Grid(2 * NZ, 0, -2, gw, gh + 4);
    const blury = new Grid(2 * NZ, 0, 0, gw, gh);
    for (let k = 0; k < 2; k++) {
      for (let z = 0; z < NZ; z++) {
        const p = k * NZ + z;
        for (let y = -2; y < gh + 2; y++) for (let x = -2; x < gw + 2; x++) blurz.data[blurz.index(p, x, y)] = binomial5((d) => bin(k, z + d, x, y));
        for (let y = -2; y < gh + 2; y++) for (let x = 0; x < gw; x++) blurx.data[blurx.index(p, x, y)] = binomial5((d) => blurz.get(p, x + d, y));
        for (let y = 0; y < gh; y++) for (let x = 0; x < gw; x++) blury.data[blury.index(p, x, y)] = binomial5((d) => blurx.get(p, x, y + d));
      }
    }
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const v = clampUnit(inp(x, y));
        const zv = f(v * INV_R_SIGMA);
        const zi = Math.trunc(zv);
        const zf = f(zv - zi);
        const xi = Math.floor(x / S_SIGMA);
        const yi = Math.floor(y / S_SIGMA);
        const xf = (x % S_SIGMA) / S_SIGMA;
        const yf = (y % S_SIGMA) / S_SIGMA;
        const sample = (k: number) => {
          const g = (dx: number, dy: number, dz: number) => blury.get(k * NZ + zi + dz, xi + dx, yi + dy);
          const plane = (dz: number) => lerp(lerp(g(0, 0, dz), g(1, 0, dz), xf), lerp(g(0, 1, dz), g(1, 1, dz), xf), yf);
          return lerp(plane(0), plane(1), zf);
        };
        out.data[(y * w + x) * ch + c] = storeUnit(img.type, f(sample(0) / sample(1)));
      }
    }
  }
  return out;
}

const LEVELS = 10;

/** The extent of pyramid level l of a dimension of n pixels: each level covers what upsampling it reads. */
function levelExtent(n: number, l: number): number {
  let m = n;
  for (let k = 0; k < l; k++) m = Math.floor(m / 2) + 1;
  return m;
}

/**
 * Multi-scale interpolation (Halide's apps/interpolate) of an image whose last channel is alpha:
 * the premultiplied image downsampled nine times (1 2 1 in x, then y; level 1 reads the input
 * extended by the mode, deeper levels their finer level clamped to its extent), then upsampled
 * level by level, each keeping its own pixels by their alpha; the result divided by its alpha.
 */
export function referenceInterpolate(img: Image, mode: Boundary, outside: number): Image {
  const { width: w, height: h, channels: ch } = img;
  const alpha = ch - 1;
  const o = unitOutside(img, outside);
  const ext = Array.from({ length: ch }, (_, c) => extendPlane(mode, o, w, h, unitChannel(img, c)));
  const premultiplied = (c: number): Plane => (c === alpha ? ext[alpha]! : (x, y) => f(ext[c]!(x, y) * ext[alpha]!(x, y)));
  const downsample = (prev: Plane, x: number, y: number) => {
    const dx = (v: number) => f(f(f(prev(2 * x - 1, v) + f(2 * prev(2 * x, v))) + prev(2 * x + 1, v)) * 0.25);
    return f(f(f(dx(2 * y - 1) + f(2 * dx(2 * y))) + dx(2 * y + 1)) * 0.25);
  };
  const upsample = (next: Plane, x: number, y: number) => {
    const ux = (v: number) => f(f(next(x >> 1, v) + next((x + 1) >> 1, v)) / 2);
    return f(f(ux(y >> 1) + ux((y + 1) >> 1)) / 2);
  };
  // down[l][c] and up[l][c] for levels 1 … LEVELS − 1, as planes of levelExtent(w, l) × levelExtent(h, l).
  const size = (l: number) => [levelExtent(w, l), levelExtent(h, l)] as const;
  const planeOf = (data: Float32Array, lw: number): Plane => (x, y) => data[y * lw + x]!;
  const down: Float32Array[][] = [];
  for (let l = 1; l < LEVELS; l++) {
    const [lw, lh] = size(l);
    const [pw, ph] = l > 1 ? size(l - 1) : [w, h];
    down[l] = Array.from({ length: ch }, (_, c) => {
      const prev: Plane = l === 1 ? premultiplied(c) : (x, y) => down[l - 1]![c]![Math.min(Math.max(y, 0), ph - 1) * pw + Math.min(Math.max(x, 0), pw - 1)]!;
      const data = new Float32Array(lw * lh);
      for (let y = 0; y < lh; y++) for (let x = 0; x < lw; x++) data[y * lw + x] = downsample(prev, x, y);
      return data;
    });
  }
  const up: Float32Array[][] = [];
  up[LEVELS - 1] = down[LEVELS - 1]!;
  for (let l = LEVELS - 2; l >= 1; l--) {
    const [lw, lh] = size(l);
    const [nw] = size(l + 1);
    up[l] = Array.from({ length: ch }, (_, c) => {
      const data = new Float32Array(lw * lh);
      for (let y = 0; y < lh; y++) {
        for (let x = 0; x < lw; x++) {
          const keep = f(1 - down[l]![alpha]![y * lw + x]!);
          data[y * lw + x] = f(down[l]![c]![y * lw + x]! + f(keep * upsample(planeOf(up[l + 1]![c]!, nw), x, y)));
        }
      }
      return data;
    });
  }
  const out = makeImage(img.type, w, h, ch);
  const [w1] = size(1);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const keep = f(1 - premultiplied(alpha)(x, y));
      const filled = (c: number) => f(premultiplied(c)(x, y) + f(keep * upsample(planeOf(up[1]![c]!, w1), x, y)));
      const a = filled(alpha);
      for (let c = 0; c < ch; c++) out.data[(y * w + x) * ch + c] = storeUnit(img.type, a > 0 ? f(filled(c) / a) : 0);
    }
  }
  return out;
}

const LL_INTENSITIES = 8;
const LL_LEVELS = 8;
const LL_EPS = f(0.01);

/**
 * The local Laplacian filter of Halide's apps/local_laplacian (8 intensity levels, 8 pyramid
 * levels, alpha = beta = 1): the gray image remapped around each intensity level through
 * fx · e^(−fx² / 2), Gaussian pyramids (1 3 3 1 / 8) of the remapped images and of the gray
 * image, the output's Laplacian blended per pixel from the two remapped pyramids that bracket
 * the gray pyramid's value, collapsed, and the colour restored by the ratio to the old gray.
 * The gray input is extended by the mode (constant mode: the gray outside is `outside`),
 * deeper levels read their finer level clamped to its extent.
 */
export function referenceLocalLaplacian(img: Image, mode: Boundary, outside: number): Image {
  const { width: w, height: h, channels: ch } = img;
  const colours = ch >= 3 ? 3 : 1;
  const nk = LL_INTENSITIES;
  const half = (nk - 1) * 256;
  const lut = Float32Array.from({ length: 2 * half + 1 }, (_, i) => {
    const fx = f((i - half) / 256);
    return f(fx * f(Math.exp(f(f(-fx * fx) / 2))));
  });
  const unit = Array.from({ length: ch }, (_, c) => unitChannel(img, c));
  const grayOf: Plane = colours === 1 ? unit[0]! : (x, y) => f(f(f(f(0.299) * unit[0]!(x, y)) + f(f(0.587) * unit[1]!(x, y))) + f(f(0.114) * unit[2]!(x, y)));
  const gray = extendPlane(mode, unitOutside(img, outside), w, h, grayOf);
  const remapped = (g: number, k: number) => {
    const level = f(k * f(1 / (nk - 1)));
    const idx = Math.min(Math.max(Math.trunc(f(f(g * (nk - 1)) * 256)), 0), half);
    return f(f(f(g - level) + level) + lut[idx - 256 * k + half]!);
  };
  const downsample = (p: Plane, x: number, y: number) => {
    const dx = (v: number) => f(f(f(p(2 * x - 1, v) + f(3 * f(p(2 * x, v) + p(2 * x + 1, v)))) + p(2 * x + 2, v)) / 8);
    return f(f(f(dx(2 * y - 1) + f(3 * f(dx(2 * y) + dx(2 * y + 1)))) + dx(2 * y + 2)) / 8);
  };
  const upsample = (p: Plane, x: number, y: number) => {
    const ux = (v: number) => lerp(p(Math.trunc((x + 1) / 2), v), p(Math.trunc((x - 1) / 2), v), f(((x % 2) * 2 + 1) / 4));
    return lerp(ux(Math.trunc((y + 1) / 2)), ux(Math.trunc((y - 1) / 2)), f(((y % 2) * 2 + 1) / 4));
  };
  /** A level as planes, read clamped to its extent. */
  const clampedPlane = (data: Float32Array, lw: number, lh: number): Plane => (x, y) => data[Math.min(Math.max(y, 0), lh - 1) * lw + Math.min(Math.max(x, 0), lw - 1)]!;
  const size = (j: number) => [levelExtent(w, j), levelExtent(h, j)] as const;
  // gp[j][k] and ig[j] for j = 1 … LL_LEVELS − 1.
  const gp: Float32Array[][] = [];
  const ig: Float32Array[] = [];
  for (let j = 1; j < LL_LEVELS; j++) {
    const [lw, lh] = size(j);
    const [pw, ph] = size(j - 1);
    const fill = (p: Plane) => {
      const data = new Float32Array(lw * lh);
      for (let y = 0; y < lh; y++) for (let x = 0; x < lw; x++) data[y * lw + x] = downsample(p, x, y);
      return data;
    };
    ig[j] = fill(j === 1 ? gray : clampedPlane(ig[j - 1]!, pw, ph));
    gp[j] = Array.from({ length: nk }, (_, k) => fill(j === 1 ? (x, y) => remapped(gray(x, y), k) : clampedPlane(gp[j - 1]![k]!, pw, ph)));
  }
  const laplacian = (g: number, at: (k: number) => number, up: (k: number) => number) => {
    const level = f(g * (nk - 1));
    const li = Math.min(Math.max(Math.trunc(level), 0), nk - 2);
    const lf = f(level - li);
    const l = (k: number) => f(at(k) - up(k));
    return f(f(f(1 - lf) * l(li)) + f(lf * l(li + 1)));
  };
  const og: Float32Array[] = [];
  {
    const j = LL_LEVELS - 1;
    const [lw, lh] = size(j);
    og[j] = new Float32Array(lw * lh);
    for (let y = 0; y < lh; y++) for (let x = 0; x < lw; x++) og[j]![y * lw + x] = laplacian(ig[j]![y * lw + x]!, (k) => gp[j]![k]![y * lw + x]!, () => 0);
  }
  for (let j = LL_LEVELS - 2; j >= 1; j--) {
    const [lw, lh] = size(j);
    const [nw, nh] = size(j + 1);
    og[j] = new Float32Array(lw * lh);
    for (let y = 0; y < lh; y++) {
      for (let x = 0; x < lw; x++) {
        const up = (k: number) => upsample(clampedPlane(gp[j + 1]![k]!, nw, nh), x, y);
        const l = laplacian(ig[j]![y * lw + x]!, (k) => gp[j]![k]![y * lw + x]!, up);
        og[j]![y * lw + x] = f(upsample(clampedPlane(og[j + 1]!, nw, nh), x, y) + l);
      }
    }
  }
  const out = makeImage(img.type, w, h, ch);
  const [w1, h1] = size(1);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const g = gray(x, y);
      const up = (k: number) => upsample(clampedPlane(gp[1]![k]!, w1, h1), x, y);
      const newGray = f(upsample(clampedPlane(og[1]!, w1, h1), x, y) + laplacian(g, (k) => remapped(g, k), up));
      for (let c = 0; c < ch; c++) {
        const v = c < colours ? clampUnit(f(f(newGray * f(unit[c]!(x, y) + LL_EPS)) / f(g + LL_EPS))) : unit[c]!(x, y);
        out.data[(y * w + x) * ch + c] = storeUnit(img.type, v);
      }
    }
  }
  return out;
}
