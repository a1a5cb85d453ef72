// `atomic[T](op, &mut x, v)` with the prelude's operation codes (compiler/lib/math.impala):
// every operation's old and new value on one thread, natively (atomicrmw) and in
// the interpreter, against values worked out by hand. Contention is covered by the
// parallel reduction in parallel.test.ts.
import { describe, expect, it } from 'vitest';
import { runInterpreted, runNative } from './support.ts';

/** [type, operation, initial value, operand, expected "old new"]. */
const cases: [string, string, string, string, string][] = [
  ['i32', 'ATOMIC_XCHG', '12', '5', '12 5'],
  ['i32', 'ATOMIC_ADD', '12', '5', '12 17'],
  ['i32', 'ATOMIC_SUB', '12', '5', '12 7'],
  ['i32', 'ATOMIC_AND', '12', '10', '12 8'],
  ['i32', 'ATOMIC_NAND', '12', '10', '12 -9'],
  ['i32', 'ATOMIC_OR', '12', '10', '12 14'],
  ['i32', 'ATOMIC_XOR', '12', '10', '12 6'],
  ['i32', 'ATOMIC_MAX', '-3', '5', '-3 5'],
  ['i32', 'ATOMIC_MAX', '7', '-1', '7 7'],
  ['i32', 'ATOMIC_MIN', '-3', '5', '-3 -3'],
  ['i32', 'ATOMIC_MIN', '7', '-1', '7 -1'],
  // umax/umin compare the bits as unsigned, also on a signed type.
  ['i32', 'ATOMIC_UMAX', '-1', '5', '-1 -1'],
  ['i32', 'ATOMIC_UMIN', '-1', '5', '-1 5'],
  ['u32', 'ATOMIC_UMAX', '1u', '2147483648u', '1 2147483648'],
  ['u32', 'ATOMIC_UMIN', '1u', '2147483648u', '1 1'],
  // max/min compare the bits as signed, also on an unsigned type.
  ['u32', 'ATOMIC_MAX', '1u', '2147483648u', '1 1'],
  ['u32', 'ATOMIC_MIN', '1u', '2147483648u', '1 2147483648'],
  ['u32', 'ATOMIC_ADD', '4294967295u', '2u', '4294967295 1'],
  ['i64', 'ATOMIC_ADD', '4294967296i64', '-1i64', '4294967296 4294967295'],
  ['i64', 'ATOMIC_MAX', '-5i64', '-9i64', '-5 -5'],
  ['i64', 'ATOMIC_XCHG', '1099511627776i64', '3i64', '1099511627776 3'],
];

// The operation must be a literal where atomicrmw is emitted, so every case is written out.
const program = `
    fn show(old: i64, now: i64) -> () { print_i64(old); print_char(' '); print_i64(now); print_char('\\n'); }

    fn main() -> i32 {
${cases
  .map(([t, op, init, v], i) => `        let mut x${i}: ${t} = ${init};\n        let old${i} = atomic[${t}](${op}, &mut x${i}, ${v});\n        show(old${i} as i64, x${i} as i64);`)
  .join('\n')}
        let mut f = 1.5f;
        let old = atomic[f32](ATOMIC_FADD, &mut f, 2.25f);
        print_f32(old); print_char(' '); print_f32(f); print_char('\\n');
        0
    }`;

const expected = `${cases.map((c) => c[4]).join('\n')}\n1.5 3.75\n`;

describe('atomic operations', () => {
  it('each operation code does what LLVM atomicrmw does, natively and in the interpreter', async () => {
    const want = { stdout: expected, status: 0 };
    expect(runInterpreted(program, 'atomic_ops')).toEqual(want);
    expect(await runNative(program, 'atomic_ops')).toEqual(want);
  });
});
