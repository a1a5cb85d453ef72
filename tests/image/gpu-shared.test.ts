// The `gpu_shared` schedule natively on OpenCL (PoCL's CPU device on a machine without a
// GPU): the staged pipelines with each stage fused into the blocks of its reader through
// shared (__local) memory and a barrier, one launch per channel, Harris on colour with one
// block-staged stage nested in another; each boundary mode once, every size of
// gpu-opencl.test.ts including 1023 × 769, against the reference (Harris also `opt`) as there. Blocks of
// 32 × 8 leave partial blocks at the right and bottom edges of every size but 1 × 1's.
import { describeOnOpenCL, deviceMissing, sharedPipelines } from './gpu-cases.ts';

/** OpenCL device 0, as ANYDSL_DEVICE=opencl picks it. */
const OPENCL_0 = 2;

describeOnOpenCL('the gpu_shared schedule on OpenCL', sharedPipelines(OPENCL_0), await deviceMissing('opencl'));
