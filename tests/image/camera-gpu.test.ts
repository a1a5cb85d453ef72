// The camera pipe under the `gpu` schedule natively on OpenCL (PoCL's CPU device on a
// machine without a GPU): every stage a kernel over device buffers (the mosaic's frame, the
// hot-pixel-free planes, the curved image), the colour matrix and tone curve copied to the
// device, against the TypeScript reference bit for bit in every boundary mode at one cell
// (every neighbour past the edge), at 18 × 6 (no multiple of the 32 × 4 blocks; 10-bit and
// 16-bit samples) and, in clamp mode, at 1024 × 768. One module of four kernels.
import { beforeAll, describe, it } from 'vitest';
import { type CameraKernel, type CameraParams, type CameraVariant, compileCamera, DEFAULT_CAMERA_PARAMS, type Mosaic } from '../../libs/image/camera.ts';
import { BOUNDARIES } from '../../libs/image/variants.ts';
import { random } from '../random.ts';
import { deviceMissing } from './gpu-cases.ts';
import { referenceCamera } from './reference-camera.ts';
import { expectSameImage } from './support.ts';

/** OpenCL device 0, as ANYDSL_DEVICE=opencl picks it. */
const DEVICE = 2;
const VARIANTS: CameraVariant[] = BOUNDARIES.map((boundary) => ({ schedule: 'gpu', boundary, device: DEVICE }));
const SIXTEEN_BITS: CameraParams = { ...DEFAULT_CAMERA_PARAMS, blackLevel: 1000, whiteLevel: 65535 };
const OUTSIDE = 700;
const missing = await deviceMissing('opencl');

function randomMosaic(width: number, height: number, top: number, seed: number): Mosaic {
  const next = random(seed);
  return { width, height, data: new Uint16Array(width * height).map(() => (next() < 0.02 ? top - 1 : Math.floor(next() * top))) };
}

describe.skipIf(missing !== null)(`the camera pipe under gpu on OpenCL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let kernels: (v: CameraVariant) => CameraKernel;
  beforeAll(async () => {
    kernels = await compileCamera(VARIANTS);
  }, 900_000);

  it.each(VARIANTS.map((v) => [v.boundary, v] as const))('%s matches the reference', (_label, v) => {
    const cases = [[2, 2, 1024, DEFAULT_CAMERA_PARAMS], [18, 6, 1024, DEFAULT_CAMERA_PARAMS], [18, 6, 65536, SIXTEEN_BITS]] as const;
    for (const [w, h, top, params] of [...cases, ...(v.boundary === 'clamp' ? [[1024, 768, 1024, DEFAULT_CAMERA_PARAMS] as const] : [])]) {
      const mosaic = randomMosaic(w, h, top, w * 5 + h + top);
      expectSameImage(kernels(v).run(mosaic, params, { outside: OUTSIDE }), referenceCamera(mosaic, params, v.boundary, OUTSIDE), `gpu ${v.boundary} ${w}×${h} below ${top}`);
    }
  }, 600_000);
});
