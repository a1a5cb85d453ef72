// Alignments in memory linear in the sequence lengths. The end of a local or semi-global
// alignment comes from the mode's score pass, its beginning from an anchored pass over the
// reversed prefixes (borders costed from the end cell, the best cell anywhere or on the
// border); between the two, a global alignment by Hirschberg's divide and conquer with
// Myers and Miller's treatment of affine gaps: forward and reverse score passes (the
// kernels) meet at the middle row, the split is the best sum, through a cell or through a
// vertical gap crossing the row, and the two halves recurse. Problems of at most
// BASE_CELLS cells are solved with a full matrix and a traceback here. The alignment is
// the sequence of its passes (`KernelSteps`), so that the host runs them on this thread or
// the long ones on a worker thread; the planned cells of `params.progress` are refined as
// the ends become known.
import type { AlignParams, KernelSteps, PassRunner } from './host.ts';
import { gapExtend, gapOpen, plannedCells } from './host.ts';
import type { AlignResult } from './reference.ts';
import type { Mode, Substitution } from './scoring.ts';

/** Cells up to which a subproblem gets a full-matrix traceback. */
export const BASE_CELLS = 16384;

const NONE = -(2 ** 40);

/** CIGAR runs built from the front. */
class Cigar {
  private readonly ops: string[] = [];
  private readonly lens: number[] = [];
  push(op: string, n = 1): void {
    if (n <= 0) return;
    const last = this.ops.length - 1;
    if (last >= 0 && this.ops[last] === op) this.lens[last]! += n;
    else {
      this.ops.push(op);
      this.lens.push(n);
    }
  }
  toString(): string {
    let s = '';
    for (let k = 0; k < this.ops.length; k++) s += `${this.lens[k]}${this.ops[k]}`;
    return s;
  }
}

function reversed(a: Uint8Array): Uint8Array {
  const r = new Uint8Array(a.length);
  for (let k = 0; k < a.length; k++) r[k] = a[a.length - 1 - k]!;
  return r;
}

/**
 * The optimal alignment of q and t in `mode` with the score pass `scorePass`, the global
 * pass `global` and, for local and semi, the anchored pass that finds the beginning.
 */
export function* alignLinearSpace(
  q: Uint8Array,
  t: Uint8Array,
  mode: Mode,
  params: AlignParams,
  scorePass: PassRunner,
  global: PassRunner,
  anchored: PassRunner | undefined,
): KernelSteps<AlignResult> {
  const { progress } = params;
  const area = q.length * t.length;
  // This pair's share of the plan, replaced by better knowledge as it comes.
  let share = plannedCells(q.length, t.length, mode, true);
  const replan = (cells: number) => {
    if (progress) progress.planned += cells - share;
    share = cells;
  };
  const end = yield* scorePass.steps(q, t, params);
  let beginQ = 0;
  let beginT = 0;
  if (mode === 'local' && end.score === 0) {
    replan(area);
    return { score: 0, beginQ: end.endQ, endQ: end.endQ, beginT: end.endT, endT: end.endT, cigar: '' };
  }
  // The anchored pass covers the prefixes that end at the end cell; Hirschberg's passes at most that rectangle, twice.
  const before = area + (mode === 'global' ? 0 : end.endQ * end.endT);
  replan(before + 2 * end.endQ * end.endT);
  if (mode !== 'global') {
    const back = yield* anchored!.steps(reversed(q.subarray(0, end.endQ)), reversed(t.subarray(0, end.endT)), params);
    if (back.score !== end.score) throw new Error(`internal error: the anchored pass scores ${back.score}, the ${mode} pass ${end.score}`);
    beginQ = end.endQ - back.endQ;
    beginT = end.endT - back.endT;
  }
  replan(before + 2 * (end.endQ - beginQ) * (end.endT - beginT));
  const cigar = new Cigar();
  const h = new Hirschberg(q, t, params, global, cigar);
  yield* h.solve(beginQ, end.endQ, beginT, end.endT, false, false);
  replan(before + h.cells);
  return { score: end.score, beginQ, endQ: end.endQ, beginT, endT: end.endT, cigar: cigar.toString() };
}

class Hirschberg {
  /** The cells its passes and base cases relaxed so far. */
  cells = 0;
  private readonly open: number;
  private readonly ext: number;
  private readonly affine: boolean;
  private readonly sub: Substitution;
  private readonly fwd: { h: Int32Array; e: Int32Array };
  private readonly rev: { h: Int32Array; e: Int32Array };
  /** The full matrices of the base cases, reused while large enough. */
  private matrices = { H: new Float64Array(0), E: new Float64Array(0), F: new Float64Array(0) };

  constructor(
    private readonly q: Uint8Array,
    private readonly t: Uint8Array,
    private readonly params: AlignParams,
    private readonly pass: PassRunner,
    private readonly cigar: Cigar,
  ) {
    this.open = gapOpen(params.gaps);
    this.ext = gapExtend(params.gaps);
    this.affine = params.gaps.kind === 'affine';
    this.sub = params.sub;
    const n = t.length + 1;
    this.fwd = { h: new Int32Array(n), e: new Int32Array(n) };
    this.rev = { h: new Int32Array(n), e: new Int32Array(n) };
  }

