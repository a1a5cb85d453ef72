// The bilateral grid (Halide's apps/bilateral_grid, libs/image/bilateral.impala) against its
// TypeScript reference, bit for bit: on a gray f32 image under every CPU schedule and in
// every boundary mode; on u8 RGB (every channel its own grid, values v / 255, rounded back). At 1 × 1, 17 × 5
// (fewer pixels than one grid cell in y) and 1023 × 769. The gpu schedule is in
// halide-apps-gpu.test.ts.
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import type { Image } from '../../libs/image/image.ts';
import { BOUNDARIES, SCHEDULES, type Variant } from '../../libs/image/variants.ts';
import { memo, referenceBilateral } from './reference-apps.ts';
import { expectSameImage, randomImage, SIZES } from './support.ts';

const F32 = { pipeline: 'bilateral', type: 'f32', channels: 1 } as const;
const U8 = { pipeline: 'bilateral', type: 'u8', channels: 3 } as const;
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

describe.each(variants.map((v) => [`${v.type}×${v.channels} ${v.schedule}/${v.boundary}`, v] as const))('bilateral grid %s', (_label, v) => {
  it.each(SIZES)('%i×%i matches the reference', (w, h) => {
    const outside = v.type === 'u8' ? 200 : 0.75;
    const img = randomImage(v.type, w, h, v.channels, w * 31 + h);
    const expected = once(`${v.type} ${v.channels} ${v.boundary} ${w}×${h}`, () => referenceBilateral(img, v.boundary, outside));
    expectSameImage(kernels.kernel(v).run(img, { outside }), expected, `${v.schedule}/${v.boundary}`);
  });
});
