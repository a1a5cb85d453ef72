// The choices a compiled image kernel is made of, and the Impala each choice stands for.
// Everything here is static: the host writes it into the entry module, and partial
// evaluation turns the combination into one specialised kernel.
import { checkGpuDeviceNumber } from '../shared/device-number.ts';

export const PIPELINES = ['box3', 'gauss5', 'sobel', 'unsharp', 'harris', 'gradient', 'heat', 'wave', 'bilateral', 'interpolate', 'local_laplacian'] as const;
export type Pipeline = (typeof PIPELINES)[number];

export const SCHEDULES = ['seq', 'par', 'tile', 'vec', 'opt', 'slide'] as const;
/** Schedules for GPUs (libs/image/gpu.impala): they run on the variant's `device`. */
export const GPU_SCHEDULES = ['gpu', 'gpu_shared'] as const;
export type Schedule = (typeof SCHEDULES)[number] | (typeof GPU_SCHEDULES)[number];

export const BOUNDARIES = ['clamp', 'mirror', 'repeat', 'const'] as const;
export type Boundary = (typeof BOUNDARIES)[number];

export const ELEMENT_TYPES = ['u8', 'i32', 'f32'] as const;
export type ElementType = (typeof ELEMENT_TYPES)[number];

/** One kernel: a pipeline on images of one element type and channel count, with a schedule and a boundary mode. */
export interface Variant {
  pipeline: Pipeline;
  schedule: Schedule;
  boundary: Boundary;
  /** The element type of the input image. */
  type: ElementType;
  channels: 1 | 2 | 3 | 4;
  /** heat and wave only: the frame of their animation (the paper's `iter`), DEFAULT_ITER when omitted. */
  iter?: number;
  /**
   * GPU schedules only: the runtime device the kernels run on, platform | (index << 4)
   * (runtime/README.md: 1 is CUDA device 0, 2 OpenCL device 0, 18 OpenCL device 1);
   * DEFAULT_GPU_DEVICE when omitted. The kernels are compiled for its platform.
   */
  device?: number;
  /**
   * CPU tiled schedules only: the schedule's parameters instead of the named schedule's
   * (`--schedule auto` picks them, libs/image/autoschedule.ts); the named schedule is the
   * hand schedule with the same `at`.
   */
  tuning?: Tuning;
}

/**
 * The parameters of a tiled CPU schedule, the space `--schedule auto` searches: where every
 * stage that feeds a stencil is computed (`root`: for the whole image first, produce_root;
 * `tile`: per output tile, compute_at; `row`: row by row in strips, sliding), the tiles
 * (width 0: the whole width; the rows of tiles are the parallel tasks, so the height is
 * the parallel grain) and the vector width in bits (0: scalar; the lanes are the bits over
 * the compute type's bits: 512 is 16 lanes of i32 or f32, 32 of the 16-bit Gaussian).
 */
export interface Tuning {
  at: 'root' | 'tile' | 'row';
  tileWidth: number;
  tileHeight: number;
  vectorBits: 0 | 256 | 512 | 1024;
}

export const TUNING_AT_IMPALA: Record<Tuning['at'], string> = { root: 'produce_root', tile: 'compute_at', row: 'sliding' };

/** The hand schedules that are points of the tuning space, and their parameters. */
export const HAND_TUNINGS: Partial<Record<Schedule, Tuning>> = {
  tile: { at: 'root', tileWidth: 512, tileHeight: 32, vectorBits: 0 },
  vec: { at: 'root', tileWidth: 512, tileHeight: 32, vectorBits: 512 },
  opt: { at: 'tile', tileWidth: 512, tileHeight: 32, vectorBits: 512 },
  slide: { at: 'row', tileWidth: 0, tileHeight: 32, vectorBits: 512 },
};

