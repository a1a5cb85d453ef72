// The StagedSAC programs on libs/arrays against the TypeScript reference: Game of Life
// (blinker, glider, a random board) and PDE1, under the plain and the best schedule; and the
// LLVM IR of a chain of three with-loops: one loop nest and no temporary when fused.
import { describe, expect, it } from 'vitest';
import { compileToLLVM } from '../../compiler/src/driver/pipeline.ts';
import { compileLife, compilePde1, compileTransposes, librarySources, TRANSPOSES } from '../../libs/arrays/host.ts';
import { formatCells, parseCells } from '../../apps/life/src/cells.ts';
import { random } from '../random.ts';
import * as ref from './reference.ts';

const SCHEDULES = ['seq', 'opt'] as const;

function board(text: string) {
  return parseCells(text, 'test.cells');
}

describe.each(SCHEDULES)('Game of Life, schedule %s', (schedule) => {
  it('a blinker turns and turns back; a glider moves one cell diagonally in 4 generations; a random board follows the reference', async () => {
    const life = await compileLife(schedule);
    const blinker = board('.....\n..O..\n..O..\n..O..\n.....\n');
    const turned = { ...blinker, cells: life.step(blinker.cells, 5, 5, 1) };
    expect(formatCells(turned)).toBe('.....\n.....\n.OOO.\n.....\n.....\n');
    expect(life.step(blinker.cells, 5, 5, 2)).toEqual(blinker.cells);

    // The glider crosses the edges of the torus on the way.
    const glider = board('.O......\n..O.....\nOOO.....\n........\n........\n........\n');
    const moved = board('........\n..O.....\n...O....\n.OOO....\n........\n........\n');
    expect(formatCells({ ...glider, cells: life.step(glider.cells, 8, 6, 4) })).toBe(formatCells(moved));
    const across = { ...glider, cells: life.step(glider.cells, 8, 6, 4 * 24) };
    expect(across.cells).toEqual(glider.cells);

    // Odd sizes (not a multiple of the vector width), a 1-cell-wide torus, and a board
    // large enough for opt's threads.
    for (const [w, h, steps] of [[37, 23, 9], [1, 7, 3], [17, 1, 2], [201, 190, 3]] as const) {
      const next = random(w * 1000 + h);
      const cells = Uint8Array.from({ length: w * h }, () => (next() < 0.4 ? 1 : 0));
      let expected: Uint8Array = cells;
      for (let s = 0; s < steps; s++) expected = ref.lifeStep(expected, w, h);
      expect(life.step(cells, w, h, steps), `${w}×${h}, ${steps} steps`).toEqual(expected);
    }
  });
});

describe.each(SCHEDULES)('PDE1, schedule %s', (schedule) => {
  it('matches the scalar reference to 1e-6 (relative)', async () => {
    const pde1 = await compilePde1(schedule);
    // 34³ has more than opt's grain of 2^15 interior points: its threaded branch runs too.
    for (const [n, iterations] of [[3, 1], [9, 3], [14, 2], [34, 1]] as const) {
      const next = random(n);
      const u = Float64Array.from({ length: n ** 3 }, () => next());
      const f = Float64Array.from({ length: n ** 3 }, () => next() * 10 - 5);
      const expected = ref.pde1(u, f, n, iterations);
      const actual = pde1.run(u, f, n, iterations);
      const scale = Math.max(...expected.map(Math.abs));
      const worst = Math.max(...actual.map((v, i) => Math.abs(v - expected[i]!)));
      expect(worst / scale, `n = ${n}, ${iterations} iterations`).toBeLessThan(1e-6);
      // Something happened: the interior changed.
      expect(actual).not.toEqual(u);
    }
  });
});

describe('transpose (the seed\'s Figure 9)', () => {
  it('tiled, untiled and with the rank known only at run time, on sizes that are no multiple of the tile', async () => {
    const transposes = await compileTransposes();
    for (const [rows, cols] of [[1, 1], [3, 70], [65, 33]] as const) {
      const a = Float32Array.from({ length: rows * cols }, (_, i) => i * 0.5 - 7);
      const expected = ref.transpose({ shape: [rows, cols], data: [...a] }).data;
      for (const kind of TRANSPOSES) expect([...transposes[kind].run(a, rows, cols)], `${kind} ${rows}×${cols}`).toEqual(expected);
    }
  });
});

/** The body of `define ... @name(` up to its closing brace. */
function llvmFunction(llvm: string, name: string): string {
  const start = llvm.search(new RegExp(`^define [^\\n]*@${name}\\(`, 'm'));
  expect(start, `function ${name}`).toBeGreaterThanOrEqual(0);
  return llvm.slice(start, llvm.indexOf('\n}\n', start) + 2);
}

/** Loops in a function: branches to a block at or above the branching one (back edges). */
function backEdges(fn: string): number {
  const labels: string[] = ['entry'];
  let edges = 0;
  for (const line of fn.split('\n').slice(1)) {
    const label = /^([\w.]+):/.exec(line);
    if (label) labels.push(label[1]!);
    for (const m of line.matchAll(/label %([\w.]+)/g)) if (labels.includes(m[1]!)) edges++;
  }
  return edges;
}

describe('with-loop folding in the LLVM IR', () => {
  const chain = (fused: boolean) => `
extern fn chain_${fused ? 'fused' : 'unfused'}(a: &[i32], out: &mut [i32], t1: &mut [i32], t2: &mut [i32], n0: i32, n1: i32) -> () {
    let s = sac::shape2(n0, n1);
    let keep = |x: sac::Arr[i32], t: &mut [i32]| ${fused ? 'x' : 'sac::force(sac::seq_sched(), x, t)'};
    let x = sac::view(s, a);
    let b = keep(sac::genarray(s, 0, sac::part(sac::gen_all(s), |iv| sac::sel(iv, x) + 1)), t1);
    let c = keep(sac::modarray(b, sac::part(sac::gen_all(s), |iv| sac::sel(iv, b) * sac::sel(iv, x))), t2);
    sac::store(sac::seq_sched(), sac::genarray(s, 0, sac::part(sac::gen_all(s), |iv| sac::sel(iv, c) - 3)), out)
}`;

  it('a chain of three with-loops stored once is one loop nest (two loops for rank 2) with no temporary; forced, three nests', () => {
    const result = compileToLLVM([...librarySources(), { path: 'chain.impala', text: chain(true) + chain(false) }], { optLevel: 3 });
    expect(result.ok, result.ok ? '' : result.diagnostics.map((d) => d.message).join('\n')).toBe(true);
    if (!result.ok) return;
    const fused = llvmFunction(result.llvm, 'chain_fused');
    expect(backEdges(fused)).toBe(2);
    const body = fused.slice(fused.indexOf('\n'));
    expect(body).not.toMatch(/\balloca\b|@anydsl_alloc|@malloc|%t1|%t2/);
    // One store per element, into out; the loads are of a only.
    expect(fused.match(/\bstore\b/g)).toHaveLength(1);
    const unfused = llvmFunction(result.llvm, 'chain_unfused');
    expect(backEdges(unfused)).toBe(6);
    expect(unfused.match(/\bstore\b/g)).toHaveLength(3);
  });
});
