// The image apps never lose data and keep their inputs as they are: the output path is
// checked before any work, the image goes to a temporary beside the target that replaces
// it only when complete (a full disk leaves the target byte-identical and nothing behind),
// the format follows the extension, gray and alpha stays two channels, an animation's
// first frame is used and said so, and numeric options are range-checked up front. The
// full-disk and read-only cases mount a small tmpfs, which needs root.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as blur } from '../../apps/blur/src/cli.ts';
import { main as harris } from '../../apps/harris/src/cli.ts';
import { writeImage } from '../../apps/shared/image.ts';
import { MedianSample } from '../../libs/image/bench.ts';
import { readImage } from '../../libs/image/io.ts';
import { referenceInteger } from './reference.ts';
import { expectSameImage, randomImage, runApp as run } from './support.ts';

let dir: string;
const file = (name: string) => path.join(dir, name);
const mounts: string[] = [];

/** Mounts a tmpfs with `options` on a fresh directory; null when that is not possible here (not root, no mount). */
function mountTmpfs(options: string): string | null {
  const at = mkdtempSync(path.join(os.tmpdir(), 'image-output-mount-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', at], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(at, { recursive: true, force: true });
    return null;
  }
  mounts.push(at);
  return at;
}

function probeMount(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux';
  if (process.getuid?.() !== 0) return 'needs root to mount a tmpfs';
  const at = mountTmpfs('size=64k');
  if (!at) return 'mount -t tmpfs failed';
  return undefined;
}
const cannotMount = probeMount();

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'image-output-'));
  await writeImage({ path: file('rgb.png'), format: 'png' }, randomImage('u8', 37, 23, 3, 21));
  await writeImage({ path: file('rgba.png'), format: 'png' }, randomImage('u8', 9, 7, 4, 22));
  await writeImage({ path: file('gray-alpha.png'), format: 'png' }, randomImage('u8', 19, 13, 2, 23));
  // Three 16 × 8 frames, stacked as sharp takes an animation.
  const frames = randomImage('u8', 16, 24, 3, 24);
  await sharp(frames.data, { raw: { width: 16, height: 24, channels: 3, pageHeight: 8 } }).webp({ lossless: true }).toFile(file('anim.webp'));
  writeFileSync(file('a-file'), 'not a directory\n');
  mkdirSync(file('a-dir.png'));
  symlinkSync('nowhere.png', file('dangling.png'));
});

afterAll(() => {
  for (const at of mounts) {
    spawnSync('umount', [at]);
    rmSync(at, { recursive: true, force: true });
  }
  rmSync(dir, { recursive: true, force: true });
});

/** What is in a directory besides `expected`: temporaries an app left behind. */
function debris(at: string, expected: readonly string[]): string[] {
  return readdirSync(at).filter((n) => !expected.includes(n));
}

