// The paper's Fig. 6 CPU column on this machine: libs/image kernels against Halide 14 with
// the same schedule on both sides (box3 on i32 and Harris on f32: 512 × 32 tiles,
// vectorised, rows of tiles in parallel, Harris' products computed per tile; Harris also
// with the products computed for the whole image first, and with Halide's own app schedule,
// a sliding window, which ours expresses as `slide`) and against OpenCV 4.6 (separable
// 5 × 5 Gaussian on u8). Every case runs on every input: a
// synthetic square (4096² by default, left out with --no-synthetic), each --image FILE and,
// with --photos, the photographs datasets/images/fetch-photos.ts takes from a Debian package.
// Both sides run on the same image in this process tree, their outputs are compared
// (bit-exact for the integer pipelines, 1e-5 relative for f32), and one table is printed; raw
// times go to out/bench/image.json (or --json FILE).
//
//   npx tsx bench/image/run.ts [--size 4096] [--runs 5] [--image photo.jpg]... [--photos] [--no-synthetic] [--json FILE]
//
// The references (references.ts, shared with the apps' --compare) are built against the
// Debian packages libhalide14-0-dev and libopencv-dev, which this script installs with
// apt-get when running as root. A reference that cannot be built is skipped with the
// reason; no number is ever made up.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fetchPhotos } from '../../datasets/images/fetch-photos.ts';
import { median, timeRuns } from '../../libs/image/bench.ts';
import { compileKernel, type Kernel } from '../../libs/image/host.ts';
import { type Image, makeImage } from '../../libs/image/image.ts';
import { readImage } from '../../libs/image/io.ts';
import { entryFunction, type Pipeline, type Schedule, type Variant } from '../../libs/image/variants.ts';
import {
  type Agreement,
  buildTool,
  compareOutputs,
  prepareReference,
  REFERENCE_KERNELS,
  REFERENCE_TITLES,
  type ReferenceKernel,
  type ReferenceName,
  referencePackages,
  runReference,
} from './references.ts';
import { installMissing } from '../shared/native.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

