// `harris`: the Harris corner detector of the image library (f32), with the corners drawn.
import { grayPlane, type ReferenceName } from '../../../bench/image/references.ts';
import { benchmark, COMPARE_RUNS, compareWithReference, during, finiteNumber, imageCommand, prepareCompare, runCommand } from '../../../libs/image/cli-support.ts';
import { markCorners } from '../../../libs/image/corners.ts';
import { compileKernel } from '../../../libs/image/host.ts';
import { readImage, writePng } from '../../../libs/image/io.ts';
import type { Boundary, Schedule } from '../../../libs/image/variants.ts';

export async function main(argv: string[]): Promise<number> {
  const program = imageCommand('harris', 'opt', ['harris'])
    .description('Find corners with the Harris detector and mark them in red on a dimmed copy of the image.')
    .option('--threshold <fraction>', 'a corner is a local maximum above this fraction of the strongest response', finiteNumber, 0.01)
    .option('--outside <gray>', 'the gray value (0 to 1) outside the image for --boundary const', finiteNumber, 0)
    .addHelpText('after', [
      'Examples:',
      '  harris photo.png -o corners.png',
      '  harris --bench 20 --boundary mirror photo.png -o corners.png',
      '  harris --compare halide photo.png -o corners.png     # the response against Halide\'s (to 1e-5), and the speed ratio',
      '  harris --schedule opt --compare halide --bench 20 photo.png -o corners.png',
      '',
    ].join('\n'));
  return runCommand('harris', program, argv, async () => {
    const opts = program.opts<{ output: string; schedule: Schedule; boundary: Boundary; threshold: number; outside: number; bench?: number; compare?: ReferenceName }>();
    const reference = opts.compare && (await prepareCompare(opts.compare, 'harris', 'f32', opts.boundary));
    const input = await readImage(program.args[0]!);
    const variant = { pipeline: 'harris', schedule: opts.schedule, boundary: opts.boundary, type: 'u8', channels: input.channels as 1 | 2 | 3 | 4 } as const;
    const kernel = await during(`compiling harris (${opts.schedule}, ${opts.boundary})`, () => compileKernel(variant));
    const response = kernel.run(input, { outside: opts.outside });
    const runs = opts.bench ?? (reference ? COMPARE_RUNS : 0);
    const label = `harris f32 ${opts.schedule}/${opts.boundary} ${input.width}×${input.height}`;
    const timing = runs ? await benchmark(label, input.width * input.height, runs, () => kernel.run(input, { outside: opts.outside, output: response })) : undefined;
    const { image, corners } = markCorners(input, response, opts.threshold);
    await writePng(opts.output, image);
    console.log(`wrote ${opts.output}: ${corners} corners (${input.width}×${input.height}, ${opts.schedule}, ${opts.boundary})`);
    // The reference computes on the gray image, which ours forms inside the kernel.
    if (reference && timing) await compareWithReference(reference, grayPlane(input), response, timing);
  });
}
