// The camera pipe (libs/image/camera.impala) against Halide 14's: Halide's apps/camera_pipe
// (halide_apps.cpp) under the app's CPU schedule and each autoscheduler Debian ships, compiled
// just in time by halide_camera.cpp for this CPU, on the same mosaic in the same run, outputs
// compared bit for bit (every stage is integer; the tone curve is a table in f64 on both
// sides). A raw mosaic is not a photo, so the input is the GRBG mosaic of a photo
// (libs/image/camera.ts's mosaicOf): the bundled datasets/images/sample.png tiled to --size
// (N for N × N, or W×H: 2560x1920 is the output Halide's camera_pipe test develops from its
// 2592×1968 raw; the app schedule takes widths that are multiples of 64 only), and each
// --image FILE. Ours runs under the schedules given (opt, slide and auto by default; auto is
// the schedule search of `camera --schedule auto`, cached per size class), with the clamp
// boundary (Halide's side extends each colour plane the same way).
// Prints one table, the ratio taken against the fastest Halide; with --rounds R every side
// runs R times in turn (each time --runs runs; Halide's compile is not timed), so that a burst
// of load from other processes falls on all of them. A Halide schedule whose run (the
// autoscheduler's search and the compile, then the runs) takes longer than --halide-limit
// minutes (default 10, 0: none) is killed and its row says so; the other sides still run.
// `camera --compare halide` runs the same comparison on one mosaic.
//
//   npx tsx bench/image/camera.ts [--size 2048 | --size 2560x1920] [--runs 5] [--rounds 1] [--image photo.jpg]... [--schedule opt,slide,auto]
//                                 [--halide app,adams2019,li2018,mullapudi2016] [--halide-limit MINUTES]
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, timeEach, type Timing } from '../../libs/image/bench.ts';
import { autoScheduleCamera, type CameraParams, type CameraVariant, compileCamera, type CpuSchedule, DEFAULT_CAMERA_PARAMS, type Mosaic, mosaicOf } from '../../libs/image/camera.ts';
import { type Image, makeImage } from '../../libs/image/image.ts';
import { readImage } from '../../libs/image/io.ts';
import { SCHEDULES } from '../../libs/image/variants.ts';
import { benchArgs, runBench } from '../shared/cli.ts';
import { byFile, cacheDir, exec, GXX, gxx, missingPackages, notInstalled } from '../shared/native.ts';
import { compareOutputs, DEFAULT_HALIDE_LIMIT_MINUTES, GenerationTimeout, machineParams, parseHalideLimit } from './references.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const HALIDE_INCLUDE = '/usr/include/halide14';

export const HALIDE_CAMERA_SCHEDULES = ['app', 'adams2019', 'li2018', 'mullapudi2016'] as const;
export type HalideCameraSchedule = (typeof HALIDE_CAMERA_SCHEDULES)[number];
const TITLES: Record<HalideCameraSchedule, string> = { app: 'app schedule', adams2019: 'Adams2019', li2018: 'Li2018', mullapudi2016: 'Mullapudi2016' };

let tool: Promise<string> | undefined;

/** Builds halide_camera (cached); a missing Debian package is an error naming it. */
export function prepareHalideCamera(onStep?: (step: string) => void): Promise<string> {
  tool ??= (async () => {
    const missing = await missingPackages([GXX, byFile('libhalide14-0-dev', path.join(HALIDE_INCLUDE, 'Halide.h'))]);
    if (missing.length) throw notInstalled('Halide 14', missing);
    const header = statSync(path.join(HALIDE_INCLUDE, 'Halide.h'));
    const sources = ['driver_common.h', 'halide_apps.cpp', 'halide_camera.cpp'].map((f) => path.join(here, f));
    const dir = await cacheDir('image/halide-camera', sources, `${header.size}/${header.mtimeMs}`);
    if (!existsSync(path.join(dir, 'halide_camera'))) onStep?.('building halide_camera (a minute, cached afterwards)');
    return gxx(dir, 'halide_camera', ['-O3', '-std=c++17', `-I${here}`, `-I${HALIDE_INCLUDE}`, path.join(here, 'halide_camera.cpp'), '-lHalide14', '-lpthread', '-ldl']);
  })();
  tool.catch(() => (tool = undefined));
  return tool;
}

export interface HalideCameraRun {
  times: number[];
  medianMs: number;
  output: Image;
}

/**
 * Runs Halide's camera pipe under `schedule` on `mosaic`, `runs` times after a warm-up (and a
 * JIT compile, untimed); a process still running after `limitMinutes` (0: no limit) is killed
 * (a GenerationTimeout).
 */
