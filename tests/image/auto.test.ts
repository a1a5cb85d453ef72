// `--schedule auto` (libs/image/autoschedule.ts): the search's choice computes what `opt`
// computes, and a second call reuses the cached choice. The candidates are injected (the
// hand schedule opt and one tuning of our own) so the test does not depend on timings: the
// search compiles them in one module, which the check below compiles again from the cache.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { autoSchedule, neighbours, sizeClass, type Unscheduled, variantFor } from '../../libs/image/autoschedule.ts';
import { compileKernels } from '../../libs/image/host.ts';
import { checkVariant, exportName, HAND_TUNINGS, type Tuning, type Variant } from '../../libs/image/variants.ts';
import { expectCloseImage, expectSameImage, randomImage, SIZES } from './support.ts';

const choicesDir = mkdtempSync(path.join(os.tmpdir(), 'anydsl-auto-'));
afterAll(() => rmSync(choicesDir, { recursive: true, force: true }));

const CASES: { base: Unscheduled; tuning: Tuning }[] = [
  // The 16-bit Gaussian on u8 (lanes doubled), computed per small tile with 256-bit vectors.
  { base: { pipeline: 'gauss5', type: 'u8', channels: 3, boundary: 'mirror' }, tuning: { at: 'tile', tileWidth: 64, tileHeight: 8, vectorBits: 256 } },
  // Harris in f32 with its stages slid row by row, 1024-bit vectors.
  { base: { pipeline: 'harris', type: 'u8', channels: 3, boundary: 'clamp' }, tuning: { at: 'row', tileWidth: 0, tileHeight: 16, vectorBits: 1024 } },
];

describe('the tuning space', () => {
  it('names the hand schedules by their parameters and keeps every neighbour valid', () => {
    const base: Unscheduled = { pipeline: 'box3', type: 'i32', channels: 1, boundary: 'clamp' };
    for (const [schedule, tuning] of Object.entries(HAND_TUNINGS)) {
      expect(variantFor(base, tuning!)).toEqual({ ...base, schedule });
      for (const t of neighbours(tuning!)) {
        const v = variantFor(base, t);
        expect(() => checkVariant(v), exportName(v)).not.toThrow();
      }
    }
    expect(sizeClass(1, 1)).toEqual({ width: 1, height: 1 });
    expect(sizeClass(1023, 1025)).toEqual({ width: 1024, height: 2048 });
  });
});

describe.each(CASES)('auto on $base.pipeline $base.type', ({ base, tuning }) => {
  it('picks a schedule whose output is opt\'s at every size, and reuses it from the cache', async () => {
    const opt: Variant = { ...base, schedule: 'opt' };
    const candidates = [HAND_TUNINGS.opt!, tuning];
    const first = await autoSchedule(base, 64, 48, { retune: true, candidates, runs: 1, choicesDir });
    expect(first.reused).toBe(false);
    expect(first.summary).toMatch(/^auto: .* \(fastest of 2 schedules timed in \d+ s, search ended by the candidates given; [\d.]+× the best hand schedule opt; cached for 64×64 u8×3\)$/);
    const candidateVariants = candidates.map((t) => variantFor(base, t));
    expect(candidateVariants.map(exportName)).toContain(exportName(first.variant));
    const again = await autoSchedule(base, 60, 33, { choicesDir });
    expect(again.reused).toBe(true);
    expect(again.variant).toEqual(first.variant);
    expect(again.summary).toMatch(/reused the choice cached for 64×64 u8×3/);

    // Every candidate, the chosen one among them, against opt: the search's module again.
    const kernels = await compileKernels(candidateVariants);
    const expected = kernels.kernel(opt);
    const chosen = kernels.kernel(first.variant);
    const other = kernels.kernel(candidateVariants[1]!);
    for (const [w, h] of SIZES) {
      const img = randomImage(base.type, w, h, base.channels, w * 7 + h);
      const want = expected.run(img);
      for (const [label, kernel] of [['chosen', chosen], ['tuned', other]] as const) {
        const got = kernel.run(img);
        if (got.type === 'f32') expectCloseImage(got, want, `${label} ${w}×${h}`);
        else expectSameImage(got, want, `${label} ${w}×${h}`);
      }
    }
  }, 600_000);
});
