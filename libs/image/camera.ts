// The host side of the camera pipe (camera.impala): raw Bayer mosaics in memory, the
// pipe's parameters, and its kernels, one per schedule (a CPU schedule, a tuning, or `gpu`
// on a runtime device) and boundary mode,
// compiled with the library through the artifact cache; `--schedule auto` for the pipe
// (`autoScheduleCamera`, the tuning search of autoschedule.ts, timed on the mosaic developed).
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { compile, type CompiledLibrary, type SourceFile } from '@anydsl/compiler';
import { xorshift32 } from '../shared/random.ts';
import { librarySources } from './host.ts';
import { type Image, makeImage } from './image.ts';
import { type AutoOptions, autoTune, compileOnOneInput, scheduleFor, type TuningTarget } from './autoschedule.ts';
import { type Boundary, BOUNDARY_IMPALA, DEFAULT_GPU_DEVICE, HAND_TUNINGS, SCHEDULES, scheduleImpala, type Tuning } from './variants.ts';

/** A raw mosaic: w × h samples of 16 bits, GRBG (row 0: G R G R …, row 1: B G B G …). */
export interface Mosaic {
  width: number;
  height: number;
  data: Uint16Array;
}

export type CpuSchedule = (typeof SCHEDULES)[number];
/** The CPU schedules and `gpu` (every stage on the whole image, a launch per loop, on a CUDA or OpenCL device). */
export type CameraSchedule = CpuSchedule | 'gpu';
export const CAMERA_SCHEDULES: readonly CameraSchedule[] = [...SCHEDULES, 'gpu'];

export interface CameraVariant {
  schedule: CameraSchedule;
  boundary: Boundary;
  /** `gpu` only: the runtime device, platform | (index << 4) (variants.ts); DEFAULT_GPU_DEVICE when omitted. */
  device?: number;
  /** The tiled schedules only: the schedule's parameters instead of the named schedule's (`autoScheduleCamera` picks them); tiles of even width. */
  tuning?: Tuning;
}

/** The lanes of the pipe's compute type (i32 up to the tone curve) in 512 bits. */
const CAMERA_LANES_512 = 16;

/** What the pipe does to a mosaic: Halide's apps/camera_pipe's parameters (its defaults). */
export interface CameraParams {
  /** Colour temperature in kelvin the colour matrix is interpolated for (3200 K … 7000 K and beyond). */
  colorTemp: number;
  gamma: number;
  /** Contrast of the tone curve, 0 (none) … 100 and more. */
  contrast: number;
  /** Sharpening strength, 0 … 4 (in steps of 1/32). */
  sharpen: number;
  /** Raw value of black and of white: the tone curve is 0 at or below black, 255 above white. */
  blackLevel: number;
  whiteLevel: number;
}

export const DEFAULT_CAMERA_PARAMS: CameraParams = { colorTemp: 3700, gamma: 2, contrast: 50, sharpen: 1, blackLevel: 25, whiteLevel: 1023 };

/** The largest mosaic the kernels index with 32-bit offsets: its RGB output has 3 w h elements. */
const MAX_OUTPUT = 2 ** 31 - 1;

/** Throws a message for a user when a mosaic of w × h cannot go through the pipe. */
export function checkMosaicSize(width: number, height: number): void {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 2 || height < 2) {
    throw new Error(`a Bayer mosaic is at least 2×2 samples, got ${width}×${height}`);
  }
  if (width % 2 !== 0 || height % 2 !== 0) {
    throw new Error(`a Bayer mosaic has even width and height (whole 2×2 GRBG cells), got ${width}×${height}`);
  }
  if (3 * width * height > MAX_OUTPUT) throw new Error(`a mosaic of ${width}×${height} is too large: its RGB output passes 32-bit indices`);
}

/** Throws a message for a user when a parameter is out of the range the pipe's arithmetic holds. */
export function checkCameraParams(p: CameraParams): void {
  const within = (name: string, v: number, lo: number, hi: number) => {
    if (!(Number.isFinite(v) && v >= lo && v <= hi)) throw new Error(`${name} must be from ${lo} to ${hi}, not ${v}`);
  };
  within('the colour temperature', p.colorTemp, 1000, 40000);
  within('gamma', p.gamma, 0.1, 10);
  within('the contrast', p.contrast, 0, 200);
  within('the sharpening strength', p.sharpen, 0, 4);
  if (!Number.isInteger(p.whiteLevel) || p.whiteLevel < 1 || p.whiteLevel > 65535) throw new Error(`the white level must be an integer from 1 to 65535, not ${p.whiteLevel}`);
  if (!Number.isInteger(p.blackLevel) || p.blackLevel < 0 || p.blackLevel >= p.whiteLevel) {
    throw new Error(`the black level must be an integer from 0 to below the white level (${p.whiteLevel}), not ${p.blackLevel}`);
  }
}

