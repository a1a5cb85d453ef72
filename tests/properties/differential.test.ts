// The acceptance property of the partial evaluator: generated well-typed
// programs print the same bytes when interpreted right after emission, after
// partial evaluation, after the transform pipeline, and as native code.
//
// 25 batches of 40 generated functions (1000 per run) by default; each batch is
// one module and one native build. Batch b is drawn from seed PROPERTY_SEED + b,
// so a failure names the one batch to re-run:
//   PROPERTY_SEED=n        base seed (default fixed, for reproducible CI)
//   PROPERTY_BATCHES=n     number of batches      PROPERTY_BATCH_SIZE=n  functions per batch
//   PROPERTY_BATCH=b       run only batch b       PROPERTY_REDUCE_MS=n   time to shrink a failure
// A failure reports the stage that disagreed, the first differing output line,
// and a reproducer shrunk from the batch (reduce.ts). README.md lists what the
// generator covers and what it leaves out.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type Case, printCase, reductions, weight, wellScoped } from './ast.ts';
import { caseArbitrary } from './generate.ts';
import { reproduce } from './reduce.ts';
import { batchSource, type Failure, interpretStages, nativeStage, removeScratch } from './stages.ts';

const SEED = Number(process.env.PROPERTY_SEED ?? 20_261_121);
const BATCHES = Number(process.env.PROPERTY_BATCHES ?? 25);
const BATCH_SIZE = Number(process.env.PROPERTY_BATCH_SIZE ?? 40);
const ONLY = process.env.PROPERTY_BATCH === undefined ? null : Number(process.env.PROPERTY_BATCH);
const REDUCE_MS = Number(process.env.PROPERTY_REDUCE_MS ?? 120_000);
/** Native builds in flight while the next batch is interpreted: clang runs beside the (synchronous) compiler. */
const NATIVE_IN_FLIGHT = 2;

function batch(b: number): Case[] {
  return fc.sample(caseArbitrary, { seed: SEED + b, numRuns: BATCH_SIZE });
}

async function report(b: number, cases: readonly Case[], failure: Failure): Promise<string> {
  const head = `batch ${b} of seed ${SEED} failed (re-run: PROPERTY_SEED=${SEED} PROPERTY_BATCH=${b})\n${failure.kind}: ${failure.detail}`;
  const r = await reproduce(cases, failure, REDUCE_MS);
  if (!r) return `${head}\nthe failure did not come back on a re-run; the whole program:\n${batchSource(cases)}`;
  const alone = r.failingAlone.length ? `cases failing on their own: ${r.failingAlone.join(', ')}` : 'no case fails on its own';
  return (
    `${head}\n\n${alone}; reproducer with case${r.ids.length > 1 ? 's' : ''} ${r.ids.join(', ')}, shrunk in ${r.steps} steps:\n` +
    `${r.source}\n${r.failure.kind}: ${r.failure.detail}`
  );
}

afterAll(removeScratch);

describe('differential testing of the stages', () => {
  it(`emitted, evaluated, optimised and native code agree on ${ONLY === null ? BATCHES * BATCH_SIZE : BATCH_SIZE} generated functions`, async () => {
    const failures: string[] = [];
    const inFlight: Promise<void>[] = [];
    let checked = 0;
    for (const b of ONLY === null ? Array.from({ length: BATCHES }, (_, i) => i) : [ONLY]) {
      if (failures.length) break;
      const cases = batch(b);
      const outcome = interpretStages(batchSource(cases), cases, cases.map((_, i) => i));
      if (outcome.failure) {
        failures.push(await report(b, cases, outcome.failure));
        break;
      }
      inFlight.push(
        nativeStage(outcome.llvm, outcome.expected).then(async (f) => {
          if (f) failures.push(await report(b, cases, f));
          else checked += cases.length;
        }),
      );
      if (inFlight.length >= NATIVE_IN_FLIGHT) await inFlight.shift();
    }
    await Promise.all(inFlight);
    expect(failures, failures[0]).toEqual([]);
    expect(checked).toBe(ONLY === null ? BATCHES * BATCH_SIZE : BATCH_SIZE);
  }, 1_800_000);
});

