// Multi-scale interpolation against its reference (interpolate-cases.ts) under the schedules
// that do not fuse stages, and the images it refuses.
import { expect, it } from 'vitest';
import { checkVariant } from '../../libs/image/variants.ts';
import { describeAgainstReference, partOf } from './app-cases.ts';
import { INTERPOLATE, INTERPOLATE_F32 } from './interpolate-cases.ts';

describeAgainstReference(partOf(INTERPOLATE, 'rest'));

it('takes images with alpha only', () => {
  expect(() => checkVariant({ ...INTERPOLATE_F32, channels: 3, schedule: 'opt', boundary: 'clamp' })).toThrow(/^interpolate fills in the transparent parts of an image with alpha: it takes 2 \(gray, alpha\) or 4 \(RGBA\) channels, not 3$/);
  expect(() => checkVariant({ ...INTERPOLATE_F32, type: 'i32', schedule: 'opt', boundary: 'clamp' })).toThrow(/^interpolate computes in f32 on values from 0 to 1 and takes u8 or f32 images, not i32$/);
});
