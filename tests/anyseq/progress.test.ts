// Progress on long alignments: the pass kernels count the cells they relax into host memory
// while they run on a worker thread (scoreAsync/alignAsync), the count reaches the cells
// planned (plannedCells, refined by the traceback) whatever the schedule, a 16-bit pass redone
// at 32 bits counts once, and the app's progress line appears when forced on.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as align } from '../../apps/align/src/cli.ts';
import { workProgress } from '../../apps/shared/cli.ts';
import { type Aligner, type AlignerOptions, type AlignParams, AlignProgress, compileAligners, plannedCells } from '../../libs/anyseq/host.ts';
import { DNA_ALPHABET, simpleSubstitution } from '../../libs/anyseq/scoring.ts';
import { random } from '../random.ts';
import { runApp, scratch } from './support.ts';

const variants: AlignerOptions[] = [
  { mode: 'local', gaps: 'affine', substitution: 'simple', schedule: 'simd' },
  { mode: 'global', gaps: 'affine', substitution: 'simple', schedule: 'wavefront', width: 32, traceback: false },
];
let aligners: Aligner[] = [];
beforeAll(async () => {
  aligners = await compileAligners(variants);
}, 1_200_000);

const next = random(1606);
const seq = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(next() * 4));
/** A copy of `q` with every tenth residue changed, so that the pair aligns along the diagonal. */
const related = (q: Uint8Array) => q.map((c, i) => (i % 10 === 3 ? (c + 1) % 4 : c));
const params = (progress: AlignProgress, match = 2, mismatch = -3): AlignParams => ({ gaps: { kind: 'affine', open: 5, extend: 2 }, sub: simpleSubstitution(DNA_ALPHABET, match, mismatch), threads: 2, progress });

describe('the cell counter', () => {
  it('a score pass on a worker thread counts every cell once, the result that of the pass on this thread', async () => {
    // 6000 × 3000 cells: above the size that goes to a worker thread.
    const q = seq(6000);
    const t = related(q.subarray(1000, 4000));
    const progress = new AlignProgress();
    progress.planned = plannedCells(q.length, t.length, 'local', false);
    const got = await aligners[0]!.scoreAsync(q, t, params(progress));
    expect(progress.done).toBe(q.length * t.length);
    expect(progress.done).toBe(progress.planned);
    expect(got).toEqual(aligners[0]!.score(q, t, params(new AlignProgress())));
  });

  it('a 16-bit pass redone at 32 bits counts its cells once', async () => {
    // Equal sequences scoring 100 a residue leave the 16-bit range.
    const q = seq(500);
    const progress = new AlignProgress();
    const got = await aligners[0]!.scoreAsync(q, q, params(progress, 100, -100));
    expect(got.width).toBe(32);
    expect(progress.done).toBe(q.length * q.length);
  });

  it('a traceback (score, anchored and Hirschberg passes, full-matrix base cases) ends with done equal to the refined plan', async () => {
    const q = seq(2500);
    const t = related(q.subarray(300, 2200));
    const progress = new AlignProgress();
    progress.planned = plannedCells(q.length, t.length, 'local', true);
    const got = await aligners[0]!.alignAsync(q, t, params(progress));
    expect(got).toEqual(aligners[0]!.align(q, t, params(new AlignProgress())));
    expect(progress.done).toBe(progress.planned);
    // Hirschberg's passes cover about twice the alignment's rectangle.
    const area = q.length * t.length;
    expect(progress.done).toBeGreaterThan(area + (got.endQ - got.beginQ) * (got.endT - got.beginT));
    expect(progress.done).toBeLessThanOrEqual(plannedCells(q.length, t.length, 'local', true));
  });

  it('the wavefront counts whole diagonals of tiles, on a worker thread too', async () => {
    // 9 × 4 tiles of 128 rows × 4096 columns, the last ones partial; above the size that goes to a worker thread.
    const q = seq(1100);
    const t = seq(16000);
    const progress = new AlignProgress();
    const got = await aligners[1]!.scoreAsync(q, t, params(progress));
    expect(progress.done).toBe(q.length * t.length);
    expect(got).toEqual(aligners[1]!.score(q, t, params(new AlignProgress())));
  });
});

describe('the progress line', () => {
  it('with always and no terminal: a plain line every period and one at the end', async () => {
    let err = '';
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
    try {
      let done = 0;
      const line = workProgress('aligning', { read: () => ({ done, total: 4e9 }), unit: 'cells', rate: { name: 'GCUPS', per: 1e9 } }, 'always', 20);
      done = 1e9;
      await new Promise((resolve) => setTimeout(resolve, 120));
      done = 4e9;
      line.stop();
    } finally {
      spy.mockRestore();
    }
    const lines = err.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/^aligning 25\.0% 1\.00 G of 4\.00 G cells, [\d.]+ GCUPS, ETA [\d.]+s$/);
    expect(lines.at(-1)).toMatch(/^aligning: 4\.00 G cells in [\d.]+s, [\d.]+ GCUPS$/);
  });

  it('never and auto without a terminal draw nothing', () => {
    const spy = vi.spyOn(process.stderr, 'write');
    try {
      for (const when of ['never', 'auto'] as const) workProgress('x', { read: () => ({ done: 0, total: 1 }), unit: 'cells', rate: { name: 'GCUPS', per: 1e9 } }, when, 1).stop();
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  const tmp = scratch('anyseq-progress-');
  afterAll(() => rmSync(tmp.dir, { recursive: true, force: true }));

  it('align --progress always reports the cells of a pair', async () => {
    const q = seq(700);
    const letters = (s: Uint8Array) => Array.from(s, (c) => 'ACGT'[c]).join('');
    const a = tmp.file('a.fa', `>a\n${letters(q)}\n`);
    const b = tmp.file('b.fa', `>b\n${letters(related(q))}\n`);
    const r = await runApp(align, [a, b, '--mode', 'local', '--progress', 'always', '--format', 'tsv']);
    expect(r.code).toBe(0);
    // Score, anchored pass and Hirschberg's passes over the whole 700 × 700 alignment.
    expect(r.err).toMatch(/^aligning 1 pair, local, affine, with traceback: [\d.]+ M cells in [\d.]+s, [\d.]+ GCUPS$/m);
  });
});
