// `harris`: the Harris corner detector of the image library (f32), with the corners drawn.
import { benchmark, finiteNumber, imageCommand, runCommand } from '../../../libs/image/cli-support.ts';
import { markCorners } from '../../../libs/image/corners.ts';
import { compileKernel } from '../../../libs/image/host.ts';
import { readImage, writePng } from '../../../libs/image/io.ts';
import type { Boundary, Schedule } from '../../../libs/image/variants.ts';

export async function main(argv: string[]): Promise<number> {
  const program = imageCommand('harris', 'tile')
    .description('Find corners with the Harris detector and mark them in red on a dimmed copy of the image.')
    .option('--threshold <fraction>', 'a corner is a local maximum above this fraction of the strongest response', finiteNumber, 0.01)
    .option('--outside <gray>', 'the gray value (0 to 1) outside the image for --boundary const', finiteNumber, 0)
    .addHelpText('after', [
      'Examples:',
      '  harris photo.png -o corners.png',
      '  harris --bench 20 --boundary mirror photo.png -o corners.png',
      '',
    ].join('\n'));
  return runCommand('harris', program, argv, async () => {
    const opts = program.opts<{ output: string; schedule: Schedule; boundary: Boundary; threshold: number; outside: number; bench?: number }>();
    const input = await readImage(program.args[0]!);
    const kernel = await compileKernel({ pipeline: 'harris', schedule: opts.schedule, boundary: opts.boundary, type: 'u8', channels: input.channels as 1 | 2 | 3 | 4 });
    const response = kernel.run(input, { outside: opts.outside });
    if (opts.bench) {
      const label = `harris f32 ${opts.schedule}/${opts.boundary} ${input.width}×${input.height}`;
      benchmark(label, input.width * input.height, opts.bench, () => kernel.run(input, { outside: opts.outside, output: response }));
    }
    const { image, corners } = markCorners(input, response, opts.threshold);
    await writePng(opts.output, image);
    console.log(`wrote ${opts.output}: ${corners} corners (${input.width}×${input.height}, ${opts.schedule}, ${opts.boundary})`);
  });
}