const { values: cli } = parseArgs({
  options: {
    size: { type: 'string', default: '4096' },
    runs: { type: 'string', default: '5' },
    image: { type: 'string', multiple: true, default: [] },
    photos: { type: 'boolean', default: false },
    'no-synthetic': { type: 'boolean', default: false },
    json: { type: 'string', default: path.join(root, 'out', 'bench', 'image.json') },
  },
});
const runs = Number(cli.runs);
const size = Number(cli.size);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, not '${cli.runs}'`);
if (!Number.isInteger(size) || size < 8) throw new Error(`--size must be an integer of at least 8, not '${cli.size}'`);

// ------------------------------------------------------------ references

/** The references the rows use, each prepared once; one that cannot be is skipped with its reason. */
async function prepareReferences(names: readonly ReferenceName[]): Promise<{ about: Map<ReferenceName, string>; skipped: string[] }> {
  const about = new Map<ReferenceName, string>();
  const skipped: string[] = [];
  for (const name of new Set(names)) {
    try {
      about.set(name, (await prepareReference(name, (step) => console.error(`bench/image: ${step}`))).about);
    } catch (e) {
      skipped.push(`${REFERENCE_TITLES[name]}: ${(e as Error).message}`);
    }
  }
  return { about, skipped };
}

// ------------------------------------------------------------ inputs

interface Input {
  /** The file's base name, or 'synthetic'. */
  name: string;
  file?: string;
  plane: Image;
}

const inputLabel = (i: Input): string => `${i.name} ${i.plane.width}×${i.plane.height}`;

/** The synthetic square unless --no-synthetic, then the --image files, then with --photos the fetched photographs. */
async function loadInputs(): Promise<Input[]> {
  const inputs = cli['no-synthetic'] ? [] : [synthetic()];
  const photos = cli.photos ? await fetchPhotos((line) => console.error(`bench/image: ${line}`)) : [];
  for (const file of [...cli.image!, ...photos]) inputs.push({ name: path.basename(file), file, plane: luma(await readImage(file)) });
  if (inputs.length === 0) throw new Error('--no-synthetic leaves nothing to run; add --image FILE or --photos');
  return inputs;
}

/** A photograph's Rec. 601 luma as a gray u8 plane. */
function luma(img: Image): Image {
  const plane = makeImage('u8', img.width, img.height, 1);
  const c = img.channels;
  const p = img.data;
  for (let i = 0; i < img.width * img.height; i++) {
    plane.data[i] = c < 3 ? p[i * c]! : Math.round(0.299 * p[i * c]! + 0.587 * p[i * c + 1]! + 0.114 * p[i * c + 2]!);
  }
  return plane;
}

/** A deterministic smooth pattern with noise, --size pixels square. */
function synthetic(): Input {
  const plane = makeImage('u8', size, size, 1);
  let s = 0x9e3779b9;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      const smooth = 128 + 60 * Math.sin(x / 37) * Math.cos(y / 53);
      plane.data[y * size + x] = Math.max(0, Math.min(255, Math.round(smooth + ((s >>> 0) % 64) - 32)));
    }
  }
  return { name: 'synthetic', plane };
}

function asType(plane: Image, type: 'u8' | 'i32' | 'f32'): Image {
  const img = makeImage(type, plane.width, plane.height, 1);
  for (let i = 0; i < plane.data.length; i++) img.data[i] = type === 'f32' ? plane.data[i]! / 255 : plane.data[i]!;
  return img;
}

// ------------------------------------------------------------ running

type OursSchedule = Extract<Schedule, 'vec' | 'opt' | 'slide'>;

/**
 * Ours' schedule as the bench runs it (see SCHEDULE_DESCRIPTIONS in libs/image/variants.ts),
 * spelt out for the notes. The lanes are read from the variant's entry function because
 * variants.ts picks them per kernel: `vec` fills 512-bit vectors, so 16 lanes for the
 * 32-bit pipelines and 32 for gauss5 on u8, which computes in 16 bits.
 */
function oursScheduleNote(v: Variant): string {
  const lanes = Number(/vec\((\d+)\)/.exec(entryFunction(v))![1]);
  const vector = `${lanes}-lane vectorize (${512 / lanes}-bit arithmetic)`;
  switch (v.schedule) {
    case 'vec':
      return `512 × 32 tiles, ${vector}, rows of tiles in parallel; a stage feeding a stencil is computed for the whole image first (produce_root)`;
    case 'slide':
      return `32-row strips in parallel, ${vector}; a stage feeding a stencil is computed row by row into a ring of rows just ahead of its reader (sliding window)`;
    default:
      return `512 × 32 tiles, ${vector}, rows of tiles in parallel; a stage feeding a stencil is computed per tile on the tile grown by the stencil (compute-at)`;
  }
}

interface Ours {
  kernel: Kernel;
  schedule: OursSchedule;
  /** The schedule spelt out. */
  notes: string[];
}

async function oursKernel(pipeline: Pipeline, type: Variant['type'], schedule: OursSchedule): Promise<Ours> {
  const variant: Variant = { pipeline, schedule, boundary: 'clamp', type, channels: 1 };
  return { kernel: await compileKernel(variant), schedule, notes: [`ours ${schedule}: ${oursScheduleNote(variant)}`] };
}

interface Side {
  medianMs: number;
  gpixels: number;
  times?: number[];
}

interface Row {
  input: string;
  pipeline: string;
  reference: string;
  type: string;
  size: string;
  ours?: Side & { schedule: OursSchedule };
  ref?: Side;
  agreement?: Agreement;
  notes: string[];
}

const kernelOf = (reference: ReferenceName, kernel: string): ReferenceKernel => REFERENCE_KERNELS.find((k) => k.reference === reference && k.kernel === kernel)!;

// Every Halide row runs ours with the schedule Halide's side has; OpenCV's schedule is its own.
const CASES: { pipeline: Pipeline; type: 'u8' | 'i32' | 'f32'; schedule: OursSchedule; label: string; title: string; kernel: ReferenceKernel }[] = [
  { pipeline: 'box3', type: 'i32', schedule: 'opt', label: 'blur 3×3 (box3)', title: 'Halide 14 (same schedule)', kernel: kernelOf('halide', 'box3') },
  { pipeline: 'harris', type: 'f32', schedule: 'opt', label: 'Harris', title: 'Halide 14 (same schedule)', kernel: kernelOf('halide', 'harris_tiled') },
  { pipeline: 'harris', type: 'f32', schedule: 'vec', label: 'Harris', title: 'Halide 14, compute_root (same)', kernel: kernelOf('halide', 'harris_root') },
  { pipeline: 'harris', type: 'f32', schedule: 'slide', label: 'Harris', title: 'Halide 14, app schedule (same)', kernel: kernelOf('halide', 'harris_fused') },
  { pipeline: 'gauss5', type: 'u8', schedule: 'opt', label: 'Gaussian 5×5 (gauss5)', title: 'OpenCV 4.6', kernel: kernelOf('opencv', 'gauss5') },
];

async function main(): Promise<number> {
  let inputs: Input[];
  try {
    inputs = await loadInputs();
  } catch (e) {
    console.error(`bench/image: ${(e as Error).message}`);
    return 1;
  }
  await installMissing('bench/image', referencePackages(['halide', 'opencv']));
  const membw = await buildTool('membw', 'membw.cpp', ['-lpthread']);
  const references = await prepareReferences(CASES.map((c) => c.kernel.reference));
  for (const s of references.skipped) console.error(`bench/image: skipped ${s}`);
  console.error(`bench/image: ${inputs.map(inputLabel).join(', ')}; ${runs} runs per side, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})`);

  const rows: Row[] = [];
  const blurRows = new Map<Input, Row>();
  const kernels = new Map<string, Ours>();
  for (const inp of inputs) {
    const { width: w, height: h } = inp.plane;
    const pixels = w * h;
    console.error(`bench/image: ${inputLabel(inp)}`);
    // Rows with the same kernel of ours share one measurement of it per input.
    const measured = new Map<string, Side & { output: Image }>();
    for (const c of CASES) {
      const row: Row = { input: inp.name, pipeline: c.label, reference: c.title, type: c.type, size: `${w}×${h}`, notes: [] };
      rows.push(row);
      if (c === CASES[0]) blurRows.set(inp, row);
      const input = asType(inp.plane, c.type);
      const key = `${c.pipeline}/${c.type}/${c.schedule}`;
      let ours = kernels.get(key);
      if (!ours) kernels.set(key, (ours = await oursKernel(c.pipeline, c.type, c.schedule)));
      let side = measured.get(key);
      if (!side) {
        const output = ours.kernel.run(input);
        const t = await timeRuns(pixels, runs, () => ours.kernel.run(input, { output }));
        measured.set(key, (side = { medianMs: t.medianMs, gpixels: t.gpixels, output }));
      }
      row.ours = { medianMs: side.medianMs, gpixels: side.gpixels, schedule: ours.schedule };
      row.notes.push(...ours.notes, `${c.title}: ${c.kernel.schedule}`);
      if (!references.about.has(c.kernel.reference)) {
        row.notes.push(`${REFERENCE_TITLES[c.kernel.reference]} unavailable (see above)`);
        continue;
      }
      const r = await runReference(c.kernel, input, runs);
      row.ref = { medianMs: r.medianMs, gpixels: pixels / (r.medianMs * 1e6), times: r.times };
      if (r.log) row.notes.push(r.log);
      row.agreement = compareOutputs(side.output, r.output);
      if (!row.agreement.ok) console.error(`bench/image: MISMATCH ${c.label} vs ${c.title} on ${inputLabel(inp)}: ${row.agreement.detail}`);
      else if (c.type === 'f32') row.notes.push(row.agreement.detail);
    }
  }

  // Bandwidth on the synthetic square (otherwise the largest input), whose i32 planes outgrow
  // the caches: blur reads and writes each pixel once, against an all-core memcpy of as many bytes.
  const bwInput = inputs.find((i) => !i.file) ?? inputs.reduce((a, b) => (b.plane.data.length > a.plane.data.length ? b : a));
  const bytes = bwInput.plane.data.length * 4;
  const bw = spawnSync(membw, [String(bytes), String(runs)], { encoding: 'utf8' });
  if (bw.status !== 0) throw new Error(`membw failed: ${bw.stderr}`);
  const memcpyMs = (JSON.parse(bw.stdout) as { ms: number[] }).ms;
  const memcpyGBs = (2 * bytes) / (median(memcpyMs) * 1e6);
  const blur = blurRows.get(bwInput)!;
  const blurGBs = blur.ours ? (2 * bytes) / (blur.ours.medianMs * 1e6) : undefined;
  const blurRefGBs = blur.ref ? (2 * bytes) / (blur.ref.medianMs * 1e6) : undefined;

  printTable(rows);
  console.log('');
  console.log(`memcpy (all cores, ${(bytes / 2 ** 20).toFixed(0)} MiB, blur's traffic on ${inputLabel(bwInput)}): ${memcpyGBs.toFixed(1)} GB/s read+written`);
  if (blurGBs) console.log(`blur i32 moves 8 bytes per pixel: ours ${blurGBs.toFixed(1)} GB/s (${((100 * blurGBs) / memcpyGBs).toFixed(0)}% of memcpy)` + (blurRefGBs ? `, Halide ${blurRefGBs.toFixed(1)} GB/s (${((100 * blurRefGBs) / memcpyGBs).toFixed(0)}%)` : ''));
  for (const about of references.about.values()) console.log(`reference: ${about}`);

  const json = {
    inputs: inputs.map((i) => ({ name: i.name, file: i.file, width: i.plane.width, height: i.plane.height })),
    runs,
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    references: Object.fromEntries(references.about),
    skipped: references.skipped,
    memcpy: { input: bwInput.name, bytes, ms: memcpyMs, gbPerSecond: memcpyGBs },
    rows,
  };
  mkdirSync(path.dirname(cli.json!), { recursive: true });
  writeFileSync(cli.json!, JSON.stringify(json, null, 2) + '\n');
  console.log(`raw numbers: ${path.relative(process.cwd(), cli.json!)}`);
  return rows.some((r) => r.agreement && !r.agreement.ok) ? 1 : 0;
}

