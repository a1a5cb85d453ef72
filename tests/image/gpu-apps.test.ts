// `blur --schedule gpu` and `harris --schedule gpu` in-process: the app names the device it
// runs on, writes what the reference computes, and with --bench prints the kernels' device
// time apart from the rest of a run; asked for a device that is not there (ANYDSL_DEVICE),
// each app says so in one line and exits 1 without writing anything. On a machine without
// CUDA or OpenCL (an OpenCL loader that finds no platform, in a child process, since a
// process lists the platforms once) the line says what to install.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main as blur } from '../../apps/blur/src/cli.ts';
import { main as harris } from '../../apps/harris/src/cli.ts';
import { writeImage } from '../../apps/shared/image.ts';
import { readImage } from '../../libs/image/io.ts';
import { deviceMissing } from './gpu-cases.ts';
import { referenceInteger } from './reference.ts';
import { expectSameImage, randomImage, runApp as run } from './support.ts';

let dir: string;
const file = (name: string) => path.join(dir, name);
const savedDevice = process.env.ANYDSL_DEVICE;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'image-gpu-apps-'));
  await writeImage({ path: file('gray.png'), format: 'png' }, randomImage('u8', 45, 14, 1, 21));
});

afterEach(() => {
  if (savedDevice === undefined) delete process.env.ANYDSL_DEVICE;
  else process.env.ANYDSL_DEVICE = savedDevice;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const missing = await deviceMissing('opencl');
const cuda = await deviceMissing('cuda');
const blurBin = fileURLToPath(new URL('../../apps/blur/bin/blur.mjs', import.meta.url));

describe('--schedule gpu', () => {
  it.skipIf(missing !== null)(`blur runs box3 on OpenCL with --bench, as the reference computes${missing ? ` (skipped: ${missing})` : ''}`, async () => {
    process.env.ANYDSL_DEVICE = 'opencl';
    const r = await run(blur, ['--schedule', 'gpu', '--boundary', 'mirror', '--bench', '2', file('gray.png'), '-o', file('box3.png')]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^device: OpenCL 0: .*\n/);
    expect(r.out).toMatch(/\nbox3 u8 gpu\/mirror 45×14×1: median \d+\.\d\d ms over 2 runs, \d+\.\d+ Gpixel\/s\n/);
    expect(r.out).toMatch(/\nbox3 u8 gpu\/mirror 45×14×1: kernels \d+\.\d\d ms \(median device time\), copies in and out \d+\.\d\d ms, allocation and launches \d+\.\d\d ms\n/);
    const input = await readImage(file('gray.png'));
    expectSameImage(await readImage(file('box3.png')), referenceInteger('box3', input, 'mirror', 0), 'blur --schedule gpu');
  });

  it.each([
    ['host', /^(blur|harris): the gpu schedule needs a CUDA or OpenCL device, and ANYDSL_DEVICE=host names the host\n$/],
    ['opencl:99', /^(blur|harris): the gpu schedule cannot run: ANYDSL_DEVICE=opencl:99: [^\n]+\n$/],
    ['gpu', /^(blur|harris): the gpu schedule cannot run: ANYDSL_DEVICE=gpu: expected auto, cuda, opencl or host[^\n]*\n$/],
  ])('ANYDSL_DEVICE=%s: one line, exit 1, no output', async (device, message) => {
    process.env.ANYDSL_DEVICE = device;
    for (const main of [blur, harris]) {
      const r = await run(main, ['--schedule', 'gpu', file('gray.png'), '-o', file('none.png')]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(message);
      expect(r.out).toBe('');
      expect(existsSync(file('none.png'))).toBe(false);
    }
  });

  it.skipIf(cuda === null)('where there is neither CUDA nor OpenCL: one line saying what to install, exit 1', () => {
    const vendors = file('no-vendors');
    mkdirSync(vendors, { recursive: true });
    const env = { ...process.env, OCL_ICD_VENDORS: vendors, ANYDSL_DEVICE: 'auto' };
    const r = spawnSync(process.execPath, [blurBin, '--schedule', 'gpu', file('gray.png'), '-o', file('none.png')], { env, encoding: 'utf8' });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^blur: the gpu schedule needs a CUDA or OpenCL device, and there is none \(no OpenCL platform: install pocl-opencl-icd \(CPU\) or a GPU driver; for CUDA, install the NVIDIA driver\)\n$/);
    expect(r.status).toBe(1);
    expect(existsSync(file('none.png'))).toBe(false);
  });
});
