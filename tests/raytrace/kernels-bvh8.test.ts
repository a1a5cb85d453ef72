// The BVH8 kernels (libs/raytrace) against the brute-force reference: every traversal loop
// and hit kind at the default packet size, and one more packet width (kernels-cases.ts
// says what is checked).
import { kernelSuite } from './kernels-cases.ts';

kernelSuite(8, [{ arity: 8, traversal: 'packet', anyHit: true, packetSize: 16 }]);
