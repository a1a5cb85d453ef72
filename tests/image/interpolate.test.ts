// Multi-scale interpolation (Halide's apps/interpolate, libs/image/interpolate.impala)
// against its TypeScript reference, bit for bit: on RGBA f32 under every CPU schedule and
// in every boundary mode; on u8 gray with alpha (values v / 255, rounded back). At 1 × 1
// (every level a single pixel), 17 × 5 and 1023 × 769 (ten levels down to 3 × 3). The gpu
// schedule is in halide-apps-gpu.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import type { Image } from '../../libs/image/image.ts';
import { BOUNDARIES, checkVariant, SCHEDULES, type Variant } from '../../libs/image/variants.ts';
import { memo, referenceInterpolate } from './reference-apps.ts';
import { expectSameImage, randomImage, SIZES } from './support.ts';

const F32 = { pipeline: 'interpolate', type: 'f32', channels: 4 } as const;
const U8 = { pipeline: 'interpolate', type: 'u8', channels: 2 } as const;
// Every schedule, the boundary modes spread over them (boundary handling is the same code
// under every schedule) and the fused `opt` in three modes: eight kernels, two modules.
const variants: Variant[] = [
  ...SCHEDULES.map((schedule, i) => ({ ...F32, schedule, boundary: BOUNDARIES[i % 4]! })),
  { ...F32, schedule: 'opt', boundary: 'mirror' },
  { ...U8, schedule: 'opt', boundary: 'repeat' },
];

/** The reference is the slow side: schedules that share an input and a boundary mode share it. */
const once = memo<Image>();

let kernels: KernelSet;
beforeAll(async () => {
  kernels = await compileKernels(variants);
}, 600_000);

/** A random image whose alpha is 0 (a hole to fill) for about half of the pixels. */
function withHoles(v: Variant, w: number, h: number, seed: number) {
  const img = randomImage(v.type, w, h, v.channels, seed);
  const mask = randomImage('u8', w, h, 1, seed + 1);
  for (let i = 0; i < w * h; i++) if (mask.data[i]! < 128) img.data[i * v.channels + v.channels - 1] = 0;
  return img;
}

describe.each(variants.map((v) => [`${v.type}×${v.channels} ${v.schedule}/${v.boundary}`, v] as const))('interpolate %s', (_label, v) => {
  it.each(SIZES)('%i×%i matches the reference', (w, h) => {
    const outside = v.type === 'u8' ? 100 : 0.5;
    const img = withHoles(v, w, h, w * 13 + h);
    const expected = once(`${v.type} ${v.channels} ${v.boundary} ${w}×${h}`, () => referenceInterpolate(img, v.boundary, outside));
    expectSameImage(kernels.kernel(v).run(img, { outside }), expected, `${v.schedule}/${v.boundary}`);
  });
});

it('takes images with alpha only', () => {
  expect(() => checkVariant({ ...F32, channels: 3, schedule: 'opt', boundary: 'clamp' })).toThrow(/^interpolate fills in the transparent parts of an image with alpha: it takes 2 \(gray, alpha\) or 4 \(RGBA\) channels, not 3$/);
  expect(() => checkVariant({ ...F32, type: 'i32', schedule: 'opt', boundary: 'clamp' })).toThrow(/^interpolate computes in f32 on values from 0 to 1 and takes u8 or f32 images, not i32$/);
});
