// The paper's Fig. 2 blur under every CPU schedule and boundary mode, against the reference.
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { BOUNDARIES, SCHEDULES, type Variant } from '../../libs/image/variants.ts';
import { referenceInteger } from './reference.ts';
import { expectSameImage, randomImage, SIZES } from './support.ts';

const OUTSIDE = 77;

const variants: Variant[] = [];
for (const schedule of SCHEDULES) {
  for (const boundary of BOUNDARIES) variants.push({ pipeline: 'box3', type: 'i32', channels: 1, schedule, boundary });
}
for (const boundary of BOUNDARIES) variants.push({ pipeline: 'box3', type: 'u8', channels: 3, schedule: 'opt', boundary });

let kernels: KernelSet;
beforeAll(async () => {
  kernels = await compileKernels(variants);
});

describe('box3', () => {
  for (const [w, h] of SIZES) {
    for (const boundary of BOUNDARIES) {
      it(`i32 ${w}×${h} ${boundary}: every schedule matches the reference`, () => {
        const img = randomImage('i32', w, h, 1, w * 7919 + h);
        const expected = referenceInteger('box3', img, boundary, OUTSIDE);
        for (const schedule of SCHEDULES) {
          const out = kernels.kernel({ pipeline: 'box3', type: 'i32', channels: 1, schedule, boundary }).run(img, { outside: OUTSIDE });
          expectSameImage(out, expected, `${schedule}/${boundary}`);
        }
      });
      it(`u8 RGB ${w}×${h} ${boundary}: the opt schedule matches the reference`, () => {
        const img = randomImage('u8', w, h, 3, w * 31 + h);
        const out = kernels.kernel({ pipeline: 'box3', type: 'u8', channels: 3, schedule: 'opt', boundary }).run(img, { outside: OUTSIDE });
        expectSameImage(out, referenceInteger('box3', img, boundary, OUTSIDE), `opt/${boundary}`);
      });
    }
  }
});
