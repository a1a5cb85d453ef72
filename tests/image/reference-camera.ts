// A plain TypeScript definition of the camera pipe of Halide's apps/camera_pipe (the image
// library's camera.impala), written from the app's algorithm at full resolution: hot-pixel
// suppression on the mosaic, deinterleaving, demosaicing, colour correction, tone curve and
// sharpening, each stage an array over the domain the next one reads, integers throughout
// (Halide's rounding-down division as Math.floor), the tone curve in f64. The boundary mode
// extends each colour plane of the mosaic, so a sample past the edge keeps its colour.
import type { Image } from '../../libs/image/image.ts';
import { makeImage } from '../../libs/image/image.ts';
import type { CameraParams, Mosaic } from '../../libs/image/camera.ts';
import type { Boundary } from '../../libs/image/variants.ts';
import { wrap } from './reference.ts';

/** Values over [x0, x0 + w) × [y0, y0 + h), computed once from `at`. */
class Plane {
  private readonly data: Int32Array;
  constructor(
    private readonly x0: number,
    private readonly y0: number,
    private readonly w: number,
    private readonly h: number,
    at: (x: number, y: number) => number,
  ) {
    this.data = new Int32Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) this.data[y * w + x] = at(x + x0, y + y0);
  }
  get = (x: number, y: number): number => {
    if (x < this.x0 || y < this.y0 || x >= this.x0 + this.w || y >= this.y0 + this.h) throw new Error(`reference reads (${x}, ${y}) outside its plane`);
    return this.data[(y - this.y0) * this.w + x - this.x0]!;
  };
}

const avg = (a: number, b: number) => Math.floor((a + b + 1) / 2);
const absd = (a: number, b: number) => Math.abs(a - b);
const blur121 = (a: number, b: number, c: number) => avg(avg(a, c), b);
const f = Math.fround;

const MATRIX_3200 = [1.6697, -0.2693, -0.4004, -42.4346, -0.3576, 1.0615, 1.5949, -37.1158, -0.2175, -1.8751, 6.964, -26.697];
const MATRIX_7000 = [2.2997, -0.4478, 0.1706, -39.0923, -0.3826, 1.5906, -0.208, -25.4311, -0.0888, -0.7344, 2.2832, -20.0826];

/** The colour matrix for the temperature in Q8.8, row-major 3 × 4 (column 3 the offset): the app's f32 arithmetic, truncated. */
export function referenceCameraMatrix(kelvin: number): number[] {
  const k = f(kelvin);
  const alpha = f(f(f(1 / k) - f(1 / 3200)) / f(f(1 / 7000) - f(1 / 3200)));
  return MATRIX_3200.map((m, i) => Math.trunc(f(f(f(f(m) * alpha) + f(f(MATRIX_7000[i]!) * f(1 - alpha))) * 256)));
}

/** The tone curve over raw values 0 … white (f64). */
export function referenceCameraCurve(p: CameraParams): number[] {
  const { blackLevel: black, whiteLevel: white } = p;
  const invRange = 1 / (white - black);
  const b = 2 - Math.pow(2, f(p.contrast) / 100);
  const a = 2 - 2 * b;
  const invGamma = 1 / f(p.gamma);
  const lut: number[] = [];
  for (let v = 0; v <= white; v++) {
    const xf = Math.min(Math.max((v - black) * invRange, 0), 1);
    const g = Math.pow(xf, invGamma);
    const z = g > 0.5 ? 1 - (a * (1 - g) * (1 - g) + b * (1 - g)) : a * g * g + b * g;
    lut.push(v <= black ? 0 : Math.trunc(Math.min(Math.max(z * 255 + 0.5, 0), 255)));
  }
  return lut;
}

