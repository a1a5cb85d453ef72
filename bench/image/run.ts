// The paper's Fig. 6 CPU column on this machine: libs/image kernels against Halide 14
// (box3 on i32, Harris on f32, both with ours' schedule: 512 × 32 tiles, vectorised, rows of
// tiles in parallel; Harris also with Halide's own fused app schedule) and against OpenCV 4.6
// (separable 5 × 5 Gaussian on u8). Both sides run on the same image in this process tree,
// their outputs are compared (bit-exact for the integer pipelines, 1e-5 relative for f32),
// and one table is printed; raw times go to out/bench/image.json (or --json FILE).
//
//   npx tsx bench/image/run.ts [--size 4096] [--runs 5] [--image photo.jpg] [--json FILE]
//
// The references are built from the C++ next to this file against the Debian packages
// libhalide14-0-dev and libopencv-dev (installed with apt-get when running as root) and
// cached under .cache/bench/image/<hash>. A reference that cannot be built is skipped with
// the reason; no number is ever made up.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CompileFailure } from '../../compiler/src/driver/compile.ts';
import { timeRuns } from '../../libs/image/bench.ts';
import { compileKernel, type Kernel } from '../../libs/image/host.ts';
import { type Image, makeImage } from '../../libs/image/image.ts';
import { readImage } from '../../libs/image/io.ts';
import type { Pipeline, Schedule, Variant } from '../../libs/image/variants.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

const { values: cli } = parseArgs({
  options: {
    size: { type: 'string', default: '4096' },
    runs: { type: 'string', default: '5' },
    image: { type: 'string' },
    json: { type: 'string', default: path.join(root, 'out', 'bench', 'image.json') },
  },
});
const runs = Number(cli.runs);
const size = Number(cli.size);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, not '${cli.runs}'`);
if (!Number.isInteger(size) || size < 8) throw new Error(`--size must be an integer of at least 8, not '${cli.size}'`);

// ------------------------------------------------------------ references

const HALIDE_INCLUDE = '/usr/include/halide14';
const HALIDE_PACKAGE = 'libhalide14-0-dev';
const OPENCV_PACKAGE = 'libopencv-dev';

function sh(cmd: string, args: string[], opts: { cwd?: string } = {}): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

const halideInstalled = (): boolean => existsSync(path.join(HALIDE_INCLUDE, 'Halide.h'));
const opencvInstalled = (): boolean => sh('pkg-config', ['--exists', 'opencv4']).ok;

/** Installs the missing reference packages as root; otherwise says which are needed. */
function ensurePackages(): void {
  const missing = [
    ...(halideInstalled() ? [] : [HALIDE_PACKAGE]),
    ...(opencvInstalled() ? [] : [OPENCV_PACKAGE]),
  ];
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    console.error(`bench/image: the references need ${missing.join(' ')}; install them with\n  sudo apt-get install -y ${missing.join(' ')}`);
    return;
  }
  console.error(`bench/image: installing ${missing.join(' ')} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (r.status !== 0) console.error(`bench/image: apt-get install ${missing.join(' ')} failed; those references are skipped`);
}

interface Drivers {
  halide?: string;
  opencv?: string;
  membw: string;
  /** The Halide target string the kernels were compiled for. */
  halideTarget?: string;
  skipped: string[];
}