export function cameraExportName(v: CameraVariant): string {
  const t = v.tuning;
  const device = v.schedule === 'gpu' ? `_d${v.device ?? DEFAULT_GPU_DEVICE}` : '';
  return `camera_${v.schedule}${t ? `_${t.at}${t.tileWidth}x${t.tileHeight}v${t.vectorBits}` : ''}${device}_${v.boundary}`;
}

/** The exported entry of one variant: the u16 mosaic in, interleaved u8 RGB out. */
function cameraEntry(v: CameraVariant): string {
  if (!CAMERA_SCHEDULES.includes(v.schedule)) throw new Error(`the camera pipe runs under ${CAMERA_SCHEDULES.join(', ')}, not ${v.schedule}`);
  if (v.device !== undefined && v.schedule !== 'gpu') throw new Error(`only the gpu schedule runs on a device, not ${v.schedule}`);
  // The curved image is staged on whole cells: a tile starting at an odd pixel would split one.
  if (v.tuning && v.tuning.tileWidth % 2) throw new Error(`the camera pipe's tiles have an even width, not ${v.tuning.tileWidth}`);
  // The pipe's hand schedules are the common ones (HAND_TUNINGS).
  const tuning = v.tuning ?? HAND_TUNINGS[v.schedule];
  const schedule = scheduleImpala({ schedule: v.schedule, ...(tuning && { tuning }), ...(v.device !== undefined && { device: v.device }) }, CAMERA_LANES_512);
  const pipe = [
    `camera_pipe(|x, y| inp(y * w + x) as i32, |x, y, c, v| out((y * w + x) * 3 + c) = v, w, h,`,
    `            ${schedule}, ${BOUNDARY_IMPALA[v.boundary]}, outside, color_temp, gamma, contrast, sharpen, black, white)`,
  ];
  // On a GPU, the pipe runs on device copies: the mosaic copied in once, the RGB image back once.
  const body = v.schedule === 'gpu' ? [`with_device_images[u16, u8](${v.device ?? DEFAULT_GPU_DEVICE}, inp, w * h, out, w * h * 3, |inp, out| {`, ...pipe.map((l) => `    ${l}`), `})`] : pipe;
  return [
    `extern fn ${cameraExportName(v)}(inp: &mut [u16], out: &mut [u8], w: i32, h: i32, outside: i32,`,
    `        color_temp: f32, gamma: f32, contrast: f32, sharpen: f32, black: i32, white: i32) -> () {`,
    ...body.map((l) => `    ${l}`),
    `}`,
  ].join('\n');
}

export interface CameraKernel {
  /** The RGB image of `mosaic` (into `output` when given); `outside` is the raw value past the edges in const mode. */
  run(mosaic: Mosaic, params?: CameraParams, options?: { outside?: number; output?: Image }): Image;
}

/** Kernels per module, as host.ts groups them. */
const KERNELS_PER_MODULE = 4;

