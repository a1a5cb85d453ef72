import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { buildNative, interpretScalar, random } from './support.ts';

it('ctl', async () => {
  const src = readFileSync('/tmp/vec/k/ctl.impala', 'utf8');
  const lib = await buildNative(src);
  const rnd = random(3);
  for (const name of ['early', 'loops', 'sw']) for (const n of [0, 3, 8, 21]) {
    const x = Int32Array.from({ length: n }, () => Math.floor(rnd() * 120) - 20);
    const y = Int32Array.from({ length: n }, () => 5);
    const y2 = Int32Array.from(y);
    lib.call(name, n, x, y);
    interpretScalar(src, name, n, x, y2);
    expect([name, ...y]).toEqual([name, ...y2]);
  }
});
