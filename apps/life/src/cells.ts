// Game of Life boards in the plaintext `.cells` format (conwaylife.com): lines starting
// with `!` are comments, every other line is a row of cells, `.` dead and `O` alive; short
// rows are padded with dead cells. Random boards for --size/--seed.
import { seededRandom } from '../../../libs/shared/random.ts';

export interface Board {
  width: number;
  height: number;
  /** Row-major, 1 alive, 0 dead. */
  cells: Uint8Array;
}

/** Boards up to this many cells (the library indexes with 32-bit integers). */
export const MAX_CELLS = 2 ** 30;

/** Parses `.cells` text; errors name `file`, the line and the column. */
export function parseCells(text: string, file: string): Board {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  // The newline that ends the last row does not start another one.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const rows: string[] = [];
  lines.forEach((line, i) => {
    if (line.startsWith('!')) return;
    const bad = line.search(/[^.O]/);
    if (bad >= 0) {
      const c = line[bad]!;
      const shown = c === '\t' ? 'a tab' : c === ' ' ? 'a space' : `'${c}'`;
      throw new Error(`${file}:${i + 1}:${bad + 1}: ${shown} is not a cell (a cell is '.' dead or 'O' alive; comment lines start with '!')`);
    }
    rows.push(line);
  });
  const width = Math.max(0, ...rows.map((r) => r.length));
  const height = rows.length;
  if (width === 0 || height === 0) throw new Error(`${file}: no cells (a .cells board has at least one row with at least one '.' or 'O')`);
  if (width * height > MAX_CELLS) throw new Error(`${file}: ${width}×${height} cells is more than ${MAX_CELLS}`);
  const cells = new Uint8Array(width * height);
  rows.forEach((r, y) => {
    for (let x = 0; x < r.length; x++) if (r[x] === 'O') cells[y * width + x] = 1;
  });
  return { width, height, cells };
}

/** The board as `.cells` text, with `comments` as `!` lines first. */
export function formatCells(board: Board, comments: readonly string[] = []): string {
  const out = comments.map((c) => `!${c}\n`);
  for (let y = 0; y < board.height; y++) {
    let row = '';
    for (let x = 0; x < board.width; x++) row += board.cells[y * board.width + x] ? 'O' : '.';
    out.push(`${row}\n`);
  }
  return out.join('');
}

/** An n × n board with each cell alive with probability 1/2, the same for the same seed (xorshift32). */
export function randomBoard(n: number, seed: number): Board {
  const cells = new Uint8Array(n * n);
  const next = seededRandom(seed);
  for (let i = 0; i < cells.length; i++) cells[i] = next() >= 0.5 ? 1 : 0;
  return { width: n, height: n, cells };
}

export function population(board: Board): number {
  let n = 0;
  for (const c of board.cells) n += c;
  return n;
}