/** Compiles the variants at -O3 for this CPU, a few per module. */
export async function compileCamera(variants: readonly CameraVariant[]): Promise<(v: CameraVariant) => CameraKernel> {
  const source: SourceFile = { path: 'libs/image/camera.impala', text: readFileSync(fileURLToPath(new URL('camera.impala', import.meta.url)), 'utf8') };
  const unique = [...new Map(variants.map((v) => [cameraExportName(v), v])).values()];
  const owner = new Map<string, CompiledLibrary>();
  for (let i = 0; i < unique.length; i += KERNELS_PER_MODULE) {
    const group = unique.slice(i, i + KERNELS_PER_MODULE);
    const entry = { path: 'camera_entry.impala', text: group.map(cameraEntry).join('\n\n') + '\n' };
    const library = await compile({ sources: [...librarySources(), source, entry], options: { optLevel: 3 } });
    for (const v of group) owner.set(cameraExportName(v), library);
  }
  return (v) => {
    const library = owner.get(cameraExportName(v));
    if (!library) throw new Error(`kernel ${cameraExportName(v)} was not compiled in this set`);
    const fn = library.fn(cameraExportName(v));
    return {
      run(mosaic, params = DEFAULT_CAMERA_PARAMS, options = {}) {
        checkMosaicSize(mosaic.width, mosaic.height);
        checkCameraParams(params);
        if (mosaic.data.length !== mosaic.width * mosaic.height) throw new Error(`mosaic data has ${mosaic.data.length} samples, ${mosaic.width}×${mosaic.height} needs ${mosaic.width * mosaic.height}`);
        const outside = options.outside ?? 0;
        if (!(Number.isInteger(outside) && outside >= 0 && outside <= 65535)) throw new Error(`the raw value outside the mosaic must be an integer from 0 to 65535, not ${outside}`);
        const output = options.output ?? makeImage('u8', mosaic.width, mosaic.height, 3);
        const p = params;
        fn(mosaic.data, output.data, mosaic.width, mosaic.height, outside, p.colorTemp, p.gamma, p.contrast, p.sharpen, p.blackLevel, p.whiteLevel);
        return output;
      },
    };
  };
}

/** A pseudo-random 10-bit mosaic (a fixed seed), the input the schedule search times when it is given none. */
function syntheticMosaic(width: number, height: number): Mosaic {
  const next = xorshift32(0x9e3779b9);
  const data = new Uint16Array(width * height).map(() => (next() * 2 ** 32) >>> 22);
  return { width, height, data };
}

/**
 * `--schedule auto` for the camera pipe: the tiled schedule for mosaics of `width` × `height`
 * under `boundary` (the tuning search of autoschedule.ts, cached per size class), and the
 * line saying what it picked.
 */
export async function autoScheduleCamera(boundary: Boundary, width: number, height: number, options: AutoOptions<Mosaic> = {}): Promise<{ variant: CameraVariant; summary: string; reused: boolean }> {
  const source = readFileSync(fileURLToPath(new URL('camera.impala', import.meta.url)), 'utf8');
  const given = options.input;
  const target: TuningTarget = {
    key: { pipeline: 'camera', boundary, source },
    lanes512: CAMERA_LANES_512,
    hands: HAND_TUNINGS,
    input: given ? `the ${given.width}×${given.height} mosaic` : `a synthetic ${width}×${height} mosaic`,
    compile: compileOnOneInput(
      () => given ?? syntheticMosaic(width, height),
      async (tunings) => {
        const variants = tunings.map((t) => ({ ...scheduleFor(t, HAND_TUNINGS), boundary }) as CameraVariant);
        const kernels = await compileCamera(variants);
        return variants.map((v) => {
          const kernel = kernels(v);
          return { name: cameraExportName(v), run: (mosaic: Mosaic, output?: Image) => kernel.run(mosaic, DEFAULT_CAMERA_PARAMS, output && { output }) };
        });
      },
    ),
  };
  const { schedule, tuning, summary, reused } = await autoTune(target, width, height, 'mosaic', options);
  return { variant: { schedule: schedule as CpuSchedule, boundary, ...(tuning && { tuning }) }, summary, reused };
}

/** One variant. */
export async function compileCameraKernel(v: CameraVariant): Promise<CameraKernel> {
  return (await compileCamera([v]))(v);
}

/**
 * A GRBG mosaic of an 8-bit photo (RGB, or gray as all three), for trying the pipe without a
 * raw file: each site keeps its colour, linearised for the default tone curve (gamma 2) into
 * the default black … white levels (10 bits, as Halide's apps/images/bayer_raw.png). An odd
 * width or height loses its last column or row.
 */
export function mosaicOf(photo: Image): Mosaic {
  if (photo.type !== 'u8') throw new Error(`a mosaic is made of an 8-bit photo, not ${photo.type}`);
  const width = photo.width - (photo.width % 2);
  const height = photo.height - (photo.height % 2);
  checkMosaicSize(width, height);
  const { blackLevel: black, whiteLevel: white } = DEFAULT_CAMERA_PARAMS;
  const data = new Uint16Array(width * height);
  const colours = photo.channels >= 3 ? [1, 0, 2, 1] : [0, 0, 0, 0];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = photo.data[(y * photo.width + x) * photo.channels + colours[(x % 2) + 2 * (y % 2)]!]! / 255;
      data[y * width + x] = Math.round(black + (white - black) * v * v);
    }
  }
  return { width, height, data };
}
