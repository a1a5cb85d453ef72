// `camera` in-process on small files: a photo mosaiced with --from-photo and developed as the
// reference does, the mosaic it saves (a 16-bit gray PNG) developed again to the same image,
// a headerless raw file with --width and --height, and what it refuses: one line, exit 1,
// nothing written (--schedule gpu without a device among them: asked for the host, or, in a
// child process whose OpenCL loader finds no platform, with neither CUDA nor OpenCL).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { main as camera } from '../../apps/camera/src/cli.ts';
import { writeImage } from '../../apps/shared/image.ts';
import { DEFAULT_CAMERA_PARAMS, mosaicOf } from '../../libs/image/camera.ts';
import { readImage } from '../../libs/image/io.ts';
import { deviceMissing } from './gpu-cases.ts';
import { referenceCamera } from './reference-camera.ts';
import { expectSameImage, randomImage, runApp as run } from './support.ts';

let dir: string;
const file = (name: string) => path.join(dir, name);
// Odd: the mosaic leaves out the last column and row.
const photo = randomImage('u8', 37, 23, 3, 5);
const mosaic = mosaicOf(photo);
const expected = referenceCamera(mosaic, DEFAULT_CAMERA_PARAMS, 'clamp', 0);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'image-camera-'));
  await writeImage({ path: file('photo.png'), format: 'png' }, photo);
  writeFileSync(file('mosaic.raw'), Buffer.from(mosaic.data.buffer, mosaic.data.byteOffset, mosaic.data.byteLength));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const savedDevice = process.env.ANYDSL_DEVICE;
afterEach(() => {
  if (savedDevice === undefined) delete process.env.ANYDSL_DEVICE;
  else process.env.ANYDSL_DEVICE = savedDevice;
});

it('develops the mosaic of a photo, saves that mosaic, and develops the saved mosaic and a headerless raw alike', async () => {
  const r = await run(camera, ['--from-photo', file('photo.png'), '--save-mosaic', file('mosaic.png'), '-o', file('a.png')]);
  expect([r.code, r.err]).toEqual([0, 'camera: note: the mosaic of a 37×23 photo leaves out its last column and row\n']);
  expect(r.out).toBe(`wrote ${file('a.png')} (36×22 RGB, 3700 K, opt, clamp)\n`);
  expectSameImage(await readImage(file('a.png')), expected, 'camera --from-photo');
  const again = await run(camera, [file('mosaic.png'), '-o', file('b.png')]);
  expect([again.code, again.err]).toEqual([0, '']);
  expectSameImage(await readImage(file('b.png')), expected, 'camera on the saved mosaic');
  const raw = await run(camera, ['--width', '36', '--height', '22', file('mosaic.raw'), '-o', file('c.png')]);
  expect([raw.code, raw.err]).toEqual([0, '']);
  expectSameImage(await readImage(file('c.png')), expected, 'camera on the headerless raw');
}, 900_000);

it.each([
  [['--width', '17', '--height', '5', 'mosaic.raw'], 'camera: a Bayer mosaic has even width and height (whole 2×2 GRBG cells), got 17×5\n'],
  [['--width', '36', '--height', '20', 'mosaic.raw'], "camera: cannot read mosaic '$/mosaic.raw': it has 1584 bytes, 36×20 16-bit samples are 1440\n"],
  [['photo.png'], "camera: cannot read mosaic '$/photo.png': it has 8-bit samples; a mosaic has 16 (an 8-bit photo can be mosaiced with --from-photo)\n"],
  [['missing.png'], "camera: cannot read mosaic '$/missing.png': no such file\n"],
  [['--sharpen', '5', 'photo.png'], 'camera: the sharpening strength must be from 0 to 4, not 5\n'],
  [['--retune', '--width', '36', '--height', '22', 'mosaic.raw'], 'camera: --retune searches the schedule again for --schedule auto; with --schedule opt there is nothing to search\n'],
])('camera %j refuses in one line', async (args, message) => {
  const withDir = args.map((a) => (a.endsWith('.raw') || a.endsWith('.png') ? file(a) : a));
  const r = await run(camera, [...withDir, '-o', file('refused.png')]);
  expect([r.code, r.err]).toEqual([1, message.replace('$', dir)]);
  expect(existsSync(file('refused.png'))).toBe(false);
});

it('--schedule gpu asked for the host: one line, exit 1, nothing written', async () => {
  process.env.ANYDSL_DEVICE = 'host';
  const r = await run(camera, ['--schedule', 'gpu', '--width', '36', '--height', '22', file('mosaic.raw'), '-o', file('refused.png')]);
  expect([r.code, r.err, r.out]).toEqual([1, 'camera: the gpu schedule needs a CUDA or OpenCL device, and ANYDSL_DEVICE=host names the host\n', '']);
  expect(existsSync(file('refused.png'))).toBe(false);
});

it.skipIf((await deviceMissing('cuda')) === null)('--schedule gpu where there is neither CUDA nor OpenCL: one line saying what to install, exit 1', () => {
  const vendors = file('no-vendors');
  mkdirSync(vendors, { recursive: true });
  const env = { ...process.env, OCL_ICD_VENDORS: vendors, ANYDSL_DEVICE: 'auto' };
  const bin = fileURLToPath(new URL('../../apps/camera/bin/camera.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [bin, '--schedule', 'gpu', '--width', '36', '--height', '22', file('mosaic.raw'), '-o', file('refused.png')], { env, encoding: 'utf8' });
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^camera: the gpu schedule needs a CUDA or OpenCL device, and there is none \(no OpenCL platform: install pocl-opencl-icd \(CPU\) or a GPU driver; for CUDA, install the NVIDIA driver\)\n$/);
  expect(r.status).toBe(1);
  expect(existsSync(file('refused.png'))).toBe(false);
});
