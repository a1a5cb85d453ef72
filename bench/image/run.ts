// The paper's Fig. 6 CPU column on this machine, against each reference at its best:
// libs/image's pipelines (box3 on u8 and i32, gauss5, unsharp, sobel, harris, and Halide's app
// pipelines bilateral grid, interpolate (on the input with alpha holes) and local Laplacian) against
// Halide 14 under the schedule of Halide's own app for the pipeline, under each of the three
// autoschedulers Debian ships, and under the schedule ours runs, and against OpenCV 4.6
// where it has the pipeline. Every case runs on every input: a synthetic gray square (4096²
// by default, left out with --no-synthetic), each --image FILE and, with --photos, the
// photographs datasets/images/fetch-photos.ts takes from a Debian package, with their
// channels (RGB photos are filtered in colour). Both sides run on the same image in this
// process tree, their outputs are compared (bit-exact for the integer pipelines, 1e-5
// relative for f32), and one table is printed, the ratio taken against the fastest Halide;
// raw times go to out/bench/image.json (or --json FILE). With --busy every measurement is
// repeated with one core kept busy by a spinning child process, beside the quiet figure.
//
//   npx tsx bench/image/run.ts [--size 4096] [--runs 5] [--image photo.jpg]... [--photos] [--no-synthetic]
//                              [--pipeline gauss5]... [--halide app,adams2019,li2018,mullapudi2016,same] [--halide-limit MINUTES]
//                              [--busy] [--json FILE]
//
// The references (references.ts, shared with the apps' --compare) are built against the
// Debian packages libhalide14-0-dev and libopencv-dev, which this script installs with
// apt-get when running as root; Halide kernels are generated the first time a run needs
// them and cached; a kernel whose generation takes longer than --halide-limit minutes (an
// autoscheduler's search on a pipeline of hundreds of stages) is killed and its row says so,
// and later runs with a limit no higher say so again without starting it.
// A reference that cannot be built is skipped with the reason; no number is ever made up.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchPhotos } from '../../datasets/images/fetch-photos.ts';
import { autoSchedule, describeTuning } from '../../libs/image/autoschedule.ts';
import { median, timeEach, timesInTurns } from '../../libs/image/bench.ts';
import { compileKernel, type Kernel } from '../../libs/image/host.ts';
import { convertImage, type Image, makeImage } from '../../libs/image/image.ts';
import { readImage } from '../../libs/image/io.ts';
import { exportName, handTuning, isInterleavedPipeline, lanesIn512Bits, type Pipeline, type Variant } from '../../libs/image/variants.ts';
import { xorshift32 } from '../../libs/shared/random.ts';
import {
  type Agreement,
  buildTool,
  compareOutputs,
  DEFAULT_HALIDE_LIMIT_MINUTES,
  GenerationTimeout,
  integerTolerance,
  HALIDE_SCHEDULES,
  type HalideSchedule,
  kernelTitle,
  parseHalideLimit,
  prepareReference,
  REFERENCE_KERNELS,
  REFERENCE_TITLES,
  type ReferenceName,
  referencePackages,
  runReference,
} from './references.ts';
import { benchArgs, runBench } from '../shared/cli.ts';
import { installMissing } from '../shared/native.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

interface Case {
  pipeline: Pipeline;
  type: 'u8' | 'i32';
  label: string;
  /** The image the case runs on, made from the input (interpolate needs alpha); the input itself when absent. */
  prepare?: (img: Image) => Image;
}

// Harris takes the u8 image and forms its gray inside, on both sides.
const CASES: readonly Case[] = [
  { pipeline: 'box3', type: 'u8', label: 'blur 3×3 (box3)' },
  { pipeline: 'box3', type: 'i32', label: 'blur 3×3 (box3)' },
  { pipeline: 'gauss5', type: 'u8', label: 'Gaussian 5×5' },
  { pipeline: 'unsharp', type: 'u8', label: 'unsharp mask' },
  { pipeline: 'sobel', type: 'u8', label: 'Sobel' },
  { pipeline: 'harris', type: 'u8', label: 'Harris' },
  { pipeline: 'bilateral', type: 'u8', label: 'bilateral grid' },
  { pipeline: 'interpolate', type: 'u8', label: 'interpolate', prepare: withHoles },
  { pipeline: 'local_laplacian', type: 'u8', label: 'local Laplacian' },
];