/**
 * A pipeline's hand schedule: HAND_TUNINGS, except for two pipelines' `opt`. box3's tiles
 * span the row (the shape of the sliding-row schedule `--schedule auto` picked for it): box3
 * has no stage to keep in cache per tile, and 512-element tile rows cut its input and output
 * into short streams: whole rows took 13–30% less time on every input tried (i32 and u8, gray
 * 4096² and RGB photos; medians of interleaved runs). Harris' `opt` is its `slide` in strips
 * of 64 rows: every stage slid down strips of whole rows in the shape of Halide's apps/harris
 * (`harris_slid`), which took 25–35% less CPU time than the 512 × 32 tiles with the stages
 * computed per tile (one thread, interleaved runs in one process: 2048² gray 3.4–4.0 ms
 * against 5.1–5.5, Storm.jpg 2.6 against 3.9); strips of 64 rows recompute half as many rows
 * at strip edges as 32 and took 0–5% less (Storm.jpg 2.43 ms against 2.55). On two threads
 * its CPU time stays within 0–3% of one thread's, as Halide's app's does (0–1%), and strips
 * of 32 or 128 rows did no better (2048² gray, both sides in one process in turns, load 7–11).
 */
export function handTuning(pipeline: Pipeline, schedule: Schedule): Tuning | undefined {
  const t = HAND_TUNINGS[schedule];
  if (!t || schedule !== 'opt') return t;
  if (pipeline === 'box3') return { ...t, tileWidth: 0 };
  if (pipeline === 'harris') return { ...HAND_TUNINGS.slide!, tileHeight: 64 };
  return t;
}

/** The Stages value of a tuning; `lanes512` is the lanes of the compute type in 512 bits. */
function tuningImpala(t: Tuning, lanes512: number): string {
  const lanes = (lanes512 * t.vectorBits) / 512;
  const inner = `combine_xy(${lanes ? `vec(${lanes})` : 'seq()'}, seq())`;
  return `${TUNING_AT_IMPALA[t.at]}(tiled(${t.tileWidth}, ${t.tileHeight}, par(0), ${inner}))`;
}

/**
 * The lanes of a variant's compute type in 512 bits: 32 for the pipelines on interleaved u8
 * rows, which compute in 16 bits (the Gaussian, unsharp's too, as written, the others because
 * LLVM narrows their i32 arithmetic on u8 values to 16 bits); 16 for the 32-bit rest.
 */
export function lanesIn512Bits(v: Pick<Variant, 'pipeline' | 'type'>): number {
  return isInterleavedPipeline(v.pipeline) && v.type === 'u8' ? 32 : 16;
}

/** Throws a message when a tuning is outside the space the schedules express. */
function checkTuning(t: Tuning): void {
  const size = (n: number, what: string) => {
    if (!Number.isInteger(n) || n < 0 || n > 1 << 16) throw new Error(`a tuning's ${what} must be an integer from 0 to 65536, not ${n}`);
  };
  if (!(t.at in TUNING_AT_IMPALA)) throw new Error(`a tuning computes stages at root, tile or row, not ${t.at}`);
  size(t.tileWidth, 'tile width');
  size(t.tileHeight, 'tile height');
  if (t.tileHeight < 1) throw new Error('a tuning\'s tile height must be at least 1');
  if (![0, 256, 512, 1024].includes(t.vectorBits)) throw new Error(`a tuning's vector width is 0, 256, 512 or 1024 bits, not ${t.vectorBits}`);
}

/** OpenCL device 0: PoCL's CPU device on a machine without a GPU. */
export const DEFAULT_GPU_DEVICE = 2;

/** heat runs this many diffusion steps and wave draws this frame unless a variant says otherwise. */
export const DEFAULT_ITER = 10;
const MAX_ITER = 1_000_000;

/** The pipelines of the MetaOCaml paper's animations, which take the frame `iter` as a static argument. */
export function takesIter(p: Pipeline): boolean {
  return p === 'heat' || p === 'wave';
}

export const SCHEDULE_DESCRIPTIONS: Record<Schedule, string> = {
  seq: 'rows then columns, one thread',
  par: 'rows spread over all cores (TBB), columns sequential',
  tile: '512 × 32 tiles, rows of tiles over all cores; stages produced for the whole image first',
  vec: 'as tile, with 512-bit vectorize inside tiles (16 lanes of 32 bits, 32 of 16)',
  opt: 'as vec, with every stage fused into the tiles of the next (compute-at, per-tile temporaries); box3, which has no stage, in strips of 32 whole rows; Harris as slide in strips of 64 rows',
  slide: 'strips of 32 rows over all cores, vectorized like vec, every stage computed row by row just ahead of its reader (Halide\'s sliding window)',
  gpu: 'one work item per pixel in 32 × 4 blocks on a GPU (CUDA or OpenCL; ANYDSL_DEVICE picks), stages produced for the whole image first into device memory',
  gpu_shared: 'as gpu in 32 × 8 blocks, with every stage fused into the blocks of the next through shared memory and a barrier (tile_gpu_at)',
};

