// The C and NumPy references of bench/arrays (built and run where clang-19's OpenMP and
// python3-numpy are installed, skipped with the packages to install otherwise) against the
// TypeScript references on tiny inputs: the V-cycle (full and first level alone, merged and
// not), a blinker and a glider in Game of Life on a torus, and PDE1 by its definition.
import { describe, expect, it } from 'vitest';
import { type Impl, IMPLS, relativeDifference, runReference } from '../../bench/arrays/references.ts';
import { byFile, missingPackages } from '../../bench/shared/native.ts';
import { pde1 } from '../arrays/reference.ts';
import { residualNorm, vcycleReference } from './reference.ts';
import { random } from '../random.ts';

const PACKAGES: Record<Impl, string[]> = {
  c: await missingPackages([byFile('libomp-19-dev', '/usr/lib/llvm-19/lib/clang/19/include/omp.h')]),
  numpy: await missingPackages([byFile('python3-numpy', '/usr/lib/python3/dist-packages/numpy/__init__.py')]),
};

function randomField(count: number, seed: number): Float64Array {
  const next = random(seed);
  return new Float64Array(count).map(() => next() * 2 - 1);
}

function board(width: number, height: number, alive: [number, number][]): Uint8Array {
  const b = new Uint8Array(width * height);
  for (const [x, y] of alive) b[y * width + x] = 1;
  return b;
}

describe.each(IMPLS)('the %s reference', (impl) => {
  const skip = PACKAGES[impl].length > 0;
  const note = skip ? ` (skipped: needs apt-get install ${PACKAGES[impl].join(' ')})` : '';

  it.skipIf(skip)(`runs the V-cycle as the TypeScript reference does${note}`, async () => {
    const n = 16;
    const levels = 5;
    const rhs = randomField(n * n, 5);
    const expected = new Float64Array(n * n);
    vcycleReference(expected, rhs, n, levels, 2, 2);
    for (const merge of [false, true]) {
      const r = await runReference('vcycle', impl, { rhs, n, levels, cycles: 2, ssteps: 2, merge }, 1);
      expect(relativeDifference(r.output.solution, expected)).toBeLessThan(1e-12);
      expect(r.output.norms).toHaveLength(3);
      expect(Math.abs(r.output.norms[2]! - residualNorm(expected, rhs, n))).toBeLessThan(1e-9 * r.output.norms[2]!);
    }
    const first = await runReference('vcycle', impl, { rhs, n, levels: 2, cycles: 1, ssteps: 2, merge: true, firstLevel: true }, 2);
    const firstExpected = new Float64Array(n * n);
    vcycleReference(firstExpected, rhs, n, 1, 1, 4);
    expect(first.times).toHaveLength(2);
    expect(relativeDifference(first.output.solution, firstExpected)).toBeLessThan(1e-12);
  });

  it.skipIf(skip)(`steps Life on a torus: a blinker, and a glider that wraps${note}`, async () => {
    const blinker = await runReference('life', impl, { board: board(5, 5, [[1, 2], [2, 2], [3, 2]]), width: 5, height: 5, steps: 1 }, 1);
    expect([...blinker.output]).toEqual([...board(5, 5, [[2, 1], [2, 2], [2, 3]])]);
    // A glider moves one cell down and right every 4 generations; after 24 on an 6 × 6 torus it is back.
    const glider = board(6, 6, [[1, 0], [2, 1], [0, 2], [1, 2], [2, 2]]);
    const back = await runReference('life', impl, { board: glider, width: 6, height: 6, steps: 24 }, 1);
    expect([...back.output]).toEqual([...glider]);
    const moved = await runReference('life', impl, { board: glider, width: 6, height: 6, steps: 4 }, 1);
    expect([...moved.output]).toEqual([...board(6, 6, [[2, 1], [3, 2], [1, 3], [2, 3], [3, 3]])]);
  });

  it.skipIf(skip)(`relaxes PDE1 as its definition says${note}`, async () => {
    const n = 7;
    const u = randomField(n ** 3, 1);
    const f = randomField(n ** 3, 2);
    const r = await runReference('pde1', impl, { u, f, n, iterations: 2 }, 1);
    expect(relativeDifference(r.output, pde1(u, f, n, 2))).toBeLessThan(1e-14);
  });
});
