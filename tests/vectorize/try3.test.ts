import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { buildNative, interpretScalar, random } from './support.ts';

it('mem', async () => {
  const src = readFileSync('/tmp/vec/k/mem.impala', 'utf8');
  const lib = await buildNative(src);
  const rnd = random(5);
  for (const n of [0, 1, 7, 16, 37, 70]) {
    const perm = Int32Array.from({ length: n }, (_, i) => i).sort(() => rnd() - 0.5);
    const idx = Int32Array.from({ length: n }, () => Math.floor(rnd() * (n + 5)) - 5);
    const xf = Float32Array.from({ length: n }, () => rnd());
    const cases: [string, () => any[]][] = [
      ['gather', () => [n, idx, xf, new Float32Array(n)]],
      ['scatter', () => [n, perm, xf, new Float32Array(n)]],
      ['stride2', () => [n, Int32Array.from({ length: 2 * n }, () => Math.floor(rnd() * 100)), new Int32Array(2 * n)]],
      ['uniform', () => [n, Int32Array.from({ length: 3 }, () => Math.floor(rnd() * 100)), Int32Array.from({ length: n }, () => Math.floor(rnd() * 20))]],
      ['bools', () => [n, Uint8Array.from({ length: n }, () => (rnd() < 0.5 ? 1 : 0)), Int32Array.from({ length: n }, () => Math.floor(rnd() * 20))]],
      ['bytes', () => [n, Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256))]],
      ['shorts', () => [n, Int16Array.from({ length: n }, () => Math.floor(rnd() * 400) - 100)]],
      ['doubles', () => [n, Float64Array.from({ length: n }, () => rnd())]],
    ];
    for (const [name, mk] of cases) {
      const a = mk();
      const b = a.map((v) => (typeof v === 'number' ? v : v.slice()));
      lib.call(name, ...a);
      interpretScalar(src, name, ...b);
      expect([name, n, ...a.slice(1).map((v: any) => Array.from(v))]).toEqual([name, n, ...b.slice(1).map((v: any) => Array.from(v))]);
    }
  }
});
