// Reading and writing image files with sharp: any format sharp decodes comes in as u8
// with 1 to 4 interleaved channels; PNG goes out.
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
export async function readImage(file: string): Promise<Image> {
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
  const decoder = sharp(file, { limitInputPixels: MAX_SAMPLES });
  // sharp hands out sRGB unless told otherwise, which would triple a gray image.
  if (channels <= 2) decoder.toColourspace('b-w');
  let decoded;
  try {
    decoded = await decoder.raw().toBuffer({ resolveWithObject: true });
  } catch (e) {
    throw fail(sharpReason(e));
  }
  const info = decoded.info;
  const img = makeImage('u8', info.width, info.height, info.channels);
  img.data.set(decoded.data);
  return img;
}

/** sharp's message on one line, without libvips' dangling colon when it has no detail. */
function sharpReason(e: unknown): string {
  const message = ((e as Error).message ?? String(e)).split('\n')[0]!.replace(/[:\s]+$/, '');
  return /unsupported image format/.test(message) ? 'not an image sharp can decode (PNG, JPEG, WebP, TIFF, GIF, …)' : message;
}

/** Encodes a u8 image as PNG with its channels: gray (and alpha) stays gray. */
export async function writePng(file: string, img: Image): Promise<void> {
  if (img.type !== 'u8') throw new Error(`PNG output takes u8 images, not ${img.type}`);
  const data = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  try {
    const encoder = sharp(data, { raw: { width: img.width, height: img.height, channels: img.channels as 1 | 2 | 3 | 4 } });
    // As in readImage: gray stays gray.
    if (img.channels <= 2) encoder.toColourspace('b-w');
    await encoder.png().toFile(file);
  } catch (e) {
    throw new Error(`cannot write '${file}': ${sharpReason(e).replace(`${file}: `, '')}`);
  }
}