/** Whether a schedule's kernels run on a GPU device. */
export function isGpuSchedule(schedule: Schedule): boolean {
  return (GPU_SCHEDULES as readonly string[]).includes(schedule);
}

export function isGpuVariant(v: Variant): boolean {
  return isGpuSchedule(v.schedule);
}

/** The runtime device of a GPU variant. */
export function gpuDevice(v: Variant): number {
  return v.device ?? DEFAULT_GPU_DEVICE;
}

/**
 * What a schedule's Stages value is made of: the named schedule, for a tiled one its tuning
 * (the hand schedule's parameters or a search's), for a GPU one its runtime device
 * (DEFAULT_GPU_DEVICE when omitted). A `Variant` gives it through `variantSchedule`; an
 * entry of its own (the camera pipe's) gives its own.
 */
export interface ScheduleSpec {
  schedule: Schedule;
  tuning?: Tuning;
  device?: number;
}

/** A variant's schedule: its tuning, else its pipeline's hand schedule (`handTuning`), and its device. */
function variantSchedule(v: Variant): ScheduleSpec {
  const tuning = v.tuning ?? handTuning(v.pipeline, v.schedule);
  return { schedule: v.schedule, ...(tuning && { tuning }), ...(v.device !== undefined && { device: v.device }) };
}

/**
 * The Stages value of a schedule; `lanes512` is the lanes of the kernel's compute type in 512
 * bits (`lanesIn512Bits`), which a tuning's vector width scales.
 */
export function scheduleImpala(s: ScheduleSpec, lanes512: number): string {
  if (s.tuning) return tuningImpala(s.tuning, lanes512);
  const device = s.device ?? DEFAULT_GPU_DEVICE;
  switch (s.schedule) {
    case 'seq':
      return 'seq_stages()';
    case 'par':
      return 'par_stages()';
    case 'tile':
    case 'vec':
    case 'opt':
    case 'slide':
      throw new Error(`${s.schedule} is a tiled schedule: it needs its tuning (HAND_TUNINGS, handTuning)`);
    case 'gpu':
      return `gpu_stages(${device & 15}, ${device >> 4}, 32, 4)`;
    case 'gpu_shared':
      return `gpu_shared_stages(${device & 15}, ${device >> 4}, 32, 8)`;
  }
}

export const BOUNDARY_IMPALA: Record<Boundary, string> = {
  clamp: 'clamp_mode()',
  mirror: 'mirror_mode()',
  repeat: 'repeat_mode()',
  const: 'const_mode()',
};

/**
 * The pipelines that compute every channel alike and are written for interleaved rows
 * (`box3_interleaved` and the others in pipelines.impala): their entries run all channels
 * of an image as one plane.
 */
export function isInterleavedPipeline(p: Pipeline): boolean {
  return p === 'box3' || p === 'gauss5' || p === 'unsharp' || p === 'sobel';
}

/** Harris computes in f32 and returns one f32 channel; the others compute in i32 and keep the input's type and channels. */
export function isFloatPipeline(p: Pipeline): boolean {
  return p === 'harris';
}

/**
 * Halide's app pipelines that compute in f32 on values in [0, 1] (a u8 image read as v / 255)
 * and keep the input's type and channels: the bilateral grid (libs/image/bilateral.impala),
 * multi-scale interpolation (libs/image/interpolate.impala) and the local Laplacian filter
 * (libs/image/local_laplacian.impala).
 */
export function isUnitPipeline(p: Pipeline): boolean {
  return p === 'bilateral' || p === 'interpolate' || p === 'local_laplacian';
}

