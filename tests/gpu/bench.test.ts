// `npm run bench:gpu` (bench/gpu/run.ts) where there is no NVIDIA GPU: one line saying so and
// exit status 0, before building anything; bad flags are one line, exit 1; --help prints the
// script's header comment.
// Skipped where a CUDA device is present (the script would run the whole benchmark there).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deviceMissing } from '../image/gpu-cases.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const missing = await deviceMissing('cuda');

function bench(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'bench', 'gpu', 'run.ts'), ...args], { cwd: root, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('bench:gpu', () => {
  it.skipIf(missing === null)(`is one line and exit 0 without an NVIDIA GPU${missing === null ? ' (skipped: a CUDA device is present)' : ''}`, () => {
    const r = bench([]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^bench:gpu: nothing to measure without an NVIDIA GPU: no CUDA: [^\n]*install[^\n]*\n$/);
  });

  it('refuses a bad size in one line, and --help prints its header comment', () => {
    const r = bench(['--size', '12']);
    expect(r).toEqual({ code: 1, out: '', err: "bench:gpu: --size must be WxH with positive numbers, not '12'\n" });
    const help = bench(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^The GPU benchmark \(issue 12\)[\s\S]*npm run bench:gpu -- \[--size 3840x2160\][\s\S]*--build +build the Halide CUDA objects/);
  });
});