describe('the generator', () => {
  const sample = fc.sample(caseArbitrary, { seed: SEED, numRuns: 300 });
  const text = sample.map((c) => printCase(c, '')).join('\n');

  it('is deterministic for a seed', () => {
    const again = fc.sample(caseArbitrary, { seed: SEED, numRuns: 300 });
    expect(again.map((c) => printCase(c, '')).join('\n')).toBe(text);
  });

  it('uses every feature the property is about', () => {
    const features: Record<string, RegExp> = {
      'i64 arithmetic': /i64 [-+*] /,
      'small integer types': /\d+i8 [-+*&|^] [\s\S]*\d+u16 [-+*&|^] /,
      'u64 and f32 values': /\d+u64[\s\S]*\d\.\d+f\b/,
      'u32 arithmetic': /u32 [-+*] /,
      'f64 arithmetic': /\d \/ \(|\.\d+ [-+*\/] /,
      'wrap-around literals': /2147483647/,
      'guarded division': /\| 1\)\)/,
      'masked shifts': /<< \(.*& 31\)/,
      comparisons: / (<|>=|!=) /,
      'if expressions': /\(if /,
      'let mut': /let mut v/,
      'compound assignment': / (\+|\*|\^|<<)= /,
      'while loops': /while w\d+ </,
      'range loops': /in range\(/,
      'unroll loops': /in unroll\(/,
      'range_step loops': /in range_step\(/,
      'user generators': /in pp_countdown\([\s\S]*in pp_unroll_down\(|in pp_unroll_down\([\s\S]*in pp_countdown\(/,
      'a library loop over a closure': /pp_fold\(/,
      'closures composed': /pp_compose\(/,
      'break and continue': /break\(\)[\s\S]*continue\(\)|continue\(\)[\s\S]*break\(\)/,
      'early return': /return\(/,
      closures: /\|z\d+: i32\|/,
      'closures passed to higher-order fns': /pp_apply2?\(g\d+|pp_each3\(p\d+/,
      'closures updating variables': /let p\d+(: fn\(i32\) -> \(\))? = \|z\d+: i32\| \{/,
      tuples: /t\d+\(\d\)/,
      'struct field updates': /t\d+\.f\d (=|\+=|-=|\*=|\^=)/,
      'array indexing by masks': /t\d+\(.* & (1|3|7)\)/,
      'array repeat literals': /, \.\. \d\]/,
      'aggregate parameters': /q\d+: (\(|\[|S\d)/,
      'recursion with a bounded depth': /fn (@\(\?n\d+( & \?x\d+)?\) )?r\d+\(/,
      filters: /fn @\(\?/,
      'forced specialisation': /@@h\d+\(/,
      'match expressions': /\(match \(/,
      'generic fns': /pp_pick\(/,
      'the select intrinsic': /select\(/,
      'loads and stores through pointers': /pp_load\(&[\s\S]*pp_store\(&mut /,
      'block expressions': /\(\{ let b\d+/,
      'closures returned from fns': /pp_adder\(/,
      'arguments hidden from the evaluator': /\$\(|, \$\d\)/,
      'mutable parameters': /\(mut q\d+|, mut q\d+/,
      'printing every scalar type': /print_i64[\s\S]*print_u32[\s\S]*print_f64[\s\S]*print_bool/,
    };
    const missing = Object.entries(features).filter(([, re]) => !re.test(text)).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('shrinks only to well-scoped programs that are smaller', () => {
    for (const c of sample.slice(0, 20)) {
      expect(wellScoped(c)).toBe(true);
      let n = 0;
      for (const smaller of reductions(c)) {
        expect(wellScoped(smaller)).toBe(true);
        expect(weight(smaller)).toBeLessThan(weight(c));
        if (++n === 50) break;
      }
    }
  });
});
