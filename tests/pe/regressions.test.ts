// Programs on which the evaluator once produced wrong or ill-scoped code, most
// of them found by the differential property (tests/properties). Each checks
// that the interpreter prints the same before and after evaluation and that the
// evaluated world still goes through the transforms and the backend.
import { describe, expect, it } from 'vitest';
import { verify } from '../../compiler/src/ir/verify.ts';
import { Program } from './support.ts';

/** Runs `test` before and after evaluation; both must print `stdout` and return `result`. */
function expectSameAfterEvaluation(source: string, stdout: string, result: bigint): Program {
  const p = new Program(source);
  expect(p.run('test')).toEqual({ stdout, result });
  expect(p.evaluate()).toBe(true);
  expect(verify(p.world).filter((l) => !l.startsWith('note:'))).toEqual([]);
  expect(p.run('test')).toEqual({ stdout, result });
  p.llvm();
  return p;
}

describe('partial evaluation regressions', () => {
  it('does not return past a block whose params later code still reads', () => {
    // After `yes()` and the branch fold, twice's return block is `ret(m, s) = join(m, s)`,
    // but `s` is printed again after the join: returning to `join` directly left `s` unbound.
    expectSameAfterEvaluation(
      `fn twice(f: fn(i32) -> i32, x: i32) -> i32 { f(f(x)) }
       fn yes() -> bool { true }
       extern fn test() -> i32 {
           let s = twice(|z: i32| z + 1, 1);
           print_i32(if yes() { s } else { 0 });
           print_i32(s);
           0
       }`,
      '33',
      0n,
    );
  });
});
