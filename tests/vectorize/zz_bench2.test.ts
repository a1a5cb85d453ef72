import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { buildNative } from './support.ts';

it('blur bench', async () => {
  const src = readFileSync('/tmp/vec/k/blur.impala', 'utf8');
  const lib = await buildNative(src);
  const N = 1 << 20, R = 4;
  const s = Float32Array.from({ length: N + 2 * R }, (_, i) => Math.sin(i));
  const a = new Float32Array(N), b = new Float32Array(N);
  const time = (name: string, out: Float32Array) => {
    let best = Infinity;
    for (let r = 0; r < 7; r++) { const t = performance.now(); lib.call(name, N, R, s, out); best = Math.min(best, performance.now() - t); }
    return best;
  };
  const ts = time('blur_scalar', a), tv = time('blur_v16', b);
  console.log('blur scalar', ts.toFixed(2), 'v16', tv.toFixed(2), 'speedup', (ts / tv).toFixed(2));
  expect(Array.from(b)).toEqual(Array.from(a));
});