/** The camera pipe on a GRBG mosaic of even size: RGB, u8. */
export function referenceCamera(raw: Mosaic, p: CameraParams, mode: Boundary, outside: number): Image {
  const { width: w, height: h } = raw;
  const [cw, ch] = [w / 2, h / 2];
  const mod2 = (v: number) => ((v % 2) + 2) % 2;
  // The mosaic extended plane by plane.
  const sample = (x: number, y: number) => {
    const [sx, sy, cx, cy] = [mod2(x), mod2(y), Math.floor(x / 2), Math.floor(y / 2)];
    if (mode === 'const' && (cx < 0 || cx >= cw || cy < 0 || cy >= ch)) return outside;
    if (mode === 'const') return raw.data[y * w + x]!;
    return raw.data[(2 * wrap(mode, cy, ch) + sy) * w + 2 * wrap(mode, cx, cw) + sx]!;
  };
  // The output reads the curved image 1 pixel past it, which reads cells 2 past theirs, which
  // read the mosaic 2 samples past them: 7 samples in all, 8 to keep whole cells.
  const denoised = new Plane(-8, -8, w + 16, h + 16, (x, y) => Math.min(Math.max(sample(x, y), 0), Math.max(sample(x - 2, y), sample(x + 2, y), sample(x, y - 2), sample(x, y + 2))));
  const site = (sx: number, sy: number) => (x: number, y: number) => denoised.get(2 * x + sx, 2 * y + sy);
  const [g_gr, r_r, b_b, g_gb] = [site(0, 0), site(1, 0), site(0, 1), site(1, 1)];
  const cells = (at: (x: number, y: number) => number, reach: number) => new Plane(-reach, -reach, cw + 2 * reach, ch + 2 * reach, at).get;
  const g_r = cells((x, y) => {
    const [gv, gvd, gh, ghd] = [avg(g_gb(x, y - 1), g_gb(x, y)), absd(g_gb(x, y - 1), g_gb(x, y)), avg(g_gr(x + 1, y), g_gr(x, y)), absd(g_gr(x + 1, y), g_gr(x, y))];
    return ghd < gvd ? gh : gv;
  }, 2);
  const g_b = cells((x, y) => {
    const [gv, gvd, gh, ghd] = [avg(g_gr(x, y + 1), g_gr(x, y)), absd(g_gr(x, y + 1), g_gr(x, y)), avg(g_gb(x - 1, y), g_gb(x, y)), absd(g_gb(x - 1, y), g_gb(x, y))];
    return ghd < gvd ? gh : gv;
  }, 2);
  const r_gr = (x: number, y: number) => g_gr(x, y) - avg(g_r(x, y), g_r(x - 1, y)) + avg(r_r(x - 1, y), r_r(x, y));
  const b_gr = (x: number, y: number) => g_gr(x, y) - avg(g_b(x, y), g_b(x, y - 1)) + avg(b_b(x, y), b_b(x, y - 1));
  const r_gb = (x: number, y: number) => g_gb(x, y) - avg(g_r(x, y), g_r(x, y + 1)) + avg(r_r(x, y), r_r(x, y + 1));
  const b_gb = (x: number, y: number) => g_gb(x, y) - avg(g_b(x, y), g_b(x + 1, y)) + avg(b_b(x, y), b_b(x + 1, y));
  const r_b = (x: number, y: number) => {
    const rp = g_b(x, y) - avg(g_r(x, y), g_r(x - 1, y + 1)) + avg(r_r(x, y), r_r(x - 1, y + 1));
    const rn = g_b(x, y) - avg(g_r(x - 1, y), g_r(x, y + 1)) + avg(r_r(x - 1, y), r_r(x, y + 1));
    return absd(r_r(x, y), r_r(x - 1, y + 1)) < absd(r_r(x - 1, y), r_r(x, y + 1)) ? rp : rn;
  };
  const b_r = (x: number, y: number) => {
    const bp = g_r(x, y) - avg(g_b(x, y), g_b(x + 1, y - 1)) + avg(b_b(x, y), b_b(x + 1, y - 1));
    const bn = g_r(x, y) - avg(g_b(x + 1, y), g_b(x, y - 1)) + avg(b_b(x + 1, y), b_b(x, y - 1));
    return absd(b_b(x, y), b_b(x + 1, y - 1)) < absd(b_b(x + 1, y), b_b(x, y - 1)) ? bp : bn;
  };
  // Demosaiced colour c at pixel (x, y): GRBG sites of cell (x / 2, y / 2).
  const sites = [
    [r_gr, g_gr, b_gr],
    [r_r, g_r, b_r],
    [r_b, g_b, b_b],
    [r_gb, g_gb, b_gb],
  ];
  const demosaiced = (x: number, y: number, c: number) => sites[mod2(x) + 2 * mod2(y)]![c]!(Math.floor(x / 2), Math.floor(y / 2));
  const m = referenceCameraMatrix(p.colorTemp);
  const lut = referenceCameraCurve(p);
  const [red, green, blue] = [0, 1, 2].map((c) => new Plane(-1, -1, w + 2, h + 2, (x, y) => demosaiced(x, y, c)).get);
  const curved = [0, 1, 2].map(
    (c) =>
      new Plane(-1, -1, w + 2, h + 2, (x, y) => {
        const [ir, ig, ib] = [red!(x, y), green!(x, y), blue!(x, y)];
        const v = Math.floor((m[4 * c + 3]! + m[4 * c]! * ir + m[4 * c + 1]! * ig + m[4 * c + 2]! * ib) / 256);
        return lut[Math.min(Math.max(v, 0), p.whiteLevel)]!;
      }).get,
  );
  const strength = Math.min(Math.max(Math.trunc(f(f(p.sharpen) * 32)), 0), 255);
  const out = makeImage('u8', w, h, 3);
  for (let c = 0; c < 3; c++) {
    const at = curved[c]!;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const blurY = (dx: number) => blur121(at(x + dx, y - 1), at(x + dx, y), at(x + dx, y + 1));
        const mask = at(x, y) - blur121(blurY(-1), blurY(0), blurY(1));
        out.data[(y * w + x) * 3 + c] = Math.min(Math.max(at(x, y) + Math.floor((mask * strength) / 32), 0), 255);
      }
    }
  }
  return out;
}
