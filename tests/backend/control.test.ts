// Control flow: loops with block params (phis), calls with return blocks, tail
// calls, branches, switches, calls to C, and `main`.
import { describe, expect, it } from 'vitest';
import { emitLLVM } from '../../compiler/src/backend/llvm.ts';
import { block, func, runWithC, verifyIR, World } from './helpers.ts';

/** sum(n) = 1 + … + n with a loop header taking (i, acc) as block params. */
function sumWorld(): World {
  const w = new World();
  const i32 = w.prim('i32');
  const sum = func(w, 'sum', [i32], i32, true);
  const [, n, ret] = sum.params;
  const head = block(w, 'head', [i32, i32]);
  const body = block(w, 'body');
  const exit = block(w, 'exit');
  const [hm, i, acc] = head.params;
  sum.jump(head, [sum.param(0), w.litI32(1), w.litI32(0)]);
  w.branch(head, hm!, w.cmp('le', i!, n!), body, exit);
  body.jump(head, [body.param(0), w.arith('add', i!, w.litI32(1)), w.arith('add', acc!, i!)]);
  exit.jump(ret!, [exit.param(0), acc!]);
  return w;
}

/** fib(n) with two non-tail calls whose results arrive as return-block params. */
function fibWorld(): World {
  const w = new World();
  const i32 = w.prim('i32');
  const fib = func(w, 'fib', [i32], i32, true);
  const [m, n, ret] = fib.params;
  const small = block(w, 'small');
  const big = block(w, 'big');
  const r1 = block(w, 'r1', [i32]);
  const r2 = block(w, 'r2', [i32]);
  w.branch(fib, m!, w.cmp('lt', n!, w.litI32(2)), small, big);
  small.jump(ret!, [small.param(0), n!]);
  big.jump(fib, [big.param(0), w.arith('sub', n!, w.litI32(1)), r1]);
  r1.jump(fib, [r1.param(0), w.arith('sub', n!, w.litI32(2)), r2]);
  r2.jump(ret!, [r2.param(0), w.arith('add', r1.param(1), r2.param(1))]);
  return w;
}