function printTable(rows: Row[]): void {
  const header = ['input', 'pipeline', 'type', 'reference', 'ours sched', 'ours ms', 'ref ms', 'ratio', 'ours Gpx/s', 'ref Gpx/s', 'outputs'];
  const cells = rows.map((r) => [
    `${r.input} ${r.size}`,
    r.pipeline,
    r.type,
    r.reference,
    r.ours?.schedule ?? '-',
    r.ours ? r.ours.medianMs.toFixed(2) : '-',
    r.ref ? r.ref.medianMs.toFixed(2) : 'n/a',
    r.ours && r.ref ? `${(r.ref.medianMs / r.ours.medianMs).toFixed(2)}×` : 'n/a',
    r.ours ? r.ours.gpixels.toFixed(3) : '-',
    r.ref ? r.ref.gpixels.toFixed(3) : 'n/a',
    r.agreement ? (r.agreement.ok ? (r.type === 'f32' ? 'agree (1e-5)' : 'bit-exact') : `MISMATCH (${r.agreement.mismatches})`) : '-',
  ]);
  const widths = header.map((hd, i) => Math.max(hd.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]): string => `| ${c.map((s, i) => s.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((wd) => '-'.repeat(wd + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
  console.log('ratio = reference time / ours time (> 1: ours is faster)');
  // A case's notes once, with those of a single input (the f32 agreement, a mismatch) under it.
  CASES.forEach((c, i) => {
    const caseRows = rows.filter((r) => r.pipeline === c.label && r.reference === c.title);
    const notesOf = (r: Row) => [...r.notes, ...(r.agreement && !r.agreement.ok ? [r.agreement.detail] : [])];
    const shared = notesOf(caseRows[0]!).filter((n) => caseRows.every((r) => notesOf(r).includes(n)));
    console.log(`  ${i + 1}. ${c.label} vs ${c.title}: ${shared.join('; ')}`);
    for (const r of caseRows) {
      const own = notesOf(r).filter((n) => !shared.includes(n));
      if (own.length) console.log(`     ${r.input} ${r.size}: ${own.join('; ')}`);
    }
  });
}

process.exitCode = await main();
