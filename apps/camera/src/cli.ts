// `camera`: the camera pipe of the image library (Halide's apps/camera_pipe) on a raw Bayer
// mosaic: a 16-bit gray PNG (or TIFF) or a headerless file of 16-bit samples, to an RGB image.
import { readFile, stat } from 'node:fs/promises';
import { Command, Option } from 'commander';
import sharp from 'sharp';
import { AUTO_DESCRIPTION } from '../../../libs/image/autoschedule.ts';
import { autoScheduleCamera, type CameraParams, type CameraVariant, CAMERA_SCHEDULES, type CameraSchedule, checkCameraParams, checkMosaicSize, compileCameraKernel, DEFAULT_CAMERA_PARAMS, type Mosaic, mosaicOf } from '../../../libs/image/camera.ts';
import { BOUNDARIES, type Boundary, SCHEDULE_DESCRIPTIONS } from '../../../libs/image/variants.ts';
import { pickGpuDevice } from '../../../libs/shared/device.ts';
import { during, finiteNumber, integerFrom, runCommand } from '../../shared/cli.ts';
import { benchmark, imageOutput, MAX_BENCH_RUNS, readInput, writeImage } from '../../shared/image.ts';

export async function main(argv: string[]): Promise<number> {
  const d = DEFAULT_CAMERA_PARAMS;
  const width = Math.max(...CAMERA_SCHEDULES.map((s) => s.length));
  const program = new Command('camera')
    .description("Develop a raw Bayer mosaic (GRBG, 16-bit samples) into an RGB image with the camera pipe of Halide's apps/camera_pipe: hot-pixel suppression, demosaicing, colour correction for a colour temperature, tone curve, sharpening.")
    .argument('<input>', 'the mosaic: a 16-bit gray PNG or TIFF, or with --width and --height a headerless file of little-endian 16-bit samples; with --from-photo an 8-bit photo to mosaic first')
    .requiredOption('-o, --output <file>', 'the RGB output image, replaced only once complete; the extension picks the format (.png, .jpg, .webp, .tif)')
    .option('--width <samples>', 'width of a headerless raw input (even)', integerFrom(2, 2 ** 30))
    .option('--height <samples>', 'height of a headerless raw input (even)', integerFrom(2, 2 ** 30))
    .option('--from-photo', 'the input is an 8-bit photo: take its GRBG mosaic (linearised into 10 bits, black 25, white 1023) and develop that', false)
    .option('--save-mosaic <file.png>', 'also write the mosaic that was developed as a 16-bit gray PNG')
    .option('--color-temp <kelvin>', 'colour temperature of the light, 1000 to 40000: the colour matrix is interpolated between the 3200 K and 7000 K ones', finiteNumber, d.colorTemp)
    .option('--gamma <g>', 'gamma of the tone curve, 0.1 to 10', finiteNumber, d.gamma)
    .option('--contrast <c>', 'contrast of the tone curve, 0 to 200', finiteNumber, d.contrast)
    .option('--sharpen <s>', 'sharpening strength, 0 to 4 (steps of 1/32)', finiteNumber, d.sharpen)
    .option('--black-level <v>', 'raw value of black', integerFrom(0, 65534), d.blackLevel)
    .option('--white-level <v>', 'raw value of white (the brightest the sensor records)', integerFrom(1, 65535), d.whiteLevel)
    .addOption(new Option('-s, --schedule <name>', 'loop schedule').choices([...CAMERA_SCHEDULES, 'auto']).default('opt'))
    .option('--retune', 'with --schedule auto: search again instead of reusing the choice cached for this size class')
    .addOption(new Option('-b, --boundary <mode>', 'how each colour plane of the mosaic extends past its edges').choices(BOUNDARIES).default('clamp'))
    .option('--outside <v>', 'the raw value past the edges for --boundary const', integerFrom(0, 65535), 0)
    .option('--bench <runs>', `run the pipe N more times (at most ${MAX_BENCH_RUNS}) and print the median time`, integerFrom(1, MAX_BENCH_RUNS))
    .addOption(new Option('--compare <reference>', "also run Halide's camera_pipe (its app schedule and the autoschedulers) on the mosaic, check the outputs agree and print the speed ratio").choices(['halide']))
    .addHelpText('after', [
      '',
      `Schedules:\n${CAMERA_SCHEDULES.map((s) => `  ${s.padEnd(width)} ${SCHEDULE_DESCRIPTIONS[s]}`).join('\n')}\n  ${'auto'.padEnd(width)} ${AUTO_DESCRIPTION}`,
      '',
      'Examples:',
      '  camera raw.png -o photo.jpg',
      '  camera --width 2592 --height 1968 shot.raw -o photo.png',
      '  camera --from-photo datasets/images/sample.png --save-mosaic mosaic.png -o developed.png',
      '  camera --color-temp 5000 --contrast 30 --sharpen 2 raw.png -o photo.png',
      '  camera --schedule slide --bench 20 --compare halide raw.png -o photo.png',
      '  camera --schedule auto --bench 20 raw.png -o photo.png     # searches a schedule for this size class once, then reuses it',
      '  camera --schedule gpu raw.png -o photo.png                 # on a GPU; ANYDSL_DEVICE=auto|cuda|opencl[:n] picks',
      '',
    ].join('\n'))
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  return runCommand('camera', program, argv, async () => {
    const opts = program.opts<{
      output: string; width?: number; height?: number; fromPhoto: boolean; saveMosaic?: string; colorTemp: number; gamma: number; contrast: number; sharpen: number;
      blackLevel: number; whiteLevel: number; schedule: CameraSchedule | 'auto'; retune?: boolean; boundary: Boundary; outside: number; bench?: number; compare?: 'halide';
    }>();
    const params: CameraParams = { colorTemp: opts.colorTemp, gamma: opts.gamma, contrast: opts.contrast, sharpen: opts.sharpen, blackLevel: opts.blackLevel, whiteLevel: opts.whiteLevel };
    checkCameraParams(params);
    const output = await imageOutput(opts.output);
    const saved = opts.saveMosaic === undefined ? undefined : await imageOutput(opts.saveMosaic);
    if (saved && saved.format !== 'png' && saved.format !== 'tiff') throw new Error(`cannot write '${opts.saveMosaic}': a 16-bit mosaic is written as .png or .tif`);
    const file = program.args[0]!;
    const mosaic = await readMosaic(file, opts);
    const compare = opts.compare && (await import('../../../bench/image/camera.ts'));
    if (compare) await during('preparing Halide', (show) => compare.prepareHalideCamera(show));
    const variant = await cameraVariant(opts.schedule, opts.boundary, mosaic, opts.retune ?? false);
    const kernel = await during(`compiling the camera pipe (${opts.schedule}, ${opts.boundary})`, () => compileCameraKernel(variant));
    const run = { outside: opts.outside };
    const out = kernel.run(mosaic, params, run);
    const runs = opts.bench ?? (compare ? 5 : 0);
    const label = `camera ${opts.schedule}/${opts.boundary} ${mosaic.width}×${mosaic.height}`;
    const timing = runs ? await benchmark(label, mosaic.width * mosaic.height, runs, () => kernel.run(mosaic, params, { ...run, output: out })) : undefined;
    if (saved) await writeMosaic(saved.path, mosaic);
    await writeImage(output, out);
    console.log(`wrote ${opts.output} (${mosaic.width}×${mosaic.height} RGB, ${opts.colorTemp} K, ${opts.schedule}, ${opts.boundary})`);
    if (compare && timing) {
      if (opts.boundary !== 'clamp') throw new Error(`Halide's camera pipe here extends the mosaic with clamp; --compare needs --boundary clamp, not ${opts.boundary}`);
      await compare.compareCamera(mosaic, params, out, timing);
    }
  });
}

