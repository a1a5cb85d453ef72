import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { buildNative, interpretScalar, random } from './support.ts';

it('lanes', async () => {
  const src = readFileSync('/tmp/vec/k/lanes.impala', 'utf8');
  const lib = await buildNative(src);
  const rnd = random(9);
  for (const n of [5, 8, 21]) {
    const x = Int32Array.from({ length: n }, () => Math.floor(rnd() * 100));
    const y = new Int32Array(n);
    lib.call('lanes', n, x, y);
    const exp = new Int32Array(n);
    for (let g = 0; g < n; g += 8) {
      const act = [...Array(8).keys()].filter((l) => g + l < n);
      const c = act.map((l) => x[g + l]! > 50);
      const ballot = act.reduce((b, l, k) => b | (c[k] ? 1 << l : 0), 0);
      for (const l of act) exp[g + l] = l * 1000 + 800 + (c.some(Boolean) ? 10 : 0) + (c.every(Boolean) ? 20 : 0) + ballot * 100000 + x[g]! * 10000000;
    }
    expect(Array.from(y)).toEqual(Array.from(exp));
  }
  expect(lib.call('scalar_lanes', 7)).toBe(0 + 10 + 100 + 7000 + 10000);
  const xf = Float32Array.from({ length: 19 }, () => rnd() * 4);
  const xf2 = xf.slice();
  lib.call('roots', 19, xf); interpretScalar(src, 'roots', 19, xf2);
  for (let k = 0; k < 19; k++) expect(xf[k]).toBeCloseTo(xf2[k]!, 5);
  const xi = Int32Array.from({ length: 10 }, (_, k) => k * 3);
  const xi2 = xi.slice();
  lib.call('calls', 10, xi); interpretScalar(src, 'calls', 10, xi2);
  expect(Array.from(xi)).toEqual(Array.from(xi2));
});
