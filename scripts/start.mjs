// `npm start`: builds every sample program in datasets/samples with the Impala compiler and
// runs each one, then runs the image library's blur and Harris on the bundled sample image,
// writes the PNGs and prints their throughput, renders the Stanford bunny with the ray
// tracer (Mrays/s per workload) and aligns the human and orangutan mitochondria (the
// alignment summary and GCUPS), each through its app as a user would run it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const { buildProgram } = await import('@anydsl/compiler');
const { compileKernel } = await import('../libs/image/host.ts');
const { readImage } = await import('../libs/image/io.ts');
const { markCorners } = await import('../apps/shared/corners.ts');
const { writeImage } = await import('../apps/shared/image.ts');
const { timeRuns } = await import('../libs/image/bench.ts');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const samplesDir = path.join(root, 'datasets', 'samples');
const outDir = path.join(root, 'out', 'samples');
mkdirSync(outDir, { recursive: true });

const relative = (p) => path.relative(process.cwd(), p) || '.';
const samples = readdirSync(samplesDir).filter((f) => f.endsWith('.impala')).sort();
let failures = 0;

for (const file of samples) {
  const source = path.join(samplesDir, file);
  const exe = path.join(outDir, path.basename(file, '.impala'));
  console.log(`\n== ${relative(source)}`);
  const started = Date.now();
  const result = await buildProgram([{ path: relative(source), text: readFileSync(source, 'utf8') }], { kind: 'exe', output: exe, optLevel: 2 });
  if (!result.ok) {
    console.log(`build failed:\n${result.rendered}`);
    failures++;
    continue;
  }
  console.log(`built ${relative(exe)} in ${Date.now() - started} ms; running it:\n`);
  const ran = spawnSync(exe, [], { stdio: 'inherit' });
  if (ran.status !== 0) {
    console.log(`\n${relative(exe)} ${ran.signal ? `was killed by ${ran.signal}` : `exited with ${ran.status}`}`);
    failures++;
  }
}

console.log(`\n${samples.length - failures} of ${samples.length} samples built and ran; executables are in ${relative(outDir)}/`);

// The image library: each kernel is compiled (or loaded from the cache), run once for the
// PNG, then timed; the table gives the median of 10 runs.
const imagePath = path.join(root, 'datasets', 'images', 'sample.png');
const imageOut = path.join(root, 'out', 'image');
mkdirSync(imageOut, { recursive: true });
console.log(`\n== image library on ${relative(imagePath)}`);
const rows = [];
try {
  const input = await readImage(imagePath);
  const channels = input.channels;
  const jobs = [
    { title: 'blur 3×3 (Fig. 2), u8', file: 'blur.png', variant: { pipeline: 'box3', type: 'u8', channels, schedule: 'opt', boundary: 'clamp' } },
    { title: 'Gaussian 5×5, u8', file: 'gauss.png', variant: { pipeline: 'gauss5', type: 'u8', channels, schedule: 'opt', boundary: 'mirror' } },
    { title: 'Harris corners, f32', file: 'corners.png', variant: { pipeline: 'harris', type: 'u8', channels, schedule: 'opt', boundary: 'clamp' } },
  ];
  for (const job of jobs) {
    const started = Date.now();
    const kernel = await compileKernel(job.variant);
    const compileMs = Date.now() - started;
    const result = kernel.run(input);
    const timing = await timeRuns(input.width * input.height, 10, () => kernel.run(input, { output: result }));
    const png = job.variant.pipeline === 'harris' ? markCorners(input, result).image : result;
    const file = path.join(imageOut, job.file);
    await writeImage({ path: file, format: 'png' }, png);
    rows.push([job.title, `${job.variant.schedule}/${job.variant.boundary}`, `${compileMs} ms`, `${timing.medianMs.toFixed(2)} ms`, timing.gpixels.toFixed(3), relative(file)]);
  }
} catch (e) {
  console.log(`image library failed: ${e.rendered ?? e.message}`);
  failures++;
}
if (rows.length > 0) {
  const header = ['pipeline', 'schedule', 'compile', 'median', 'Gpixel/s', 'output'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}

/** Runs an app of apps/ with `args`, its output going to ours; counts a failure. */
function runApp(name, args) {
  console.log(`\n$ ${name} ${args.join(' ')}`);
  const ran = spawnSync(process.execPath, [path.join(root, 'apps', name, 'bin', `${name}.mjs`), ...args], { stdio: 'inherit' });
  if (ran.status !== 0) failures++;
}

mkdirSync(path.join(root, 'out', 'trace'), { recursive: true });
mkdirSync(path.join(root, 'out', 'align'), { recursive: true });
console.log('\n== ray tracer (libs/raytrace) on the Stanford bunny');
runApp('trace', ['--bvh4', relative(path.join(root, 'datasets', 'scenes', 'stanford_bunny.obj.xz')), '--width', '320', '--height', '240', '--bench', '3', '-o', relative(path.join(root, 'out', 'trace', 'bunny.png'))]);
console.log('\n== aligner (libs/anyseq): human and orangutan mitochondria, global, affine gaps');
const sequences = path.join(root, 'datasets', 'sequences');
runApp('align', [relative(path.join(sequences, 'mt_human.fa')), relative(path.join(sequences, 'mt_orangutan.fa')), '--affine', '--bench', '3', '-o', relative(path.join(root, 'out', 'align', 'mt.txt'))]);

process.exitCode = failures === 0 ? 0 : 1;
