// Values and memory: stack slots, aggregates, addresses, vectors, variants,
// globals, heap allocation and conversions.
import { describe, expect, it } from 'vitest';
import { emitLLVM } from '../../compiler/src/backend/llvm.ts';
import type { Def } from '../../compiler/src/ir/defs.ts';
import { block, func, runWithC, verifyIR, World } from './helpers.ts';

describe('LLVM values and memory', () => {
  it('turns enter/slot into an entry alloca and threads loads and stores in mem order', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const f = func(w, 'via_slot', [i32], i32, true);
    const [m0, x, ret] = f.params;
    const frame = w.enter(m0!);
    const p = w.slot(w.extract(frame, 1), i32);
    const m1 = w.store(w.extract(frame, 0), p, x!);
    const l1 = w.load(m1, p);
    const m2 = w.store(w.extract(l1, 0), p, w.arith('mul', w.extract(l1, 1), w.litI32(3)));
    const l2 = w.load(m2, p);
    // The first load's value is read after the second store: it must still see x.
    f.jump(ret!, [w.extract(l2, 0), w.arith('add', w.extract(l2, 1), w.extract(l1, 1))]);
    const ir = emitLLVM(w);
    expect(ir).toMatch(/entry:\n {2}%tmp = alloca i32\n/);
    expect(ir).toContain('define i32 @via_slot(i32 %arg)');
    verifyIR(ir);
    expect(runWithC(ir, '#include <stdio.h>\nint via_slot(int);\nint main(void) { printf("%d\\n", via_slot(5)); return 0; }')).toBe('20\n');
  });

  it('builds structs, tuples and arrays, and addresses their elements with lea', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const f64 = w.prim('f64');
    const point = w.types.struct('Point');
    point.fields = [i32, f64];
    point.fieldNames = ['x', 'y'];
    const arr4 = w.types.definiteArray(i32, 4);
    // f(x, i) = [x, 2x, 3x, 4x](i) + point.x + (int)point.y + tuple.1, via memory and values.
    const f = func(w, 'agg', [i32, i32], i32, true);
    const [m0, x, i, ret] = f.params;
    const arr = w.definiteArray(i32, [x!, w.arith('mul', x!, w.litI32(2)), w.arith('mul', x!, w.litI32(3)), w.arith('mul', x!, w.litI32(4))]);
    const picked = w.extract(arr, i!);
    const changed = w.insert(arr, i!, w.litI32(100));
    const again = w.extract(changed, i!);
    const pt = w.structAgg(point, [x!, w.cast(f64, w.arith('add', x!, w.litI32(1)))]);
    const tup = w.tuple([w.litI32(7), x!]);
    const tupMod = w.insert(tup, 0, w.litI32(8));
    const fr = w.enter(m0!);
    const slotPt = w.slot(w.extract(fr, 1), point);
    const slotArr = w.slot(w.extract(fr, 1), arr4);
    let m = w.store(w.extract(fr, 0), slotPt, pt);
    m = w.store(m, slotArr, arr);
    const ly = w.load(m, w.lea(slotPt, 1));
    const la = w.load(w.extract(ly, 0), w.lea(slotArr, i!));
    const sum = [
      picked, again, w.extract(pt, 0), w.cast(i32, w.extract(ly, 1)), w.extract(la, 1), w.extract(tupMod, 0), w.extract(tupMod, 1),
    ].reduce((acc: Def, v) => w.arith('add', acc, v));
    f.jump(ret!, [w.extract(la, 0), sum]);

    // g(p, n) sums an indefinite array behind a pointer.
    const g = func(w, 'sum_ptr', [w.types.ptr(w.types.indefiniteArray(i32)), i32], i32, true);
    const [gm, gp, gn, gret] = g.params;
    const head = block(w, 'head', [i32, i32]);
    const body = block(w, 'body');
    const exit = block(w, 'exit');
    const [hm, hi, hacc] = head.params;
    g.jump(head, [gm!, w.litI32(0), w.litI32(0)]);
    w.branch(head, hm!, w.cmp('lt', hi!, gn!), body, exit);
    const ld = w.load(body.param(0), w.lea(gp!, hi!));
    body.jump(head, [w.extract(ld, 0), w.arith('add', hi!, w.litI32(1)), w.arith('add', hacc!, w.extract(ld, 1))]);
    exit.jump(gret!, [exit.param(0), hacc!]);

    const ir = emitLLVM(w);
    expect(ir).toMatch(/getelementptr inbounds \{ i32, double \}, ptr %tmp[.\d]*, i32 0, i32 1/);
    expect(ir).toMatch(/getelementptr inbounds \[4 x i32\], ptr %tmp[.\d]*, i64 0, i32 %arg\.1/);
    expect(ir).toMatch(/getelementptr inbounds i32, ptr %arg, i32 %/);
    expect(ir).toContain('insertvalue { i32, double } undef, i32 %arg, 0');
    verifyIR(ir);
    const out = runWithC(ir, `#include <stdio.h>
int agg(int, int); int sum_ptr(const int*, int);
int main(void) { int a[] = {1, 2, 3, 4, 5}; printf("%d %d\\n", agg(10, 2), sum_ptr(a, 5)); return 0; }`);
    // 30 + 100 + 10 + 11 + 30 + 8 + 10
    expect(out).toBe('199 15\n');
  });

  it('emits <4 x float> arithmetic, vector construction and lane access', () => {
    const w = new World();
    const f32 = w.prim('f32');
    const f = func(w, 'dot4', [f32], f32, true);
    const [m, x, ret] = f.params;
    const lanes = [0, 1, 2, 3].map((k) => w.arith('add', x!, w.lit(f32, k)));
    const v = w.vector(lanes);
    const c = w.vector([1, 0.5, 0.25, 0.125].map((k) => w.lit(f32, k)));
    const prod = w.arith('mul', v, c);
    const sq = w.arith('add', prod, w.insert(prod, 3, w.lit(f32, 0)));
    const total = [0, 1, 2, 3].map((k) => w.extract(sq, k)).reduce((a: Def, b) => w.arith('add', a, b));
    f.jump(ret!, [m!, total]);
    const ir = emitLLVM(w);
    expect(ir).toMatch(/fmul <4 x float> %\S+, <float 0x3FF0000000000000, float 0x3FE0000000000000, float 0x3FD0000000000000, float 0x3FC0000000000000>/);
    expect(ir).toContain('insertelement <4 x float>');
    expect(ir).toContain('extractelement <4 x float>');
    verifyIR(ir);
    // x = 2: lanes 2,3,4,5 * (1,.5,.25,.125) = 2,1.5,1,0.625; doubled except lane 3: 4+3+2+0.625
    expect(runWithC(ir, '#include <stdio.h>\nfloat dot4(float);\nint main(void) { printf("%g\\n", dot4(2.0f)); return 0; }')).toBe('9.625\n');
  });

  it('emits a splat as one shufflevector, and lanes picked from vectors at constant indices as a shuffle', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const f = func(w, 'shuffles', [i32], i32, true);
    const [m, x, ret] = f.params;
    const y = w.arith('mul', x!, w.litI32(3));
    const splat = w.vector([y, y, y, y]);
    const ramp = (scale: number) =>
      w.arith('mul', w.vector(Array.from({ length: 8 }, (_, k) => w.arith('add', x!, w.litI32(k)))), w.vector(Array.from({ length: 8 }, () => w.litI32(scale))));
    const a = ramp(1);
    const b = ramp(10);
    // Every other lane of a (a strided load's pattern), and lanes of two sources with a constant (a store's spread).
    const even = w.vector([0, 2, 4, 6].map((k) => w.extract(a, k)));
    const mixed = w.vector([w.extract(a, 1), w.extract(b, 3), w.litI32(7), w.extract(b, 0)]);
    // Combined as vectors, so that no lane is read back from the vectors built above (which would fold).
    const times = (v: Def, k: number) => w.arith('mul', v, w.vector([k, k, k, k].map((c) => w.litI32(c))));
    const sum = w.arith('add', w.arith('add', splat, times(even, 100)), times(mixed, 10000));
    const weighted = [0, 1, 2, 3].map((k) => w.arith('mul', w.extract(sum, k), w.litI32(k + 1))).reduce((p: Def, q) => w.arith('add', p, q));
    f.jump(ret!, [m!, weighted]);
    const ir = emitLLVM(w);
    expect(ir).toMatch(/shufflevector <4 x i32> %\S+, <4 x i32> poison, <4 x i32> zeroinitializer/);
    expect(ir).toMatch(/shufflevector <8 x i32> %\S+, <8 x i32> poison, <4 x i32> <i32 0, i32 2, i32 4, i32 6>/);
    expect(ir).toMatch(/shufflevector <8 x i32> %\S+, <8 x i32> %\S+, <4 x i32> <i32 1, i32 11, i32 0, i32 8>/);
    expect(ir).toMatch(/select <4 x i1> <i1 false, i1 false, i1 true, i1 false>, <4 x i32> <i32 undef, i32 undef, i32 7, i32 undef>/);
    expect(ir).not.toContain('insertelement <4 x i32> %');
    // The lanes the shuffles pick need no instruction of their own.
    expect(ir).not.toContain('extractelement <8 x i32>');
    verifyIR(ir);
    const expected = (xv: number) => {
      const weigh = (v: number[]) => v.reduce((s, e, k) => s + e * (k + 1), 0);
      const av = (k: number) => xv + k;
      const bv = (k: number) => (xv + k) * 10;
      return weigh([3 * xv, 3 * xv, 3 * xv, 3 * xv]) + 100 * weigh([0, 2, 4, 6].map(av)) + 10000 * weigh([av(1), bv(3), 7, bv(0)]);
    };
    const c = '#include <stdio.h>\nint shuffles(int);\nint main(void) { printf("%d %d\\n", shuffles(1), shuffles(2)); return 0; }';
    expect(runWithC(ir, c)).toBe(`${expected(1)} ${expected(2)}\n`);
    expect(runWithC(ir, c, '-O2')).toBe(`${expected(1)} ${expected(2)}\n`);
  });

  it('emits variants as tagged payloads, globals, strings, casts and heap allocation', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const i64 = w.prim('i64');
    const u8 = w.prim('u8');
    const f64 = w.prim('f64');
    const unit = w.types.unit();
    const opt = w.types.variant('Opt');
    opt.variants = [unit, w.types.tuple([i32, f64])];
    opt.variantNames = ['None', 'Some'];
    const puts = w.imported(w.fnType([w.mem, w.types.ptr(w.types.indefiniteArray(u8)), w.fnType([w.mem, i32])]), 'puts', 'C');

    const f = func(w, 'variants', [i32], i32, true);
    const [m0, x, ret] = f.params;
    const some = w.variant(opt, 1, w.tuple([x!, w.lit(f64, 2.5)]));
    const none = w.variant(opt, 0, w.unitValue());
    const pick = w.select(w.cmp('gt', x!, w.litI32(0)), some, none);
    const tag = w.cast(i32, w.variantIndex(pick));
    const payload = w.variantExtract(some, 1);
    const hello = [...'hi!\0'].map((ch) => w.lit(u8, BigInt(ch.charCodeAt(0))));
    const str = w.global(w.definiteArray(u8, hello), false, 'greeting');
    const counter = w.global(w.litI32(40), true, 'counter');
    const heap = w.alloc(m0!, w.types.indefiniteArray(i64), x!);
    const elem = w.lea(w.bitcast(w.types.ptr(w.types.indefiniteArray(i64)), w.extract(heap, 1)), w.litI32(1));
    let m = w.store(w.extract(heap, 0), elem, w.cast(i64, w.extract(payload, 1)));
    const lc = w.load(m, counter);
    m = w.store(w.extract(lc, 0), counter, w.arith('add', w.extract(lc, 1), w.litI32(2)));
    const le = w.load(m, elem);
    const k = block(w, 'after_puts', [i32]);
    const lc2 = w.load(w.extract(le, 0), counter);
    f.jump(puts, [w.extract(lc2, 0), w.bitcast(w.types.ptr(w.types.indefiniteArray(u8)), str), k]);
    // tag*1000 + (payload.0 as u8 as i32) + payload.1 as i64 + counter
    const parts = [
      w.arith('mul', tag, w.litI32(1000)),
      w.cast(i32, w.cast(u8, w.extract(payload, 0))),
      w.cast(i32, w.extract(le, 1)),
      w.extract(lc2, 1),
      w.cast(i32, w.cast(w.prim('bool'), x!)),
    ];
    k.jump(ret!, [k.param(0), parts.reduce((a: Def, b) => w.arith('add', a, b))]);
    const ir = emitLLVM(w);
    expect(ir).toContain('@greeting = internal unnamed_addr constant [4 x i8] c"hi!\\00"');
    expect(ir).toContain('@counter = internal global i32 40');
    expect(ir).toContain('{ i32 0, [2 x i64] zeroinitializer }');
    expect(ir).toContain('declare ptr @anydsl_alloc(i32, i64)');
    verifyIR(ir);
    const out = runWithC(ir, `#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
void* anydsl_alloc(int32_t dev, int64_t size) { return malloc(size); }
int variants(int);
int main(void) { int r = variants(300); fflush(stdout); printf("%d\\n", r); return 0; }`);
    // 1000 + (300 as u8 = 44) + 2 + 42 + 1
    expect(out).toBe('hi!\n1089\n');
  });

  it('converts between numeric types with the signedness of the source', () => {
    const w = new World();
    const [i8, u8, i32, u32, i64, f32, f64, bool] = (['i8', 'u8', 'i32', 'u32', 'i64', 'f32', 'f64', 'bool'] as const).map((t) => w.prim(t));
    const f = func(w, 'casts', [i8, f64], i64, true);
    const [m, a, d, ret] = f.params;
    const parts = [
      w.cast(i64, a!), // sext
      w.cast(i64, w.cast(u8, a!)), // zext of the same bits
      w.cast(i64, w.cast(u32, w.cast(i32, a!))),
      w.cast(i64, d!), // fptosi
      w.cast(i64, w.cast(u32, w.cast(f32, d!))), // fptrunc, fptoui
      w.cast(i64, w.cast(f64, w.cast(u8, a!))), // uitofp, fptosi
      w.cast(i64, w.cast(bool, d!)),
      w.cast(i64, w.bitcast(i32, w.cast(f32, w.lit(f64, 1)))),
    ];
    f.jump(ret!, [m!, parts.reduce((x: Def, y) => w.arith('add', x, y))]);
    const ir = emitLLVM(w);
    for (const op of ['sext', 'zext', 'fptosi', 'fptrunc', 'fptoui', 'uitofp', 'fcmp une']) expect(ir).toContain(op);
    verifyIR(ir);
    const out = runWithC(ir, '#include <stdio.h>\nlong casts(signed char, double);\nint main(void) { printf("%ld\\n", casts(-2, 7.9)); return 0; }');
    // -2 + 254 + 4294967294 + 7 + 7 + 254 + 1 + 0x3f800000
    expect(out).toBe(`${-2 + 254 + 4294967294 + 7 + 7 + 254 + 1 + 0x3f800000}\n`);
  });
});
