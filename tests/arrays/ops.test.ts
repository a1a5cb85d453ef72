// Every operation and with-loop form of libs/arrays against the plain TypeScript reference
// (reference.ts) on random shapes of rank 1 to 4, empty and size-1 axes included, with
// generators whose steps and widths do not divide the extents; fused and unfused chains
// of three with-loops give the same array. One compile holds every entry (ops-module.ts).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompiledLibrary, NativeFunction } from '@anydsl/compiler';
import { compileEntries } from '../../libs/arrays/host.ts';
import { random } from '../random.ts';
import { entryName, opsModule } from './ops-module.ts';
import * as ref from './reference.ts';

let lib: CompiledLibrary;
beforeAll(async () => {
  lib = await compileEntries(opsModule(), 'arrays_ops_test.impala');
});

const RUNS = 25;

/** A shape of rank 1–4 with extents 0–5 (so empty and size-1 axes are frequent). */
const shapeArb = fc.integer({ min: 1, max: 4 }).chain((r) => fc.array(fc.integer({ min: 0, max: 5 }), { minLength: r, maxLength: r }));

/** n values from −9 to 9, the same for the same seed. */
function values(n: number, seed: number): number[] {
  const next = random(seed);
  return Array.from({ length: n }, () => Math.floor(next() * 19) - 9);
}

/** An array of `shape` with values −9..9. */
function arrayOf(shape: number[], seed: number): ref.NdArray {
  return { shape, data: values(ref.size(shape), seed) };
}

/** Four entries, the rank's first and the rest zero (what the Impala side reads as an index vector). */
function pad(v: number[]): number[] {
  return [...v, 0, 0, 0, 0].slice(0, 4);
}

interface Call {
  a: ref.NdArray;
  b?: number[];
  p: number[];
  outLength: number;
}

function call(op: string, rank: number, { a, b, p, outLength }: Call): { out: number[]; ret: number } {
  const fn: NativeFunction = lib.fn(entryName(op, rank));
  return callFn(fn, { a, b, p, outLength });
}

function callFn(fn: NativeFunction, { a, b, p, outLength }: Call): { out: number[]; ret: number } {
  const out = new Int32Array(Math.max(outLength, 1)).fill(-12345);
  const bb = Int32Array.from(b ?? [0]);
  const ret = fn(Int32Array.from(a.data.length ? a.data : [0]), bb.length ? bb : new Int32Array(1), out, Int32Array.from(pad(a.shape)), Int32Array.from([...p, 0, 0, 0, 0])) as number;
  return { out: [...out.slice(0, outLength)], ret };
}

/** A generator inside `shape`: its normalised form and the 18 parameters the entry reads. */
const genArb = (shape: number[]) =>
  fc
    .record({
      axes: fc.tuple(
        ...shape.map((e) =>
          fc.record({ lo: fc.integer({ min: 0, max: e }), len: fc.integer({ min: 0, max: e }), step: fc.integer({ min: 1, max: 3 }), width: fc.integer({ min: 1, max: 4 }) }),
        ),
      ),
      loStrict: fc.boolean(),
      hiStrict: fc.boolean(),
    })
    .map(({ axes, loStrict, hiStrict }) => {
      const lo = axes.map((x) => x.lo);
      const hi = axes.map((x, d) => Math.min(x.lo + x.len, shape[d]!));
      const g: ref.Generator_ = { lo, hi, step: axes.map((x) => x.step), width: axes.map((x) => x.width) };
      const params = [
        ...pad(lo.map((l) => (loStrict ? l - 1 : l))),
        ...pad(hi.map((h) => (hiStrict ? h : h - 1))),
        ...pad(g.step),
        ...pad(g.width),
        loStrict ? 1 : 0,
        hiStrict ? 1 : 0,
      ];
      return { g, params };
    });

const withLoopCase = shapeArb.chain((shape) => fc.tuple(fc.constant(shape), genArb(shape), genArb(shape), fc.nat()));

/** The two parts of two_parts in ops-module.ts. */
function twoParts(a: ref.NdArray, g1: ref.Generator_, g2: ref.Generator_): [ref.Generator_, (iv: number[]) => number][] {
  return [
    [g1, (iv) => ref.at(a, iv) * 3 + iv[0]!],
    [g2, (iv) => ref.offsetOf(a.shape, iv) - 5],
  ];
}

