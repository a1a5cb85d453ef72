// Turns a Harris response into a picture: the input in gray, dimmed, with the corners (local
// maxima of the response above a fraction of the strongest one) marked red.
import { type Image, makeImage } from '../../libs/image/image.ts';

export function markCorners(input: Image, response: Image, threshold = 0.01): { image: Image; corners: number } {
  const { width: w, height: h } = response;
  const out = makeImage('u8', w, h, 3);
  const ch = input.channels;
  for (let i = 0; i < w * h; i++) {
    const v = ch >= 3 ? 0.299 * input.data[i * ch]! + 0.587 * input.data[i * ch + 1]! + 0.114 * input.data[i * ch + 2]! : input.data[i * ch]!;
    out.data.fill(Math.round(v * 0.6), i * 3, i * 3 + 3);
  }
  let max = 0;
  for (const v of response.data) max = Math.max(max, v);
  let corners = 0;
  const r = response.data;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const v = r[y * w + x]!;
      if (v <= threshold * max) continue;
      let peak = true;
      for (let dy = -1; dy <= 1 && peak; dy++) for (let dx = -1; dx <= 1; dx++) if ((dx || dy) && r[(y + dy) * w + x + dx]! >= v) peak = false;
      if (!peak) continue;
      corners++;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) out.data.set([255, 0, 0], ((y + dy) * w + x + dx) * 3);
      }
    }
  }
  return { image: out, corners };
}
