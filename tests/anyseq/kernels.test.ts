// The SIMD-stripe score kernels against the reference (kernels-score.ts).
import { scoreSuite } from './kernels-score.ts';

scoreSuite(['simd'], 16);
