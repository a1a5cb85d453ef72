// The index mapping of the mirror and repeat modes (boundary.impala) at coordinates far
// from the image, where its division-free remainder must still be exact: the image tests
// only reach a few pixels past the edges.
import { beforeAll, describe, expect, it } from 'vitest';
import { type CompiledLibrary, compile } from '@anydsl/compiler';
import { librarySources } from '../../libs/image/host.ts';
import { random } from '../random.ts';

const entry = {
  path: 'wrap_entry.impala',
  text: [
    'extern fn wrap_mirror(i: i32, n: i32) -> i32 { wrap_index(mirror_mode(), i, n) }',
    'extern fn wrap_repeat(i: i32, n: i32) -> i32 { wrap_index(repeat_mode(), i, n) }',
  ].join('\n'),
};

let lib: CompiledLibrary;
beforeAll(async () => {
  lib = await compile({ sources: [...librarySources(), entry], options: { optLevel: 2 } });
});

const mod = (i: bigint, n: bigint): bigint => ((i % n) + n) % n;
const mirror = (i: number, n: number): number => {
  const m = Number(mod(BigInt(i), 2n * BigInt(n)));
  return m >= n ? 2 * n - 1 - m : m;
};
const repeat = (i: number, n: number): number => Number(mod(BigInt(i), BigInt(n)));

// 49: 49 · (1 / 49) rounds below 1 in f64, so the quotient estimate needs its correction.
const SIZES = [1, 2, 3, 5, 17, 49, 1000, 4097, 2 ** 29 - 3];

function coordinates(n: number): number[] {
  const near = [-2 * n - 1, -n - 1, -n, -2, -1, 0, 1, n - 1, n, n + 1, 2 * n - 1, 2 * n, 3 * n + 2, 4 * n, 6 * n, 959 * n];
  const far = [-(2 ** 31), -(2 ** 31) + 1, -(2 ** 30) - 7, 2 ** 30 + 11, 2 ** 31 - 2, 2 ** 31 - 1];
  const next = random(n);
  const spread = Array.from({ length: 200 }, () => Math.floor(next() * 2 ** 31) - 2 ** 30);
  return [...near, ...far, ...spread].filter((i) => i >= -(2 ** 31) && i < 2 ** 31);
}

describe('wrap_index', () => {
  for (const n of SIZES) {
    it(`mirror and repeat agree with the definition for n = ${n}`, () => {
      const m = lib.fn('wrap_mirror');
      const r = lib.fn('wrap_repeat');
      for (const i of coordinates(n)) {
        expect([i, m(i, n)]).toEqual([i, mirror(i, n)]);
        expect([i, r(i, n)]).toEqual([i, repeat(i, n)]);
      }
    });
  }
});