const cli = benchArgs(import.meta.url, {
  size: { type: 'string', default: '4096' },
  runs: { type: 'string', default: '5' },
  image: { type: 'string', multiple: true, default: [] },
  photos: { type: 'boolean', default: false },
  'no-synthetic': { type: 'boolean', default: false },
  pipeline: { type: 'string', multiple: true, default: [] },
  halide: { type: 'string', default: HALIDE_SCHEDULES.join(',') },
  'halide-limit': { type: 'string', default: String(DEFAULT_HALIDE_LIMIT_MINUTES) },
  busy: { type: 'boolean', default: false },
  json: { type: 'string', default: path.join(root, 'out', 'bench', 'image.json') },
});

/** The command line checked: one line naming the bad option, exit 1. */
function options() {
  const runs = Number(cli.runs);
  const size = Number(cli.size);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, not '${cli.runs}'`);
  if (!Number.isInteger(size) || size < 8) throw new Error(`--size must be an integer of at least 8, not '${cli.size}'`);
  const known = [...new Set(CASES.map((c) => c.pipeline))];
  // The camera pipe's input is a raw mosaic and it takes parameters: bench/image/camera.ts.
  if (cli.pipeline!.includes('camera')) throw new Error('the camera pipe has its own script, on the mosaic of a photo: npm run bench:camera -- --size 512 --runs 2 (bench/image/camera.ts)');
  for (const p of cli.pipeline!) if (!(known as string[]).includes(p)) throw new Error(`--pipeline must be one of ${known.join(', ')}, not '${p}'`);
  const halide = cli.halide!.split(',').filter((s) => s !== '');
  for (const s of halide) if (!(HALIDE_SCHEDULES as readonly string[]).includes(s)) throw new Error(`--halide takes a comma-separated list of ${HALIDE_SCHEDULES.join(', ')}, not '${s}'`);
  const cases = cli.pipeline!.length ? CASES.filter((c) => cli.pipeline!.includes(c.pipeline)) : CASES;
  const halideLimit = parseHalideLimit(cli['halide-limit']!);
  return { runs, size, cases, halide: halide as HalideSchedule[], halideLimit };
}

// ------------------------------------------------------------ inputs

interface Input {
  /** The file's base name, or 'synthetic'. */
  name: string;
  file?: string;
  image: Image;
}

const inputLabel = (i: Input): string => `${i.name} ${i.image.width}×${i.image.height}×${i.image.channels}`;

/** The synthetic square unless --no-synthetic, then the --image files, then with --photos the fetched photographs, with their channels. */
async function loadInputs(size: number): Promise<Input[]> {
  const inputs = cli['no-synthetic'] ? [] : [synthetic(size)];
  const photos = cli.photos ? await fetchPhotos((line) => console.error(`bench/image: ${line}`)) : [];
  for (const file of [...cli.image!, ...photos]) inputs.push({ name: path.basename(file), file, image: await readImage(file) });
  if (inputs.length === 0) throw new Error('--no-synthetic leaves nothing to run; add --image FILE or --photos');
  return inputs;
}

/** A deterministic smooth gray pattern with noise, `size` pixels square. */
function synthetic(size: number): Input {
  const plane = makeImage('u8', size, size, 1);
  const next = xorshift32(0x9e3779b9);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const smooth = 128 + 60 * Math.sin(x / 37) * Math.cos(y / 53);
      plane.data[y * size + x] = Math.max(0, Math.min(255, Math.round(smooth + ((next() * 2 ** 32) % 64) - 32)));
    }
  }
  return { name: 'synthetic', image: plane };
}

/**
 * The input with an alpha channel (gray + alpha, or RGBA) that keeps one pixel in 16, at
 * pseudo-random places, opaque and makes the rest transparent: the scattered data that
 * interpolate fills in. An alpha channel the input has is replaced.
 */
function withHoles(img: Image): Image {
  const colours = img.channels >= 3 ? 3 : 1;
  const out = makeImage('u8', img.width, img.height, colours + 1);
  const next = xorshift32(0x2545f491);
  for (let i = 0; i < img.width * img.height; i++) {
    for (let k = 0; k < colours; k++) out.data[i * (colours + 1) + k] = img.data[i * img.channels + k]!;
    out.data[i * (colours + 1) + colours] = (next() * 2 ** 32) % 16 === 0 ? 255 : 0;
  }
  return out;
}

// ------------------------------------------------------------ busy core

/**
 * Runs `work` with one core kept busy by another process (a child spinning in a loop), as on
 * a shared machine; the child is killed afterwards whatever happens.
 */
async function withBusyCore<T>(work: () => Promise<T>): Promise<T> {
  const spinner: ChildProcess = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  try {
    // Let it get scheduled before the timing starts.
    await new Promise((r) => setTimeout(r, 200));
    return await work();
  } finally {
    spinner.kill('SIGKILL');
  }
}

// ------------------------------------------------------------ running

/**
 * Ours' schedule spelt out for the notes: its tuning as `--schedule auto` describes any
 * (`describeTuning`: tiles, lanes, where stages are computed), and what every tuning shares.
 */
function oursScheduleNote(v: Variant): string {
  const lanes512 = lanesIn512Bits(v);
  const channels = isInterleavedPipeline(v.pipeline)
    ? 'the interleaved channels as one plane (a tile width counts elements of the interleaved row; contiguous vector loads and stores)'
    : 'channels of a row of tiles one after another';
  const t = handTuning(v.pipeline, v.schedule)!;
  const staged = t.at === 'tile' ? ' (a stage feeding a stencil computed on the tile grown by the stencil)' : '';
  return `${v.schedule}: ${describeTuning(t, lanes512)}${staged}, ${512 / lanes512}-bit arithmetic, rows of tiles in parallel (TBB), ${channels}`;
}

interface Measurement {
  medianMs: number;
  times: number[];
  busyMs?: number;
  busyTimes?: number[];
}

interface Row {
  input: string;
  pipeline: string;
  type: string;
  /** 'ours' or the reference's name. */
  side: string;
  schedule: string;
  m?: Measurement;
  pixels: number;
  agreement?: Agreement;
  /** Why there is no measurement. */
  missing?: string;
  /** Ours: the schedule's parameters, for the bandwidth lines. */
  tuning?: string;
  fastestHalide?: boolean;
}

async function main(): Promise<number> {
  let opts: ReturnType<typeof options>;
  let inputs: Input[];
  try {
    opts = options();
    inputs = await loadInputs(opts.size);
  } catch (e) {
    console.error(`bench/image: ${(e as Error).message}`);
    return 1;
  }
  const { runs, cases } = opts;
  await installMissing('bench/image', referencePackages(['halide', 'opencv']));
  const membw = await buildTool('membw', 'membw.cpp', ['-lpthread']);
  const about = new Map<ReferenceName, string>();
  const skipped = new Map<ReferenceName, string>();
  for (const name of ['halide', 'opencv'] as const) {
    try {
      about.set(name, (await prepareReference(name, (step) => console.error(`bench/image: ${step}`))).about);
    } catch (e) {
      skipped.set(name, (e as Error).message);
      console.error(`bench/image: skipped ${REFERENCE_TITLES[name]}: ${(e as Error).message}`);
    }
  }
  console.error(`bench/image: ${inputs.map(inputLabel).join(', ')}; ${runs} runs per side${cli.busy ? ', quiet and with one core busy' : ''}; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})`);

  /** Times the sides `once` times (each its runs) quietly and, with --busy, with one core busy. */
  const measureSides = async (once: () => Promise<number[][]>): Promise<Measurement[]> => {
    const quiet = await once();
    const busy = cli.busy ? await withBusyCore(once) : undefined;
    return quiet.map((times, i) => ({ medianMs: median(times), times, ...(busy && { busyTimes: busy[i]!, busyMs: median(busy[i]!) }) }));
  };
  /** Times one side. */
  const measure = async (once: () => Promise<number[]>): Promise<Measurement> => (await measureSides(async () => [await once()]))[0]!;
  /** Times `runners` taking turns run by run, after one warm-up each. */
  const measureInTurns = (runners: (() => unknown)[]): Promise<Measurement[]> =>
    measureSides(async () => {
      for (const r of runners) r();
      return timesInTurns(runners, runs);
    });

  const rows: Row[] = [];
  const notes = new Map<string, Set<string>>();
  const note = (c: Case, line: string) => {
    const key = `${c.label} ${c.type}`;
    notes.set(key, (notes.get(key) ?? new Set()).add(line));
  };
  const kernels = new Map<string, Kernel>();
  let failed = false;
  for (const inp of inputs) {
    const { width: w, height: h } = inp.image;
    const pixels = w * h;
    console.error(`bench/image: ${inputLabel(inp)}`);
    for (const c of cases) {
      const image = c.prepare ? c.prepare(inp.image) : c.type === 'u8' ? inp.image : convertImage(inp.image, c.type);
      const base = { input: inputLabel(inp), pipeline: c.label, type: c.type, pixels };
      const variant: Variant = { pipeline: c.pipeline, schedule: 'opt', boundary: 'clamp', type: c.type, channels: image.channels as Variant['channels'] };
      const key = JSON.stringify(variant);
      let kernel = kernels.get(key);
      if (!kernel) {
        try {
          kernels.set(key, (kernel = await compileKernel(variant)));
        } catch (e) {
          failed = true;
          rows.push({ ...base, side: 'ours', schedule: 'opt', missing: 'failed' });
          note(c, `ours failed to compile: ${(e as Error).message.split('\n')[0]}`);
          continue;
        }
      }
      const k = kernel;
      const output = k.run(image);
      note(c, `ours ${oursScheduleNote(variant)}`);
      const ours: Row = { ...base, side: 'ours', schedule: 'opt', tuning: describeTuning(handTuning(variant.pipeline, 'opt')!, lanesIn512Bits(variant)) };
      rows.push(ours);
      // --schedule auto: the search's choice for this size class (cached after its first search), checked against opt's output.
      const autoRow: Row = { ...base, side: 'ours', schedule: 'auto' };
      rows.push(autoRow);
      const runOpt = () => k.run(image, { output });
      try {
        const choice = await autoSchedule({ pipeline: variant.pipeline, boundary: variant.boundary, type: variant.type, channels: variant.channels }, w, h, { onProgress: (l) => console.error(`bench/image: ${l}`), input: image });
        note(c, choice.summary);
        autoRow.tuning = describeTuning(choice.variant.tuning ?? handTuning(variant.pipeline, choice.variant.schedule)!, lanesIn512Bits(variant));
        const ak = exportName(choice.variant) === exportName(variant) ? k : await compileKernel(choice.variant);
        const autoOutput = ak.run(image);
        autoRow.agreement = compareOutputs(output, autoOutput);
        if (!autoRow.agreement.ok) failed = true;
        // opt and auto take turns, run by run, so that the two rows compare as the search compared them.
        [ours.m, autoRow.m] = await measureInTurns([runOpt, () => ak.run(image, { output: autoOutput })]);
      } catch (e) {
        failed = true;
        autoRow.missing = 'failed';
        note(c, `auto failed: ${(e as Error).message.split('\n')[0]}`);
      }
      ours.m ??= await measure(() => timeEach(runs, runOpt));
      const refs = REFERENCE_KERNELS.filter(
        (r) => r.pipeline === c.pipeline && r.type === c.type && (r.reference === 'opencv' || (r.reference === 'halide' && opts.halide.includes(r.halide!))),
      );
      const group: Row[] = [];
      for (const r of refs) {
        note(c, `${kernelTitle(r)}: ${r.schedule}`);
        const row: Row = { ...base, side: REFERENCE_TITLES[r.reference], schedule: r.halide ? kernelTitle(r).replace(/^.*\((.*)\)$/, '$1') : 'own', pixels };
        rows.push(row);
        group.push(row);
        if (skipped.has(r.reference)) {
          row.missing = 'unavailable';
          continue;
        }
        try {
          let out: Image | undefined;
          row.m = await measure(async () => {
            const run = await runReference(r, image, runs, { onStep: (step) => console.error(`bench/image: ${step}`), halideLimitMinutes: opts.halideLimit });
            out = run.output;
            return run.times;
          });
          row.agreement = compareOutputs(output, out!, integerTolerance(c.pipeline));
          if (!row.agreement.ok) {
            failed = true;
            console.error(`bench/image: MISMATCH ${c.label} ${c.type} vs ${kernelTitle(r)} on ${inputLabel(inp)}: ${row.agreement.detail}`);
          } else if (c.pipeline === 'harris') note(c, `${inputLabel(inp)}, ${kernelTitle(r)}: ${row.agreement.detail}`);
        } catch (e) {
          // One kernel that cannot be built (an autoscheduler failing on a pipeline, or not
          // finishing in the limit) leaves its row empty, with why; the others still run.
          if (e instanceof GenerationTimeout) {
            row.missing = e.verdict;
            note(c, `${kernelTitle(r)} on ${inputLabel(inp)}: ${e.message}`);
          } else {
            row.missing = 'failed';
            note(c, `${kernelTitle(r)} failed on ${inputLabel(inp)}: ${(e as Error).message}`);
          }
        }
      }
      const halide = group.filter((r) => r.side === REFERENCE_TITLES.halide && r.m);
      if (halide.length) halide.reduce((a, b) => (b.m!.medianMs < a.m!.medianMs ? b : a)).fastestHalide = true;
    }
  }

  // Bandwidth on the synthetic square (otherwise the largest input), whose i32 image outgrows
  // the caches: blur reads and writes each element once, against an all-core memcpy of as many bytes.
  const bwInput = inputs.find((i) => !i.file) ?? inputs.reduce((a, b) => (b.image.data.length > a.image.data.length ? b : a));
  const bytes = bwInput.image.data.length * 4;
  const bw = spawnSync(membw, [String(bytes), String(runs)], { encoding: 'utf8' });
  if (bw.status !== 0) throw new Error(`membw failed: ${bw.stderr}`);
  const memcpyMs = (JSON.parse(bw.stdout) as { ms: number[] }).ms;
  const memcpyGBs = (2 * bytes) / (median(memcpyMs) * 1e6);

  printTable(rows);
  console.log('');
  for (const [key, lines] of notes) {
    console.log(`${key}:`);
    for (const l of lines) console.log(`  - ${l}`);
  }
  console.log('');
  console.log(`memcpy (all cores, ${(bytes / 2 ** 20).toFixed(0)} MiB, blur i32's traffic on ${inputLabel(bwInput)}): ${memcpyGBs.toFixed(1)} GB/s read+written`);
  const blurRows = rows.filter((r) => r.input === inputLabel(bwInput) && r.pipeline === CASES[1]!.label && r.type === 'i32' && r.m);
  const gbs = (r: Row) => `${((2 * bytes) / (r.m!.medianMs * 1e6)).toFixed(1)} GB/s (${((100 * (2 * bytes)) / (r.m!.medianMs * 1e6) / memcpyGBs).toFixed(0)}% of memcpy)`;
  for (const r of blurRows.filter((r) => r.side === 'ours' || r.fastestHalide)) console.log(`blur i32 moves 8 bytes per element: ${r.side} ${r.schedule}${r.tuning ? ` (${r.tuning})` : ''} ${gbs(r)}`);
  for (const a of about.values()) console.log(`reference: ${a}`);
  for (const [name, why] of skipped) console.log(`reference: ${REFERENCE_TITLES[name]} skipped: ${why}`);
  console.log('Halide kernels and what the autoschedulers chose: .cache/bench/image/halide-*/ (one .txt per kernel)');

  const json = {
    inputs: inputs.map((i) => ({ name: i.name, file: i.file, width: i.image.width, height: i.image.height, channels: i.image.channels })),
    runs,
    busy: cli.busy,
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    references: Object.fromEntries(about),
    skipped: Object.fromEntries(skipped),
    memcpy: { input: bwInput.name, bytes, ms: memcpyMs, gbPerSecond: memcpyGBs },
    rows,
  };
  mkdirSync(path.dirname(cli.json!), { recursive: true });
  writeFileSync(cli.json!, JSON.stringify(json, null, 2) + '\n');
  console.log(`raw numbers: ${path.relative(process.cwd(), cli.json!)}`);
  return failed ? 1 : 0;
}

