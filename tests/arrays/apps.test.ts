// The life and pde1 commands as a user runs them: .cells in and out, a random board, a
// picture, PDE1's report; bad input is one line naming the problem, exit status 1, nothing written.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCells } from '../../apps/life/src/cells.ts';
import { main as life } from '../../apps/life/src/life.ts';
import { main as pde1 } from '../../apps/life/src/pde1.ts';
import { runApp } from '../image/support.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'arrays-apps-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('life', () => {
  it('moves a glider read from .cells one cell diagonally in 4 generations and writes .cells and a PNG', async () => {
    const input = path.join(dir, 'glider.cells');
    await writeFile(input, '!Name: Glider\n!A comment\n.O\n..O\nOOO\n.....\n.....\n');
    const out = path.join(dir, 'out.cells');
    const png = path.join(dir, 'out.png');
    const r = await runApp(life, ['--input', input, '--steps', '4', '--output', out, '--png', png, '--schedule', 'seq']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/4 generations of a 5×5 torus \(seq\): 5 cells alive at the start, 5 at the end/);
    const text = await readFile(out, 'utf8');
    expect(text.split('\n').filter((l) => !l.startsWith('!'))).toEqual(['.....', '..O..', '...O.', '.OOO.', '.....', '']);
    expect((await readFile(png)).subarray(1, 4).toString()).toBe('PNG');
  });

  it('runs a random board given by --size and --seed the same way twice', async () => {
    const a = path.join(dir, 'a.cells');
    const b = path.join(dir, 'b.cells');
    expect((await runApp(life, ['--size', '12', '--seed', '5', '--steps', '3', '-o', a])).code).toBe(0);
    expect((await runApp(life, ['--size', '12', '--seed', '5', '--steps', '3', '-o', b])).code).toBe(0);
    expect(await readFile(a, 'utf8')).toBe(await readFile(b, 'utf8'));
    expect(parseCells(await readFile(a, 'utf8'), a).width).toBe(12);
  });

  it('reports bad input in one line with exit status 1 and writes nothing', async () => {
    const bad = path.join(dir, 'bad.cells');
    await writeFile(bad, '!ok\n.O.\n.X.\n');
    const out = path.join(dir, 'never.cells');
    const cases: [string[], RegExp][] = [
      [['--input', bad, '-o', out], /bad\.cells:3:2: 'X' is not a cell/],
      [['--input', path.join(dir, 'missing.cells'), '-o', out], /cannot read .*missing\.cells': no such file/],
      [['--input', bad, '--size', '4', '-o', out], /either --input <file.cells> or --size <n>/],
      [['--size', '4', '-o', path.join(dir, 'x.txt')], /'\.txt' is not an output format/],
      [['--size', '0'], /--size.*must be an integer from 1/],
      [['--size', '4', '--schedule', 'fast'], /argument 'fast' is invalid/],
    ];
    for (const [args, message] of cases) {
      const r = await runApp(life, args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.err, args.join(' ')).toMatch(message);
    }
    expect(existsSync(out)).toBe(false);
    expect(() => parseCells('!only comments\n', 'empty.cells')).toThrow(/empty\.cells: no cells/);
  });
});

describe('pde1', () => {
  it('relaxes toward the exact solution: the error falls with more iterations', async () => {
    const error = async (iterations: number) => {
      const r = await runApp(pde1, ['--size', '9', '--iterations', String(iterations), '--schedule', 'seq']);
      expect(r.code).toBe(0);
      return Number(/exact solution: (\S+)/.exec(r.out)![1]);
    };
    const [e1, e50] = [await error(1), await error(50)];
    expect(e50).toBeLessThan(e1 / 5);
    const r = await runApp(pde1, ['--size', '2']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/--size.*must be an integer from 3/);
  });
});
