// Outputs written with streaming stores: from 16 MiB of output on (image.impala
// `streamed_output`) the vectorised schedules of box3 and of Sobel on i32 write through the
// streamed accessors, after a masked peel that aligns the stores of each row (the
// vectoriser's); just below, as before. Both sides of the threshold, against the reference,
// on widths that put the rows at every alignment.
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import type { Variant } from '../../libs/image/variants.ts';
import { referenceInteger } from './reference.ts';
import { expectSameImage, randomImage } from './support.ts';

const OUTSIDE = 77;
const THRESHOLD = 2 ** 24;

const cases: { pipeline: 'box3' | 'sobel'; type: 'i32' | 'u8'; channels: 1 | 3; sizes: [number, number][] }[] = [
  { pipeline: 'box3', type: 'i32', channels: 1, sizes: [[2048, 2048], [2047, 2048], [1449, 2897]] },
  { pipeline: 'box3', type: 'u8', channels: 3, sizes: [[2365, 2365], [2364, 2365]] },
  { pipeline: 'sobel', type: 'i32', channels: 1, sizes: [[1025, 4093]] },
];
const schedules = ['opt', 'slide'] as const;
const variants: Variant[] = cases.flatMap((c) => schedules.map((schedule): Variant => ({ pipeline: c.pipeline, type: c.type, channels: c.channels, schedule, boundary: 'mirror' })));

let kernels: KernelSet;
beforeAll(async () => {
  kernels = await compileKernels(variants);
});

describe('outputs written with streaming stores', () => {
  for (const c of cases) {
    for (const [w, h] of c.sizes) {
      const bytes = w * h * c.channels * (c.type === 'i32' ? 4 : 1);
      it(`${c.pipeline} ${c.type}×${c.channels} ${w}×${h} (${bytes >= THRESHOLD ? 'streamed' : 'not streamed'}): opt and slide match the reference`, () => {
        const img = randomImage(c.type, w, h, c.channels, w + h);
        const expected = referenceInteger(c.pipeline, img, 'mirror', OUTSIDE);
        for (const schedule of schedules) {
          const out = kernels.kernel({ pipeline: c.pipeline, type: c.type, channels: c.channels, schedule, boundary: 'mirror' }).run(img, { outside: OUTSIDE });
          expectSameImage(out, expected, `${schedule} ${w}×${h}`);
        }
      });
    }
  }
});