describe('LLVM control flow', () => {
  it('emits a loop whose header params become phis', () => {
    const ir = emitLLVM(sumWorld());
    expect(ir).toContain('define i32 @sum(i32 %');
    expect(ir).toMatch(/= phi i32 \[ 1, %entry \], \[ %add/);
    verifyIR(ir);
    expect(runWithC(ir, '#include <stdio.h>\nint sum(int);\nint main(void) { printf("%d %d\\n", sum(100), sum(0)); return 0; }')).toBe('5050 0\n');
  });

  it('emits recursive calls that continue in return blocks', () => {
    const ir = emitLLVM(fibWorld());
    expect(ir).toMatch(/%call[.\d]* = call i32 @fib\(i32 %sub/);
    verifyIR(ir);
    expect(runWithC(ir, '#include <stdio.h>\nint fib(int);\nint main(void) { printf("%d\\n", fib(20)); return 0; }')).toBe('6765\n');
  });

  it('emits a call in tail position as tail call + ret, and a two-predecessor join as a phi', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const max = func(w, 'max', [i32, i32], i32);
    const [m, a, b, ret] = max.params;
    const t = block(w, 'take_a');
    const e = block(w, 'take_b');
    const join = block(w, 'join', [i32]);
    w.branch(max, m!, w.cmp('gt', a!, b!), t, e);
    t.jump(join, [t.param(0), a!]);
    e.jump(join, [e.param(0), b!]);
    join.jump(ret!, [join.param(0), join.param(1)]);
    const outer = func(w, 'max3', [i32, i32, i32], i32, true);
    const [om, x, y, z, oret] = outer.params;
    const k = block(w, 'k', [i32]);
    outer.jump(max, [om!, x!, y!, k]);
    k.jump(max, [k.param(0), k.param(1), z!, oret!]);
    const ir = emitLLVM(w);
    expect(ir).toContain('define internal i32 @max(');
    expect(ir).toMatch(/%call[.\d]* = tail call i32 @max\(/);
    expect(ir).toMatch(/phi i32 \[ %arg, %take_a \], \[ %arg\.1, %take_b \]/);
    verifyIR(ir);
    expect(runWithC(ir, '#include <stdio.h>\nint max3(int, int, int);\nint main(void) { printf("%d %d\\n", max3(1, 7, 3), max3(-5, -9, -6)); return 0; }')).toBe('7 -5\n');
  });

  it('emits match as switch and branches to the return continuation through exit blocks', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const f = func(w, 'classify', [i32], i32, true);
    const [m, v, ret] = f.params;
    const cases = [10, 20, 30].map((n) => {
      const b = block(w, `case${n}`);
      b.jump(ret!, [b.param(0), w.litI32(n + 1)]);
      return [w.litI32(n / 10), b] as const;
    });
    const other = block(w, 'other');
    other.jump(ret!, [other.param(0), w.litI32(-1)]);
    // A duplicate case: the first one wins.
    w.match(f, m!, v!, other, [...cases, [w.litI32(1), other]]);
    const g = func(w, 'is_zero', [i32], null, true);
    const [gm, gv, gret] = g.params;
    const say = w.imported(w.fnType([w.mem, i32, w.fnType([w.mem, i32])]), 'putchar', 'C');
    const yes = block(w, 'yes');
    const said = block(w, 'said', [i32]);
    yes.jump(say, [yes.param(0), w.litI32(89), said]);
    said.jump(gret!, [said.param(0)]);
    w.branch(g, gm!, w.cmp('eq', gv!, w.litI32(0)), yes, gret!);
    const ir = emitLLVM(w);
    expect(ir).toMatch(/switch i32 %\S+, label %other \[/);
    verifyIR(ir);
    const out = runWithC(ir, '#include <stdio.h>\nint classify(int); void is_zero(int);\nint main(void) { printf("%d %d %d %d|", classify(1), classify(2), classify(3), classify(4)); fflush(stdout); is_zero(0); is_zero(1); return 0; }');
    expect(out).toBe('11 21 31 -1|Y');
  });

  it('calls C functions, passes function pointers, and defines main', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const abs = w.imported(w.fnType([w.mem, i32, w.fnType([w.mem, i32])]), 'abs', 'C');
    const twice = func(w, 'twice', [i32], i32);
    twice.jump(twice.param(2), [twice.param(0), w.arith('mul', twice.param(1), w.litI32(2))]);
    // apply(f, x) calls a function pointer.
    const fnT = twice.fnType;
    const apply = func(w, 'apply', [fnT, i32], i32);
    apply.jump(apply.param(1), [apply.param(0), apply.param(2), apply.param(3)]);
    const main = func(w, 'main', [], i32, true);
    const k1 = block(w, 'k1', [i32]);
    const k2 = block(w, 'k2', [i32]);
    main.jump(abs, [main.param(0), w.litI32(-21), k1]);
    k1.jump(apply, [k1.param(0), twice, k1.param(1), k2]);
    k2.jump(main.param(1), [k2.param(0), w.arith('sub', k2.param(1), w.litI32(42))]);
    const ir = emitLLVM(w);
    expect(ir).toContain('declare i32 @abs(i32)');
    expect(ir).toContain('define i32 @main()');
    expect(ir).toMatch(/call i32 @apply\(ptr @twice, i32 %call/);
    expect(ir).toMatch(/tail call i32 %\S+\(i32 %/);
    verifyIR(ir);
    const dir = runWithC(ir.replace('define i32 @main()', 'define i32 @main_ir()'), 'int main_ir(void);\nint main(void) { return main_ir(); }');
    expect(dir).toBe('');
  });

  it('passes function pointers through block params', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const inc = func(w, 'inc', [i32], i32);
    inc.jump(inc.param(2), [inc.param(0), w.arith('add', inc.param(1), w.litI32(1))]);
    const dec = func(w, 'dec', [i32], i32);
    dec.jump(dec.param(2), [dec.param(0), w.arith('sub', dec.param(1), w.litI32(1))]);
    const f = func(w, 'pick', [w.prim('bool'), i32], i32, true);
    const [m, up, x, ret] = f.params;
    const a = block(w, 'a');
    const b = block(w, 'b');
    const join = block(w, 'join', [inc.fnType]);
    w.branch(f, m!, up!, a, b);
    a.jump(join, [a.param(0), inc]);
    b.jump(join, [b.param(0), dec]);
    join.jump(join.param(1), [join.param(0), x!, ret!]);
    const ir = emitLLVM(w);
    expect(ir).toMatch(/phi ptr \[ @inc, %a \], \[ @dec, %b \]/);
    verifyIR(ir);
    expect(runWithC(ir, '#include <stdio.h>\n#include <stdbool.h>\nint pick(bool, int);\nint main(void) { printf("%d %d\\n", pick(true, 5), pick(false, 5)); return 0; }')).toBe('6 4\n');
  });

  it('gives main with a void return an i32 exit status of 0', () => {
    const w = new World();
    const main = func(w, 'main', [], null, true);
    main.jump(main.param(1), [main.param(0)]);
    const ir = emitLLVM(w);
    expect(ir).toContain('define i32 @main() {\nentry:\n  ret i32 0\n}');
    verifyIR(ir);
  });
});
