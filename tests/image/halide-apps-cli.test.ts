// blur's filters from Halide's apps in-process on a tiny image: -f bilateral writes what
// the reference computes, and the combinations those pipelines do not take are one line
// naming why, exit 1, before any compiling and with nothing written.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as blur } from '../../apps/blur/src/cli.ts';
import { writeImage } from '../../apps/shared/image.ts';
import { readImage } from '../../libs/image/io.ts';
import { referenceBilateral } from './reference-apps.ts';
import { expectSameImage, randomImage, runApp as run } from './support.ts';

let dir: string;
const file = (name: string) => path.join(dir, name);
const rgb = randomImage('u8', 37, 23, 3, 31);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'image-halide-apps-'));
  await writeImage({ path: file('rgb.png'), format: 'png' }, rgb);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('blur --filter bilateral writes the bilateral grid of every channel', async () => {
  const r = await run(blur, ['--filter', 'bilateral', file('rgb.png'), '-o', file('smooth.png')]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).toBe(`wrote ${file('smooth.png')} (37×23, bilateral, opt, clamp)\n`);
  expectSameImage(await readImage(file('smooth.png')), referenceBilateral(rgb, 'clamp', 0), 'blur -f bilateral');
}, 600_000);

it.each([
  [['--filter', 'interpolate'], 'blur: interpolate fills in the transparent parts of an image with alpha: it takes 2 (gray, alpha) or 4 (RGBA) channels, not 3\n'],
  [['--filter', 'local_laplacian', '--type', 'i32'], 'blur: local_laplacian computes in f32 on values from 0 to 1 and takes u8 or f32 images, not i32\n'],
])('blur %j refuses in one line', async (args, message) => {
  const r = await run(blur, [...args, file('rgb.png'), '-o', file('refused.png')]);
  expect([r.code, r.err]).toEqual([1, message]);
  expect(existsSync(file('refused.png'))).toBe(false);
});