/** Throws a message for a user when the combination is not supported. */
export function checkVariant(v: Variant): void {
  if (v.tuning) {
    if (!HAND_TUNINGS[v.schedule]) throw new Error(`only the tiled CPU schedules take a tuning, not ${v.schedule}`);
    checkTuning(v.tuning);
  }
  if (v.device !== undefined) {
    if (!isGpuVariant(v)) throw new Error(`only GPU schedules run on a device, not ${v.schedule}`);
    checkGpuDeviceNumber(v.device);
  }
  if (isUnitPipeline(v.pipeline)) {
    if (v.type === 'i32') throw new Error(`${v.pipeline} computes in f32 on values from 0 to 1 and takes u8 or f32 images, not i32`);
    if (v.pipeline === 'interpolate' && v.channels !== 2 && v.channels !== 4) {
      throw new Error(`interpolate fills in the transparent parts of an image with alpha: it takes 2 (gray, alpha) or 4 (RGBA) channels, not ${v.channels}`);
    }
  } else if (isFloatPipeline(v.pipeline)) {
    if (v.type === 'i32') throw new Error(`${v.pipeline} takes u8 or f32 images, not i32`);
    if (v.type === 'f32' && v.channels !== 1) throw new Error(`${v.pipeline} on f32 takes a gray image (1 channel), not ${v.channels}`);
  } else if (v.type === 'f32') {
    throw new Error(`${v.pipeline} computes in integers and takes u8 or i32 images, not f32`);
  }
  if (v.iter !== undefined) {
    if (!takesIter(v.pipeline)) throw new Error(`${v.pipeline} has no frame number (iter); only heat and wave do`);
    if (!Number.isInteger(v.iter) || v.iter < 0 || v.iter > MAX_ITER) throw new Error(`iter must be an integer from 0 to ${MAX_ITER}, got ${v.iter}`);
  }
}

export function exportName(v: Variant): string {
  const iter = takesIter(v.pipeline) ? `_iter${v.iter ?? DEFAULT_ITER}` : '';
  const device = isGpuVariant(v) ? `_d${gpuDevice(v)}` : '';
  const t = v.tuning;
  const tuning = t ? `_${t.at}${t.tileWidth}x${t.tileHeight}v${t.vectorBits}` : '';
  return `${v.pipeline}${iter}_${v.type}_c${v.channels}_${v.schedule}${tuning}${device}_${v.boundary}`;
}

/**
 * The exported entry of one variant: `name(in, out, width, height, outside)` on host
 * images. A GPU variant runs the same pipeline on device copies of them.
 */
export function entryFunction(v: Variant): string {
  checkVariant(v);
  const outType = isFloatPipeline(v.pipeline) ? 'f32' : v.type;
  const outsideType = isFloatPipeline(v.pipeline) || isUnitPipeline(v.pipeline) ? 'f32' : 'i32';
  const name = exportName(v);
  let body = entryBody(v);
  if (isGpuVariant(v)) {
    const outChannels = isFloatPipeline(v.pipeline) ? 1 : v.channels;
    body = [
      `with_device_images[${v.type}, ${outType}](${gpuDevice(v)}, inp, w * h * ${v.channels}, out, w * h * ${outChannels}, |inp, out| {`,
      ...body.map((line) => `    ${line}`),
      `})`,
    ];
  }
  return [
    `extern fn ${name}(inp: &mut [${v.type}], out: &mut [${outType}], w: i32, h: i32, outside: ${outsideType}) -> () {`,
    ...body.map((line) => `    ${line}`),
    `}`,
  ].join('\n');
}

/**
 * Whether a variant's entry writes a large output with streaming stores (image.impala
 * `streamed_output`): under a vectorised CPU schedule (only vector stores stream), for the
 * pipelines that form each output from the input in one pass where it pays: box3, and Sobel
 * on i32. Measured
 * streamed against not (interleaved runs in one process, strips of whole rows, 2 cores):
 * box3 i32 11–19% less time at 2048² and 4096², u8 7–8% less at 4096²; Sobel i32 13–16%
 * less at 2048² and 4096², u8 1–2% more at 4096². The pipelines with a stage lose: the
 * Gaussian on i32 5–8% more at 4096² and 30–40% more at 2048², Harris 5–16% more.
 */
function streamsLargeOutputs(v: Variant): boolean {
  const vectorised = (variantSchedule(v).tuning?.vectorBits ?? 0) > 0;
  return vectorised && (v.pipeline === 'box3' || (v.pipeline === 'sobel' && v.type === 'i32'));
}