/** Builds (or finds in the cache) the reference drivers; a failed build skips that reference with its reason. */
function buildDrivers(): Drivers {
  const sources = ['driver_common.h', 'halide_pipelines.cpp', 'halide_driver.cpp', 'opencv_driver.cpp', 'membw.cpp'];
  const hash = createHash('sha256');
  for (const f of sources) hash.update(`${f}\0${readFileSync(path.join(here, f))}\0`);
  hash.update(sh('g++', ['--version']).out);
  hash.update(`${halideInstalled()}${opencvInstalled()}${os.cpus()[0]?.model ?? ''}`);
  const dir = path.join(root, '.cache', 'bench', 'image', hash.digest('hex').slice(0, 16));
  mkdirSync(dir, { recursive: true });
  const cxx = ['-O3', '-std=c++17', `-I${here}`];
  const skipped: string[] = [];

  const build = (exe: string, args: string[]): string | undefined => {
    const file = path.join(dir, exe);
    if (existsSync(file)) return file;
    const r = sh('g++', [...cxx, ...args, '-o', file]);
    if (!r.ok) {
      skipped.push(`${exe}: build failed:\n${r.out.slice(0, 2000)}`);
      return undefined;
    }
    return file;
  };

  const membw = build('membw', [path.join(here, 'membw.cpp'), '-lpthread']);
  if (!membw) throw new Error(skipped.join('\n'));

  let halide: string | undefined;
  let halideTarget: string | undefined;
  if (!halideInstalled()) {
    skipped.push(`Halide: ${HALIDE_PACKAGE} is not installed`);
  } else {
    const targetFile = path.join(dir, 'halide_target.txt');
    if (!existsSync(targetFile)) {
      console.error('bench/image: generating the Halide kernels (about a minute, cached afterwards)');
      const gen = build('halide_pipelines', [`-I${HALIDE_INCLUDE}`, path.join(here, 'halide_pipelines.cpp'), '-lHalide14', '-lpthread', '-ldl']);
      const r = gen ? sh(gen, [dir]) : undefined;
      if (r?.ok) writeFileSync(targetFile, r.out.trim());
      else if (r) skipped.push(`Halide: the generator failed:\n${r.out.slice(0, 2000)}`);
    }
    if (existsSync(targetFile)) {
      halideTarget = readFileSync(targetFile, 'utf8');
      const libs = ['halide_box3', 'halide_harris', 'halide_harris_fused'].map((l) => path.join(dir, `${l}.a`));
      halide = build('halide_driver', [`-I${HALIDE_INCLUDE}`, `-I${dir}`, path.join(here, 'halide_driver.cpp'), ...libs, '-lpthread', '-ldl']);
    }
  }

  let opencv: string | undefined;
  if (!opencvInstalled()) {
    skipped.push(`OpenCV: ${OPENCV_PACKAGE} is not installed`);
  } else {
    const flags = sh('pkg-config', ['--cflags', '--libs', 'opencv4']).out.trim().split(/\s+/);
    opencv = build('opencv_driver', [path.join(here, 'opencv_driver.cpp'), ...flags]);
  }
  return { halide, opencv, membw, halideTarget, skipped };
}

// ------------------------------------------------------------ input

/** A gray u8 plane: the photograph's Rec. 601 luma, or a deterministic synthetic pattern with noise. */
async function inputPlane(): Promise<{ name: string; plane: Image }> {
  if (cli.image) {
    const img = await readImage(cli.image);
    const plane = makeImage('u8', img.width, img.height, 1);
    const c = img.channels;
    for (let i = 0; i < img.width * img.height; i++) {
      const p = img.data;
      plane.data[i] = c < 3 ? p[i * c]! : Math.round(0.299 * p[i * c]! + 0.587 * p[i * c + 1]! + 0.114 * p[i * c + 2]!);
    }
    return { name: path.basename(cli.image), plane };
  }
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

// ------------------------------------------------------------ comparison

interface Agreement {
  ok: boolean;
  /** Elements outside the tolerance. */
  mismatches: number;
  detail: string;
}

/**
 * Integers must match bit for bit. For f32 the tolerance is 1e-5 relative to the largest
 * reference value: Harris' det − k·trace² cancels to near zero on flat areas, where a
 * different but equally valid rounding (FMA contraction, summation order) changes
 * tiny values by more than 1e-5 of themselves; those per-element outliers are counted in
 * the detail, not hidden.
 */
function compareOutputs(ours: Image, ref: Image): Agreement {
  const a = ours.data;
  const b = ref.data;
  const w = ours.width;
  const float = ours.type === 'f32';
  let scale = 0;
  for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(b[i]!));
  let mismatches = 0;
  let elementOutliers = 0;
  let maxDiff = 0;
  let first = -1;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const diff = Math.abs(x - y);
    let bad = x !== y;
    if (float) {
      if (!(diff <= maxDiff)) maxDiff = Number.isNaN(diff) ? Infinity : diff;
      if (!(diff <= 1e-5 * Math.max(Math.abs(x), Math.abs(y)))) elementOutliers++;
      bad = !(diff <= 1e-5 * scale);
    }
    if (bad) {
      mismatches++;
      if (first < 0) first = i;
    }
  }
  const at = first < 0 ? '' : `, first at (${first % w}, ${Math.floor(first / w)}): ours ${a[first]} reference ${b[first]}`;
  const detail = float
    ? `${mismatches} of ${a.length} beyond 1e-5 of max |reference| (${scale.toExponential(2)}); max |difference| ${maxDiff.toExponential(2)}; ${elementOutliers} elements differ by more than 1e-5 of their own value${at}`
    : `${mismatches} of ${a.length} differ${at}`;
  return { ok: mismatches === 0, mismatches, detail };
}

