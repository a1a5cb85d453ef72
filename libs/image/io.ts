// Reading and writing image files with sharp: any format sharp decodes comes in as u8
// with 1 to 4 interleaved channels; PNG goes out.
import sharp from 'sharp';
import { type Image, makeImage } from './image.ts';

/** Decodes `file` to u8; a clear message (not a stack) when it is missing or not an image. */
export async function readImage(file: string): Promise<Image> {
  let decoded;
  try {
    decoded = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  } catch (e) {
    throw new Error(`cannot read image '${file}': ${(e as Error).message}`);
  }
  const { width, height, channels } = decoded.info;
  // raw() converts deeper samples to 8 bits; anything else would not fill the image exactly.
  if (decoded.data.length !== width * height * channels) throw new Error(`cannot read image '${file}': only 8-bit samples are supported`);
  const img = makeImage('u8', width, height, channels);
  img.data.set(decoded.data);
  return img;
}

/** Encodes a u8 image as PNG. */
export async function writePng(file: string, img: Image): Promise<void> {
  if (img.type !== 'u8') throw new Error(`PNG output takes u8 images, not ${img.type}`);
  const data = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  try {
    await sharp(data, { raw: { width: img.width, height: img.height, channels: img.channels as 1 | 2 | 3 | 4 } }).png().toFile(file);
  } catch (e) {
    throw new Error(`cannot write '${file}': ${(e as Error).message}`);
  }
}
