import { expect, it } from 'vitest';
import { buildNative, interpretScalar, random } from '/work/main/tests/vectorize/support.ts';

const src = [4, 8, 16].map((w) => `
extern fn saxpy${w}(n: i32, a: f32, x: &[f32], y: &mut [f32]) -> () {
    vectorize(${w}, 0, n, |i| {
        if x(i) > 0.0f { y(i) = a * x(i) + y(i); } else { y(i) = -x(i); }
    });
}`).join('\n');

it('saxpy', async () => {
  const lib = await buildNative(src);
  const rnd = random(7);
  for (const w of [4, 8, 16]) for (const n of [0, 1, 5, 16, 37]) {
    const x = Float32Array.from({ length: n }, () => rnd() * 2 - 1);
    const y = Float32Array.from({ length: n + 3 }, () => rnd());
    const y2 = Float32Array.from(y);
    lib.call(`saxpy${w}`, n, 1.5, x, y);
    interpretScalar(src, `saxpy${w}`, n, 1.5, x, y2);
    expect(Array.from(y)).toEqual(Array.from(y2));
  }
});
