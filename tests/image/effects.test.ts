// The MetaOCaml paper's examples (effects.impala: gradient, heat, wave) in every boundary
// mode and schedule against the reference, plus heat and wave at a frame other than the
// default. 64 × 48 joins the standard sizes because heat's disc of radius 20 covers all of
// the small images and none of the border of the large one.
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { BOUNDARIES, DEFAULT_ITER, type Variant } from '../../libs/image/variants.ts';
import { referenceInteger } from './reference.ts';
import { expectSameImage, randomImage, SIZES } from './support.ts';

const CASES = [
  { pipeline: 'gradient', type: 'u8', channels: 3 },
  { pipeline: 'heat', type: 'i32', channels: 1 },
  { pipeline: 'wave', type: 'i32', channels: 2 },
] as const;
const OTHER_FRAMES = [
  { pipeline: 'heat', type: 'u8', channels: 3, iter: 3 },
  { pipeline: 'wave', type: 'u8', channels: 1, iter: 37 },
] as const;
const SCHEDULES = ['seq', 'tile', 'opt'] as const;
const ALL_SIZES = [...SIZES, [64, 48] as const];
const OUTSIDE = 201;

const variants: Variant[] = [];
// Mixed pipelines in each compilation, so that no group of kernels exceeds the evaluator's budget.
for (const schedule of SCHEDULES) {
  for (const boundary of BOUNDARIES) variants.push(...CASES.map((c) => ({ ...c, schedule, boundary })));
}
for (const c of OTHER_FRAMES) variants.push(...BOUNDARIES.map((boundary) => ({ ...c, schedule: 'tile' as const, boundary })));

let kernels: KernelSet;
beforeAll(async () => {
  kernels = await compileKernels(variants);
});

describe.each([...CASES.map((c) => ({ ...c, iter: DEFAULT_ITER })), ...OTHER_FRAMES])(
  '$pipeline (frame $iter) on $type with $channels channel(s)',
  ({ pipeline, type, channels, iter }) => {
    const schedules = CASES.some((c) => c.pipeline === pipeline && c.type === type) ? SCHEDULES : (['tile'] as const);
    for (const [w, h] of ALL_SIZES) {
      it.each(BOUNDARIES)(`${w}×${h} %s`, (boundary) => {
        const img = randomImage(type, w, h, channels, w * 53 + h);
        const expected = referenceInteger(pipeline, img, boundary, OUTSIDE, iter);
        for (const schedule of schedules) {
          const out = kernels.kernel({ pipeline, type, channels, schedule, boundary, iter }).run(img, { outside: OUTSIDE });
          expectSameImage(out, expected, `${schedule}/${boundary}`);
        }
      });
    }
  },
);
