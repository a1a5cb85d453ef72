// `life`: Conway's Game of Life on a torus with libs/arrays (the StagedSAC paper's
// benchmark, written the SAC way: rotations and with-loops fused into one loop nest).
import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { checkOutputPath, writeFileAtomic } from '@anydsl/compiler';
import { type Impl, IMPL_TITLES, IMPLS, runReference } from '../../../bench/arrays/references.ts';
import { ARRAY_SCHEDULE_DESCRIPTIONS, ARRAY_SCHEDULES, type ArraySchedule, compileLife } from '../../../libs/arrays/host.ts';
import { median, timeEach } from '../../../libs/image/bench.ts';
import { makeImage } from '../../../libs/image/image.ts';
import { encodeImage } from '../../../libs/image/io.ts';
import { during, integerFrom, runCommand } from '../../shared/cli.ts';
import { type Board, formatCells, MAX_CELLS, parseCells, population, randomBoard } from './cells.ts';

const MAX_STEPS = 2 ** 31 - 1;

export async function main(argv: string[]): Promise<number> {
  const program = new Command('life')
    .description('Run Conway\'s Game of Life (B3/S23) on a torus with the Impala array library (libs/arrays).')
    .option('-i, --input <file.cells>', 'the start board in the plaintext .cells format (! comment lines, . dead, O alive)')
    .option('--size <n>', 'instead of --input: a random n × n board, each cell alive with probability 1/2', integerFrom(1, 2 ** 15))
    .option('--seed <s>', 'the seed of the random board', integerFrom(0, 2 ** 32 - 1), 1)
    .option('-n, --steps <n>', 'generations to run', integerFrom(0, MAX_STEPS), 100)
    .option('-o, --output <file.cells>', 'write the final board as .cells')
    .option('--png <file.png>', 'write a picture of the final board (alive black on white)')
    .addOption(
      new Option('-s, --schedule <name>', Object.entries(ARRAY_SCHEDULE_DESCRIPTIONS).map(([k, v]) => `${k}: ${v}`).join('; '))
        .choices(ARRAY_SCHEDULES)
        .default('opt'),
    )
    .option('--bench <runs>', 'run all the generations this many times more and print the median time', integerFrom(1, 100_000))
    .addOption(new Option('--compare <impl>', `run the reference too, check the boards agree and print the speed ratio (${IMPLS.map((i) => `${i}: ${IMPL_TITLES[i]}`).join('; ')})`).choices(IMPLS))
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  life --input glider.cells --steps 4 --output out.cells',
        '  life --size 64 --seed 7 --steps 100 --png board.png',
        '  life --size 4096 --steps 100 --bench 5                 # the 4096² benchmark: median time, cell updates per second',
        '  life --size 10 --steps 1000 --bench 20 --compare c     # the StagedSAC paper\'s 10×10 × 1000 against hand-written C',
        '',
        'The board is a torus: the neighbours of an edge cell wrap around to the other side.',
      ].join('\n'),
    )
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  return runCommand('life', program, argv, async () => {
    const opts = program.opts<{ input?: string; size?: number; seed: number; steps: number; output?: string; png?: string; schedule: ArraySchedule; bench?: number; compare?: Impl }>();
    if (program.args.length > 0) throw new Error(`unexpected argument '${program.args[0]}' (the board is given with --input or --size)`);
    if ((opts.input === undefined) === (opts.size === undefined)) throw new Error('give the start board with either --input <file.cells> or --size <n> (a random board), not both or neither');
    const output = opts.output && (await checkOutputPath(opts.output, ['.cells']));
    const png = opts.png && (await checkOutputPath(opts.png, ['.png']));
    const board = opts.input !== undefined ? await readBoard(opts.input) : randomBoard(opts.size!, opts.seed);
    if (board.width * board.height > MAX_CELLS) throw new Error(`a ${board.width}×${board.height} board is more than ${MAX_CELLS} cells`);
    const runner = await during(`compiling life (${opts.schedule})`, () => compileLife(opts.schedule));
    const step = () => runner.step(board.cells, board.width, board.height, opts.steps);
    const final: Board = { width: board.width, height: board.height, cells: step() };
    const what = `${opts.steps} generation${opts.steps === 1 ? '' : 's'} of a ${board.width}×${board.height} torus (${opts.schedule})`;
    console.log(`life: ${what}: ${population(board)} cells alive at the start, ${population(final)} at the end`);
    if (output) {
      const source = opts.input !== undefined ? opts.input : `a random ${board.width}×${board.height} board, seed ${opts.seed}`;
      await writeFileAtomic(output, formatCells(final, [`Generation ${opts.steps} of ${source}`]));
      console.log(`wrote ${opts.output}`);
    }
    if (png) {
      await writeFileAtomic(png, await picture(final));
      console.log(`wrote ${opts.png}`);
    }
    const runs = opts.bench ?? (opts.compare ? 5 : 0);
    // Timed runs reuse two buffers (fresh memory would add its page faults to the time); each
    // copies the start board (cells 0 or 1) in, a few milliseconds at 4096².
    const [a, b] = [new Uint8Array(final.cells.length), new Uint8Array(final.cells.length)];
    const timed = () => {
      a.set(board.cells);
      return runner.stepInPlace(a, b, board.width, board.height, opts.steps);
    };
    const ours = runs ? median(await during(`timing ${runs} runs`, () => timeEach(runs, timed))) : undefined;
    if (ours !== undefined) {
      const updates = board.width * board.height * opts.steps;
      console.log(`median of ${runs}: ${ours.toFixed(3)} ms (${(updates / (ours * 1e3)).toFixed(1)} M cell updates/s)`);
    }
    if (opts.compare) {
      const ref = await during(`running the ${opts.compare} reference`, () => runReference('life', opts.compare!, { board: board.cells, width: board.width, height: board.height, steps: opts.steps }, runs));
      const differ = final.cells.findIndex((c, i) => c !== ref.output[i]);
      if (differ >= 0) throw new Error(`the ${IMPL_TITLES[opts.compare]} board differs at cell (${differ % board.width}, ${Math.floor(differ / board.width)})`);
      console.log(`${IMPL_TITLES[opts.compare]}: same board; median ${ref.medianMs.toFixed(3)} ms; libs/arrays ${opts.schedule} is ${(ref.medianMs / ours!).toFixed(2)}× its speed`);
    }
  });
}

async function readBoard(file: string): Promise<Board> {
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new Error(`cannot read '${file}': ${e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'it is a directory' : e.message}`);
  });
  return parseCells(text, file);
}

/** The board as a gray PNG, each cell a square of a few pixels (so small boards are visible). */
async function picture(board: Board): Promise<Buffer> {
  const scale = Math.max(1, Math.min(16, Math.floor(1024 / Math.max(board.width, board.height))));
  const img = makeImage('u8', board.width * scale, board.height * scale, 1);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) img.data[y * img.width + x] = board.cells[Math.floor(y / scale) * board.width + Math.floor(x / scale)] ? 0 : 255;
  }
  return encodeImage(img, 'png');
}
