// Issue 13 item 9: partial evaluation reads through memory as the original did (a load
// from a local whose address was taken gets the value last stored there, past stores
// to other locations), and never past a store that may write the same place. The
// programs here mix both: natively (after pe) they must compute what the interpreter
// computes on the unevaluated program, for many inputs, and where the original knows a
// value `?` must say so.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Native, buildNative, interpretScalar, random, vectorised } from '../vectorize/support.ts';

const source = `
struct P { a: i32, b: i32 }
fn @write_through(q: &mut P, v: i32) -> () { q.a = v; }

// Stores to other fields and locals are passed; the dynamic store to the same field is not.
extern fn fields(x: i32) -> i32 {
    let mut p = P { a: 1, b: 2 };
    let mut other = 3;
    let o = &mut other;
    let q = &mut p;
    q.b = x;
    *o = x + 1;
    let known = if ?p.a { 1000000 } else { 0 };
    if x > 5 { write_through(q, x * 2); }
    known + p.a * 10 + p.b + other
}

// An element stored at a dynamic index may be the one read: the read must not be forwarded.
extern fn elements(i: i32, x: i32) -> i32 {
    let mut arr = [1, 2, 3, 4];
    let r = &mut arr;
    r(2) = 7;
    r(i & 3) = x;
    arr(2) * 100 + arr(0)
}

// The address goes through memory and comes back as a pointer of unknown origin.
extern fn aliased(x: i32) -> i32 {
    let mut p = P { a: 1, b: 2 };
    let mut cell = [&mut p, &mut p];
    let c = &mut cell;
    let t = c(x & 1);
    t.a = x;
    p.a + p.b
}

// Seen as an indefinite array (&[i32]) and written there.
extern fn viewed(i: i32, x: i32) -> i32 {
    let mut arr = [5, 6, 7];
    let v: &mut [i32] = &mut arr;
    v(i % 3) = x;
    arr(0) + arr(1) * 10 + arr(2) * 100
}
`;

describe('load forwarding in pe', () => {
  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(source);
  }, 240_000);

  it('computes what the interpreter computes', () => {
    const rnd = random(91);
    for (let k = 0; k < 12; k++) {
      const x = Math.floor(rnd() * 20) - 5;
      const i = Math.floor(rnd() * 10);
      expect(lib.call('fields', x) % 1000000).toBe(interpretScalar(source, 'fields', x));
      expect(lib.call('elements', i, x)).toBe(interpretScalar(source, 'elements', i, x));
      expect(lib.call('aliased', x)).toBe(interpretScalar(source, 'aliased', x));
      expect(lib.call('viewed', i, x)).toBe(interpretScalar(source, 'viewed', i, x));
    }
  });

  it('knows a field read past stores to other places', () => {
    expect(vectorised(source).errors).toEqual([]);
    expect(lib.call('fields', 0)).toBeGreaterThanOrEqual(1000000);
  });
});
