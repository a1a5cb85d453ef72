import { compileKernels } from '/work/main/libs/image/host.ts';
import { makeImage } from '/work/main/libs/image/image.ts';
import { timeRuns } from '/work/main/libs/image/bench.ts';
const vs = [
 { pipeline: 'box3', schedule: 'opt', boundary: 'clamp', type: 'i32', channels: 1 },
 { pipeline: 'harris', schedule: 'opt', boundary: 'clamp', type: 'f32', channels: 1 },
 { pipeline: 'gauss5', schedule: 'opt', boundary: 'clamp', type: 'u8', channels: 1 },
] as const;
let t = Date.now();
try {
const set = await compileKernels(vs as any);
console.log('compiled', Date.now() - t);
for (const v of vs) {
  const img = makeImage(v.type, 2048, 2048, 1);
  for (let i = 0; i < img.data.length; i++) img.data[i] = v.type === 'f32' ? Math.random() : (i * 7) & 255;
  const k = set.kernel(v as any);
  const out = k.run(img);
  console.log(v.pipeline, timeRuns(2048*2048, 3, () => k.run(img, { output: out })));
}
} catch (e) { console.log(String(e).slice(0, 2000)); }
