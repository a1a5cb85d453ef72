// One defined answer at every optimisation level (docs/language.md, "Defined semantics of
// arithmetic"): each program runs in the interpreter (right after emission, after the
// evaluator, after the transforms) and natively at -O0 and -O3, and all must print the same.
// The examples are the ones issue 10 names: before, `1 << 33` printed 2 at -O0 and 1 at -O3,
// a zero divisor was SIGFPE at -O0 and 1 at -O3, and the folder wrapped `3e9 as i32`.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../compiler/src/driver/build.ts';
import { mainAtEveryStage, removeScratch } from '../properties/stages.ts';
import { check } from '../sema/helpers.ts';
import { run, usePrivateCache, useTempDir } from './helpers.ts';

usePrivateCache();
const tmp = useTempDir('anydsl-arith-');
afterAll(removeScratch);

/** What main prints natively at `optLevel` (argv = ['prog']), an abnormal end as `<signal …>` plus the runtime's message. */
async function native(source: string, optLevel: 0 | 3): Promise<string> {
  const exe = path.join(tmp(), `p${optLevel}-${Math.random().toString(36).slice(2)}`);
  const built = await buildProgram([{ path: 'arith.impala', text: source }], { kind: 'exe', output: exe, optLevel });
  if (!built.ok) throw new Error(built.rendered);
  const r = await run(exe);
  const end = r.signal ? `<${r.signal}: ${r.stderr.trim()}>` : r.code !== 0 ? `<exit ${r.code}>` : '';
  return r.stdout + end;
}

/** Every interpreted stage prints `stdout`, and so do -O0 and -O3. */
async function expectEverywhere(source: string, stdout: string): Promise<void> {
  const stages = await mainAtEveryStage(source);
  expect({ emitted: stages.emitted, pe: stages.pe, optimised: stages.optimised }).toEqual({ emitted: stdout, pe: stdout, optimised: stdout });
  expect(await native(source, 0)).toBe(stdout);
  expect(await native(source, 3)).toBe(stdout);
}

/** A program whose main prints each expression on a line; `argc` is 1, so `one` is a run-time 1. */
function printing(lets: string, lines: readonly string[]): string {
  return `fn main(argc: i32, argv: &[&[u8]]) -> i32 {
    let one = argc;
    ${lets}
    ${lines.map((l) => `${l}; print_char('\\n');`).join('\n    ')}
    0
}`;
}

describe('shifts', () => {
  it('rejects a literal amount outside 0 .. width-1 with a located error', () => {
    expect(check('fn f(x: i32, y: u8, z: i64) -> () { let a = 1 << 33; let b = x >> -1; let c = y << 8u8; let d = z << 63i64; }').errors).toEqual([
      "1:50: shift by 33 is out of range for type 'i32': the amount must be between 0 and 31",
      "1:67: shift by -1 is out of range for type 'i32': the amount must be between 0 and 31",
      "1:84: shift by 8 is out of range for type 'u8': the amount must be between 0 and 7",
    ]);
    expect(check('fn f(mut x: i32) -> () { x <<= 32; }').errors).toEqual([
      "1:32: shift by 32 is out of range for type 'i32': the amount must be between 0 and 31",
    ]);
  });

  it('masks a run-time amount to the width at every stage (1 << 33 is 2)', async () => {
    await expectEverywhere(
      printing('let n = one + 32; let m = one - 2; let b = one as u8; let w = one as i64;', [
        'print_i32(1 << n)',
        'print_i32(-16 >> n)',
        'print_i32(1 << m)',
        'print_i32(64 >> m)',
        'print_u32((1u8 << (b + 8u8)) as u32)',
        'print_u32((128u8 >> (b + 9u8)) as u32)',
        'print_i64(w << (w + 64i64))',
        'print_i64(w << (w * -1i64))',
        'print_u32(0x8000_0000u >> (n as u32))',
      ]),
      ['2', '-8', '-2147483648', '0', '2', '32', '2', '-9223372036854775808', '1073741824', ''].join('\n'),
    );
  });
});

