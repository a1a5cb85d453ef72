// The bilateral grid against its reference (bilateral-cases.ts) under the schedules that
// fuse stages, `opt` and `slide`.
import { describeAgainstReference, partOf } from './app-cases.ts';
import { BILATERAL } from './bilateral-cases.ts';

describeAgainstReference(partOf(BILATERAL, 'fused'));