export async function runHalideCamera(
  schedule: HalideCameraSchedule,
  mosaic: Mosaic,
  p: CameraParams,
  runs: number,
  limitMinutes = DEFAULT_HALIDE_LIMIT_MINUTES,
): Promise<HalideCameraRun> {
  const exe = await prepareHalideCamera();
  const machine = await machineParams();
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'halide-camera-'));
  try {
    const [inFile, outFile] = [path.join(tmp, 'in.raw'), path.join(tmp, 'out.raw')];
    await writeFile(inFile, Buffer.from(mosaic.data.buffer, mosaic.data.byteOffset, mosaic.data.byteLength));
    const args = [schedule, mosaic.width, mosaic.height, runs, inFile, outFile, p.colorTemp, p.gamma, p.contrast, p.sharpen, p.blackLevel, p.whiteLevel, machine.cores, machine.llc].map(String);
    const r = await exec(exe, args, { limitMs: limitMinutes * 60_000 });
    if (r.timedOut) {
      const search = schedule === 'app' ? '' : `${TITLES[schedule]}'s search, `;
      throw new GenerationTimeout(`Halide's camera pipe (${TITLES[schedule]}) was killed at the limit of ${limitMinutes} min (${search}the JIT compile and the runs are one process; --halide-limit sets the limit)`, limitMinutes);
    }
    if (!r.ok) throw new Error(`Halide's camera pipe (${TITLES[schedule]}) failed: ${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
    const json = r.stdout.split('\n').find((l) => l.startsWith('{'));
    if (!json) throw new Error(`Halide's camera pipe (${TITLES[schedule]}) printed no times`);
    const output = makeImage('u8', mosaic.width, mosaic.height, 3);
    output.data.set((await readFile(outFile)).subarray(0, output.data.length));
    const times = (JSON.parse(json) as { ms: number[] }).ms;
    return { times, medianMs: median(times), output };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** `camera --compare halide`: every Halide schedule on the mosaic, agreement and time, then the ratio against the fastest; differing outputs are an error. */
export async function compareCamera(mosaic: Mosaic, p: CameraParams, ours: Image, timing: Timing): Promise<void> {
  let fastest: { title: string; ms: number } | undefined;
  for (const schedule of HALIDE_CAMERA_SCHEDULES) {
    const title = `Halide 14 (${TITLES[schedule]})`;
    let run;
    try {
      run = await runHalideCamera(schedule, mosaic, p, timing.runs);
    } catch (e) {
      console.log(`${title}: failed: ${(e as Error).message}`);
      continue;
    }
    const agreement = compareOutputs(ours, run.output);
    console.log(`${title}: ${run.medianMs.toFixed(2)} ms: ${agreement.ok ? 'outputs bit-exact' : 'outputs DIFFER'}: ${agreement.detail}`);
    if (!agreement.ok) throw new Error(`the output differs from ${title}'s (${agreement.mismatches} elements)`);
    if (!fastest || run.medianMs < fastest.ms) fastest = { title, ms: run.medianMs };
  }
  if (!fastest) throw new Error("every schedule of Halide's camera pipe failed");
  console.log(`speed: ours ${timing.medianMs.toFixed(2)} ms, fastest ${fastest.title} ${fastest.ms.toFixed(2)} ms (medians of ${timing.runs} runs): ratio ${(fastest.ms / timing.medianMs).toFixed(2)}× (reference / ours; above 1 ours is faster)`);
}

/** The bundled photo tiled to w × h. */
async function tiledSample(w: number, h: number): Promise<Image> {
  const sample = await readImage(path.join(root, 'datasets', 'images', 'sample.png'));
  const img = makeImage('u8', w, h, sample.channels);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const from = ((y % sample.height) * sample.width + (x % sample.width)) * sample.channels;
      img.data.set(sample.data.subarray(from, from + sample.channels), (y * w + x) * sample.channels);
    }
  }
  return img;
}

