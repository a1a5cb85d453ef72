import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { buildNative } from '/work/main/tests/vectorize/support.ts';

it('mandel bench', async () => {
  const src = readFileSync('/tmp/vec/mandel_bench.impala', 'utf8');
  const lib = await buildNative(src);
  const W = 1024, H = 1024, M = 256;
  const ref = new Int32Array(W * H);
  const time = (name: string, out: Int32Array) => {
    let best = Infinity;
    for (let r = 0; r < 5; r++) { const t = performance.now(); lib.call(name, W, H, M, out); best = Math.min(best, performance.now() - t); }
    return best;
  };
  const ts = time('mandel_scalar', ref);
  console.log('scalar', ts.toFixed(1), 'ms');
  for (const v of ['mandel_v4', 'mandel_v8', 'mandel_v16']) {
    const out = new Int32Array(W * H);
    const t = time(v, out);
    let diff = 0; for (let i = 0; i < ref.length; i++) if (out[i] !== ref[i]) diff++;
    console.log(v, t.toFixed(1), 'ms', 'speedup', (ts / t).toFixed(2), 'mismatches', diff);
  }
});