// ------------------------------------------------------------ running

interface Side {
  medianMs: number;
  gpixels: number;
  times?: number[];
}

function median(xs: number[]): number {
  const s = [...xs].sort((p, q) => p - q);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function rawBytes(img: Image): Buffer {
  return Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
}

/** Runs a reference driver on `input`; its times and its output image. */
function runDriver(exe: string, kernel: string, input: Image, tmp: string): { times: number[]; output: Image; log: string } {
  const inFile = path.join(tmp, `${kernel}.in`);
  const outFile = path.join(tmp, `${kernel}.out`);
  writeFileSync(inFile, rawBytes(input));
  const r = sh(exe, [kernel, String(input.width), String(input.height), String(runs), inFile, outFile]);
  if (!r.ok) throw new Error(`${path.basename(exe)} ${kernel} failed:\n${r.out}`);
  const json = r.out.split('\n').find((l) => l.startsWith('{'));
  if (!json) throw new Error(`${path.basename(exe)} ${kernel} printed no times:\n${r.out}`);
  const times = (JSON.parse(json) as { ms: number[] }).ms;
  const output = makeImage(input.type, input.width, input.height, 1);
  const bytes = readFileSync(outFile);
  new Uint8Array(output.data.buffer).set(bytes.subarray(0, output.data.byteLength));
  return { times, output, log: r.out.split('\n').filter((l) => l && !l.startsWith('{')).join('; ') };
}

/**
 * Ours with the fastest schedule that compiles: `opt` (tiles with 8-lane vectorize inside)
 * when the vectoriser lowers it, otherwise `tile` (the same tiles, scalar inner loop left to
 * LLVM's auto-vectoriser). The note says which and why.
 */
async function oursKernel(pipeline: Pipeline, type: Variant['type']): Promise<{ kernel: Kernel; schedule: Schedule; note: string }> {
  const variant = (schedule: Schedule): Variant => ({ pipeline, schedule, boundary: 'clamp', type, channels: 1 });
  try {
    return { kernel: await compileKernel(variant('opt')), schedule: 'opt', note: '' };
  } catch (e) {
    if (!(e instanceof CompileFailure)) throw e;
    const why = /intrinsic 'vectorize'/.test(e.message) ? 'the vectoriser does not lower `vectorize` yet' : (e.diagnostics[0]?.message.split('\n')[0] ?? 'compile failure').slice(0, 160);
    return { kernel: await compileKernel(variant('tile')), schedule: 'tile', note: `opt does not compile (${why}); ran tile` };
  }
}

interface Row {
  pipeline: string;
  reference: string;
  type: string;
  size: string;
  ours?: Side & { schedule: Schedule };
  ref?: Side;
  agreement?: Agreement;
  notes: string[];
}

async function main(): Promise<number> {
  ensurePackages();
  const drivers = buildDrivers();
  for (const s of drivers.skipped) console.error(`bench/image: skipped ${s}`);
  const { name, plane } = await inputPlane();
  const { width: w, height: h } = plane;
  const pixels = w * h;
  const sizeLabel = `${w}×${h}`;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-image-'));
  const rows: Row[] = [];
  console.error(`bench/image: ${name} ${sizeLabel}, ${runs} runs per side, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})`);

  const cases: { pipeline: Pipeline; type: 'u8' | 'i32' | 'f32'; reference: string; exe?: string; kernel: string; label: string; note?: string }[] = [
    { pipeline: 'box3', type: 'i32', reference: 'Halide 14', exe: drivers.halide, kernel: 'box3', label: 'blur 3×3 (box3)' },
    { pipeline: 'harris', type: 'f32', reference: 'Halide 14', exe: drivers.halide, kernel: 'harris', label: 'Harris' },
    { pipeline: 'harris', type: 'f32', reference: 'Halide 14, app schedule', exe: drivers.halide, kernel: 'harris_fused', label: 'Harris', note: 'Halide fused (sliding window), ours as above' },
    { pipeline: 'gauss5', type: 'u8', reference: 'OpenCV 4.6', exe: drivers.opencv, kernel: 'gauss5', label: 'Gaussian 5×5 (gauss5)', note: 'same kernel and rounding: 1 4 6 4 1 ⊗ 1 4 6 4 1, (Σ + 128) / 256' },
  ];
  const oursCache = new Map<string, Row['ours'] & { output: Image; note: string }>();
  try {
    for (const c of cases) {
      const row: Row = { pipeline: c.label, reference: c.reference, type: c.type, size: sizeLabel, notes: c.note ? [c.note] : [] };
      rows.push(row);
      const input = asType(plane, c.type);
      const key = `${c.pipeline}/${c.type}`;
      let ours = oursCache.get(key);
      if (!ours) {
        const { kernel, schedule, note } = await oursKernel(c.pipeline, c.type);
        const output = kernel.run(input);
        const t = timeRuns(pixels, runs, () => kernel.run(input, { output }));
        ours = { medianMs: t.medianMs, gpixels: t.gpixels, schedule, output, note };
        oursCache.set(key, ours);
      }
      row.ours = { medianMs: ours.medianMs, gpixels: ours.gpixels, schedule: ours.schedule };
      if (ours.note) row.notes.push(ours.note);
      if (!c.exe) {
        row.notes.push(`${c.reference} unavailable (see above)`);
        continue;
      }
      const r = runDriver(c.exe, c.kernel, input, tmp);
      const med = median(r.times);
      row.ref = { medianMs: med, gpixels: pixels / (med * 1e6), times: r.times };
      if (r.log) row.notes.push(r.log);
      row.agreement = compareOutputs(ours.output, r.output);
      if (!row.agreement.ok) console.error(`bench/image: MISMATCH ${c.label} vs ${c.reference}: ${row.agreement.detail}`);
      else if (c.type === 'f32') row.notes.push(row.agreement.detail);
    }

    // Blur's bytes: every pixel read once and written once (i32), against all-core memcpy of as many bytes.
    const bytes = pixels * 4;
    const bw = JSON.parse(sh(drivers.membw, [String(bytes), String(runs)]).out) as { ms: number[] };
    const memcpyGBs = (2 * bytes) / (median(bw.ms) * 1e6);
    const blur = rows[0]!;
    const blurGBs = blur.ours ? (2 * bytes) / (blur.ours.medianMs * 1e6) : undefined;
    const blurRefGBs = blur.ref ? (2 * bytes) / (blur.ref.medianMs * 1e6) : undefined;

    printTable(rows);
    console.log('');
    console.log(`memcpy (all cores, ${(bytes / 2 ** 20).toFixed(0)} MiB): ${memcpyGBs.toFixed(1)} GB/s read+written`);
    if (blurGBs) console.log(`blur i32 moves 8 bytes per pixel: ours ${blurGBs.toFixed(1)} GB/s (${((100 * blurGBs) / memcpyGBs).toFixed(0)}% of memcpy)` + (blurRefGBs ? `, Halide ${blurRefGBs.toFixed(1)} GB/s (${((100 * blurRefGBs) / memcpyGBs).toFixed(0)}%)` : ''));
    if (drivers.halideTarget) console.log(`Halide target: ${drivers.halideTarget}`);

    const json = {
      input: name,
      width: w,
      height: h,
      runs,
      cpu: os.cpus()[0]?.model,
      cores: os.cpus().length,
      halideTarget: drivers.halideTarget,
      skipped: drivers.skipped,
      memcpy: { bytes, ms: bw.ms, gbPerSecond: memcpyGBs },
      rows,
    };
    mkdirSync(path.dirname(cli.json!), { recursive: true });
    writeFileSync(cli.json!, JSON.stringify(json, null, 2) + '\n');
    console.log(`raw numbers: ${path.relative(process.cwd(), cli.json!)}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows.some((r) => r.agreement && !r.agreement.ok) ? 1 : 0;
}

function printTable(rows: Row[]): void {
  const header = ['pipeline', 'type', 'size', 'reference', 'ours sched', 'ours ms', 'ref ms', 'ratio', 'ours Gpx/s', 'ref Gpx/s', 'outputs'];
  const cells = rows.map((r) => [
    r.pipeline,
    r.type,
    r.size,
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
  rows.forEach((r, i) => {
    const notes = [...r.notes, ...(r.agreement && !r.agreement.ok ? [r.agreement.detail] : [])];
    if (notes.length) console.log(`  ${i + 1}. ${r.pipeline} vs ${r.reference}: ${notes.join('; ')}`);
  });
}

process.exitCode = await main();
