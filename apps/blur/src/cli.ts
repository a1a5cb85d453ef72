// `blur`: a stencil pipeline of the image library on one image.
import { Option } from 'commander';
import type { ReferenceName } from '../../../bench/image/references.ts';
import { checkOutside, compileKernel } from '../../../libs/image/host.ts';
import { convertImage } from '../../../libs/image/image.ts';
import { type Boundary, checkVariant, type Pipeline, type Schedule, type Variant } from '../../../libs/image/variants.ts';
import { during, finiteNumber, runCommand } from '../../shared/cli.ts';
import { benchmarkKernel, checkOutputChannels, COMPARE_RUNS, compareWithReference, gpuDeviceFor, imageCommand, imageOutput, prepareCompare, readInput, scheduledVariant, writeImage } from '../../shared/image.ts';

const FILTERS = ['box3', 'gauss5', 'unsharp', 'sobel', 'gradient', 'heat', 'wave', 'bilateral', 'interpolate', 'local_laplacian'] as const;

export async function main(argv: string[]): Promise<number> {
  const program = imageCommand('blur', 'opt', FILTERS)
    .description('Blur (or sharpen, or take edges of) an image with the Impala image library.')
    .addOption(new Option('-f, --filter <name>', 'box3: 3×3 box (the paper\'s Fig. 2); gauss5: separable 5×5 Gaussian; unsharp: unsharp mask; sobel: edges; ' +
      'from the MetaOCaml image DSL paper: gradient: horizontal gradient (bright where intensity rises to the right); heat: 10 steps of heat diffusion around a moving hot disc; wave: rows displaced along a sine wave (frame 10); ' +
      'from Halide\'s apps (on u8, computed in f32 on v / 255): bilateral: edge-preserving blur by a bilateral grid (8 × 8 pixels per cell, value bins of 0.1), every channel on its own; ' +
      'interpolate: fills the transparent parts of an image with alpha (gray + alpha or RGBA) from the opaque parts around them, over ten scales; ' +
      'local_laplacian: local contrast enhancement without halos (8 intensity levels, 8 pyramid levels; alpha kept)').choices(FILTERS).default('box3'))
    .addOption(new Option('-t, --type <type>', 'element type the kernel computes on (i32 is the paper\'s benchmark)').choices(['u8', 'i32']).default('u8'))
    .option('--outside <value>', 'the value outside the image for --boundary const: 0 to 255 for u8, a 32-bit integer for i32', finiteNumber, 0)
    .addHelpText('after', [
      'Examples:',
      '  blur photo.png -o blurred.png',
      '  blur photo.jpg -o photo.jpg                                       # replaced only once the result is complete',
      '  blur --schedule seq --boundary mirror photo.png -o blurred.png',
      '  blur --filter gauss5 --schedule auto photo.jpg -o smooth.jpg      # searches a schedule for this size class once, then reuses it',
      '  blur --filter gauss5 --type i32 --bench 20 photo.png -o smooth.png',
      '  blur --filter wave --boundary mirror photo.png -o wavy.png',
      '  blur --filter bilateral photo.jpg -o smooth.jpg                  # smooths, keeps edges',
      '  blur --filter interpolate holes.png -o filled.png                 # an image with alpha; the output is opaque',
      '  blur --filter local_laplacian photo.jpg -o detailed.jpg',
      '  blur --schedule gpu --bench 20 photo.png -o blurred.png           # on a GPU; ANYDSL_DEVICE=auto|cuda|opencl[:n] picks, --bench adds kernel time',
      '  blur --filter gauss5 --compare opencv photo.png -o smooth.png     # bit-exact against cv::GaussianBlur, and the speed ratio',
      '  blur --type i32 --compare halide --bench 20 photo.png -o blurred.png',
      '  blur --compare sharp photo.png -o blurred.png',
      '',
    ].join('\n'));
  return runCommand('blur', program, argv, async () => {
    const opts = program.opts<{ output: string; schedule: Schedule | 'auto'; retune?: boolean; boundary: Boundary; filter: Pipeline; type: 'u8' | 'i32'; outside: number; bench?: number; compare?: ReferenceName }>();
    const output = await imageOutput(opts.output);
    const input = await readInput('blur', program.args[0]!);
    // The output has the input's channels.
    checkOutputChannels(opts.output, output, input.channels);
    // auto picks among the tiled CPU schedules, which take what opt takes.
    const checked: Variant = { pipeline: opts.filter, schedule: opts.schedule === 'auto' ? 'opt' : opts.schedule, boundary: opts.boundary, type: opts.type, channels: input.channels as 1 | 2 | 3 | 4 };
    checkVariant(checked);
    checkOutside(checked, opts.outside);
    checked.device = await gpuDeviceFor(checked.schedule);
    const reference = opts.compare && (await prepareCompare(opts.compare, opts.filter, opts.type, opts.boundary));
    const image = opts.type === 'u8' ? input : convertImage(input, 'i32');
    const variant = await scheduledVariant(opts.schedule, checked, image, opts.retune ?? false);
    const kernel = await during(`compiling ${opts.filter} (${opts.type}, ${opts.schedule}, ${opts.boundary})`, () => compileKernel(variant));
    const out = kernel.run(image, { outside: opts.outside });
    const runs = opts.bench ?? (reference ? COMPARE_RUNS : 0);
    const label = `${opts.filter} ${opts.type} ${opts.schedule}/${opts.boundary} ${image.width}×${image.height}×${image.channels}`;
    const timing = runs ? await benchmarkKernel(label, image.width * image.height, runs, kernel, () => kernel.run(image, { outside: opts.outside, output: out })) : undefined;
    await writeImage(output, out.type === 'u8' ? out : convertImage(out, 'u8'));
    console.log(`wrote ${opts.output} (${image.width}×${image.height}, ${opts.filter}, ${opts.schedule}, ${opts.boundary})`);
    if (reference && timing) await compareWithReference(reference, image, out, timing);
  });
}
