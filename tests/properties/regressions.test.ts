// Disagreements between stages that the generated programs found, shrunk by
// hand to a few lines. Each prints what the interpreter prints right after
// emission (the oracle); every later stage must print the same.
import { afterAll, describe, expect, it } from 'vitest';
import { mainAtEveryStage, removeScratch } from './stages.ts';

afterAll(removeScratch);

async function expectEveryStage(source: string, stdout: string): Promise<void> {
  expect(await mainAtEveryStage(source)).toEqual({ emitted: stdout, pe: stdout, optimised: stdout, native: stdout });
}

describe('regressions found by the differential property', () => {
  it('keeps the result of a closure applied twice in scope of a later branch', async () => {
    // The evaluator left main using a parameter of twice's return continuation:
    // "entry main has free variables" in the interpreter, "uses parameters outside its scope" in the backend.
    await expectEveryStage(
      `fn twice(f: fn(i32) -> i32, x: i32) -> i32 { f(f(x)) }
       fn yes() -> bool { true }
       fn main() -> i32 {
           let s = twice(|z: i32| z + 1, 1);
           print_i32(if yes() { s } else { 0 });
           print_i32(s);
           0
       }`,
      '33',
    );
  });
});