async function main(): Promise<number> {
  const cli = benchArgs(import.meta.url, {
    size: { type: 'string', default: '2048' },
    runs: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '1' },
    image: { type: 'string', multiple: true, default: [] },
    schedule: { type: 'string', default: 'opt,slide,auto' },
    halide: { type: 'string', default: HALIDE_CAMERA_SCHEDULES.join(',') },
    'halide-limit': { type: 'string', default: String(DEFAULT_HALIDE_LIMIT_MINUTES) },
  });
  const dims = /^(\d+)(?:[x×](\d+))?$/.exec(cli.size);
  const [width, height] = dims ? [Number(dims[1]), Number(dims[2] ?? dims[1])] : [NaN, NaN];
  const runs = Number(cli.runs);
  const rounds = Number(cli.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, not ${cli.rounds}`);
  if (!(width >= 2 && height >= 2 && width % 2 === 0 && height % 2 === 0)) throw new Error(`--size must be N or W×H of even integers from 2, not ${cli.size}`);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, not ${cli.runs}`);
  const schedules = cli.schedule.split(',') as (CpuSchedule | 'auto')[];
  for (const s of schedules) if (!(SCHEDULES as readonly string[]).includes(s) && s !== 'auto') throw new Error(`--schedule: ${s} is not one of ${SCHEDULES.join(', ')}, auto`);
  const halide = cli.halide.split(',') as HalideCameraSchedule[];
  for (const s of halide) if (!(HALIDE_CAMERA_SCHEDULES as readonly string[]).includes(s)) throw new Error(`--halide: ${s} is not one of ${HALIDE_CAMERA_SCHEDULES.join(', ')}`);
  const halideLimit = parseHalideLimit(cli['halide-limit']);
  const inputs: { label: string; mosaic: Mosaic }[] = [{ label: `sample.png tiled to ${width}×${height}`, mosaic: mosaicOf(await tiledSample(width, height)) }];
  for (const file of cli.image) inputs.push({ label: path.basename(file), mosaic: mosaicOf(await readImage(file)) });
  // auto: the search's choice for each input, timed on that input (searched once per size class, then cached).
  const variantsOf = new Map<Mosaic, Map<string, CameraVariant>>();
  for (const { mosaic } of inputs) {
    const chosen = new Map<string, CameraVariant>();
    for (const schedule of schedules) {
      if (schedule !== 'auto') chosen.set(schedule, { schedule, boundary: 'clamp' });
      else {
        const choice = await autoScheduleCamera('clamp', mosaic.width, mosaic.height, { onProgress: (l) => console.error(`bench/image camera: ${l}`), input: mosaic });
        console.error(`bench/image camera: ${mosaic.width}×${mosaic.height}: ${choice.summary}`);
        chosen.set(schedule, choice.variant);
      }
    }
    variantsOf.set(mosaic, chosen);
  }
  const kernels = await compileCamera([...variantsOf.values()].flatMap((m) => [...m.values()]));
  await prepareHalideCamera((step) => console.error(`bench/image camera: ${step}`));
  const p = DEFAULT_CAMERA_PARAMS;
  let failed = false;
  console.log(`camera pipe, ${runs} runs per side${rounds > 1 ? ` in each of ${rounds} rounds, the sides taking turns` : ''} (medians), ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}; Halide compiled just in time for this CPU; parameters ${JSON.stringify(p)}`);
  for (const { label, mosaic } of inputs) {
    console.log(`\n${label}: mosaic ${mosaic.width}×${mosaic.height}`);
    // Every side keeps all its times over the rounds; the sides take turns round by round.
    // A Halide row that failed or did not finish in the limit says so in `missing` (its ms
    // column) and why in `agreement`, and is not tried again in a later round.
    const rows: { side: string; times: number[]; ms: number; agreement: string; missing?: 'failed' | 'timed out' }[] = [
      ...schedules.map((schedule) => ({ side: `ours (${schedule})`, times: [] as number[], ms: NaN, agreement: '' })),
      ...halide.map((schedule) => ({ side: `Halide 14 (${TITLES[schedule]})`, times: [] as number[], ms: NaN, agreement: '' })),
    ];
    let reference: Image | undefined;
    for (let round = 0; round < rounds; round++) {
      for (const [i, schedule] of schedules.entries()) {
        const kernel = kernels(variantsOf.get(mosaic)!.get(schedule)!);
        const out = kernel.run(mosaic, p);
        rows[i]!.times.push(...(await timeEach(runs, () => void kernel.run(mosaic, p, { output: out }))));
        reference ??= out;
        const agreement = compareOutputs(out, reference);
        failed ||= !agreement.ok;
        rows[i]!.agreement = schedule === schedules[0] ? '(the output compared)' : agreement.ok ? 'bit-exact' : `MISMATCH: ${agreement.detail}`;
      }
      for (const [j, schedule] of halide.entries()) {
        const row = rows[schedules.length + j]!;
        if (row.missing) continue;
        try {
          const run = await runHalideCamera(schedule, mosaic, p, runs, halideLimit);
          const agreement = compareOutputs(run.output, reference!);
          failed ||= !agreement.ok;
          row.times.push(...run.times);
          row.agreement = agreement.ok ? 'bit-exact' : `MISMATCH: ${agreement.detail}`;
        } catch (e) {
          row.missing = e instanceof GenerationTimeout ? 'timed out' : 'failed';
          row.agreement = `${e instanceof GenerationTimeout ? e.verdict : 'failed'}: ${(e as Error).message}`;
        }
      }
    }
    for (const r of rows) r.ms = r.times.length && !r.missing ? median(r.times) : NaN;
    const halideRows = rows.filter((r) => r.side.startsWith('Halide') && Number.isFinite(r.ms));
    const fastest = halideRows.length ? Math.min(...halideRows.map((r) => r.ms)) : NaN;
    const width = Math.max(...rows.map((r) => r.side.length));
    console.log(`${'side'.padEnd(width)}  ${'ms'.padStart(9)}  ${'Mpx/s'.padStart(7)}  ${'vs Halide'.padStart(9)}  agreement`);
    for (const r of rows) {
      const ratio = r.side.startsWith('ours') && Number.isFinite(fastest) ? `${(fastest / r.ms).toFixed(2)}×` : r.ms === fastest ? '*' : '';
      const mpx = Number.isFinite(r.ms) ? ((mosaic.width * mosaic.height) / r.ms / 1000).toFixed(1) : '';
      console.log(`${r.side.padEnd(width)}  ${(Number.isFinite(r.ms) ? r.ms.toFixed(2) : (r.missing ?? 'failed')).padStart(9)}  ${mpx.padStart(7)}  ${ratio.padStart(9)}  ${r.agreement}`);
    }
  }
  console.log('\nvs Halide: the fastest Halide schedule\'s median over ours (above 1 ours is faster; * marks that schedule).');
  return failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await runBench(import.meta.url, main);
