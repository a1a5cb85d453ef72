// Multi-scale interpolation against its reference (interpolate-cases.ts) under the schedules
// that fuse stages, `opt` and `slide`.
import { describeAgainstReference, partOf } from './app-cases.ts';
import { INTERPOLATE } from './interpolate-cases.ts';

describeAgainstReference(partOf(INTERPOLATE, 'fused'));
