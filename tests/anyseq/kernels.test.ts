// The scalar and SIMD-stripe score kernels against the reference (kernels-score.ts).
import { scoreSuite } from './kernels-score.ts';

scoreSuite(['scalar', 'simd'], 16);
