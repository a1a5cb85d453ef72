// Random test images (the image library's randomImage) and the comparison every image test
// makes: one kernel against the TypeScript reference, exactly for integer pipelines and to
// f32 rounding for Harris; and running an app in-process with its output captured.
import { expect, vi } from 'vitest';
import type { Image } from '../../libs/image/image.ts';

export { randomImage } from '../../libs/image/image.ts';

/** The sizes the acceptance criteria name: a single pixel, smaller than a tile, and larger than one but not a multiple. */
export const SIZES: readonly (readonly [number, number])[] = [
  [1, 1],
  [17, 5],
  [1023, 769],
];

/** Exact equality, reporting the first differing element instead of dumping the arrays. */
export function expectSameImage(actual: Image, expected: Image, label: string): void {
  expect([actual.width, actual.height, actual.channels, actual.type], label).toEqual([expected.width, expected.height, expected.channels, expected.type]);
  const i = actual.data.findIndex((v, k) => v !== expected.data[k]);
  if (i >= 0) expect.fail(`${label}: element ${describe(actual, i)} is ${actual.data[i]}, expected ${expected.data[i]}`);
}

/** Agreement to float rounding: relative 1e-4, and 1e-6 of the largest reference value for results near zero. */
export function expectCloseImage(actual: Image, expected: Image, label: string): void {
  expect([actual.width, actual.height, actual.channels], label).toEqual([expected.width, expected.height, expected.channels]);
  let scale = 0;
  for (const v of expected.data) scale = Math.max(scale, Math.abs(v));
  const i = actual.data.findIndex((v, k) => {
    const e = expected.data[k]!;
    return !(Math.abs(v - e) <= 1e-4 * Math.abs(e) + 1e-6 * scale);
  });
  if (i >= 0) expect.fail(`${label}: element ${describe(actual, i)} is ${actual.data[i]}, expected ${expected.data[i]}`);
}

function describe(img: Image, i: number): string {
  const p = Math.floor(i / img.channels);
  return `(x ${p % img.width}, y ${Math.floor(p / img.width)}, channel ${i % img.channels})`;
}

/** Runs an app's main with `args` in this process, capturing what it prints. */
export async function runApp(main: (argv: string[]) => Promise<number>, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const spies = [
    vi.spyOn(console, 'log').mockImplementation((...a) => void (out += `${a.join(' ')}\n`)),
    vi.spyOn(console, 'error').mockImplementation((...a) => void (err += `${a.join(' ')}\n`)),
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true)),
  ];
  try {
    return { code: await main(args), out, err };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}
