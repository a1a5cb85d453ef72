// `trace`: renders a triangle mesh with the Impala ray-tracing library (primary rays and
// ambient occlusion by default), or traces a user's rays against it for scripting, times
// the paper's workloads (--bench) and checks hits and speed against Embree (--compare).
// `--device` traces on a GPU instead (libs/raytrace/gpu.ts: the BVH2 while-while kernel).
import os from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { checkOutputPath, writeFileAtomic } from '@anydsl/compiler';
import { describeAgreement, EMBREE_MODE_TITLES, EMBREE_MODES, EMBREE_TITLE, embreeDriver, type EmbreeMode, embreeTrace, judgeAgainstEmbree } from '../../../bench/raytrace/references.ts';
import { median, timeEach } from '../../../libs/image/bench.ts';
import { buildBvh } from '../../../libs/raytrace/bvh.ts';
import { type Camera, parseCamera, sceneCamera, sceneName } from '../../../libs/raytrace/camera.ts';
import { compileGpuTracer } from '../../../libs/raytrace/gpu.ts';
import { compileTracers, flatten, TRAVERSAL_DESCRIPTIONS, type Traversal, TRAVERSALS } from '../../../libs/raytrace/host.ts';
import type { Mesh } from '../../../libs/raytrace/mesh.ts';
import { loadObj } from '../../../libs/raytrace/obj.ts';
import { encodeHits, type Hits, makeHits, type Rays, readRays } from '../../../libs/raytrace/rays.ts';
import { ANY_HIT, generateWorkloads, type TraceFn, WORKLOADS } from '../../../libs/raytrace/workloads.ts';
import { type DeviceChoice, pickDeviceOrHost } from '../../../libs/shared/device.ts';
import { during, integerFrom, progress, runCommand } from '../../shared/cli.ts';
import { imageOutput, MAX_BENCH_RUNS, writeImage } from '../../shared/image.ts';
import { render, SHADES, type Shade } from './render.ts';

/** Runs timed for --compare without --bench. */
const COMPARE_RUNS = 5;

interface Options {
  output?: string;
  bvh2?: boolean;
  bvh4?: boolean;
  bvh8?: boolean;
  traversal: Traversal;
  shade: Shade;
  width: number;
  height: number;
  camera?: Camera;
  spp: number;
  rays?: string;
  hits?: string;
  anyHit?: boolean;
  bench?: number;
  compare?: 'embree';
  threads: number;
  device?: string;
  spatialSplits: boolean;
}

