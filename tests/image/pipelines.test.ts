// Gaussian, unsharp mask, Sobel and Harris in every boundary mode with the fused, vectorised,
// parallel `opt` schedule, and under every other schedule in mirror mode, against the
// reference. Compiling the kernels dominates this file's time, so box3.test.ts alone covers
// every schedule with every boundary mode.
import { beforeAll, describe, it } from 'vitest';
import { compileKernels, type KernelSet } from '../../libs/image/host.ts';
import { BOUNDARIES, type Pipeline, SCHEDULES, type Schedule, type Variant } from '../../libs/image/variants.ts';
import { referenceHarris, referenceInteger } from './reference.ts';
import { expectCloseImage, expectSameImage, randomImage, SIZES } from './support.ts';

const INTEGER_CASES = [
  { pipeline: 'gauss5', type: 'i32', channels: 1 },
  { pipeline: 'gauss5', type: 'u8', channels: 3 },
  { pipeline: 'unsharp', type: 'u8', channels: 3 },
  { pipeline: 'sobel', type: 'i32', channels: 2 },
] as const;
const HARRIS_CASES = [
  { pipeline: 'harris', type: 'u8', channels: 3 },
  { pipeline: 'harris', type: 'f32', channels: 1 },
] as const;
const variants: Variant[] = [];
for (const c of [...INTEGER_CASES, ...HARRIS_CASES]) {
  variants.push(...BOUNDARIES.map((boundary) => ({ ...c, schedule: 'opt' as const, boundary })));
  variants.push(...SCHEDULES.filter((s) => s !== 'opt').map((schedule) => ({ ...c, schedule, boundary: 'mirror' as const })));
}

let kernels: KernelSet;
beforeAll(async () => {
  kernels = await compileKernels(variants);
});

function schedulesFor(boundary: string): readonly Schedule[] {
  return boundary === 'mirror' ? SCHEDULES : ['opt'];
}

describe.each(INTEGER_CASES)('$pipeline on $type with $channels channel(s)', ({ pipeline, type, channels }) => {
  for (const [w, h] of SIZES) {
    it.each(BOUNDARIES)(`${w}×${h} %s`, (boundary) => {
      const img = randomImage(type, w, h, channels, w * 131 + h);
      const expected = referenceInteger(pipeline as Exclude<Pipeline, 'harris'>, img, boundary, 9);
      for (const schedule of schedulesFor(boundary)) {
        const out = kernels.kernel({ pipeline, type, channels, schedule, boundary }).run(img, { outside: 9 });
        expectSameImage(out, expected, `${schedule}/${boundary}`);
      }
    });
  }
});

describe.each(HARRIS_CASES)('harris on $type with $channels channel(s)', ({ pipeline, type, channels }) => {
  for (const [w, h] of SIZES) {
    it.each(BOUNDARIES)(`${w}×${h} %s`, (boundary) => {
      const img = randomImage(type, w, h, channels, w * 17 + h);
      const expected = referenceHarris(img, boundary, 0.25);
      for (const schedule of schedulesFor(boundary)) {
        const out = kernels.kernel({ pipeline, type, channels, schedule, boundary }).run(img, { outside: 0.25 });
        expectCloseImage(out, expected, `${schedule}/${boundary}`);
      }
    });
  }
});