describe('division and remainder', () => {
  it('rejects a literal zero divisor with a located error', () => {
    expect(check('fn f(x: i32, mut y: u8) -> () { let a = x / 0; let b = x % -0; y /= 0u8; let c = 1.5 / 0.0; }').errors).toEqual([
      '1:45: division by zero',
      '1:60: remainder by zero',
      '1:69: division by zero',
    ]);
  });

  for (const [op, what] of [['/', 'division'], ['%', 'remainder']] as const) {
    it(`stops a run-time zero ${what} with a clear message at every stage`, async () => {
      const source = printing('let z = one - 1;', ['print_i32(7)', `print_i32(7 ${op} z)`, 'print_i32(8)']);
      const stages = await mainAtEveryStage(source);
      for (const stage of ['emitted', 'pe', 'optimised'] as const) {
        expect(stages[stage]).toBe('7\n<division by zero>');
      }
      expect(await native(source, 0)).toBe('7\n<SIGABRT: anydsl runtime error: integer division by zero>');
      expect(await native(source, 3)).toBe('7\n<SIGABRT: anydsl runtime error: integer division by zero>');
    });
  }

  it('stops a zero divisor that only the evaluator makes constant, also unsigned', async () => {
    const source = `fn @(?d) quot(x: u32, d: u32) -> u32 { x / d }
fn main(argc: i32, argv: &[&[u8]]) -> i32 { print_u32(quot(argc as u32, 0u32 * (argc as u32))); 0 }`;
    expect(await native(source, 0)).toBe('<SIGABRT: anydsl runtime error: integer division by zero>');
    expect(await native(source, 3)).toBe('<SIGABRT: anydsl runtime error: integer division by zero>');
  });

  it('wraps the most negative value divided by -1 (remainder 0), in every integer width', async () => {
    await expectEverywhere(
      printing('let m = -2147483647 - one; let d = -one;', [
        'print_i32(m / d)',
        'print_i32(m % d)',
        'print_i32(((m as i8) / (d as i8)) as i32)',
        'print_i32(((m as i16 - 32767i16) % (d as i16)) as i32)',
        'print_i64((m as i64 << 32i64) / (d as i64))',
        'print_i32(-7 / (d * 2))',
        'print_i32(-7 % (d * 2))',
        'print_i32(m / 1 / d)',
        'print_i32(-2147483648 / -1)',
      ]),
      ['-2147483648', '0', '0', '0', '-9223372036854775808', '3', '-1', '-2147483648', '-2147483648', ''].join('\n'),
    );
  });
});

describe('float to integer conversions', () => {
  it('saturate, NaN to 0, in the folder and at run time alike', async () => {
    const conversions = (x: string): string[] => [
      `print_i32((${x}(3e9)) as i32)`,
      `print_i32((${x}(-3e9)) as i32)`,
      `print_i32((${x}(0.0 / 0.0)) as i32)`,
      `print_i32((${x}(1.0 / 0.0)) as i32)`,
      `print_i64((${x}(-1.0 / 0.0)) as i64)`,
      `print_u32((${x}(-1.5)) as u32)`,
      `print_u32((${x}(300.7)) as u8 as u32)`,
      `print_i32((${x}(-129.9)) as i8 as i32)`,
      `print_u64((${x}(1e30)) as u64)`,
      `print_i32((${x}(-2.9)) as i32)`,
      `print_i32((${x}(3e9)) as f32 as i32)`,
    ];
    const expected = ['2147483647', '-2147483648', '0', '2147483647', '-9223372036854775808', '0', '255', '-128', '18446744073709551615', '-2', '2147483647', ''];
    // Constants fold in the World; `dyn` keeps them for the machine (one * x is x at run time).
    await expectEverywhere(printing('', conversions('')), expected.join('\n'));
    await expectEverywhere(printing('let f = one as f64;', conversions('f * ')), expected.join('\n'));
  });
});
