// The bilateral grid (Halide's apps/bilateral_grid, libs/image/bilateral.impala) against its
// TypeScript reference, bit for bit: on a gray f32 image under every CPU schedule and in
// every boundary mode; on u8 RGB (every channel its own grid, values v / 255, rounded back).
// At 1 × 1, 17 × 5 (fewer pixels than one grid cell in y) and 1023 × 769. The GPU schedules
// are in halide-apps-gpu.test.ts.
import { referenceBilateral } from './reference-apps.ts';
import { appVariants, describeAgainstReference } from './app-cases.ts';
import { randomImage } from './support.ts';

describeAgainstReference({
  title: 'bilateral grid',
  variants: appVariants({ pipeline: 'bilateral', type: 'f32', channels: 1 }, { pipeline: 'bilateral', type: 'u8', channels: 3 }),
  reference: referenceBilateral,
  input: (v, w, h) => randomImage(v.type, w, h, v.channels, w * 31 + h),
  outside: (v) => (v.type === 'u8' ? 200 : 0.75),
});
