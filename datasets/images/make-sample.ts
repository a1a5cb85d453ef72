// Draws datasets/images/sample.png, the image `npm start` runs blur and Harris on: a
// 640 × 480 RGB scene of gradients, a checkerboard, rectangles and a disc (edges and
// corners for the detectors). Run it again to rebuild:
//   npx tsx datasets/images/make-sample.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeImage } from '../../libs/image/image.ts';
import { encodeImage } from '../../libs/image/io.ts';

const W = 640;
const H = 480;

function pixel(x: number, y: number): [number, number, number] {
  // Sky-like background gradient.
  let rgb: [number, number, number] = [40 + (x * 120) / W, 70 + (y * 100) / H, 160 - (y * 60) / H];
  // Checkerboard in the left third: many corners.
  if (x >= 40 && x < 232 && y >= 60 && y < 252 && (((x - 40) >> 5) + ((y - 60) >> 5)) % 2 === 0) rgb = [235, 235, 225];
  // Two rectangles.
  if (x >= 300 && x < 470 && y >= 80 && y < 200) rgb = [200, 60, 50];
  if (x >= 380 && x < 600 && y >= 150 && y < 300) rgb = [240, 190, 40];
  // A disc (edges without corners).
  if ((x - 180) ** 2 + (y - 370) ** 2 < 70 ** 2) rgb = [30, 140, 70];
  return rgb;
}

const img = makeImage('u8', W, H, 3);
for (let y = 0; y < H; y++) {
  for (let x = 0; x < W; x++) img.data.set(pixel(x, y).map(Math.round), (y * W + x) * 3);
}
writeFileSync(fileURLToPath(new URL('sample.png', import.meta.url)), await encodeImage(img, 'png'));
