// Issue 13, items 7 and 10, under `vectorize`: the 2018 five-argument form, the RV
// intrinsics its traversal code calls (declared `extern "C"` as it declares them), and
// bodies whose local variables are indexed per lane or whose addresses escape (a copy
// per lane), or whose array values are updated at a per-lane index. Native results
// must equal the interpreter's (every lane alone in its group) wherever the program's
// result does not depend on the width; where it does (rv_load, rv_shuffle), they must
// equal a model of W lanes written here.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Native, buildNative, interpretScalar, random } from '../vectorize/support.ts';

const widths = [4, 8];

const rv2018 = `
extern "C" {
    fn rv_any(bool) -> bool;
    fn rv_all(bool) -> bool;
    fn rv_ballot(bool) -> i32;
    fn rv_extract(f32, i32) -> f32;
    fn rv_insert(f32, i32, f32) -> f32;
    fn rv_load(&f32, i32) -> f32;
    fn rv_store(&mut f32, i32, f32) -> ();
    fn rv_shuffle(f32, i32) -> f32;
    fn rv_align(&[i8], i32) -> &[i8];
}
extern "thorin" {
    fn vectorize(vector_length: i32, alignment: i32, lower: i32, upper: i32, body: fn(i32) -> ()) -> ();
}
fn rec_bump(p: &mut i32, k: i32) -> () { if k > 0 { *p += k; rec_bump(p, k - 1) } }
struct Acc { sum: i32, count: i32 }
fn add_to(a: &mut Acc, x: i32) -> () { a.sum += x; a.count += 1; }
`;

/** Width-independent bodies: run natively at each width and in the interpreter. */
const agnostic = (w: number): string => `
// Early exit as traversal code writes it: a group continues while any lane needs to.
extern fn search_w${w}(n: i32, x: &[f32], out: &mut [i32]) -> () {
    vectorize(${w}, 32, 0, n, |i| {
        let mut k = 0;
        let mut v = x(i);
        while rv_any(v < 10.0f) {
            if v < 10.0f { v = v * 2.0f + 1.0f; k++; }
        }
        let bits = rv_ballot(k > 2);
        out(i) = k * 10 + ((bits >> lane_id()) & 1) * 1000;
        // Every lane's v ended at 10 or more, so lane 0's did too.
        if !rv_all(v >= 10.0f) || rv_extract(v, 0) < 10.0f { out(i) = -3; }
        let same = rv_insert(v, 0, rv_extract(v, 0));
        if same != v { out(i) = -1; }
        let q = rv_align(bitcast[&[i8]](x), 32);
        if bitcast[&[f32]](q)(i) != x(i) { out(i) = -2; }
    });
}
// A local array indexed per lane, written in divergent code.
extern fn histogram_w${w}(n: i32, x: &[i32], out: &mut [i32]) -> () {
    vectorize(${w}, 0, 0, n, |i| {
        let mut h: [i32 * 5];
        for k in range(0, 5) { h(k) = 0; }
        for k in range(0, i % 7 + 1) {
            let b = (x(i) + k * 3) % 5;
            if b != 2 { h(b) = h(b) + k + 1; }
        }
        out(i) = h(0) + h(1) * 10 + h(2) * 100 + h(3) * 1000 + h(4) * 10000;
    });
}
// Addresses of locals passed to functions that are called once per lane (recursive, so not inlined).
extern fn escape_w${w}(n: i32, x: &[i32], out: &mut [i32]) -> () {
    vectorize(${w}, 0, 0, n, |i| {
        let mut v = x(i);
        let mut acc = Acc { sum: 0, count: 0 };
        if x(i) % 2 == 0 { rec_bump(&mut v, x(i) % 4); }
        for k in range(0, 3) { add_to(&mut acc, v + k); }
        out(i) = v * 1000 + acc.sum * 10 + acc.count;
    });
}
// Per-lane copies of an array of structs: an element's address escapes, goes through memory
// and is compared with another address.
extern fn pointers_w${w}(n: i32, x: &[i32], out: &mut [i32]) -> () {
    vectorize(${w}, 0, 0, n, |i| {
        let mut qs: [Acc * 3];
        for k in range(0, 3) { qs(k) = Acc { sum: 0, count: 0 }; }
        let j = x(i) % 3;
        qs(j).sum = i;
        add_to(&mut qs((j + 1) % 3), x(i));
        let mut cell = [&mut qs(0)];
        let c = &mut cell;
        let p = c(0);
        p.count += 5;
        let same = if &mut qs(j) as &mut Acc == p { 1 } else { 0 };
        out(i) = qs(0).sum + qs(1).sum * 100 + qs(2).sum * 10000 + (qs(0).count + qs(1).count * 10 + qs(2).count * 100) * 1000000 + same * 1000000000;
    });
}
// An array value updated and read at per-lane indices.
extern fn update_w${w}(n: i32, x: &[i32], out: &mut [i32]) -> () {
    vectorize(${w}, 0, 0, n, |i| {
        let mut t = [1, 2, 3, 4];
        t(x(i) % 4) = i;
        if i % 3 == 0 { t((x(i) + 1) % 4) = t(x(i) % 4) * 2; }
        out(i) = t(0) + t(1) * 100 + t(2) * 10000 + t(x(i) % 4) * 1000000;
    });
}`;

/** rv_load/rv_store/rv_shuffle: lane l of vector j reads element j * W + l; shuffle rotates by s lanes. */
const lanesOf = (w: number): string => `
extern fn blocks_w${w}(groups: i32, s: i32, x: &[f32], y: &mut [f32]) -> () {
    vectorize(${w}, 32, 0, groups * ${w}, |i| {
        let j = i / ${w};
        let v = rv_load(&x(0), j);
        rv_store(&mut y(0), j, rv_shuffle(v, s) - v);
    });
}`;

const source = rv2018 + widths.map((w) => agnostic(w) + lanesOf(w)).join('\n');

describe('2018 vectorize code', () => {
  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(source);
  }, 240_000);

  for (const kernel of ['search', 'histogram', 'escape', 'pointers', 'update']) {
    it(`${kernel}: the same results as one lane at a time`, () => {
      const rnd = random(13);
      for (const w of widths) {
        for (const n of [1, w - 1, 2 * w + 3]) {
          const x = kernel === 'search' ? Float32Array.from({ length: n }, () => rnd() * 12 - 1) : Int32Array.from({ length: n }, () => Math.floor(rnd() * 50));
          const native = new Int32Array(n).fill(-7);
          const reference = new Int32Array(n).fill(-7);
          lib.call(`${kernel}_w${w}`, n, x, native);
          interpretScalar(source, `${kernel}_w${w}`, n, x, reference);
          expect(Array.from(native)).toEqual(Array.from(reference));
        }
      }
    });
  }

  it('rv_load, rv_store and rv_shuffle see the W lanes of the group', () => {
    const rnd = random(5);
    for (const w of widths) {
      const groups = 3;
      const x = Float32Array.from({ length: groups * w }, () => Math.round(rnd() * 100));
      for (const s of [0, 1, -1, w + 2]) {
        const y = new Float32Array(groups * w);
        lib.call(`blocks_w${w}`, groups, s, x, y);
        const expected = Array.from({ length: groups * w }, (_, e) => {
          const j = Math.floor(e / w);
          const l = e % w;
          const from = (((l + s) % w) + w) % w;
          return x[j * w + from]! - x[e]!;
        });
        expect(Array.from(y)).toEqual(expected);
      }
    }
  });
});
