// The BVH4 kernels (libs/raytrace) against the brute-force reference: every traversal loop
// and hit kind at the default packet size, and one more packet width (kernels-cases.ts
// says what is checked).
import { kernelSuite } from './kernels-cases.ts';

kernelSuite(4, [{ arity: 4, traversal: 'hybrid', anyHit: false, packetSize: 16 }]);
