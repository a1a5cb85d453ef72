// The local Laplacian filter (Halide's apps/local_laplacian, libs/image/local_laplacian.impala)
// against its TypeScript reference, bit for bit: on RGB f32 under every CPU schedule and in
// every boundary mode, on a gray f32 image (no colour to restore) and on u8 RGBA (values
// v / 255, rounded back; alpha copied). At 1 × 1 (every level a single pixel), 17 × 5 and
// 1023 × 769 (eight levels down to 9 × 7).
import { referenceLocalLaplacian } from './reference-apps.ts';
import { appVariants, describeAgainstReference } from './app-cases.ts';
import { randomImage } from './support.ts';

describeAgainstReference({
  title: 'local Laplacian',
  variants: appVariants({ pipeline: 'local_laplacian', type: 'f32', channels: 3 }, { pipeline: 'local_laplacian', type: 'u8', channels: 4 }, {
    pipeline: 'local_laplacian',
    type: 'f32',
    channels: 1,
  }),
  reference: referenceLocalLaplacian,
  input: (v, w, h) => randomImage(v.type, w, h, v.channels, w * 5 + h),
  outside: (v) => (v.type === 'u8' ? 30 : 0.125),
});
