// The blur and harris apps run in-process on tiny images: --compare agrees with each
// reference that is installed, a combination a reference cannot reproduce and a broken
// input are one-line errors with exit status 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as blur } from '../../apps/blur/src/cli.ts';
import { main as harris } from '../../apps/harris/src/cli.ts';
import { writeImage } from '../../apps/shared/image.ts';
import { missingReferencePackages } from '../../bench/image/references.ts';
import { randomImage, runApp as run } from './support.ts';

let dir: string;
const file = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'image-apps-'));
  await writeImage({ path: file('rgb.png'), format: 'png' }, randomImage('u8', 37, 23, 3, 11));
  await writeImage({ path: file('gray.png'), format: 'png' }, randomImage('u8', 40, 30, 1, 12));
  await writeImage({ path: file('rgba.png'), format: 'png' }, randomImage('u8', 29, 17, 4, 13));
  writeFileSync(file('text.png'), 'not an image\n');
  writeFileSync(file('empty.png'), '');
  await sharp(new Uint16Array(4 * 4 * 3).fill(40000), { raw: { width: 4, height: 4, channels: 3 } }).toColourspace('rgb16').png().toFile(file('deep.png'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The test's name, with why it is skipped when a reference's packages are missing. */
async function needing(reference: 'halide' | 'opencv', name: string): Promise<{ name: string; missing: boolean }> {
  const missing = await missingReferencePackages(reference);
  return { name: missing.length ? `${name} (skipped: needs apt-get install ${missing.join(' ')})` : name, missing: missing.length > 0 };
}

const opencv = await needing('opencv', 'blur --filter gauss5 --compare opencv is bit-exact on a gray image');
const halide = await needing('halide', 'harris --compare halide agrees to 1e-5 on an RGB image, under every Halide schedule');
const halideBlur = await needing('halide', 'blur --compare halide is bit-exact on a u8 RGB image under the app schedule, each autoscheduler and ours, the ratio against the fastest');
const opencvColour = await needing('opencv', 'blur --filter gauss5 --compare opencv filters the RGB image in one call, bit-exact');

describe('--compare', () => {
  it('blur --compare sharp is bit-exact on an RGB image, channel by channel', async () => {
    const r = await run(blur, ['--compare', 'sharp', '--bench', '2', file('rgb.png'), '-o', file('out-sharp.png')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/outputs bit-exact: 0 of 2553 differ/);
    expect(r.out).toMatch(/medians of 2 runs\): ratio \d+\.\d\d×/);
  });

  it.skipIf(opencv.missing)(opencv.name, async () => {
    const r = await run(blur, ['--filter', 'gauss5', '--compare', 'opencv', file('gray.png'), '-o', file('out-opencv.png')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/outputs bit-exact: 0 of 1200 differ/);
  });

  it.skipIf(halide.missing)(halide.name, async () => {
    const r = await run(harris, ['--compare', 'halide', file('rgb.png'), '-o', file('out-halide.png')]);
    expect(r.code).toBe(0);
    expect(r.out.match(/^Halide 14 \(.*\): .* outputs agree to 1e-5: 0 of 851 beyond/gm)).toHaveLength(5);
  });

  it.skipIf(halideBlur.missing)(halideBlur.name, async () => {
    const r = await run(blur, ['--compare', 'halide', '--bench', '2', file('rgb.png'), '-o', file('out-halide-blur.png')]);
    expect(r.code).toBe(0);
    for (const schedule of ['app schedule', 'Adams2019', 'Li2018', 'Mullapudi2016', 'same as ours']) {
      expect(r.out).toMatch(new RegExp(`^Halide 14 \\(${schedule}\\): \\d+\\.\\d\\d ms \\(.*, 3 channels in one call\\): outputs bit-exact: 0 of 2553 differ$`, 'm'));
    }
    expect(r.out).toMatch(/^speed: ours \d+\.\d\d ms, fastest Halide 14 \((app schedule|Adams2019|Li2018|Mullapudi2016|same as ours)\) \d+\.\d\d ms \(medians of 2 runs\): ratio \d+\.\d\d×/m);
  });

  it.skipIf(opencvColour.missing)(opencvColour.name, async () => {
    const r = await run(blur, ['--filter', 'gauss5', '--compare', 'opencv', file('rgb.png'), '-o', file('out-opencv-rgb.png')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^OpenCV 4\.6: \d+\.\d\d ms \(cv::GaussianBlur.*, 3 channels in one call\): outputs bit-exact: 0 of 2553 differ$/m);
  });

  it.skipIf(opencvColour.missing)('blur --filter sobel --compare opencv filters an RGBA image in one call (CV_8UC4), bit-exact', async () => {
    const r = await run(blur, ['--filter', 'sobel', '--compare', 'opencv', file('rgba.png'), '-o', file('out-opencv-rgba.png')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^OpenCV 4\.6: \d+\.\d\d ms \(two 16-bit cv::Sobel.*, 4 channels in one call\): outputs bit-exact: 0 of 1972 differ$/m);
  });

  it('a combination the reference cannot reproduce is one line naming what it can, exit 1', async () => {
    const r = await run(blur, ['--filter', 'heat', '--compare', 'halide', file('rgb.png'), '-o', file('out.png')]);
    expect(r.code).toBe(1);
    expect(r.err).toBe('blur: Halide 14 cannot reproduce heat on u8; it reproduces box3, gauss5, unsharp, sobel, harris, bilateral, interpolate, local_laplacian on u8 and box3, gauss5, unsharp, sobel on i32 and harris on f32, with the clamp boundary only\n');
    const h = await run(harris, ['--compare', 'opencv', '--boundary', 'clamp', file('rgb.png'), '-o', file('out.png')]);
    expect(h.code).toBe(1);
    expect(h.err).toMatch(/^harris: OpenCV 4\.6 cannot reproduce harris on u8; it reproduces gauss5, unsharp, sobel on u8, with the clamp boundary only\n$/);
  });
});

describe('broken inputs', () => {
  it.each([
    ['missing.png', 'no such file'],
    ['text.png', 'not an image sharp can decode'],
    ['empty.png', 'the file is empty'],
    ['deep.png', 'it has 16-bit samples'],
  ])('%s: one line, exit 1', async (name, why) => {
    for (const main of [blur, harris]) {
      const r = await run(main, [file(name), '-o', file('out.png')]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`^(blur|harris): cannot read image '[^']*${name}': ${why}[^\\n]*\\n$`));
      expect(r.out).toBe('');
    }
  });
});
