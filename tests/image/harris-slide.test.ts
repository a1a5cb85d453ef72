// Harris under `slide`, where every stage slides down each strip (harris_slid in
// pipelines.impala: rings of gray rows, gradients and sums across, the output row computed
// with the newest sums): bit for bit the reference in every boundary mode, on a colour u8
// image (the gray from interleaved RGB) and on an f32 gray one, at the acceptance sizes
// (1023 × 769 is 25 strips, the last one short), and with strips of 5 rows and 8 lanes,
// where rings wrap within a strip and strips are shorter than the stencil's reach.
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { BOUNDARIES, type Variant } from '../../libs/image/variants.ts';
import { referenceHarris } from './reference.ts';
import { expectSameImage, randomImage, SIZES } from './support.ts';

const CASES = [
  { type: 'u8', channels: 3 },
  { type: 'f32', channels: 1 },
] as const;
const SHORT_STRIPS: Variant = {
  pipeline: 'harris',
  schedule: 'slide',
  boundary: 'mirror',
  type: 'u8',
  channels: 1,
  tuning: { at: 'row', tileWidth: 0, tileHeight: 5, vectorBits: 256 },
};
const variants: Variant[] = [
  ...CASES.flatMap((c) => BOUNDARIES.map((boundary) => ({ pipeline: 'harris' as const, schedule: 'slide' as const, boundary, ...c }))),
  SHORT_STRIPS,
];

let kernels: KernelSet;
beforeAll(async () => {
  kernels = await compileKernels(variants);
});

describe.each(CASES)('harris under slide on $type with $channels channel(s)', ({ type, channels }) => {
  for (const [w, h] of SIZES) {
    it.each(BOUNDARIES)(`${w}×${h} %s`, (boundary) => {
      const img = randomImage(type, w, h, channels, w * 23 + h);
      const out = kernels.kernel({ pipeline: 'harris', schedule: 'slide', boundary, type, channels }).run(img, { outside: 0.25 });
      expectSameImage(out, referenceHarris(img, boundary, 0.25), `slide/${boundary}`);
    });
  }
});

it('harris under slide with strips of 5 rows, 8 lanes', () => {
  for (const [w, h] of [...SIZES, [9, 12]] as const) {
    const img = randomImage('u8', w, h, 1, w * 29 + h);
    expectSameImage(kernels.kernel(SHORT_STRIPS).run(img), referenceHarris(img, 'mirror', 0), `${w}×${h}`);
  }
});
