// The MetaOCaml paper's examples (effects.impala: gradient, heat, wave) against the
// reference: with the fused vectorised parallel `opt` schedule in every boundary mode, and
// with every schedule in mirror mode; then a few cases for what the main ones leave
// out: the gradient of an RGB u8 image (negative slopes saturate), and heat and wave at
// frames other than the default (an odd number of heat steps ends in the other buffer). 64 × 48 joins the
// standard sizes because heat's disc of radius 20 covers all of the small images and none
// of the border of the large one.
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { type Boundary, BOUNDARIES, type Pipeline, SCHEDULES, type Schedule, type Variant } from '../../libs/image/variants.ts';
import { referenceInteger } from './reference.ts';
import { expectSameImage, randomImage, SIZES } from './support.ts';

interface Case extends Omit<Variant, 'pipeline' | 'schedule' | 'boundary'> {
  pipeline: Exclude<Pipeline, 'harris'>;
  /** The schedules a boundary mode runs with. */
  schedules: (boundary: Boundary) => readonly Schedule[];
  boundaries: readonly Boundary[];
}

const everySchedule = (boundary: Boundary): readonly Schedule[] => (boundary === 'mirror' ? SCHEDULES : ['opt']);
const CASES: readonly Case[] = [
  { pipeline: 'gradient', type: 'i32', channels: 1, schedules: everySchedule, boundaries: BOUNDARIES },
  { pipeline: 'heat', type: 'i32', channels: 1, schedules: everySchedule, boundaries: BOUNDARIES },
  { pipeline: 'wave', type: 'i32', channels: 2, schedules: everySchedule, boundaries: BOUNDARIES },
  { pipeline: 'gradient', type: 'u8', channels: 3, schedules: () => ['opt'], boundaries: ['clamp'] },
  { pipeline: 'heat', type: 'u8', channels: 3, iter: 3, schedules: () => ['opt'], boundaries: ['clamp', 'const'] },
  { pipeline: 'wave', type: 'u8', channels: 1, iter: 37, schedules: () => ['opt'], boundaries: ['clamp', 'const'] },
];
const SIZES_HERE = [...SIZES, [64, 48] as const];
const OUTSIDE = 201;

// Each compilation gets a mix of pipelines (the order groups them), so that none exceeds
// the evaluator's budget.
const variants: Variant[] = [];
for (const schedule of SCHEDULES) {
  for (const boundary of BOUNDARIES) {
    for (const { schedules, boundaries, ...c } of CASES) {
      if (schedules(boundary).includes(schedule) && boundaries.includes(boundary)) variants.push({ ...c, schedule, boundary });
    }
  }
}

let kernels: KernelSet;
beforeAll(async () => {
  kernels = await compileKernels(variants);
});

for (const { schedules, boundaries, ...c } of CASES) {
  const frame = c.iter === undefined ? '' : ` frame ${c.iter}`;
  describe(`${c.pipeline}${frame} on ${c.type} with ${c.channels} channel(s)`, () => {
    for (const [w, h] of SIZES_HERE) {
      it.each(boundaries)(`${w}×${h} %s`, (boundary) => {
        const img = randomImage(c.type, w, h, c.channels, w * 53 + h);
        const expected = referenceInteger(c.pipeline, img, boundary, OUTSIDE, c.iter);
        for (const schedule of schedules(boundary)) {
          const out = kernels.kernel({ ...c, schedule, boundary }).run(img, { outside: OUTSIDE });
          expectSameImage(out, expected, `${schedule}/${boundary}`);
        }
      });
    }
  });
}