describe('the output path is checked before any work', () => {
  // The input does not exist either: an error about the output shows that it came first,
  // before reading the input and compiling a kernel.
  it.each([
    ['missing/out.png', () => `no such directory '${file('missing')}'`],
    ['a-dir.png', () => 'it is a directory'],
    ['a-file/out.png', () => `'${file('a-file')}' is not a directory`],
    ['dangling.png', () => 'it is a symbolic link to nothing'],
    ['out.bmp', () => "'.bmp' is not an output format; the extension picks it: .png, .jpg, .jpeg, .webp, .tif, .tiff"],
    ['out', () => 'a name without an extension is not an output format; the extension picks it: .png, .jpg, .jpeg, .webp, .tif, .tiff'],
  ])('-o %s: one line, exit 1', async (name, why) => {
    for (const [app, main] of [['blur', blur], ['harris', harris]] as const) {
      const r = await run(main, [file('missing.png'), '-o', file(name)]);
      expect(r.code).toBe(1);
      expect(r.err).toBe(`${app}: cannot write '${file(name)}': ${why()}\n`);
      expect(r.out).toBe('');
    }
  });

  const root = process.getuid?.() === 0;
  it(`-o in a directory that cannot be written${root && cannotMount ? ` (skipped: ${cannotMount})` : ''}`, async (ctx) => {
    let at: string;
    if (root) {
      // Root writes through permissions, so the directory is a read-only file system.
      if (cannotMount) return ctx.skip();
      at = mountTmpfs('ro,size=64k')!;
    } else {
      at = file('read-only');
      mkdirSync(at);
      chmodSync(at, 0o555);
    }
    const r = await run(blur, [file('missing.png'), '-o', path.join(at, 'out.png')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^blur: cannot write '[^']*out\\.png': directory '${at}' is not writable \\((read-only file system|permission denied)\\)\\n$`));
  });
});

describe('writing the output', () => {
  it.each([
    ['png', 'png'],
    ['jpg', 'jpeg'],
    ['JPEG', 'jpeg'],
    ['webp', 'webp'],
    ['tif', 'tiff'],
  ])('-o out.%s writes %s', async (ext, format) => {
    const out = file(`out.${ext}`);
    const r = await run(blur, [file('rgb.png'), '-o', out]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual([format, 37, 23, 3]);
  });

  it('JPEG for an image with alpha is refused before any work, and nothing is written', async () => {
    const r = await run(blur, [file('rgba.png'), '-o', file('rgba.jpg')]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`blur: cannot write '${file('rgba.jpg')}': JPEG has no alpha channel and the image has 4 channels; write .png, .webp or .tiff to keep the alpha\n`);
    expect(readdirSync(dir)).not.toContain('rgba.jpg');
  });

  it('replaces the target through a symbolic link, keeps its permissions and leaves no temporary', async () => {
    const sub = file('replace');
    mkdirSync(sub);
    writeFileSync(path.join(sub, 'target.png'), 'old contents\n');
    chmodSync(path.join(sub, 'target.png'), 0o640);
    symlinkSync('target.png', path.join(sub, 'link.png'));
    const r = await run(blur, [file('rgb.png'), '-o', path.join(sub, 'link.png')]);
    expect(r.code).toBe(0);
    expect(lstatSync(path.join(sub, 'link.png')).isSymbolicLink()).toBe(true);
    expect((await sharp(path.join(sub, 'target.png')).metadata()).format).toBe('png');
    expect(statSync(path.join(sub, 'target.png')).mode & 0o777).toBe(0o640);
    expect(debris(sub, ['target.png', 'link.png'])).toEqual([]);
  });

  it('blur in.png -o in.png replaces the input with its blurred self', async () => {
    copyFileSync(file('rgb.png'), file('same.png'));
    const r = await run(blur, [file('same.png'), '-o', file('same.png')]);
    expect(r.code).toBe(0);
    expectSameImage(await readImage(file('same.png')), referenceInteger('box3', await readImage(file('rgb.png')), 'clamp', 0), 'blurred in place');
  });
});

describe('inputs kept as they are', () => {
  it('gray and alpha reads as two channels with the alpha intact', async () => {
    const expected = randomImage('u8', 19, 13, 2, 23);
    expectSameImage(await readImage(file('gray-alpha.png')), expected, 'gray-alpha.png');
  });

  it('blur on gray and alpha writes gray and alpha, both channels blurred', async () => {
    const r = await run(blur, [file('gray-alpha.png'), '-o', file('gray-alpha-out.png')]);
    expect(r.code).toBe(0);
    expect((await sharp(file('gray-alpha-out.png')).metadata()).channels).toBe(2);
    expectSameImage(await readImage(file('gray-alpha-out.png')), referenceInteger('box3', randomImage('u8', 19, 13, 2, 23), 'clamp', 0), 'blurred gray and alpha');
  });

  it('an animation: the first frame is processed and a note says so', async () => {
    const notes: string[] = [];
    const first = await readImage(file('anim.webp'), (n) => notes.push(n));
    expect([first.width, first.height]).toEqual([16, 8]);
    expect(notes).toEqual([`'${file('anim.webp')}' has 3 frames (webp); only the first is processed`]);
    const r = await run(blur, [file('anim.webp'), '-o', file('anim-out.png')]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`blur: note: ${notes[0]}\n`);
    expect((await sharp(file('anim-out.png')).metadata()).height).toBe(8);
  });
});

describe('numeric options are range-checked up front', () => {
  // As above, a missing input shows the option was refused before anything was read.
  it.each([
    [blur, ['--bench', '0'], "option '--bench <runs>' argument '0' is invalid. must be an integer from 1 to 10000"],
    [blur, ['--bench', '10001'], "option '--bench <runs>' argument '10001' is invalid. must be an integer from 1 to 10000"],
    [blur, ['--bench', '2.5'], "option '--bench <runs>' argument '2.5' is invalid. must be an integer from 1 to 10000"],
    [harris, ['--threshold', '0'], "option '--threshold <fraction>' argument '0' is invalid. must be a number above 0 and at most 1"],
    [harris, ['--threshold', '1.5'], "option '--threshold <fraction>' argument '1.5' is invalid. must be a number above 0 and at most 1"],
    [harris, ['--threshold', 'NaN'], "option '--threshold <fraction>' argument 'NaN' is invalid. must be a number"],
  ] as const)('%#: %s is refused', async (main, args, message) => {
    const r = await run(main, [...args, file('missing.png'), '-o', file('out.png')]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`error: ${message}\n`);
  });

  it('the edges of the ranges are accepted (the error is then the missing input)', async () => {
    for (const [main, args] of [[blur, ['--bench', '10000']], [harris, ['--threshold', '1']], [harris, ['--threshold', '1e-9']]] as const) {
      const r = await run(main, [...args, file('missing.png'), '-o', file('out.png')]);
      expect(r.err).toMatch(/^(blur|harris): cannot read image '[^']*missing\.png': no such file\n$/);
    }
  });

  it.each([
    [harris, ['--outside', '2'], 'harris: the gray value outside the image must be from 0 to 1, not 2'],
    [harris, ['--outside', '-0.5'], 'harris: the gray value outside the image must be from 0 to 1, not -0.5'],
    [blur, ['--outside', '256'], 'blur: the value outside a u8 image must be an integer from 0 to 255, not 256'],
    [blur, ['--outside', '1.5'], 'blur: the value outside a u8 image must be an integer from 0 to 255, not 1.5'],
  ] as const)('%#: --outside %s out of range for the image is refused before writing anything', async (main, args, message) => {
    const out = file(`outside-${args[1]}.png`);
    const r = await run(main, ['--boundary', 'const', ...args, file('rgb.png'), '-o', out]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`${message}\n`);
    expect(readdirSync(dir)).not.toContain(path.basename(out));
  });
});

describe('the median of --bench', () => {
  it('is exact while every time is kept', () => {
    const m = new MedianSample(5);
    for (const x of [5, 1, 4, 2]) m.add(x);
    expect(m.median()).toBe(3);
    m.add(3);
    expect(m.median()).toBe(3);
  });

  it('keeps a bounded sample of a long run, whose median is near the exact one', () => {
    const m = new MedianSample(1001);
    // 0 … 99 999 in a scrambled order (a multiplier coprime to the count): the median is 49 999.5.
    for (let i = 0; i < 100_000; i++) m.add((i * 7919) % 100_000);
    expect(m.size).toBe(1001);
    // The sample median's standard deviation is about 1.6 % of the range here: 8 % is five of them.
    expect(Math.abs(m.median() - 49_999.5)).toBeLessThan(8_000);
  });
});

describe('a full disk', () => {
  it(`blur in.jpg -o in.jpg fails in one line, the input byte-identical and nothing left behind${cannotMount ? ` (skipped: ${cannotMount})` : ''}`, async (ctx) => {
    if (cannotMount) return ctx.skip();
    // Noise compresses badly: its blurred JPEG is tens of kilobytes, more than the 16 KiB left.
    const noise = randomImage('u8', 320, 240, 3, 25);
    const jpeg = await sharp(noise.data, { raw: { width: 320, height: 240, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
    const pages = Math.ceil(jpeg.length / 4096);
    const at = mountTmpfs(`size=${(pages + 4) * 4096}`);
    expect(at, 'mounting the small tmpfs').not.toBeNull();
    const input = path.join(at!, 'in.jpg');
    writeFileSync(input, jpeg);
    const r = await run(blur, [input, '-o', input]);
    expect(r.err).toBe(`blur: cannot write '${input}': no space left on device\n`);
    expect(r.code).toBe(1);
    expect(readFileSync(input).equals(jpeg)).toBe(true);
    expect(readdirSync(at!)).toEqual(['in.jpg']);
  });
});
