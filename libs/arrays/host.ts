// The TypeScript side of the array library: the entry modules of Game of Life, PDE1 and
// transpose for a schedule, compiled with the library through the artifact cache, and
// runners that take and return typed arrays.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CompiledLibrary, compile, type SourceFile } from '@anydsl/compiler';
import { librarySources as imageSources } from '../image/host.ts';

const LIBRARY_FILES = ['arrays.impala', 'programs.impala'];

/** The schedules of the array programs; `opt` is the best there is (threads and vectors). */
export const ARRAY_SCHEDULES = ['seq', 'par', 'vec', 'opt'] as const;
export type ArraySchedule = (typeof ARRAY_SCHEDULES)[number];

export const ARRAY_SCHEDULE_DESCRIPTIONS: Record<ArraySchedule, string> = {
  seq: 'one thread, plain loops',
  par: 'the outermost axis over all cores (TBB), inner axes sequential',
  vec: 'one thread, the innermost axis in SIMD lanes (512-bit vectorize)',
  opt: 'the best there is: the outermost axis over all cores from 2^15 elements on, the innermost left to clang\'s vectoriser',
};

/**
 * The library's Impala sources (the image library's first, whose loop schedules `seq`,
 * `vec` and `par` the arrays reuse), with repository-relative paths for diagnostics.
 */
export function librarySources(): SourceFile[] {
  const own = LIBRARY_FILES.map((file) => ({
    path: `libs/arrays/${file}`,
    text: readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8'),
  }));
  return [...imageSources(), ...own];
}

/** The `sac::Sched` value of a schedule for elements of `bits` bits (`vec` fills 512 bits). */
export function scheduleImpala(schedule: ArraySchedule, bits: 8 | 32 | 64): string {
  const lanes = 512 / bits;
  switch (schedule) {
    case 'seq':
      return 'sac::seq_sched()';
    case 'par':
      return 'sac::par_sched()';
    case 'vec':
      return `sac::vec_sched(${lanes})`;
    case 'opt':
      return 'sac::opt_sched()';
  }
}

export function checkSchedule(schedule: string): asserts schedule is ArraySchedule {
  if (!(ARRAY_SCHEDULES as readonly string[]).includes(schedule)) {
    throw new Error(`unknown schedule '${schedule}' (one of ${ARRAY_SCHEDULES.join(', ')})`);
  }
}

/** Compiles the library with `entries` (Impala source) at -O3 for this machine. */
export async function compileEntries(entries: string, name = 'arrays_entry.impala'): Promise<CompiledLibrary> {
  return compile({ sources: [...librarySources(), { path: name, text: entries }], options: { optLevel: 3 } });
}

export interface LifeRunner {
  /** `steps` generations of the width × height torus in `board` (row-major, 1 = alive); returns the new board. */
  step(board: Uint8Array, width: number, height: number, steps: number): Uint8Array;
  /**
   * The same in place: `a` holds the board (cells 0 or 1) and `b` is the other buffer, both
   * overwritten; returns the one that holds the result. Timing loops use it: a new board per
   * run would time its allocation and page faults.
   */
  stepInPlace(a: Uint8Array, b: Uint8Array, width: number, height: number, steps: number): Uint8Array;
}

function lifeEntry(schedule: ArraySchedule): string {
  return [
    `extern fn life_${schedule}(a: &mut [u8], b: &mut [u8], w: i32, h: i32, steps: i32) -> i32 {`,
    `    life_run(${scheduleImpala(schedule, 8)}, sac::shape2(h, w), a, b, steps)`,
    `}`,
  ].join('\n');
}

/** Game of Life on a torus (B3/S23) under `schedule`. */
export async function compileLife(schedule: ArraySchedule): Promise<LifeRunner> {
  checkSchedule(schedule);
  const fn = (await compileEntries(lifeEntry(schedule), 'life_entry.impala')).fn(`life_${schedule}`);
  const check = (board: Uint8Array, width: number, height: number, steps: number): void => {
    checkExtents('board', [width, height]);
    checkCount('steps', steps);
    if (board.length !== width * height) throw new Error(`a ${width}×${height} board has ${width * height} cells, got ${board.length}`);
  };
  const stepInPlace = (a: Uint8Array, b: Uint8Array, width: number, height: number, steps: number): Uint8Array => {
    check(a, width, height, steps);
    if (b.length !== a.length || b.buffer === a.buffer) throw new Error(`the second buffer must be another array of ${a.length} cells`);
    return (fn(a, b, width, height, steps) as number) === 0 ? a : b;
  };
  return {
    step(board, width, height, steps) {
      check(board, width, height, steps);
      // A copy (the caller's board stays as it was) with every live cell 1.
      const a = board.slice();
      for (let i = 0; i < a.length; i++) if (a[i]! > 1) a[i] = 1;
      return stepInPlace(a, new Uint8Array(a.length), width, height, steps);
    },
    stepInPlace,
  };
}

