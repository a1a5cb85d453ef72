// The `gpu` schedule natively on OpenCL, part 2 (part 1 and what both check are in
// gpu-opencl.test.ts): Harris (f32 stages, and on colour images its gray as a stage of its
// own) and the MetaOCaml paper's gradient, heat (3 steps ping-ponging between two device
// planes, their frames filled by kernels) and wave (f64 sine), every boundary mode; Harris
// to 1e-5 relative against the reference and the CPU `opt` kernel of the same variant.
import { describeOnOpenCL, deviceMissing, everyMode } from './gpu-cases.ts';

/** OpenCL device 0, as ANYDSL_DEVICE=opencl picks it. */
const OPENCL_0 = 2;

describeOnOpenCL('the gpu schedule on OpenCL', everyMode(OPENCL_0, ['harris', 'gradient', 'heat', 'wave']), await deviceMissing('opencl'));
