// The fuzzer, bounded for `npm test`: a fixed seed and a fixed number of mutants of the
// conformance corpus (about a minute on an idle 2-core machine), each compiled in a child
// process; every one must compile or be rejected with located errors (verdict.ts). A
// failure prints its minimised reproducer. `npm run fuzz -- --minutes N` runs longer.
// The reproducers of failures found so far are in regressions/ and must pass too; those
// of bugs still open are in open/ and must still fail.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkSources, fuzz } from './runner.ts';
import { isFailure, signature } from './verdict.ts';

const MUTANTS = Number(process.env.FUZZ_MUTANTS ?? 1000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const here = path.dirname(fileURLToPath(import.meta.url));
const regressionsDir = path.join(here, 'regressions');
const openDir = path.join(here, 'open');

describe('the mutation fuzzer', () => {
  it(`finds no internal error, crash, hang or unlocated error in ${MUTANTS} mutants (seed ${SEED})`, async () => {
    const stats = await fuzz({ seed: SEED, maxMutants: MUTANTS, timeoutMs: 30_000, minimiseMs: 20_000 });
    const report = stats.failures.map((f) => `${f.signature}\n  mutant ${f.index} of ${f.origin}, minimised:\n${f.minimised}`).join('\n\n');
    expect(report).toBe('');
    expect(stats.mutants).toBe(MUTANTS);
    // Mutants that still compile reach the evaluator and the backend, not only the parser.
    expect(stats.outcomes.compiled ?? 0).toBeGreaterThan(MUTANTS / 50);
  }, 600_000);

  it('passes on every reproducer of an earlier failure (regressions/)', async () => {
    const files = readdirSync(regressionsDir).filter((f) => f.endsWith('.impala')).sort();
    const verdicts = await checkSources(files.map((f) => readFileSync(path.join(regressionsDir, f), 'utf8')));
    const failures = files.flatMap((f, i) => {
      const v = verdicts[i]!;
      return isFailure(v) ? [`${f}: ${signature(v)}`] : [];
    });
    expect(failures).toEqual([]);
    expect(files.length).toBeGreaterThan(0);
  }, 600_000);

  // Failures found and not fixed yet: each must still fail, so a fix is noticed and its
  // reproducer moved to regressions/.
  it('still fails on the reproducers of open bugs (open/)', async () => {
    const files = readdirSync(openDir).filter((f) => f.endsWith('.impala')).sort();
    const verdicts = await checkSources(files.map((f) => readFileSync(path.join(openDir, f), 'utf8')));
    const fixed = files.filter((_, i) => !isFailure(verdicts[i]!));
    expect(fixed, 'these pass now: move them to regressions/').toEqual([]);
  }, 600_000);
});
