// Literal spelling and the data layout behind sizeof/alignof, checked against LLVM's own.
import { describe, expect, it } from 'vitest';
import { formatLit, halfBits } from '../../compiler/src/backend/llvm-consts.ts';
import { emitLLVM } from '../../compiler/src/backend/llvm.ts';
import { llvmType } from '../../compiler/src/backend/llvm-types.ts';
import type { IRType } from '../../compiler/src/ir/types.ts';
import { func, runWithC, World } from './helpers.ts';

describe('LLVM literals', () => {
  const w = new World();
  it('writes integers in signed form and floats as exact hex', () => {
    expect(formatLit(w.prim('u32'), 4294967295n)).toBe('-1');
    expect(formatLit(w.prim('i64'), -5n)).toBe('-5');
    expect(formatLit(w.prim('bool'), true)).toBe('true');
    expect(formatLit(w.prim('f64'), 0.1)).toBe('0x3FB999999999999A');
    expect(formatLit(w.prim('f32'), 0.1)).toBe('0x3FB99999A0000000');
    expect(formatLit(w.prim('f32'), Infinity)).toBe('0x7FF0000000000000');
    expect(formatLit(w.prim('f64'), -0)).toBe('0x8000000000000000');
    expect(formatLit(w.prim('f16'), 1)).toBe('0xH3C00');
  });

  it('rounds to half precision to nearest even', () => {
    expect(halfBits(1)).toBe(0x3c00);
    expect(halfBits(-2)).toBe(0xc000);
    expect(halfBits(65504)).toBe(0x7bff);
    expect(halfBits(65520)).toBe(0x7c00);
    expect(halfBits(2 ** -24)).toBe(0x0001);
    expect(halfBits(2 ** -26)).toBe(0x0000);
    expect(halfBits(0.1)).toBe(0x2e66);
    expect(halfBits(1 + 2 ** -11)).toBe(0x3c00);
    expect(halfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(halfBits(NaN) & 0x7e00).toBe(0x7e00);
  });

  it('computes sizeof and alignof as LLVM lays types out', () => {
    const w = new World();
    const t = w.types;
    const [i8, i32, i64, f32, f16, bool] = (['i8', 'i32', 'i64', 'f32', 'f16', 'bool'] as const).map((n) => w.prim(n));
    const s = t.struct('S');
    s.fields = [i8, i64, t.prim('i16')];
    const v = t.variant('V');
    v.variants = [t.unit(), t.tuple([i8, f32, i8])];
    const types: IRType[] = [
      s, t.tuple([f32, w.prim('f32', 4)]), t.definiteArray(t.tuple([i8, i32]), 3), w.prim('f32', 3), v, bool, f16,
      t.tuple([i8, bool, t.ptr(i8)]), t.unit(), w.prim('bool', 8),
    ];
    // layouts() returns our (size, align) pairs in a global array.
    const table = w.global(w.definiteArray(i32, types.flatMap((ty) => [w.sizeof(ty), w.alignof(ty)])), false, 'ours');
    const f = func(w, 'layouts', [], table.type, true);
    f.jump(f.param(1), [f.param(0), table]);
    // LLVM's answers, from getelementptr on null.
    const theirs = types.map((ty) => {
      const ll = llvmType(ty);
      return `i64 ptrtoint (ptr getelementptr (${ll}, ptr null, i32 1) to i64), i64 ptrtoint (ptr getelementptr ({ i1, ${ll} }, ptr null, i32 0, i32 1) to i64)`;
    });
    const ir = `${emitLLVM(w)}\n@theirs = constant [${2 * types.length} x i64] [${theirs.join(', ')}]\n`;
    const out = runWithC(ir, `#include <stdio.h>
#include <stdint.h>
extern int64_t theirs[]; int* layouts(void);
int main(void) { int* o = layouts(); for (int i = 0; i < ${2 * types.length}; i++) printf("%d=%ld ", o[i], (long)theirs[i]); return 0; }`);
    expect(out.trim().split(' ')).toHaveLength(2 * types.length);
    for (const pair of out.trim().split(' ')) {
      const [mine, llvm] = pair.split('=');
      expect(mine, out).toBe(llvm);
    }
  });
});
