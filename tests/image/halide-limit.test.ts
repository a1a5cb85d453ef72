// The limit on generating a Halide kernel (bench/image/references.ts `generateWithin`, behind
// bench/image's --halide-limit): a generator still running at the limit is killed and said to
// have timed out, one that fails is said to have failed, and what each printed is in the log.
// Fake generators (shell and node one-liners) stand in for halide_pipelines, so this runs in well under a
// second and without Halide.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { generateWithin } from '../../bench/image/references.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'anydsl-halide-limit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A generator that prints `script`'s output; `node -e`. */
const fake = (script: string): [string, string[]] => [process.execPath, ['-e', script]];

it('kills a generator at the limit and says it timed out', async () => {
  const log = path.join(dir, 'slow.txt');
  const started = performance.now();
  // Prints its pid and then searches for far longer than the limit, as Adams2019 does on a
  // pipeline of hundreds of stages (a shell that starts in a millisecond, so it has printed
  // before the limit even on a loaded machine, and becomes `sleep` in the same process).
  const result = await generateWithin('sh', ['-c', 'echo $$; exec sleep 60'], log, 300);
  expect(result).toBe('timed out');
  expect(performance.now() - started).toBeLessThan(10_000);
  const [pid, ...rest] = readFileSync(log, 'utf8').trim().split('\n');
  expect(rest.join('\n')).toMatch(/killed after 0\.005 min: the limit on generating a kernel$/);
  expect(() => process.kill(Number(pid), 0)).toThrow(/ESRCH/);
});

it('tells a failing generator from one that finishes, with or without a limit', async () => {
  const failing = path.join(dir, 'failing.txt');
  expect(await generateWithin(...fake('console.error("no schedule found"); process.exit(3)'), failing, 60_000)).toBe('failed');
  expect(readFileSync(failing, 'utf8')).toBe('no schedule found\n');
  const missing = path.join(dir, 'missing.txt');
  expect(await generateWithin(path.join(dir, 'no-such-generator'), [], missing, 60_000)).toBe('failed');
  expect(readFileSync(missing, 'utf8')).toMatch(/ENOENT/);
  const done = path.join(dir, 'done.txt');
  expect(await generateWithin(...fake('console.log("schedule chosen")'), done, 60_000)).toBe('done');
  expect(readFileSync(done, 'utf8')).toBe('schedule chosen\n');
  // 0 is no limit: a generator slower than a small limit still finishes.
  expect(await generateWithin(...fake('setTimeout(() => console.log("late"), 400)'), done, 0)).toBe('done');
  expect(readFileSync(done, 'utf8')).toBe('late\n');
});
