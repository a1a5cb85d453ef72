// What the two files of the bilateral grid's tests check (bilateral.test.ts, and
// bilateral-fused.test.ts for the fused schedules): the bilateral grid (Halide's
// apps/bilateral_grid, libs/image/bilateral.impala) against its TypeScript reference, bit
// for bit, on a gray f32 image under every CPU schedule and in every boundary mode; on u8
// RGB (every channel its own grid, values v / 255, rounded back) under `opt` in clamp mode,
// the kernel `blur --filter bilateral` compiles for a photo (halide-apps-cli.test.ts),
// compiled as the app does so that one of the two files finds it in the artifact cache.
// At 1 × 1, 17 × 5 (fewer pixels than one grid cell in y) and 1023 × 769. The GPU schedules
// are in halide-apps-gpu.test.ts.
import { type AppCase, appVariants } from './app-cases.ts';
import { referenceBilateral } from './reference-apps.ts';
import { randomImage } from './support.ts';

const variants = appVariants({ pipeline: 'bilateral', type: 'f32', channels: 1 }, { pipeline: 'bilateral', type: 'u8', channels: 3, boundary: 'clamp' });

export const BILATERAL: AppCase = {
  title: 'bilateral grid',
  variants,
  reference: referenceBilateral,
  input: (v, w, h) => randomImage(v.type, w, h, v.channels, w * 31 + h),
  outside: (v) => (v.type === 'u8' ? 200 : 0.75),
  asAnAppCompilesIt: variants.at(-1),
};
