// Images in memory on the TypeScript side: interleaved channels, rows without padding,
// exactly the layout the Impala accessors in image.impala read.
import { xorshift32 } from '../shared/random.ts';
import type { ElementType } from './variants.ts';

export type Pixels = Uint8Array | Int32Array | Float32Array;

export interface Image {
  type: ElementType;
  width: number;
  height: number;
  channels: number;
  data: Pixels;
}

/** The largest image the kernels index with 32-bit offsets. */
const MAX_ELEMENTS = 2 ** 31 - 1;

export function makeImage(type: ElementType, width: number, height: number, channels: number): Image {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new Error(`image size must be positive integers, got ${width}×${height}`);
  }
  if (![1, 2, 3, 4].includes(channels)) throw new Error(`images have 1 to 4 channels, not ${channels}`);
  const n = width * height * channels;
  if (n > MAX_ELEMENTS) throw new Error(`image of ${width}×${height}×${channels} is too large`);
  const data = type === 'u8' ? new Uint8Array(n) : type === 'i32' ? new Int32Array(n) : new Float32Array(n);
  return { type, width, height, channels, data };
}

/** A deterministic pseudo-random image (xorshift32): u8 over 0–255, i32 over −5000–5000 (negative values exercise truncating division), f32 over [0, 1). */
export function randomImage(type: ElementType, width: number, height: number, channels: number, seed: number): Image {
  const img = makeImage(type, width, height, channels);
  const next = xorshift32(seed);
  for (let i = 0; i < img.data.length; i++) {
    const r = next() * 2 ** 32;
    img.data[i] = type === 'u8' ? r & 255 : type === 'i32' ? (r % 10001) - 5000 : r / 2 ** 32;
  }
  return img;
}

/** The same pixels as another element type (values converted as numbers; to u8 saturating). */
export function convertImage(img: Image, type: ElementType): Image {
  const out = makeImage(type, img.width, img.height, img.channels);
  if (type === 'u8') {
    for (let i = 0; i < img.data.length; i++) out.data[i] = Math.min(255, Math.max(0, Math.round(img.data[i]!)));
  } else {
    out.data.set(img.data);
  }
  return out;
}
