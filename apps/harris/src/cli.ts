// `harris`: the Harris corner detector of the image library (f32), with the corners drawn.
import type { ReferenceName } from '../../../bench/image/references.ts';
import { checkOutside, compileKernel } from '../../../libs/image/host.ts';
import type { Boundary, Schedule, Variant } from '../../../libs/image/variants.ts';
import { during, finiteNumber, numberAboveUpTo, runCommand } from '../../shared/cli.ts';
import { markCorners } from '../../shared/corners.ts';
import { benchmarkKernel, COMPARE_RUNS, compareWithReference, gpuDeviceFor, imageCommand, imageOutput, prepareCompare, readInput, scheduledVariant, writeImage } from '../../shared/image.ts';

export async function main(argv: string[]): Promise<number> {
  const program = imageCommand('harris', 'opt', ['harris'])
    .description('Find corners with the Harris detector and mark them in red on a dimmed copy of the image.')
    .option('--threshold <fraction>', 'a corner is a local maximum above this fraction (above 0, at most 1) of the strongest response', numberAboveUpTo(0, 1), 0.01)
    .option('--outside <gray>', 'the gray value (0 to 1) outside the image for --boundary const', finiteNumber, 0)
    .addHelpText('after', [
      'Examples:',
      '  harris photo.png -o corners.png',
      '  harris --bench 20 --boundary mirror photo.png -o corners.png',
      '  harris --schedule auto photo.jpg -o corners.png        # searches a schedule for this size class once, then reuses it',
      '  harris --schedule gpu --bench 20 photo.png -o corners.png   # on a GPU; ANYDSL_DEVICE=auto|cuda|opencl[:n] picks, --bench adds kernel time',
      '  harris --compare halide photo.png -o corners.png     # the response against Halide\'s (to 1e-5), and the speed ratio',
      '  harris --schedule opt --compare halide --bench 20 photo.png -o corners.png',
      '',
    ].join('\n'));
  return runCommand('harris', program, argv, async () => {
    const opts = program.opts<{ output: string; schedule: Schedule | 'auto'; retune?: boolean; boundary: Boundary; threshold: number; outside: number; bench?: number; compare?: ReferenceName }>();
    const output = await imageOutput(opts.output);
    const input = await readInput('harris', program.args[0]!);
    // auto picks among the tiled CPU schedules, which take what opt takes.
    const checked: Variant = { pipeline: 'harris', schedule: opts.schedule === 'auto' ? 'opt' : opts.schedule, boundary: opts.boundary, type: 'u8', channels: input.channels as 1 | 2 | 3 | 4 };
    checkOutside(checked, opts.outside);
    checked.device = await gpuDeviceFor(checked.schedule);
    const reference = opts.compare && (await prepareCompare(opts.compare, 'harris', 'u8', opts.boundary));
    const variant = await scheduledVariant(opts.schedule, checked, input, opts.retune ?? false);
    const kernel = await during(`compiling harris (${opts.schedule}, ${opts.boundary})`, () => compileKernel(variant));
    const response = kernel.run(input, { outside: opts.outside });
    const runs = opts.bench ?? (reference ? COMPARE_RUNS : 0);
    const label = `harris f32 ${opts.schedule}/${opts.boundary} ${input.width}×${input.height}`;
    const timing = runs ? await benchmarkKernel(label, input.width * input.height, runs, kernel, () => kernel.run(input, { outside: opts.outside, output: response })) : undefined;
    const { image, corners } = markCorners(input, response, opts.threshold);
    await writeImage(output, image);
    console.log(`wrote ${opts.output}: ${corners} corners (${input.width}×${input.height}, ${opts.schedule}, ${opts.boundary})`);
    // The reference gets the same u8 image and forms the gray inside, as ours does.
    if (reference && timing) await compareWithReference(reference, input, response, timing);
  });
}
