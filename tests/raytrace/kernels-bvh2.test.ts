// The BVH2 kernels (libs/raytrace) against the brute-force reference: every traversal loop
// and hit kind at the default packet size, and one more packet width (kernels-cases.ts
// says what is checked).
import { kernelSuite } from './kernels-cases.ts';

kernelSuite(2, [{ arity: 2, traversal: 'packet', anyHit: false, packetSize: 4 }]);
