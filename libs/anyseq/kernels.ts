// The kernels an aligner is made of, and the Impala entry each one stands for. A kernel is a
// score pass in one mode with one gap model, substitution scheme, schedule and score width;
// the host writes the entries into a module and partial evaluation turns each combination
// of the library's functions into one specialised kernel.
import type { Mode } from './scoring.ts';

export const SCHEDULES = ['scalar', 'simd', 'wavefront', 'inter'] as const;
export type Schedule = (typeof SCHEDULES)[number];
export type GapKind = 'linear' | 'affine';
export type SubstKind = 'simple' | 'matrix';
export type Width = 16 | 32;
/** Every score width: 8 bits only in the database kernel. */
export type ScoreWidth = 8 | Width;
/** Widths of the database kernel (local alignment, one query against many targets). */
export type DbWidth = Exclude<ScoreWidth, 32>;
/** How the database kernel looks up substitution scores: one AVX-512 permute, or lane by lane. */
export type Lookup = 'permute' | 'lanes';

/**
 * A pass's mode: the user's three, and the two the traceback uses to find where a local or
 * semi-global alignment begins (gap-costed borders, the end read anywhere or on the border).
 */
export type PassMode = Mode | 'anchored_any' | 'anchored_border';

export interface PassKernel {
  kind: 'pass';
  mode: PassMode;
  gaps: GapKind;
  substitution: SubstKind;
  /** scalar, simd or wavefront (inter-sequence kernels are `ManyKernel`s). */
  schedule: Exclude<Schedule, 'inter'>;
  width: Width;
}

/** Many pairs, one per SIMD lane. */
export interface ManyKernel {
  kind: 'many';
  mode: Mode;
  gaps: GapKind;
  substitution: SubstKind;
  width: Width;
}

/** Local alignment of one query against many targets, one target per SIMD lane (inter.impala's `run_db`). */
export interface DbKernel {
  kind: 'db';
  gaps: GapKind;
  width: DbWidth;
  lookup: Lookup;
}

export type Kernel = PassKernel | ManyKernel | DbKernel;

/** Wavefront tiles: columns per tile, and stripes (of the vector width) per tile. */
export const TILE_W = 4096;
export const TILE_STRIPES = 8;

/** Lanes of a vector of scores of `width` bits (512-bit vectors; LLVM splits them on narrower machines). */
export function lanes(width: Width): number {
  return width === 16 ? 32 : 16;
}

/** Lanes of the database kernel of a width (the lookup table holds one entry per lane, the last one for padding). */
export function dbLanes(width: DbWidth): number {
  return width === 8 ? 64 : 32;
}

export function kernelName(k: Kernel): string {
  if (k.kind === 'db') return `db_local_${k.gaps}_${k.lookup}_${k.width}`;
  const schedule = k.kind === 'pass' ? k.schedule : 'inter';
  return `${k.kind}_${k.mode}_${k.gaps}_${k.substitution}_${schedule}_${k.width}`;
}

function numbers(width: Width): { s: string; numv: string; nums: string } {
  return width === 16 ? { s: 'i16', numv: 'num_v32_i16()', nums: 'num_i16()' } : { s: 'i32', numv: 'num_v16_i32()', nums: 'num_i32()' };
}

const MODE_IMPALA: Record<PassMode, string> = {
  global: 'mode_global()',
  local: 'mode_local()',
  semi: 'mode_semi()',
  anchored_any: 'mode_anchored_any()',
  anchored_border: 'mode_anchored_border()',
};

const SCHEDULE_IMPALA: Record<PassKernel['schedule'], string> = {
  scalar: 'SCHEDULE_SCALAR',
  simd: 'SCHEDULE_SIMD',
  wavefront: 'SCHEDULE_WAVEFRONT',
};

/** The exported entry of a kernel (signatures in schedules.impala's `run_pass` and inter.impala's `run_many`). */
export function entryFunction(k: Kernel): string {
  const name = kernelName(k);
  if (k.kind === 'db') {
    const [num, look, base] = k.width === 8 ? ['num_v64_i8()', 'lookup_v64_i8_permute()', -128] : ['num_v32_i16()', 'lookup_v32_i16_permute()', 0];
    return [
      `extern fn ${name}(qs: &[u8], q_off: &[i32], ts: &[u8], t_off: &[i32], slot_t: &[i32], group_q: &[i32], group_s: &[i32], groups: i32,`,
      `        scores: &[i32], size: i32, open: i32, ext: i32, threads: i32, hi: i32, out: &mut [i32]) -> () {`,
      `    let num = ${num};`,
      `    run_db(num, ${k.lookup === 'permute' ? look : 'lookup_lanes(num)'}, ${base}, GapModel { affine: ${k.gaps === 'affine'}, open: open, ext: ext }, true, qs, q_off, ts, t_off, slot_t, group_q, group_s, groups, scores, size, threads, hi, out)`,
      `}`,
    ].join('\n');
  }
  const { s, numv, nums } = numbers(k.width);
  const gaps = `GapModel { affine: ${k.gaps === 'affine'}, open: open, ext: ext }`;
  const matrix = k.substitution === 'matrix';
  const rangeCheck = k.width === 16;
  if (k.kind === 'many') {
    return [
      `extern fn ${name}(qs: &[u8], q_off: &[i32], ts: &[u8], t_off: &[i32], count: i32, scores: &[i32], size: i32, open: i32, ext: i32,`,
      `        threads: i32, lo: i32, hi: i32, out: &mut [i32]) -> () {`,
      `    run_many(${numv}, ${MODE_IMPALA[k.mode]}, ${gaps}, ${matrix}, ${rangeCheck}, qs, q_off, ts, t_off, count, scores, size, threads, lo, hi, out)`,
      `}`,
    ].join('\n');
  }
  return [
    `extern fn ${name}(q: &[u8], nq: i32, t: &[u8], nt: i32, scores: &[i32], size: i32, open: i32, ext: i32, in_gap: i32, threads: i32,`,
    `        row_h: &mut [${s}], row_e: &mut [${s}], col_h: &mut [${s}], col_f: &mut [${s}], info: &mut [i32], lo: i32, hi: i32, cells: &mut [i64], out: &mut [i32]) -> () {`,
    `    run_pass(${numv}, ${nums}, ${MODE_IMPALA[k.mode]}, ${gaps}, ${matrix}, ${SCHEDULE_IMPALA[k.schedule]}, ${rangeCheck}, ${TILE_W}, ${TILE_STRIPES * lanes(k.width)},`,
    `             q, nq, t, nt, scores, size, in_gap != 0, threads, row_h, row_e, col_h, col_f, info, lo, hi, cells, out)`,
    `}`,
  ].join('\n');
}