/**
 * The statements of a variant's entry, on `inp` and `out` of the entry's types: under
 * `streamsLargeOutputs`, twice, the output's accessor streaming in the copy for outputs of
 * `streamed_output` size.
 */
function entryBody(v: Variant): string[] {
  if (!streamsLargeOutputs(v)) return entryBodyWith(v, '');
  const outBytes = `(w as i64) * (h as i64) * ${v.channels}i64 * sizeof[${v.type}]() as i64`;
  const indent = (lines: string[]) => lines.map((l) => `    ${l}`);
  return [`if streamed_output(${outBytes}) {`, ...indent(entryBodyWith(v, '_streamed')), '} else {', ...indent(entryBodyWith(v, '')), '}'];
}

/** entryBody with the output's accessor `channel_<type><outAccessor>`. */
function entryBodyWith(v: Variant, outAccessor: '' | '_streamed'): string[] {
  const schedule = scheduleImpala(variantSchedule(v), lanesIn512Bits(v));
  const mode = BOUNDARY_IMPALA[v.boundary];
  if (isFloatPipeline(v.pipeline)) {
    const input = v.type === 'u8' ? `gray_u8(inp, w, h, ${v.channels})` : 'channel_f32(inp, w, h, 1, 0)';
    return [`${v.type === 'u8' ? 'harris_staged' : 'harris'}(${input}, channel_f32(out, w, h, 1, 0), ${schedule}, ${mode}, outside)`];
  }
  if (isUnitPipeline(v.pipeline)) return unitEntryBody(v, schedule, mode);
  if ((v.pipeline === 'gauss5' || v.pipeline === 'unsharp') && v.type === 'u8') {
    return [`${v.pipeline}_u8(inp, out, w, h, ${v.channels}, ${schedule}, ${mode}, outside as u8)`];
  }
  const channel = `channel_${v.type}`;
  if (isInterleavedPipeline(v.pipeline)) {
    // Every channel alike: the interleaved rows as one plane of w · channels elements.
    const plane = (data: string, accessor: string) => `${accessor}(${data}, w * ${v.channels}, h, 1, 0)`;
    return [`${v.pipeline}_interleaved(${plane('inp', channel)}, ${plane('out', channel + outAccessor)}, ${v.channels}, ${schedule}, ${mode}, outside)`];
  }
  // heat(n) and wave(n) return the pipeline for frame n.
  const pipeline = takesIter(v.pipeline) ? `${v.pipeline}(${v.iter ?? DEFAULT_ITER})` : v.pipeline;
  // Heat's steps each need the whole previous step, so its channels cannot share strips.
  const channels = v.pipeline === 'heat' ? `c in unroll(0, ${v.channels})` : `c, s in channels_in_strips(${schedule}, h, ${v.channels})`;
  const stages = v.pipeline === 'heat' ? schedule : 's';
  return [
    `for ${channels} {`,
    `    ${pipeline}(${channel}(inp, w, h, ${v.channels}, c), ${channel}(out, w, h, ${v.channels}, c), ${stages}, ${mode}, outside)`,
    `}`,
  ];
}

/** The entry of a unit pipeline: each channel in [0, 1] through f32 accessors, the value outside on the same scale. */
function unitEntryBody(v: Variant, schedule: string, mode: string): string[] {
  const channel = (data: string, c: string) => (v.type === 'u8' ? `channel_u8_unit(${data}, w, h, ${v.channels}, ${c})` : `channel_f32(${data}, w, h, ${v.channels}, ${c})`);
  const outside = v.type === 'u8' ? 'outside * (1.0f / 255.0f)' : 'outside';
  if (v.pipeline === 'interpolate' || v.pipeline === 'local_laplacian') {
    return [
      `${v.pipeline}(|x, y, c| ${channel('inp', 'c')}.read(x, y), |x, y, c, value| ${channel('out', 'c')}.write(x, y, value),`,
      `            w, h, ${v.channels}, ${schedule}, ${mode}, ${outside})`,
    ];
  }
  // One copy of the pipeline serves every channel.
  return [`for c in range(0, ${v.channels}) {`, `    bilateral_grid(${channel('inp', 'c')}, ${channel('out', 'c')}, ${schedule}, ${mode}, ${outside})`, `}`];
}
