// The camera pipe (Halide's apps/camera_pipe, libs/image/camera.impala) against its
// TypeScript reference, bit for bit (every stage is integer; the tone curve is a table in
// f64): under every CPU schedule, the boundary modes spread over them and `opt` in two more.
// A Bayer mosaic has whole 2 × 2 cells, so the sizes are 2 × 2 (the smallest: one cell, every
// neighbour past the edge), 18 × 6 (the 17 × 5 class rounded up to even; odd sizes are refused)
// and 1024 × 768 (one variant per schedule). Random 10-bit samples with hot pixels, under the
// app's parameters and others, and 16-bit samples with a white level of 65535.
import { beforeAll, describe, expect, it } from 'vitest';
import { type CameraKernel, type CameraParams, type CameraVariant, checkCameraParams, compileCamera, DEFAULT_CAMERA_PARAMS, type Mosaic, mosaicOf } from '../../libs/image/camera.ts';
import { BOUNDARIES, SCHEDULES } from '../../libs/image/variants.ts';
import { random } from '../random.ts';
import { referenceCamera } from './reference-camera.ts';
import { expectSameImage, randomImage } from './support.ts';

const VARIANTS: CameraVariant[] = [
  ...SCHEDULES.map((schedule, i) => ({ schedule, boundary: BOUNDARIES[i % BOUNDARIES.length]! })),
  { schedule: 'opt', boundary: 'mirror' },
  { schedule: 'opt', boundary: 'const' },
];

const OTHER: CameraParams = { colorTemp: 5200, gamma: 2.2, contrast: 30, sharpen: 2.5, blackLevel: 16, whiteLevel: 1000 };
const SIXTEEN_BITS: CameraParams = { ...DEFAULT_CAMERA_PARAMS, blackLevel: 1000, whiteLevel: 65535 };
const OUTSIDE = 700;

/** Random samples below `top`, one in 50 a hot pixel at `top` − 1. */
function randomMosaic(width: number, height: number, top: number, seed: number): Mosaic {
  const next = random(seed);
  const data = new Uint16Array(width * height).map(() => {
    const r = next();
    return r < 0.02 ? top - 1 : Math.floor(next() * top);
  });
  return { width, height, data };
}

const CASES: { label: string; w: number; h: number; top: number; params: CameraParams; large?: boolean }[] = [
  { label: '2×2', w: 2, h: 2, top: 1024, params: DEFAULT_CAMERA_PARAMS },
  { label: '18×6', w: 18, h: 6, top: 1024, params: DEFAULT_CAMERA_PARAMS },
  { label: '18×6, other parameters', w: 18, h: 6, top: 1024, params: OTHER },
  { label: '18×6, 16-bit samples', w: 18, h: 6, top: 65536, params: SIXTEEN_BITS },
  { label: '1024×768', w: 1024, h: 768, top: 1024, params: DEFAULT_CAMERA_PARAMS, large: true },
];

let kernels: (v: CameraVariant) => CameraKernel;
beforeAll(async () => {
  kernels = await compileCamera(VARIANTS);
}, 900_000);

const references = new Map<string, ReturnType<typeof referenceCamera>>();

describe.each(VARIANTS.map((v) => [`${v.schedule}/${v.boundary}`, v] as const))('camera pipe %s', (_label, v) => {
  // The large case once per schedule: the first variant of each.
  const first = VARIANTS.find((u) => u.schedule === v.schedule) === v;
  it.each(CASES.filter((c) => first || !c.large).map((c) => [c.label, c] as const))('%s matches the reference', (_l, c) => {
    const mosaic = randomMosaic(c.w, c.h, c.top, c.w * 7 + c.h + c.top);
    const key = `${c.label} ${v.boundary}`;
    if (!references.has(key)) references.set(key, referenceCamera(mosaic, c.params, v.boundary, OUTSIDE));
    expectSameImage(kernels(v).run(mosaic, c.params, { outside: OUTSIDE }), references.get(key)!, `${v.schedule}/${v.boundary} ${c.label}`);
  });
});

it('refuses mosaics without whole 2×2 cells, and parameters out of range', () => {
  const kernel = kernels(VARIANTS[0]!);
  expect(() => kernel.run(randomMosaic(17, 5, 1024, 1))).toThrow(/^a Bayer mosaic has even width and height \(whole 2×2 GRBG cells\), got 17×5$/);
  expect(() => kernel.run(randomMosaic(1, 1, 1024, 1))).toThrow(/^a Bayer mosaic is at least 2×2 samples, got 1×1$/);
  expect(() => checkCameraParams({ ...DEFAULT_CAMERA_PARAMS, sharpen: 5 })).toThrow(/^the sharpening strength must be from 0 to 4, not 5$/);
  expect(() => checkCameraParams({ ...DEFAULT_CAMERA_PARAMS, blackLevel: 1023 })).toThrow(/^the black level must be an integer from 0 to below the white level \(1023\), not 1023$/);
});

it('mosaics a photo site by site (GRBG), linearised into 10 bits, dropping an odd last row and column', () => {
  const photo = randomImage('u8', 5, 3, 3, 9);
  const m = mosaicOf(photo);
  expect([m.width, m.height]).toEqual([4, 2]);
  const at = (x: number, y: number, c: number) => photo.data[(y * 5 + x) * 3 + c]! / 255;
  const level = (v: number) => Math.round(25 + 998 * v * v);
  expect(Array.from(m.data)).toEqual([level(at(0, 0, 1)), level(at(1, 0, 0)), level(at(2, 0, 1)), level(at(3, 0, 0)), level(at(0, 1, 2)), level(at(1, 1, 1)), level(at(2, 1, 2)), level(at(3, 1, 1))]);
});
