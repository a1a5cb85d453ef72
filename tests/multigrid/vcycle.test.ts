// The V-cycle of libs/multigrid against the scalar reference (tests/multigrid/reference.ts)
// to 1e-6, the residual falling by the factor multigrid theory promises, merged and unmerged
// residual+restriction giving the same bits, and the sizes a variant refuses. Two compiles of
// six-level variants: sequential and vectorised (parallel) unmerged together, and vectorised
// merged alone (what `vcycle --size 32 --levels 6` compiles, so apps.test.ts finds it in the cache).
import { beforeAll, describe, expect, it } from 'vitest';
import { compileMultigrid, compileVariant, type Multigrid, type MgVariant, sizeProblem, variantName } from '../../libs/multigrid/host.ts';
import { residualNorm, vcycleReference } from './reference.ts';
import { random } from '../random.ts';

const LEVELS = 6;
const SEQ: MgVariant = { levels: LEVELS, schedule: 'seq', merge: false };
const VEC: MgVariant = { levels: LEVELS, schedule: 'vec', merge: false };
const VEC_MERGED: MgVariant = { levels: LEVELS, schedule: 'vec', merge: true };
let seq: Multigrid;
let vec: Multigrid;
let vecMerged: Multigrid;

beforeAll(async () => {
  const [unmerged, merged] = await Promise.all([compileMultigrid([SEQ, VEC]), compileVariant(VEC_MERGED)]);
  [seq, vec, vecMerged] = [unmerged.get(variantName(SEQ))!, unmerged.get(variantName(VEC))!, merged];
});

/** A right-hand side of values in [−1, 1) from a seeded generator, and a zero initial guess. */
function problem(n: number, seed: number): { u: Float64Array; f: Float64Array } {
  const f = new Float64Array(n * n);
  const next = random(seed);
  for (let i = 0; i < n * n; i++) f[i] = next() * 2 - 1;
  return { u: new Float64Array(n * n), f };
}

function maxDifference(a: Float64Array, b: Float64Array): { diff: number; scale: number } {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs(a[i]! - b[i]!));
    scale = Math.max(scale, Math.abs(b[i]!));
  }
  return { diff, scale };
}

describe('vcycle', () => {
  // 32: six levels down to one cell; 64 and 96: the coarsest grid is 2 × 2 and 3 × 3.
  it.each([32, 64, 96])('matches the scalar reference to 1e-6 with %i cells per side', (n) => {
    for (const mg of [seq, vec, vecMerged]) {
      const { u, f } = problem(n, n);
      const expected = u.slice();
      mg.vcycle(u, f, n, 3, 2);
      vcycleReference(expected, f, n, LEVELS, 3, 2);
      const { diff, scale } = maxDifference(u, expected);
      expect(scale).toBeGreaterThan(0);
      expect(diff).toBeLessThanOrEqual(1e-6 * scale);
      expect(Math.abs(mg.residualNorm(u, f, n) - residualNorm(u, f, n))).toBeLessThanOrEqual(1e-9 * residualNorm(u, f, n));
    }
  });

  it('reduces the residual by a factor below 0.2 per cycle (Jacobi, 2 + 2 sweeps, down to one cell)', () => {
    const n = 32;
    const { u, f } = problem(n, 7);
    let before = vecMerged.residualNorm(u, f, n);
    for (let cycle = 0; cycle < 12; cycle++) {
      vecMerged.vcycle(u, f, n, 1, 2);
      const after = vecMerged.residualNorm(u, f, n);
      expect(after / before).toBeLessThan(0.2);
      before = after;
    }
  });

  it('gives the same bits merged and unmerged, sequential and vectorised', () => {
    const n = 64;
    const runs = [seq, vec, vecMerged].map((mg) => {
      const { u, f } = problem(n, 3);
      mg.vcycle(u, f, n, 2, 3);
      const afterCycles = Buffer.from(u.slice().buffer);
      mg.firstLevel(u, f, n, 2);
      return [afterCycles, Buffer.from(u.buffer)];
    });
    for (const [cycles, first] of runs.slice(1)) {
      expect(cycles!.equals(runs[0]![0]!)).toBe(true);
      expect(first!.equals(runs[0]![1]!)).toBe(true);
    }
  });

  it('refuses sizes the levels do not divide', () => {
    expect(sizeProblem(48, LEVELS)).toMatch(/divisible by 2\^\(levels − 1\) = 32/);
    const { u, f } = problem(48, 1);
    expect(() => seq.vcycle(u, f, 48, 1, 2)).toThrow(/divisible/);
    expect(sizeProblem(0, 1)).toMatch(/from 1 to 32768/);
  });
});
