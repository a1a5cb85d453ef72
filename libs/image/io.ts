// Image files with sharp: any format sharp decodes comes in as u8 with 1 to 4 interleaved
// channels (gray, gray and alpha, RGB, RGBA, as the file has them); images go out as the
// bytes of PNG, JPEG, WebP or TIFF, and the apps write those bytes (apps/shared/output.ts).
import { stat } from 'node:fs/promises';
import sharp from 'sharp';
import { type Image, makeImage } from './image.ts';

/** The kernels index samples with 32-bit integers (see makeImage). */
const MAX_SAMPLES = 2 ** 31 - 1;

const SAMPLE_BITS: Record<string, number> = { char: 8, ushort: 16, short: 16, uint: 32, int: 32, float: 32, complex: 64, double: 64, dpcomplex: 128 };

/**
 * Decodes `file` to u8. Whatever makes that impossible (a missing or empty file, not an
 * image, samples deeper than 8 bits, more samples than 32-bit indices reach) is a one-line
 * message saying why, never a stack.
 */
export async function readImage(file: string, onNote?: (note: string) => void): Promise<Image> {
  const fail = (why: string) => new Error(`cannot read image '${file}': ${why}`);
  let entry;
  try {
    entry = await stat(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw fail(code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message);
  }
  if (entry.isDirectory()) throw fail('it is a directory');
  if (entry.size === 0) throw fail('the file is empty');
  // The header alone says whether the image fits; sharp's own pixel limit would hide why not.
  let meta;
  try {
    meta = await sharp(file, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw fail(sharpReason(e));
  }
  const { width = 0, height = 0, channels = 0, depth = 'uchar' } = meta;
  if (depth !== 'uchar') {
    const bits = SAMPLE_BITS[depth] ? `${SAMPLE_BITS[depth]}-bit` : depth;
    throw fail(`it has ${bits} samples (${meta.format}); the kernels take 8-bit images, so save it with 8 bits per channel first`);
  }
  if (width < 1 || height < 1) throw fail(`it is ${width}×${height} pixels, there is nothing to process`);
  if (width * height * channels > MAX_SAMPLES) {
    throw fail(`${width}×${height}×${channels} is ${width * height * channels} samples, more than the kernels' 32-bit indices reach (2³¹ − 1)`);
  }
  // sharp decodes the first frame unless asked for more; the kernels take one image.
  const frames = meta.pages ?? 1;
  if (frames > 1) onNote?.(`'${file}' has ${frames} frames (${meta.format}); only the first is processed`);
  const decoder = sharp(file, { limitInputPixels: MAX_SAMPLES });
  // sharp hands out sRGB unless told otherwise, which would triple a gray image; its gray
  // conversion drops alpha, so gray and alpha comes as sRGB and alpha and is taken apart below.
  if (channels === 1) decoder.toColourspace('b-w');
  let decoded;
  try {
    decoded = await decoder.raw().toBuffer({ resolveWithObject: true });
  } catch (e) {
    throw fail(sharpReason(e));
  }
  const info = decoded.info;
  if (channels === 2 && info.channels === 4) {
    const img = makeImage('u8', info.width, info.height, 2);
    for (let i = 0; i < info.width * info.height; i++) {
      img.data[2 * i] = decoded.data[4 * i]!;
      img.data[2 * i + 1] = decoded.data[4 * i + 3]!;
    }
    return img;
  }
  const img = makeImage('u8', info.width, info.height, info.channels);
  img.data.set(decoded.data);
  return img;
}

/** sharp's message on one line, without libvips' dangling colon when it has no detail. */
function sharpReason(e: unknown): string {
  const message = ((e as Error).message ?? String(e)).split('\n')[0]!.replace(/[:\s]+$/, '');
  return /unsupported image format/.test(message) ? 'not an image sharp can decode (PNG, JPEG, WebP, TIFF, GIF, …)' : message;
}

/** The formats images are written in, each with the file extensions that name it. */
export const IMAGE_FORMATS = {
  png: ['.png'],
  jpeg: ['.jpg', '.jpeg'],
  webp: ['.webp'],
  tiff: ['.tif', '.tiff'],
} as const;
export type ImageFormat = keyof typeof IMAGE_FORMATS;

/** Every extension of IMAGE_FORMATS. */
export const IMAGE_EXTENSIONS: readonly string[] = Object.values(IMAGE_FORMATS).flat();

/** The format a file name's extension names (any case), or undefined. */
export function imageFormatOf(file: string): ImageFormat | undefined {
  const lower = file.toLowerCase();
  return (Object.keys(IMAGE_FORMATS) as ImageFormat[]).find((f) => IMAGE_FORMATS[f].some((ext) => lower.endsWith(ext)));
}

/** Whether `format` keeps every channel of an image with `channels`: JPEG has no alpha. */
export function formatKeepsChannels(format: ImageFormat, channels: number): boolean {
  return format !== 'jpeg' || channels === 1 || channels === 3;
}

/** The bytes of a u8 image in `format`, with its channels: gray (and alpha) stays gray. */
export async function encodeImage(img: Image, format: ImageFormat): Promise<Buffer> {
  if (img.type !== 'u8') throw new Error(`image files take u8 images, not ${img.type}`);
  if (!formatKeepsChannels(format, img.channels)) throw new Error(`${format.toUpperCase()} has no alpha channel to keep the alpha of a ${img.channels}-channel image in`);
  const data = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  const encoder = sharp(data, { raw: { width: img.width, height: img.height, channels: img.channels as 1 | 2 | 3 | 4 } });
  // As in readImage: gray stays gray.
  if (img.channels <= 2) encoder.toColourspace('b-w');
  return encoder.toFormat(format).toBuffer();
}