describe('with-loops against the reference', () => {
  for (const op of ['genarray', 'genarray_opt', 'genarray_tiled', 'modarray']) {
    it(`${op}: two parts with bounds (strict or not), steps and widths`, () => {
      fc.assert(
        fc.property(withLoopCase, ([shape, g1, g2, seed]) => {
          const a = arrayOf(shape, seed);
          const parts = twoParts(a, g1.g, g2.g);
          const expected = ref.withLoop(shape, op === 'modarray' ? (iv) => ref.at(a, iv) : () => 7, parts);
          expect(call(op, shape.length, { a, p: [...g1.params, ...g2.params], outLength: ref.size(shape) }).out).toEqual(expected.data);
        }),
        { numRuns: RUNS },
      );
    });
  }

  it('update: two parts with the same step known statically (3), bounds and widths at run time', () => {
    fc.assert(
      fc.property(withLoopCase, ([shape, g1, g2, seed]) => {
        const a = arrayOf(shape, seed);
        const step3 = (g: ref.Generator_): ref.Generator_ => ({ ...g, step: g.step.map(() => 3) });
        const expected = ref.withLoop(shape, () => 7, twoParts(a, step3(g1.g), step3(g2.g)));
        expect(call('update_step3', shape.length, { a, p: [...g1.params, ...g2.params], outLength: ref.size(shape) }).out).toEqual(expected.data);
      }),
      { numRuns: RUNS },
    );
  });

  it('fold: a non-commutative operator over two parts, in order', () => {
    fc.assert(
      fc.property(withLoopCase, ([shape, g1, g2, seed]) => {
        const a = arrayOf(shape, seed);
        const expected = ref.foldWith(shape, (acc, v) => (Math.imul(acc, 31) + v) | 0, 1, twoParts(a, g1.g, g2.g));
        expect(call('fold', shape.length, { a, p: [...g1.params, ...g2.params], outLength: 0 }).ret).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('a chain of three with-loops gives the same array fused and unfused, and the reference', () => {
    fc.assert(
      fc.property(withLoopCase, ([shape, g1, , seed]) => {
        const a = arrayOf(shape, seed);
        const n = ref.size(shape);
        const interior: ref.Generator_ = { lo: shape.map(() => 1), hi: shape.map((e) => e - 1), step: shape.map(() => 1), width: shape.map(() => 1) };
        const one = ref.generate(shape, (iv) => ref.at(a, iv) + 1);
        const two = ref.withLoop(shape, (iv) => ref.at(one, iv), [[interior, (iv) => ref.at(one, iv) * 2 - ref.at(a, iv)]]);
        const three = ref.withLoop(shape, () => -1, [[g1.g, (iv) => ref.at(two, iv) - ref.at(one, iv)]]);
        const fused = call('chain_fused', shape.length, { a, p: g1.params, outLength: n });
        const unfused = call('chain_unfused', shape.length, { a, b: new Array(2 * n + 1).fill(0), p: g1.params, outLength: n });
        expect(fused.out).toEqual(three.data);
        expect(unfused.out).toEqual(fused.out);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('shape operations against the reference', () => {
  const offsets = (shape: number[]) => fc.tuple(...shape.map(() => fc.integer({ min: -7, max: 7 })));

  it('reshape to the reversed extents', () => {
    fc.assert(
      fc.property(shapeArb, fc.nat(), (shape, seed) => {
        const a = arrayOf(shape, seed);
        expect(call('reshape', shape.length, { a, p: [], outLength: a.data.length }).out).toEqual(ref.reshape([...shape].reverse(), a).data);
      }),
      { numRuns: RUNS },
    );
  });

  it('cat along every axis', () => {
    const c = shapeArb.chain((shape) => fc.tuple(fc.constant(shape), fc.integer({ min: 0, max: shape.length - 1 }), fc.integer({ min: 0, max: 4 }), fc.nat()));
    fc.assert(
      fc.property(c, ([shape, d, nb, seed]) => {
        const a = arrayOf(shape, seed);
        const b = arrayOf(
          shape.map((e, k) => (k === d ? nb : e)),
          seed + 1,
        );
        const expected = ref.cat(d, a, b);
        expect(call('cat', shape.length, { a, b: b.data, p: [d, ...pad(b.shape)], outLength: expected.data.length }).out).toEqual(expected.data);
      }),
      { numRuns: RUNS },
    );
  });

  for (const op of ['take', 'drop'] as const) {
    it(`${op} from the front and (negative) from the back`, () => {
      fc.assert(
        fc.property(
          shapeArb.chain((shape) => fc.tuple(fc.constant(shape), offsets(shape))),
          fc.nat(),
          ([shape, n], seed) => {
            const a = arrayOf(shape, seed);
            const expected = ref[op](n, a);
            expect(call(op, shape.length, { a, p: pad(n), outLength: expected.data.length }).out).toEqual(expected.data);
          },
        ),
        { numRuns: RUNS },
      );
    });
  }

  it('tile: a block inside the array', () => {
    const c = shapeArb.chain((shape) =>
      fc.tuple(fc.constant(shape), fc.tuple(...shape.map((e) => fc.integer({ min: 0, max: e }).chain((from) => fc.tuple(fc.constant(from), fc.integer({ min: 0, max: e - from }))))), fc.nat()),
    );
    fc.assert(
      fc.property(c, ([shape, axes, seed]) => {
        const a = arrayOf(shape, seed);
        const from = axes.map((x) => x[0]);
        const ext = axes.map((x) => x[1]);
        const expected = ref.tile(ext, from, a);
        expect(call('tile', shape.length, { a, p: [...pad(ext), ...pad(from)], outLength: expected.data.length }).out).toEqual(expected.data);
      }),
      { numRuns: RUNS },
    );
  });

  it('shift with a fill value and rotate, by offsets larger than the extents', () => {
    fc.assert(
      fc.property(
        shapeArb.filter((s) => ref.size(s) > 0).chain((shape) => fc.tuple(fc.constant(shape), offsets(shape))),
        fc.nat(),
        ([shape, off], seed) => {
          const a = arrayOf(shape, seed);
          expect(call('shift', shape.length, { a, p: [...pad(off), 42], outLength: a.data.length }).out).toEqual(ref.shift(off, 42, a).data);
          expect(call('rotate', shape.length, { a, p: pad(off), outLength: a.data.length }).out).toEqual(ref.rotate(off, a).data);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('sel of an element and of a block (the first index fixed)', () => {
    fc.assert(
      fc.property(
        shapeArb.filter((s) => ref.size(s) > 0).chain((shape) => fc.tuple(fc.constant(shape), fc.tuple(...shape.map((e) => fc.integer({ min: 0, max: e - 1 }))))),
        fc.nat(),
        ([shape, iv], seed) => {
          const a = arrayOf(shape, seed);
          const block = shape.length > 1 ? ref.selBlock(1, iv, a).data : [];
          const r = call('sel_block', shape.length, { a, p: [...pad(iv), ...pad(iv)], outLength: block.length });
          expect(r.ret).toBe(ref.at(a, iv));
          expect(r.out).toEqual(block);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('transpose with the rank known (tiled) and with the rank a run-time value', () => {
    fc.assert(
      fc.property(shapeArb, fc.nat(), (shape, seed) => {
        const a = arrayOf(shape, seed);
        const expected = ref.transpose(a).data;
        expect(call('transpose', shape.length, { a, p: [], outLength: a.data.length }).out).toEqual(expected);
        expect(callFn(lib.fn('transpose_any'), { a, p: [shape.length], outLength: a.data.length }).out).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('element-wise operations and reductions against the reference', () => {
  it('where, arithmetic and the six comparisons', () => {
    fc.assert(
      fc.property(shapeArb, fc.nat(), (shape, seed) => {
        const a = arrayOf(shape, seed);
        const b = values(a.data.length, seed + 7);
        const n = a.data.length;
        expect(call('where', shape.length, { a, b, p: [], outLength: n }).out).toEqual(a.data.map((x, i) => (b[i]! < x ? x : b[i]!)));
        const arith = a.data.map((x, i) => x * b[i]! + (x - Math.trunc(x / (b[i] || 1))));
        expect(call('arith', shape.length, { a, b, p: [], outLength: n }).out).toEqual(arith);
        const bits = a.data.map((x, i) => {
          const y = b[i]!;
          return +(x < y) | (+(x <= y) << 1) | (+(x > y) << 2) | (+(x >= y) << 3) | (+(x === y) << 4) | (+(x !== y) << 5);
        });
        expect(call('compare', shape.length, { a, b, p: [], outLength: n }).out).toEqual(bits);
      }),
      { numRuns: RUNS },
    );
  });

  it('sum, prod, max, min, all, any, dim and size', () => {
    fc.assert(
      fc.property(shapeArb, fc.nat(), fc.integer({ min: -10, max: 10 }), (shape, seed, k) => {
        const a = arrayOf(shape, seed);
        const d = a.data;
        const expected = [
          d.reduce((x, y) => (x + y) | 0, 0),
          d.reduce((x, y) => Math.imul(x, y), 1),
          d.reduce((x, y) => Math.max(x, y), -(2 ** 31)),
          d.reduce((x, y) => Math.min(x, y), 2 ** 31 - 1),
          d.every((x) => x > k) ? 1 : 0,
          d.some((x) => x > k) ? 1 : 0,
          shape.length,
          d.length,
        ];
        expect(call('reduce', shape.length, { a, p: [k], outLength: 8 }).out).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});