function cameraOption(value: string): Camera {
  try {
    return parseCamera(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

function command(): Command {
  const bvh = (n: number, more: string) => new Option(`--bvh${n}`, `${n}-wide BVH${more}`).conflicts(['bvh2', 'bvh4', 'bvh8'].filter((b) => b !== `bvh${n}`));
  return new Command('trace')
    .description('Render a triangle mesh with the Impala ray-tracing library, or trace your rays against it.')
    .argument('<scene>', 'Wavefront OBJ file (.obj, .obj.gz, .obj.xz); n-gons are fan-triangulated from their first vertex')
    .option('-o, --output <file>', 'the rendered image (.png, .jpg, .webp, .tiff), replaced only once complete')
    .addOption(bvh(2, ' (binary)'))
    .addOption(bvh(4, ' (the default)'))
    .addOption(bvh(8, ''))
    .addOption(new Option('--traversal <loop>', TRAVERSALS.map((t) => `${t}: ${TRAVERSAL_DESCRIPTIONS[t]}`).join('; ')).choices(TRAVERSALS).default('single'))
    .addOption(new Option('--shade <mode>', 'ao: ambient occlusion of the primary hits; normal: the surface normal as a colour; depth: near bright, far dark').choices(SHADES).default('ao'))
    .option('--width <pixels>', 'image width', integerFrom(1, 16384), 800)
    .option('--height <pixels>', 'image height', integerFrom(1, 16384), 600)
    .option('--camera <eye,at,up,fov>', 'ten numbers: eye x,y,z, the point looked at, the up vector, vertical field of view in degrees (default: the scene\'s viewpoint for the benchmark scenes, else one framing the whole scene)', cameraOption)
    .option('--spp <n>', 'samples per pixel, jittered within the pixel and averaged', integerFrom(1, 4096), 1)
    .option('--rays <file>', 'trace these rays (and render only with -o): one per line `ox oy oz dx dy dz tmin tmax`, or the binary form (rays.ts)')
    .option('--hits <file>', 'where --rays\' hits go: one line per ray `prim t` (-1 -1 for a miss), `1`/`0` with --any-hit; binary for a .bin name')
    .option('--any-hit', 'with --rays: occlusion, whether anything is hit between tmin and tmax')
    .option('--bench <runs>', `time the tracer over N more runs (at most ${MAX_BENCH_RUNS}) and print the median Mrays/s of each workload (primary, AO, diffuse; or the --rays)`, integerFrom(1, MAX_BENCH_RUNS))
    .addOption(new Option('--compare <reference>', `trace the same rays with ${EMBREE_TITLE} (Debian's libembree-dev): hit agreement and speed ratio (medians of --bench or ${COMPARE_RUNS} runs)`).choices(['embree']))
    .option('--threads <n>', 'threads tracing (ours and the reference)', integerFrom(1, 1024), os.availableParallelism())
    .option('--no-spatial-splits', 'build the BVH with object splits only: a faster build, a tree that traces slower where long thin triangles overlap (the default splits them, as the benchmark does)')
    .option('--device <device>', 'where the rays are traced: host (the CPU kernels), or the BVH2 while-while kernel on cuda, opencl (either with an index, opencl:1) or auto (an NVIDIA GPU, else an OpenCL GPU, else PoCL on the CPU, else the host); --bench then reports kernel and copy time apart (default: ANYDSL_DEVICE, else host)')
    .addHelpText('after', [
      '',
      'Examples:',
      '  trace --bvh4 sponza.obj -o sponza.png',
      '  trace --bvh8 --traversal hybrid --shade normal --width 1280 --height 720 scene.obj.xz -o normals.png',
      '  trace --camera 0,1,5,0,1,0,0,1,0,45 --spp 4 bunny.obj -o bunny.png',
      '  trace --rays rays.txt --hits hits.txt scene.obj',
      '  trace --rays shadow.txt --any-hit --hits occluded.txt scene.obj',
      '  trace --bvh8 --bench 10 --compare embree sponza.obj -o sponza.png',
      '  trace --device opencl --bench 5 scene.obj -o scene.png',
      '',
    ].join('\n'))
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
}

/** Per trace on a GPU, from the runtime's counters: microseconds in kernels and in copies. */
interface DeviceTimes {
  kernel: number[];
  copy: number[];
}

/** The GPU tracer for the mesh: the BVH2 built, flattened and copied to the device once, both kernels compiled. */
async function gpuTracer(mesh: Mesh, device: Extract<DeviceChoice, { kind: 'gpu' }>, times: DeviceTimes, spatialSplits: boolean): Promise<TraceFn> {
  const tracer = await during(`compiling the BVH2 while-while kernels for ${device.name}`, () => compileGpuTracer(device.device));
  const scene = await during(`building the BVH2 of ${mesh.triangleCount} triangles and copying it to the device`, async () =>
    tracer.upload(flatten(buildBvh(mesh, { arity: 2, spatialSplits }), mesh)),
  );
  return async (rays, anyHit) => {
    const hits = makeHits(rays.count);
    const [kernel, copy] = [tracer.kernelMicros(), tracer.copyMicros()];
    scene.trace(rays, hits, { anyHit });
    times.kernel.push(tracer.kernelMicros() - kernel);
    times.copy.push(tracer.copyMicros() - copy);
    return hits;
  };
}

/** Our tracer for the mesh: the tree built and flattened once, closest- and any-hit kernels compiled. */
async function ourTracer(mesh: Mesh, arity: 2 | 4 | 8, traversal: Traversal, threads: number, spatialSplits: boolean): Promise<TraceFn> {
  const [closest, any] = await during(`compiling the BVH${arity} ${traversal} kernels`, () =>
    compileTracers([
      { arity, traversal, anyHit: false },
      { arity, traversal, anyHit: true },
    ]),
  );
  const scene = await during(`building the BVH${arity} of ${mesh.triangleCount} triangles`, async () => flatten(buildBvh(mesh, { arity, spatialSplits }), mesh));
  return async (rays, anyHit) => {
    const hits = makeHits(rays.count);
    (anyHit ? any! : closest!).trace(scene, rays, hits, { threads });
    return hits;
  };
}

/** Millions of rays per second at the median of `times` (ms). */
function mrays(rays: number, times: readonly number[]): number {
  return rays / median(times) / 1e3;
}

/** Times tracing `rays` `runs` times after a warm-up; ms per run. */
async function timeTrace(trace: TraceFn, rays: Rays, anyHit: boolean, runs: number, label: string): Promise<number[]> {
  const bar = progress(label, runs);
  try {
    return await timeEach(runs, () => trace(rays, anyHit), (done) => bar.update(done));
  } finally {
    bar.stop();
  }
}

interface RaySet {
  name: string;
  rays: Rays;
  anyHit: boolean;
  /** Ours' hits, to compare. */
  hits: Hits;
}

async function benchAndCompare(mesh: Mesh, sets: readonly RaySet[], trace: TraceFn, o: Options, arity: 2 | 4 | 8, kernels: string, device?: DeviceTimes): Promise<void> {
  const runs = o.bench ?? COMPARE_RUNS;
  const ours = new Map<string, number[]>();
  for (const s of sets) {
    if (device) device.kernel.length = device.copy.length = 0;
    const times = await timeTrace(trace, s.rays, s.anyHit, runs, `timing ${s.name}`);
    ours.set(s.name, times);
    console.log(`${s.name}: ${s.rays.count} rays, ${s.anyHit ? 'any hit' : 'closest hit'}: ${mrays(s.rays.count, times).toFixed(2)} Mrays/s (median of ${runs} runs, ${kernels})`);
    if (device) {
      // The last `runs` traces are the timed ones; the runtime counts microseconds.
      const [kernel, copy] = [median(device.kernel.slice(-runs)) / 1e3, median(device.copy.slice(-runs)) / 1e3];
      console.log(`  on the device: kernel ${kernel.toFixed(2)} ms (${(s.rays.count / kernel / 1e3).toFixed(2)} Mrays/s), copies of rays in and hits out ${copy.toFixed(2)} ms (medians per run)`);
    }
  }
  if (!o.compare || arity === 2) return;
  const result = await during(`${EMBREE_TITLE}: building the BVH${arity} and tracing ${sets.length} ray set${sets.length > 1 ? 's' : ''} ${EMBREE_MODES.length} ways`, () =>
    embreeTrace(mesh, sets.map((s) => ({ rays: s.rays, anyHit: s.anyHit, coherent: s.name === 'primary' })), { arity, modes: EMBREE_MODES, runs, threads: o.threads }),
  );
  console.log(`${EMBREE_TITLE} (version ${result.version}, ${result.config}): scene build ${median(result.buildMs).toFixed(0)} ms, ${(result.bytes / mesh.triangleCount).toFixed(1)} bytes per triangle`);
  let oursWrong = 0;
  for (const [j, s] of sets.entries()) {
    const mine = mrays(s.rays.count, ours.get(s.name)!);
    let best: { mode: EmbreeMode; rate: number } | undefined;
    for (const mode of EMBREE_MODES) {
      const r = result.jobs[j]!.modes[mode]!;
      const rate = mrays(s.rays.count, r.ms);
      const agreement = judgeAgainstEmbree(mesh, s.rays, r.hits, s.hits, s.anyHit);
      oursWrong += agreement.oursWrong;
      console.log(`  ${s.name} ${mode.padEnd(8)} ${EMBREE_MODE_TITLES[mode]}: ${rate.toFixed(2)} Mrays/s, ratio ${(mine / rate).toFixed(2)}× (ours / Embree), hits: ${describeAgreement(agreement, s.rays.count)}`);
      if (!best || rate > best.rate) best = { mode, rate };
    }
    console.log(`${s.name}: ours ${mine.toFixed(2)} Mrays/s, ${EMBREE_TITLE} best (${best!.mode}) ${best!.rate.toFixed(2)} Mrays/s: ratio ${(mine / best!.rate).toFixed(2)}× (above 1 ours is faster)`);
  }
  if (oursWrong > 0) throw new Error(`${oursWrong} of our hits differ from both ${EMBREE_TITLE}'s and the exact reference's (beyond ties within 1e-4 relative)`);
}

export async function main(argv: string[]): Promise<number> {
  const program = command();
  return runCommand('trace', program, argv, async () => {
    const o = program.opts<Options>();
    const file = program.args[0]!;
    const arity = o.bvh2 ? 2 : o.bvh8 ? 8 : 4;
    if ((o.rays === undefined) !== (o.hits === undefined)) throw new Error(o.rays ? '--rays needs --hits FILE for the results' : '--hits needs --rays FILE to trace');
    if (o.anyHit && !o.rays) throw new Error('--any-hit applies to --rays; a render traces both kinds');
    if (!o.output && !o.rays) throw new Error('nothing to do: give -o FILE to render an image, or --rays FILE --hits FILE to trace rays');
    const request = o.device ?? (process.env.ANYDSL_DEVICE || 'host');
    const device = await pickDeviceOrHost(request, `--device ${request}`);
    if (device.kind === 'gpu') {
      if (o.bvh4 || o.bvh8) throw new Error(`the GPU traces a BVH2 (while-while); drop --bvh${o.bvh4 ? 4 : 8} or use --device host`);
      if (program.getOptionValueSource('traversal') === 'cli') throw new Error('--traversal chooses among the CPU loops; the GPU runs the while-while loop (use --device host)');
      if (o.compare) throw new Error(`--compare embree compares the CPU kernels with ${EMBREE_TITLE}; use --device host`);
    }
    if (o.compare && arity === 2) throw new Error(`${EMBREE_TITLE} has BVH4 and BVH8 kernels only; compare with --bvh4 or --bvh8`);
    // Every output is checked before any work.
    const image = o.output ? await imageOutput(o.output) : undefined;
    const hitsPath = o.hits ? await checkOutputPath(o.hits) : undefined;
    const userRays = o.rays ? await readRays(o.rays) : undefined;
    if (o.compare) await during(`preparing ${EMBREE_TITLE}`, () => embreeDriver());
    const mesh = await during(`reading ${file}`, () => loadObj(file));
    if (mesh.triangleCount === 0) throw new Error(`${file}: the scene has no triangles`);
    const deviceTimes: DeviceTimes | undefined = device.kind === 'gpu' ? { kernel: [], copy: [] } : undefined;
    const trace = device.kind === 'gpu' ? await gpuTracer(mesh, device, deviceTimes!, o.spatialSplits) : await ourTracer(mesh, arity, o.traversal, o.threads, o.spatialSplits);
    if (o.device !== undefined || device.kind === 'gpu') console.log(`tracing on ${device.name}`);
    const kernels = device.kind === 'gpu' ? 'BVH2 while-while' : `BVH${arity} ${o.traversal}, ${o.threads} thread${o.threads > 1 ? 's' : ''}`;
    const camera = o.camera ?? sceneCamera(sceneName(file), mesh.bounds(), o.width / o.height);

    if (image) {
      const bar = progress(`rendering ${o.width}×${o.height}${o.spp > 1 ? `, ${o.spp} samples per pixel` : ''}`, o.height);
      const start = process.hrtime.bigint();
      let result;
      try {
        result = await render(mesh, trace, { camera, width: o.width, height: o.height, spp: o.spp, shade: o.shade, onRows: (rows) => bar.update(rows) });
      } finally {
        bar.stop();
      }
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      await writeImage(image, result.image);
      console.log(`wrote ${o.output} (${o.width}×${o.height}, ${o.shade}, ${device.kind === 'gpu' ? 'BVH2 while-while' : `BVH${arity} ${o.traversal}`}, ${mesh.triangleCount} triangles): ${result.rays} rays in ${ms.toFixed(0)} ms, ${(result.rays / ms / 1e3).toFixed(2)} Mrays/s with shading`);
    }

    if (userRays && hitsPath) {
      const anyHit = o.anyHit === true;
      const hits = await trace(userRays, anyHit);
      await writeFileAtomic(hitsPath, encodeHits(hitsPath, hits, anyHit));
      let hit = 0;
      for (const p of hits.prim) if (p >= 0) hit++;
      console.log(`wrote ${o.hits} (${userRays.count} rays, ${hit} ${anyHit ? 'occluded' : 'hit'})`);
      if (o.bench || o.compare) await benchAndCompare(mesh, [{ name: 'rays', rays: userRays, anyHit, hits }], trace, o, arity, kernels, deviceTimes);
      return;
    }

    if (o.bench || o.compare) {
      const sets = await during('generating the primary, AO and diffuse rays', () => generateWorkloads(mesh, { camera, width: o.width, height: o.height, seed: 1, aoSamples: 1 }, trace));
      const withHits: RaySet[] = [];
      for (const w of WORKLOADS) withHits.push({ name: w, rays: sets[w], anyHit: ANY_HIT[w], hits: await trace(sets[w], ANY_HIT[w]) });
      await benchAndCompare(mesh, withHits, trace, o, arity, kernels, deviceTimes);
    }
  });
}