export interface Pde1Runner {
  /**
   * `iterations` red-black iterations on the n³ grid u with right-hand side f (row-major);
   * returns the new u, written into `into` when given (n³ values, u itself relaxes in place),
   * a new array otherwise. Timing loops pass `into`: fresh memory costs page faults.
   */
  run(u: Float64Array, f: Float64Array, n: number, iterations: number, into?: Float64Array): Float64Array;
}

function pde1Entry(schedule: ArraySchedule): string {
  return [
    `extern fn pde1_${schedule}(u: &mut [f64], f: &[f64], n: i32, iterations: i32) -> () {`,
    `    pde1_run(${scheduleImpala(schedule, 64)}, sac::shape3(n, n, n), u, f, iterations)`,
    `}`,
  ].join('\n');
}

/** PDE1 (libs/arrays/README.md gives the exact definition) under `schedule`. */
export async function compilePde1(schedule: ArraySchedule): Promise<Pde1Runner> {
  checkSchedule(schedule);
  const fn = (await compileEntries(pde1Entry(schedule), 'pde1_entry.impala')).fn(`pde1_${schedule}`);
  return {
    run(u, f, n, iterations, into) {
      checkExtents('grid side', [n]);
      checkCount('iterations', iterations);
      if (n ** 3 > 2 ** 31 - 1) throw new Error(`a grid of side ${n} has more than 2^31 points`);
      if (u.length !== n ** 3 || f.length !== n ** 3) throw new Error(`an ${n}³ grid has ${n ** 3} points, got u ${u.length} and f ${f.length}`);
      if (into !== undefined && into.length !== n ** 3) throw new Error(`the result of an ${n}³ grid needs ${n ** 3} values, the array given has ${into.length}`);
      const out = into ?? new Float64Array(u.length);
      if (out !== u) out.set(u);
      fn(out, f, n, iterations);
      return out;
    },
  };
}

function checkExtents(what: string, extents: number[]): void {
  for (const e of extents) {
    if (!Number.isInteger(e) || e < 1 || e > 2 ** 30) throw new Error(`${what} must be a positive integer, got ${e}`);
  }
  if (extents.reduce((a, b) => a * b, 1) > 2 ** 31 - 1) throw new Error(`${what}: more than 2^31 elements`);
}

function checkCount(what: string, n: number): void {
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) throw new Error(`${what} must be a non-negative integer, got ${n}`);
}

/** The seed's Figure 9: transpose with the rank known and tiled, known and untiled, and known only at run time. */
export const TRANSPOSES = ['tiled', 'untiled', 'generic'] as const;
export type Transpose = (typeof TRANSPOSES)[number];

export interface TransposeRunner {
  /** The transpose of the rows × cols matrix `a` (row-major, f32): cols × rows. */
  run(a: Float32Array, rows: number, cols: number, into?: Float32Array): Float32Array;
}

const TRANSPOSE_ENTRIES = [
  'extern fn fig9_tiled(a: &[f32], out: &mut [f32], ext: &[i32]) -> () { let s = sac::shape_of(2, ext); sac::store(sac::tiled(sac::seq_sched(), 32), sac::transpose(sac::view(s, a)), out) }',
  'extern fn fig9_untiled(a: &[f32], out: &mut [f32], ext: &[i32]) -> () { let s = sac::shape_of(2, ext); sac::store(sac::seq_sched(), sac::transpose(sac::view(s, a)), out) }',
  // The rank is read from memory: partial evaluation does not know it.
  'extern fn fig9_generic(a: &[f32], out: &mut [f32], ext: &[i32]) -> () { transpose_generic(ext(4), ext, a, out) }',
].join('\n');

/** The three transposes of Figure 9, one compile, one thread each. */
export async function compileTransposes(): Promise<Record<Transpose, TransposeRunner>> {
  const lib = await compileEntries(TRANSPOSE_ENTRIES, 'transpose_entry.impala');
  const runner = (kind: Transpose): TransposeRunner => {
    const fn = lib.fn(`fig9_${kind}`);
    return {
      run(a, rows, cols, into) {
        checkExtents('matrix', [rows, cols]);
        if (a.length !== rows * cols) throw new Error(`a ${rows}×${cols} matrix has ${rows * cols} elements, got ${a.length}`);
        if (into !== undefined && into.length !== a.length) throw new Error(`the transpose needs ${a.length} elements, the array given has ${into.length}`);
        const out = into ?? new Float32Array(a.length);
        fn(a, out, Int32Array.from([rows, cols, 0, 0, 2]));
        return out;
      },
    };
  };
  return { tiled: runner('tiled'), untiled: runner('untiled'), generic: runner('generic') };
}
