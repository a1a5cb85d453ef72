// The wavefront-of-tiles score kernels against the reference (kernels-score.ts).
import { scoreSuite } from './kernels-score.ts';

scoreSuite(['wavefront'], 1616);
