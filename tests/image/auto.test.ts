// `--schedule auto` (libs/image/autoschedule.ts): the search's choice computes what `opt`
// computes, and a second call reuses the cached choice. The candidates are injected (the
// hand schedule opt and one tuning of our own) so the test does not depend on timings: the
// search compiles them in one module, which the check below compiles again from the cache.
// The search's walk and its verdict run on a target of fake kernels that spin for a time
// set by their tuning, 4× apart where the verdict is asserted, so that load on the machine
// (a stall of this process slows every run of a few rounds alike) cannot reorder them.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { autoSchedule, autoTune, handsFor, neighbours, sizeClass, type TuningTarget, type Unscheduled, variantFor } from '../../libs/image/autoschedule.ts';
import { compileKernels } from '../../libs/image/host.ts';
import { checkVariant, exportName, HAND_TUNINGS, PIPELINES, type Schedule, type Tuning, type Variant } from '../../libs/image/variants.ts';
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
    for (const pipeline of ['box3', 'harris'] as const) {
      const base: Unscheduled = { pipeline, type: 'u8', channels: 1, boundary: 'clamp' };
      for (const [schedule, tuning] of Object.entries(handsFor(base))) {
        expect(variantFor(base, tuning)).toEqual({ ...base, schedule });
        for (const t of neighbours(tuning)) {
          const v = variantFor(base, t);
          expect(() => checkVariant(v), exportName(v)).not.toThrow();
        }
      }
    }
    // Where a pipeline's hand schedule is its own (box3's opt in whole rows, Harris' slid), the common one is a tuning of that schedule's kind.
    for (const pipeline of PIPELINES) {
      const base: Unscheduled = { pipeline, type: 'u8', channels: 1, boundary: 'clamp' };
      for (const [schedule, tuning] of Object.entries(HAND_TUNINGS)) {
        if (JSON.stringify(handsFor(base)[schedule as Schedule]) === JSON.stringify(tuning)) continue;
        expect(variantFor(base, tuning)).toEqual({ ...base, schedule: ({ root: 'vec', tile: 'opt', row: 'slide' } as const)[tuning.at], tuning });
      }
    }
    expect(sizeClass(1, 1)).toEqual({ width: 1, height: 1 });
    expect(sizeClass(1023, 1025)).toEqual({ width: 1024, height: 2048 });
  });
});

describe.each(CASES)('auto on $base.pipeline $base.type', ({ base, tuning }) => {
  it('picks a schedule whose output is opt\'s at every size, and reuses it from the cache', async () => {
    const opt: Variant = { ...base, schedule: 'opt' };
    // opt's own parameters (Harris' opt slides its stages: handsFor).
    const candidates = [handsFor(base).opt!, tuning];
    const input = randomImage(base.type, 64, 48, base.channels, 5);
    const first = await autoSchedule(base, 64, 48, { retune: true, candidates, runs: 1, choicesDir, input });
    expect(first.reused).toBe(false);
    expect(first.summary).toMatch(/^auto: .*, [\d.]+ ms \((kept the fastest hand schedule: .*|[\d.]+× the speed of the fastest hand schedule, opt, .*); 2 schedules timed on the 64×48 input in \d+ s, search ended by the candidates given; cached for 64×64 u8×3\)$/);
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

/** A kernel that takes `ms` milliseconds of this thread. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** A target whose kernels spin for `cost(tuning)` ms: the search without compiles. */
function fakeTarget(name: string, cost: (t: Tuning) => number): TuningTarget {
  return {
    key: { fake: name },
    lanes512: 16,
    hands: HAND_TUNINGS,
    input: 'nothing',
    compile: async (tunings) => tunings.map((t) => ({ name: JSON.stringify(t), run: () => spin(cost(t)) })),
  };
}

describe('the search', () => {
  it('walks from the hand schedules to the fastest tuning around them', async () => {
    // A bowl around 128 × 8 tiles computed per tile with 1024-bit vectors: every step towards it 25% faster or more.
    const steps = (t: Tuning) => Math.abs(Math.log2((t.tileWidth || 4096) / 128)) + Math.abs(Math.log2(t.tileHeight / 8)) + Math.abs(Math.log2(t.vectorBits / 1024)) + (t.at === 'tile' ? 0 : 2);
    const best: Tuning = { at: 'tile', tileWidth: 128, tileHeight: 8, vectorBits: 1024 };
    const choice = await autoTune(fakeTarget('bowl', (t) => 0.4 * (1 + steps(t))), 100, 100, 'fake', { retune: true, choicesDir, runs: 5, budgetSeconds: 60 });
    expect(choice.tuning).toEqual(best);
    expect(choice.summary).toMatch(/× the speed of the fastest hand schedule, (vec|opt|slide), in a final run of \d+ rounds, turn by turn, and [\d.]+× in a second run of the two alone \(\d+ rounds\); \d+ schedules timed on nothing in \d+ s, search ended by no neighbour faster by 2%; cached for 128×128 fake\)$/);
  });

  it('keeps the fastest hand schedule unless a tuning beats it clearly', async () => {
    const tuned: Tuning = { at: 'tile', tileWidth: 64, tileHeight: 8, vectorBits: 256 };
    const candidates = [HAND_TUNINGS.vec!, HAND_TUNINGS.slide!, tuned];
    const slower = await autoTune(fakeTarget('slower', (t) => (t === tuned ? 2 : t === HAND_TUNINGS.slide ? 0.25 : 1)), 10, 10, 'fake', { retune: true, choicesDir, runs: 10, candidates });
    expect(slower).toMatchObject({ schedule: 'slide', reused: false });
    expect(slower.tuning).toBeUndefined();
    expect(slower.summary).toMatch(/^auto: strips of 32 rows, 16 lanes, stages slid row by row \(the hand schedule slide\), [\d.]+ ms \(kept the fastest hand schedule: the best tuning found \(tile 64×8, 8 lanes, stages per tile\) ran 0\.\d+× its speed in a final run of 30 rounds, turn by turn, not 3% faster; 3 schedules/);
    const faster = await autoTune(fakeTarget('faster', (t) => (t === tuned ? 0.25 : 1)), 10, 10, 'fake', { retune: true, choicesDir, runs: 10, candidates });
    expect(faster).toMatchObject({ schedule: 'opt', tuning: tuned });
  });
});
