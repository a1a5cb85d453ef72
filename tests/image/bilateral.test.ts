// The bilateral grid against its reference (bilateral-cases.ts) under the schedules that do
// not fuse stages, and u8 RGB as `blur --filter bilateral` compiles it.
import { describeAgainstReference, partOf } from './app-cases.ts';
import { BILATERAL } from './bilateral-cases.ts';

describeAgainstReference(partOf(BILATERAL, 'rest'));