/** The variant for --schedule: for `auto`, what the search picks (or cached) for the mosaic's size class, with its line. */
async function cameraVariant(schedule: CameraSchedule | 'auto', boundary: Boundary, mosaic: Mosaic, retune: boolean): Promise<CameraVariant> {
  if (schedule !== 'auto') {
    if (retune) throw new Error(`--retune searches the schedule again for --schedule auto; with --schedule ${schedule} there is nothing to search`);
    if (schedule !== 'gpu') return { schedule, boundary };
    // The runtime's choice (ANYDSL_DEVICE), or one line saying what to install.
    const gpu = await pickGpuDevice();
    console.log(`device: ${gpu.name}`);
    return { schedule, boundary, device: gpu.device };
  }
  const choice = await during('auto: searching schedules for the camera pipe', (show) => autoScheduleCamera(boundary, mosaic.width, mosaic.height, { retune, onProgress: show, input: mosaic }));
  console.log(choice.summary);
  return choice.variant;
}

/** The mosaic in `file`: headerless with --width and --height, a photo mosaiced with --from-photo, else a 16-bit gray image. */
async function readMosaic(file: string, opts: { width?: number; height?: number; fromPhoto: boolean }): Promise<Mosaic> {
  const fail = (why: string) => new Error(`cannot read mosaic '${file}': ${why}`);
  if ((opts.width === undefined) !== (opts.height === undefined)) throw new Error('a headerless raw input needs both --width and --height');
  if (opts.width !== undefined && opts.height !== undefined) {
    if (opts.fromPhoto) throw new Error('--from-photo reads an image file; it takes no --width and --height');
    checkMosaicSize(opts.width, opts.height);
    const bytes = await readFile(file).catch((e: NodeJS.ErrnoException) => {
      throw fail(e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'it is a directory' : e.message);
    });
    const expected = 2 * opts.width * opts.height;
    if (bytes.length !== expected) throw fail(`it has ${bytes.length} bytes, ${opts.width}×${opts.height} 16-bit samples are ${expected}`);
    const data = new Uint16Array(opts.width * opts.height);
    for (let i = 0; i < data.length; i++) data[i] = bytes.readUInt16LE(2 * i);
    return { width: opts.width, height: opts.height, data };
  }
  if (opts.fromPhoto) {
    const photo = await readInput('camera', file);
    if (photo.width % 2 || photo.height % 2) process.stderr.write(`camera: note: the mosaic of a ${photo.width}×${photo.height} photo leaves out its last ${photo.width % 2 ? 'column' : ''}${photo.width % 2 && photo.height % 2 ? ' and ' : ''}${photo.height % 2 ? 'row' : ''}\n`);
    if (photo.width < 2 || photo.height < 2) throw fail(`a ${photo.width}×${photo.height} photo has no whole 2×2 cell to mosaic`);
    return mosaicOf(photo);
  }
  const entry = await stat(file).catch((e: NodeJS.ErrnoException) => {
    throw fail(e.code === 'ENOENT' ? 'no such file' : e.message);
  });
  if (entry.isDirectory()) throw fail('it is a directory');
  let meta;
  try {
    meta = await sharp(file).metadata();
  } catch {
    throw fail('not an image sharp can decode; a headerless raw file needs --width and --height');
  }
  if (meta.depth !== 'ushort') throw fail(`it has ${meta.depth === 'uchar' ? '8-bit' : meta.depth} samples; a mosaic has 16 (an 8-bit photo can be mosaiced with --from-photo)`);
  if (meta.channels !== 1) throw fail(`it has ${meta.channels} channels; a mosaic is one gray channel`);
  // sharp hands out sRGB (and 8 bits) unless told otherwise.
  const { data, info } = await sharp(file).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer({ resolveWithObject: true });
  checkMosaicSize(info.width, info.height);
  return { width: info.width, height: info.height, data: new Uint16Array(data.buffer, data.byteOffset, info.width * info.height).slice() };
}

async function writeMosaic(path: string, mosaic: Mosaic): Promise<void> {
  const { writeFileAtomic } = await import('@anydsl/compiler');
  // A Uint16Array is read as 16-bit samples (a Buffer would be 8-bit).
  const encoder = sharp(mosaic.data, { raw: { width: mosaic.width, height: mosaic.height, channels: 1 } }).toColourspace('grey16');
  await writeFileAtomic(path, await (path.toLowerCase().endsWith('.png') ? encoder.png() : encoder.tiff()).toBuffer());
}

