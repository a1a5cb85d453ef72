// The scalar score kernels against the reference (kernels-score.ts).
import { scoreSuite } from './kernels-score.ts';

scoreSuite(['scalar'], 161);
