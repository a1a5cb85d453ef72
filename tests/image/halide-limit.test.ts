// The time limit of bench/shared/native.ts `exec`, behind bench/image's --halide-limit (the
// Halide generator in references.ts, halide_camera in camera.ts): a process still running at
// the limit is killed and said to have timed out, one that fails is said to have failed, and
// what each printed is kept. Fake generators (shell and node one-liners) stand in for
// Halide's, so this runs in well under a second and without Halide.
import { expect, it } from 'vitest';
import { killedEarlier, killedLine } from '../../bench/image/references.ts';
import { exec } from '../../bench/shared/native.ts';

/** A generator that runs `script`; `node -e`. */
const fake = (script: string): [string, string[]] => [process.execPath, ['-e', script]];

it('kills a process at the limit and says it timed out', async () => {
  const started = performance.now();
  // Prints its pid and then searches for far longer than the limit, as Adams2019 does on a
  // pipeline of hundreds of stages (a shell that starts in a millisecond, so it has printed
  // before the limit even on a loaded machine, and becomes `sleep` in the same process).
  const r = await exec('sh', ['-c', 'echo $$; exec sleep 60'], { limitMs: 300 });
  expect(r).toMatchObject({ ok: false, timedOut: true });
  expect(performance.now() - started).toBeLessThan(10_000);
  expect(() => process.kill(Number(r.stdout.trim()), 0)).toThrow(/ESRCH/);
});

it('tells a failing process from one that finishes, with or without a limit', async () => {
  const failing = await exec(...fake('console.error("no schedule found"); process.exit(3)'), { limitMs: 60_000 });
  expect(failing).toEqual({ ok: false, stdout: '', stderr: 'no schedule found\n', timedOut: false });
  const missing = await exec('/nonexistent/no-such-generator', [], { limitMs: 60_000 });
  expect(missing).toMatchObject({ ok: false, timedOut: false });
  expect(missing.stderr).toMatch(/ENOENT/);
  expect(await exec(...fake('console.log("schedule chosen")'), { limitMs: 60_000 })).toEqual({ ok: true, stdout: 'schedule chosen\n', stderr: '', timedOut: false });
  // 0 is no limit: a process slower than a small limit still finishes.
  expect(await exec(...fake('setTimeout(() => console.log("late"), 400)'), { limitMs: 0 })).toEqual({ ok: true, stdout: 'late\n', stderr: '', timedOut: false });
});

it('remembers a generation killed at a limit: no higher limit starts it again, a higher one or none does', () => {
  const log = `Adams2019: searching…\n${killedLine(10)}`;
  expect(killedEarlier(log, 10)).toBe(10);
  expect(killedEarlier(log, 0.5)).toBe(10);
  expect(killedEarlier(log, 12)).toBeUndefined();
  expect(killedEarlier(log, 0)).toBeUndefined();
  expect(killedEarlier(`Adams2019: searching…\n${killedLine(0.2)}`, 0.2)).toBe(0.2);
  // A log of a generation that finished, or failed, says nothing about the limit.
  expect(killedEarlier('schedule chosen\n', 10)).toBeUndefined();
  expect(killedEarlier('error: out of memory\n', 10)).toBeUndefined();
});
