// `camera --schedule auto` (autoScheduleCamera, libs/image/camera.ts): the search's choice
// develops a mosaic exactly as `opt` does (which camera.test.ts holds to the reference), and
// a second call reuses the cached choice. The candidates are injected (the hand schedule opt
// and a tuning of small tiles with 32 lanes) so the test does not depend on timings; the
// search compiles both in one module, which the check compiles again from the cache.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { scheduleFor } from '../../libs/image/autoschedule.ts';
import { autoScheduleCamera, type CameraVariant, cameraExportName, compileCamera, DEFAULT_CAMERA_PARAMS, type Mosaic } from '../../libs/image/camera.ts';
import { HAND_TUNINGS, type Tuning } from '../../libs/image/variants.ts';
import { random } from '../random.ts';
import { expectSameImage } from './support.ts';

const choicesDir = mkdtempSync(path.join(os.tmpdir(), 'anydsl-camera-auto-'));
afterAll(() => rmSync(choicesDir, { recursive: true, force: true }));

function randomMosaic(width: number, height: number, seed: number): Mosaic {
  const next = random(seed);
  return { width, height, data: new Uint16Array(width * height).map(() => Math.floor(next() * 1024)) };
}

it("picks a schedule whose output is opt's at every size, and reuses it from the cache", async () => {
  const tuned: Tuning = { at: 'tile', tileWidth: 64, tileHeight: 8, vectorBits: 1024 };
  const candidates = [HAND_TUNINGS.opt!, tuned];
  const first = await autoScheduleCamera('mirror', 96, 40, { retune: true, candidates, runs: 1, choicesDir, input: randomMosaic(96, 40, 3) });
  expect(first.reused).toBe(false);
  expect(first.summary).toMatch(/^auto: .*, [\d.]+ ms \((kept the fastest hand schedule: .*|[\d.]+× the speed of the fastest hand schedule, opt, .*); 2 schedules timed on the 96×40 mosaic in \d+ s, search ended by the candidates given; cached for 128×64 mosaic\)$/);
  const variants: CameraVariant[] = candidates.map((t) => ({ ...scheduleFor(t, HAND_TUNINGS), boundary: 'mirror' }) as CameraVariant);
  expect(variants.map(cameraExportName)).toContain(cameraExportName(first.variant));
  const again = await autoScheduleCamera('mirror', 100, 34, { choicesDir });
  expect(again.reused).toBe(true);
  expect(again.variant).toEqual(first.variant);
  expect(again.summary).toMatch(/reused the choice cached for 128×64 mosaic/);

  const kernels = await compileCamera(variants);
  for (const [w, h] of [[2, 2], [18, 6], [1024, 768]] as const) {
    const mosaic = randomMosaic(w, h, w + h);
    const want = kernels(variants[0]!).run(mosaic, DEFAULT_CAMERA_PARAMS);
    expectSameImage(kernels(first.variant).run(mosaic, DEFAULT_CAMERA_PARAMS), want, `chosen ${w}×${h}`);
    expectSameImage(kernels(variants[1]!).run(mosaic, DEFAULT_CAMERA_PARAMS), want, `tuned ${w}×${h}`);
  }
}, 900_000);

it('refuses a tuning whose tiles would split a cell', async () => {
  await expect(compileCamera([{ schedule: 'opt', boundary: 'clamp', tuning: { at: 'tile', tileWidth: 63, tileHeight: 8, vectorBits: 512 } }])).rejects.toThrow(/^the camera pipe's tiles have an even width, not 63$/);
});