  /**
   * Appends the best global alignment of q[qa, qb) and t[ta, tb). `startGap`/`endGap`: a
   * vertical gap touching the first/last cell continues one from outside, so it costs the
   * extension per residue and no opening.
   */
  *solve(qa: number, qb: number, ta: number, tb: number, startGap: boolean, endGap: boolean): KernelSteps<void> {
    const rows = qb - qa;
    const cols = tb - ta;
    this.cells += rows * cols;
    if (rows <= 1 || (rows + 1) * (cols + 1) <= BASE_CELLS) {
      this.base(qa, qb, ta, tb, startGap, endGap);
      this.params.progress?.add(rows * cols);
      return;
    }
    const mid = qa + (rows >> 1);
    const { fwd, rev } = this;
    yield* this.pass.steps(this.q.subarray(qa, mid), this.t.subarray(ta, tb), this.params, startGap, fwd);
    yield* this.pass.steps(reversed(this.q.subarray(mid, qb)), reversed(this.t.subarray(ta, tb)), this.params, endGap, rev);
    let best = NONE;
    let split = 0;
    let throughGap = false;
    for (let j = 0; j <= cols; j++) {
      const viaCell = fwd.h[j]! + rev.h[cols - j]!;
      if (viaCell > best) {
        best = viaCell;
        split = j;
        throughGap = false;
      }
      if (this.affine) {
        const viaGap = fwd.e[j]! + rev.e[cols - j]! + this.open - this.ext;
        if (viaGap > best) {
          best = viaGap;
          split = j;
          throughGap = true;
        }
      }
    }
    if (!throughGap) {
      yield* this.solve(qa, mid, ta, ta + split, startGap, false);
      yield* this.solve(mid, qb, ta + split, tb, false, endGap);
    } else {
      // The gap covers q[mid-1] and q[mid]; the halves around them continue it.
      yield* this.solve(qa, mid - 1, ta, ta + split, startGap, true);
      this.cigar.push('I', 2);
      yield* this.solve(mid + 1, qb, ta + split, tb, true, endGap);
    }
  }

  /** Full-matrix Gotoh with the same borders as the passes, and its traceback. */
  private base(qa: number, qb: number, ta: number, tb: number, startGap: boolean, endGap: boolean): void {
    const n = qb - qa;
    const m = tb - ta;
    const { open, ext, cigar } = this;
    if (m === 0) {
      cigar.push('I', n);
      return;
    }
    if (n === 0) {
      cigar.push('D', m);
      return;
    }
    const w = m + 1;
    const cells = (n + 1) * w;
    if (this.matrices.H.length < cells) this.matrices = { H: new Float64Array(cells), E: new Float64Array(cells), F: new Float64Array(cells) };
    const { H, E, F } = this.matrices; // E: vertical gap (I), F: horizontal gap (D)
    E.fill(NONE, 0, cells);
    F.fill(NONE, 0, cells);
    H[0] = 0;
    const gap = (k: number) => (k === 0 ? 0 : open + (k - 1) * ext);
    for (let j = 1; j <= m; j++) H[j] = -gap(j);
    for (let i = 1; i <= n; i++) {
      H[i * w] = startGap ? -i * ext : -gap(i);
      E[i * w] = H[i * w]!;
    }
    const { scores, size } = this.sub;
    for (let i = 1; i <= n; i++) {
      const a = this.q[qa + i - 1]! * size;
      for (let j = 1; j <= m; j++) {
        const c = i * w + j;
        E[c] = Math.max(H[c - w]! - open, E[c - w]! - ext);
        F[c] = Math.max(H[c - 1]! - open, F[c - 1]! - ext);
        H[c] = Math.max(H[c - w - 1]! + scores[a + this.t[ta + j - 1]!]!, E[c]!, F[c]!);
      }
    }
    const ops: string[] = [];
    let i = n;
    let j = m;
    const last = n * w + m;
    let state: 'H' | 'E' | 'F' = endGap && E[last]! + open - ext > H[last]! ? 'E' : 'H';
    while (i > 0 || j > 0) {
      if (j === 0) {
        for (; i > 0; i--) ops.push('I');
        break;
      }
      if (i === 0) {
        for (; j > 0; j--) ops.push('D');
        break;
      }
      const c = i * w + j;
      if (state === 'H') {
        const x = this.q[qa + i - 1]!;
        const y = this.t[ta + j - 1]!;
        if (H[c] === H[c - w - 1]! + scores[x * size + y]!) {
          ops.push(x === y ? '=' : 'X');
          i--;
          j--;
        } else if (H[c] === E[c]) state = 'E';
        else state = 'F';
      } else if (state === 'E') {
        ops.push('I');
        state = E[c] === H[c - w]! - open ? 'H' : 'E';
        i--;
      } else {
        ops.push('D');
        state = F[c] === H[c - 1]! - open ? 'H' : 'F';
        j--;
      }
    }
    for (let k = ops.length - 1; k >= 0; k--) cigar.push(ops[k]!);
  }
}
