// What the two files of interpolate's tests check (interpolate.test.ts, and
// interpolate-fused.test.ts for the fused schedules): multi-scale interpolation (Halide's
// apps/interpolate, libs/image/interpolate.impala) against its TypeScript reference, bit for
// bit, on RGBA f32 under every CPU schedule and in every boundary mode; on u8 gray with alpha
// (values v / 255, rounded back). About half of the pixels are holes (alpha 0). At 1 × 1
// (every level a single pixel), 17 × 5 and 1023 × 769 (ten levels down to 3 × 3). The GPU
// schedules are in halide-apps-gpu.test.ts.
import type { Variant } from '../../libs/image/variants.ts';
import { type AppCase, appVariants } from './app-cases.ts';
import { referenceInterpolate } from './reference-apps.ts';
import { randomImage } from './support.ts';

export const INTERPOLATE_F32 = { pipeline: 'interpolate', type: 'f32', channels: 4 } as const;

/** A random image whose alpha is 0 (a hole to fill) for about half of the pixels. */
function withHoles(v: Variant, w: number, h: number, seed: number) {
  const img = randomImage(v.type, w, h, v.channels, seed);
  const mask = randomImage('u8', w, h, 1, seed + 1);
  for (let i = 0; i < w * h; i++) if (mask.data[i]! < 128) img.data[i * v.channels + v.channels - 1] = 0;
  return img;
}

export const INTERPOLATE: AppCase = {
  title: 'interpolate',
  variants: appVariants(INTERPOLATE_F32, { pipeline: 'interpolate', type: 'u8', channels: 2 }),
  reference: referenceInterpolate,
  input: (v, w, h) => withHoles(v, w, h, w * 13 + h),
  outside: (v) => (v.type === 'u8' ? 100 : 0.5),
};