/**
 * One row per side and schedule. The ratio is the reference's time over ours (above 1 ours
 * is faster); ours' row carries the ratio against the fastest Halide (marked *).
 */
function printTable(rows: Row[]): void {
  const busy = rows.some((r) => r.m?.busyMs !== undefined);
  const header = ['input', 'pipeline', 'type', 'side', 'schedule', 'ms', 'Gpx/s', 'ratio', 'outputs', ...(busy ? ['busy ms', 'busy/quiet', 'busy ratio'] : [])];
  const oursOf = (r: Row) => rows.find((o) => o.side === 'ours' && o.input === r.input && o.pipeline === r.pipeline && o.type === r.type)!;
  const fastestOf = (r: Row) => rows.find((o) => o.fastestHalide && o.input === r.input && o.pipeline === r.pipeline && o.type === r.type);
  const ratio = (ref: number | undefined, ours: number | undefined) => (ref !== undefined && ours !== undefined ? `${(ref / ours).toFixed(2)}×` : '-');
  const cells = rows.map((r) => {
    const ours = r.side === 'ours' ? r : oursOf(r);
    const against = r.side === 'ours' ? fastestOf(r) : r;
    // auto's row: its output against opt's.
    const sameAsOpt = r.agreement?.ok ? 'same as opt' : r.agreement ? `MISMATCH with opt (${r.agreement.mismatches})` : r.missing ?? '';
    const outputs = r.side === 'ours' ? sameAsOpt : r.missing ?? (r.agreement!.ok ? (r.agreement!.detail.includes('1e-5') ? 'agree (1e-5)' : 'bit-exact') : `MISMATCH (${r.agreement!.mismatches})`);
    return [
      r.input,
      r.pipeline,
      r.type,
      r.side,
      `${r.schedule}${r.fastestHalide ? ' *' : ''}`,
      r.m ? r.m.medianMs.toFixed(2) : 'n/a',
      r.m ? (r.pixels / (r.m.medianMs * 1e6)).toFixed(3) : 'n/a',
      ratio(against?.m?.medianMs, ours.m?.medianMs),
      outputs,
      ...(busy
        ? [r.m?.busyMs?.toFixed(2) ?? 'n/a', r.m?.busyMs !== undefined ? `${(r.m.busyMs / r.m.medianMs).toFixed(2)}×` : '-', ratio(against?.m?.busyMs, ours.m?.busyMs)]
        : []),
    ];
  });
  const widths = header.map((hd, i) => Math.max(hd.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]): string => `| ${c.map((s, i) => s.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((wd) => '-'.repeat(wd + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
  console.log('ratio = reference time / ours time (> 1: ours is faster); on ours\' row, against the fastest Halide (*)');
  if (busy) console.log('busy: the same runs with one core kept busy by a spinning process; busy/quiet = how much longer a run took; busy ratio as ratio, both busy');
}

await runBench(import.meta.url, main);
