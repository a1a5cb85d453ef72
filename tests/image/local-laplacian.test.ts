// The local Laplacian filter (Halide's apps/local_laplacian, libs/image/local_laplacian.impala)
// against its TypeScript reference, bit for bit: on RGB f32 under every CPU schedule and in
// every boundary mode, on a gray f32 image (no colour to restore) and on u8 RGBA (values
// v / 255, rounded back; alpha copied). At 1 × 1 (every level a single pixel), 17 × 5 and
// 1023 × 769 (eight levels down to 9 × 7).
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import type { Image } from '../../libs/image/image.ts';
import { BOUNDARIES, SCHEDULES, type Variant } from '../../libs/image/variants.ts';
import { memo, referenceLocalLaplacian } from './reference-apps.ts';
import { expectSameImage, randomImage, SIZES } from './support.ts';

const RGB = { pipeline: 'local_laplacian', type: 'f32', channels: 3 } as const;
// Every schedule, the boundary modes spread over them (boundary handling is the same code
// under every schedule) and the fused `opt` in three modes: eight kernels, two modules.
const variants: Variant[] = [
  ...SCHEDULES.map((schedule, i) => ({ ...RGB, schedule, boundary: BOUNDARIES[i % 4]! })),
  { ...RGB, channels: 1, schedule: 'opt', boundary: 'mirror' },
  { ...RGB, type: 'u8', channels: 4, schedule: 'opt', boundary: 'repeat' },
];

/** The reference is the slow side: schedules that share an input and a boundary mode share it. */
const once = memo<Image>();

let kernels: KernelSet;
beforeAll(async () => {
  kernels = await compileKernels(variants);
}, 600_000);

describe.each(variants.map((v) => [`${v.type}×${v.channels} ${v.schedule}/${v.boundary}`, v] as const))('local Laplacian %s', (_label, v) => {
  it.each(SIZES)('%i×%i matches the reference', (w, h) => {
    const outside = v.type === 'u8' ? 30 : 0.125;
    const img = randomImage(v.type, w, h, v.channels, w * 5 + h);
    const expected = once(`${v.type} ${v.channels} ${v.boundary} ${w}×${h}`, () => referenceLocalLaplacian(img, v.boundary, outside));
    expectSameImage(kernels.kernel(v).run(img, { outside }), expected, `${v.schedule}/${v.boundary}`);
  });
});
