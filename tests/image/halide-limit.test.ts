// The time limit of bench/shared/native.ts `exec`, behind bench/image's --halide-limit (the
// Halide generator in references.ts, halide_camera in camera.ts): a process still running at
// the limit is killed and said to have timed out, one that fails is said to have failed, and
// what each printed is kept; the line a generator's log ends with records either outcome, so
// that a later run does not start it again. Fake generators (shell and node one-liners) stand
// in for Halide's, so this runs in well under a second and without Halide.
import { expect, it } from 'vitest';
import { earlierOutcome, lastLine, outcomeLine } from '../../bench/image/references.ts';
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
  expect(failing).toEqual({ ok: false, stdout: '', stderr: 'no schedule found\n', timedOut: false, status: 3 });
  const missing = await exec('/nonexistent/no-such-generator', [], { limitMs: 60_000 });
  expect(missing).toMatchObject({ ok: false, timedOut: false });
  expect(missing.stderr).toMatch(/ENOENT/);
  expect(await exec(...fake('console.log("schedule chosen")'), { limitMs: 60_000 })).toEqual({ ok: true, stdout: 'schedule chosen\n', stderr: '', timedOut: false, status: 0 });
  // 0 is no limit: a process slower than a small limit still finishes.
  expect(await exec(...fake('setTimeout(() => console.log("late"), 400)'), { limitMs: 0 })).toEqual({ ok: true, stdout: 'late\n', stderr: '', timedOut: false, status: 0 });
});

it('remembers a generation killed at a limit: no higher limit starts it again, a higher one or none does', () => {
  const log = `Adams2019: searching…\n${outcomeLine({ killedAfter: 10 })}`;
  expect(earlierOutcome(log, 10)).toEqual({ killedAfter: 10 });
  expect(earlierOutcome(log, 0.5)).toEqual({ killedAfter: 10 });
  expect(earlierOutcome(log, 12)).toBeUndefined();
  expect(earlierOutcome(log, 0)).toBeUndefined();
  expect(earlierOutcome(`Adams2019: searching…\n${outcomeLine({ killedAfter: 0.2 })}`, 0.2)).toEqual({ killedAfter: 0.2 });
  // A log of a generation that finished, or of one killed by someone else, says nothing.
  expect(earlierOutcome('schedule chosen\n', 10)).toBeUndefined();
  expect(earlierOutcome('Killed\n', 10)).toBeUndefined();
});

it('remembers a generator that stopped by itself, under any limit', () => {
  const log = `Error: Can only unroll for loops over a constant extent.\n${outcomeLine({ failed: 'SIGABRT' })}`;
  for (const limit of [0, 0.2, 10, 1000]) expect(earlierOutcome(log, limit)).toEqual({ failed: 'SIGABRT' });
  expect(earlierOutcome(outcomeLine({ failed: 'exit status 2' }), 10)).toEqual({ failed: 'exit status 2' });
});

it('tells the exit status and the signal that ended a process', async () => {
  expect(await exec(...fake('process.exit(3)'))).toMatchObject({ ok: false, status: 3 });
  const aborted = await exec('sh', ['-c', 'kill -ABRT $$']);
  expect(aborted).toMatchObject({ ok: false, signal: 'SIGABRT', timedOut: false });
  expect(aborted.status).toBeUndefined();
});

it('shows the error of a failing reference once, not once per run', () => {
  // Halide's error handler gets each run's message without a newline.
  const message = 'Total allocation for buffer repeat_edge is 23534871360, which exceeds the maximum size of 2147483647';
  expect(lastLine(`loading\n${message.repeat(10)}the Halide kernel failed with status -5\n`)).toBe(`${message}; the Halide kernel failed with status -5`);
  expect(lastLine('first\ncannot load kernel.so: no such file\n')).toBe('cannot load kernel.so: no such file');
});
