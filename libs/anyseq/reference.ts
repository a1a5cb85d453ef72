// The plain TypeScript dynamic programming that the kernels are tested against: the score in
// linear space, the full-matrix alignment with traceback (small inputs only), and
// rescoreCigar, which checks that a CIGAR is a valid alignment of two sequences in a mode
// and returns its score. Written for clarity (Gotoh's three matrices, one cell at a time),
// not speed.
//
// End positions are half-open DP coordinates (scoring.ts). Among cells of equal best score
// the reported end is the one with the smallest endT, then the smallest endQ (the order a
// scan over the target, column after column, meets them): global ends at (|q|, |t|); local
// takes any cell (the empty alignment at (0, 0) when nothing scores above 0); semi takes the
// last row or the last column.
import { gapCost, type Gaps, type Mode, type Substitution } from './scoring.ts';

export interface ScoreResult {
  score: number;
  endQ: number;
  endT: number;
}

export interface AlignResult extends ScoreResult {
  beginQ: number;
  beginT: number;
  /** `<len><op>` runs, ops `=` (equal residues), `X` (different), `I` (query only), `D` (target only); adjacent runs differ in op. */
  cigar: string;
}

const NONE = -Infinity;

/** Gap open and extend as the recurrences use them (a linear gap opens and extends at the same cost). */
function openExtend(gaps: Gaps): { open: number; extend: number } {
  return gaps.kind === 'linear' ? { open: gaps.gap, extend: gaps.gap } : { open: gaps.open, extend: gaps.extend };
}

/** H in row 0 / column 0: a leading gap of `k` in global mode, free otherwise. */
function border(mode: Mode, gaps: Gaps, k: number): number {
  return mode === 'global' ? 0 - gapCost(gaps, k) : 0;
}

/** Whether cell (i, j) of an n×m matrix may end an alignment in `mode`. */
function canEnd(mode: Mode, i: number, j: number, n: number, m: number): boolean {
  return mode === 'local' || (mode === 'global' ? i === n && j === m : i === n || j === m);
}

/** The optimal score and its end cell, keeping two columns of the matrices (memory linear in |q|). */
export function referenceScore(q: Uint8Array, t: Uint8Array, mode: Mode, gaps: Gaps, sub: Substitution): ScoreResult {
  const n = q.length;
  const m = t.length;
  const { open, extend } = openExtend(gaps);
  // Columns j-1 (prev) and j (cur) of H and of F (a gap in the target: I ops, vertical moves);
  // E (D ops, horizontal moves) comes from the previous column of the same row.
  let hPrev = new Float64Array(n + 1);
  let hCur = new Float64Array(n + 1);
  const e = new Float64Array(n + 1).fill(NONE);
  for (let i = 0; i <= n; i++) hPrev[i] = border(mode, gaps, i);
  let best: ScoreResult = { score: NONE, endQ: 0, endT: 0 };
  const consider = (h: number, i: number, j: number) => {
    if (h > best.score && canEnd(mode, i, j, n, m)) best = { score: h, endQ: i, endT: j };
  };
  for (let i = 0; i <= n; i++) consider(hPrev[i]!, i, 0);
  for (let j = 1; j <= m; j++) {
    hCur[0] = border(mode, gaps, j);
    consider(hCur[0], 0, j);
    let f = NONE;
    const row = t[j - 1]! ;
    for (let i = 1; i <= n; i++) {
      e[i] = Math.max(hPrev[i]! - open, e[i]! - extend);
      f = Math.max(hCur[i - 1]! - open, f - extend);
      let h = Math.max(hPrev[i - 1]! + sub.scores[q[i - 1]! * sub.size + row]!, e[i]!, f);
      if (mode === 'local') h = Math.max(h, 0);
      hCur[i] = h;
      consider(h, i, j);
    }
    [hPrev, hCur] = [hCur, hPrev];
  }
  return best;
}

/** The most cells referenceAlign fills (three Float64 matrices: 24 bytes a cell). */
export const REFERENCE_ALIGN_MAX_CELLS = 25_000_000;

/** The optimal alignment by full-matrix Gotoh and traceback; for small inputs (REFERENCE_ALIGN_MAX_CELLS). */
export function referenceAlign(q: Uint8Array, t: Uint8Array, mode: Mode, gaps: Gaps, sub: Substitution): AlignResult {
  const n = q.length;
  const m = t.length;
  const cells = (n + 1) * (m + 1);
  if (cells > REFERENCE_ALIGN_MAX_CELLS) throw new Error(`referenceAlign keeps the whole matrix: ${n}×${m} is too large (at most ${REFERENCE_ALIGN_MAX_CELLS} cells)`);
  const { open, extend } = openExtend(gaps);
  const w = m + 1;
  const H = new Float64Array(cells);
  const E = new Float64Array(cells).fill(NONE); // ends in a D run (horizontal)
  const F = new Float64Array(cells).fill(NONE); // ends in an I run (vertical)
  for (let i = 0; i <= n; i++) H[i * w] = border(mode, gaps, i);
  for (let j = 0; j <= m; j++) H[j] = border(mode, gaps, j);
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const c = i * w + j;
      E[c] = Math.max(H[c - 1]! - open, E[c - 1]! - extend);
      F[c] = Math.max(H[c - w]! - open, F[c - w]! - extend);
      let h = Math.max(H[c - w - 1]! + sub.scores[q[i - 1]! * sub.size + t[j - 1]!]!, E[c]!, F[c]!);
      if (mode === 'local') h = Math.max(h, 0);
      H[c] = h;
    }
  }
  // The end cell by the documented tie order: smallest j, then smallest i.
  let end = { score: NONE, endQ: 0, endT: 0 };
  for (let j = 0; j <= m; j++) {
    for (let i = 0; i <= n; i++) if (H[i * w + j]! > end.score && canEnd(mode, i, j, n, m)) end = { score: H[i * w + j]!, endQ: i, endT: j };
  }
  // Traceback: runs of ops collected backwards. In state H a cell came from the diagonal, an
  // E or an F; in E/F it either opened the gap from H or extended the gap.
  const ops: string[] = [];
  let i = end.endQ;
  let j = end.endT;
  let state: 'H' | 'E' | 'F' = 'H';
  for (;;) {
    if (state === 'H') {
      if (i === 0 || j === 0) {
        // Global: the rest is one leading gap; semi and local: a free start.
        if (mode === 'global') {
          for (let k = 0; k < i; k++) ops.push('I');
          for (let k = 0; k < j; k++) ops.push('D');
          i = j = 0;
        }
        break;
      }
      const c = i * w + j;
      const h = H[c]!;
      if (mode === 'local' && h === 0) break;
      const a = q[i - 1]!;
      const b = t[j - 1]!;
      if (h === H[c - w - 1]! + sub.scores[a * sub.size + b]!) {
        ops.push(a === b ? '=' : 'X');
        i--;
        j--;
      } else if (h === E[c]) state = 'E';
      else state = 'F';
    } else if (state === 'E') {
      const c = i * w + j;
      ops.push('D');
      // Prefer opening from H (a shorter gap) when both give the value.
      state = E[c] === H[c - 1]! - open ? 'H' : 'E';
      j--;
    } else {
      const c = i * w + j;
      ops.push('I');
      state = F[c] === H[c - w]! - open ? 'H' : 'F';
      i--;
    }
  }
  return { score: end.score, beginQ: i, endQ: end.endQ, beginT: j, endT: end.endT, cigar: runs(ops.reverse()) };
}

/** `['=', '=', 'X']` → `2=1X`. */
function runs(ops: readonly string[]): string {
  let s = '';
  for (let k = 0; k < ops.length; ) {
    let l = k;
    while (l < ops.length && ops[l] === ops[k]) l++;
    s += `${l - k}${ops[k]}`;
    k = l;
  }
  return s;
}

/** The runs of a CIGAR string; throws on anything but `<positive length><op>` with ops `=XID`. */
export function parseCigar(cigar: string): { length: number; op: '=' | 'X' | 'I' | 'D' }[] {
  const out: { length: number; op: '=' | 'X' | 'I' | 'D' }[] = [];
  const re = /(\d+)([=XID])/y;
  let at = 0;
  while (at < cigar.length) {
    re.lastIndex = at;
    const m = re.exec(cigar);
    if (!m || Number(m[1]) === 0) throw new Error(`CIGAR '${cigar}' is malformed at offset ${at} (runs are <positive length><op>, ops = X I D)`);
    out.push({ length: Number(m[1]), op: m[2] as '=' | 'X' | 'I' | 'D' });
    at = re.lastIndex;
  }
  return out;
}

/**
 * Checks that `a` is a valid alignment of q and t in `mode` and returns its score: runs
 * well-formed and canonical (adjacent runs differ in op), `=` only on equal codes and `X`
 * only on different ones, the runs consuming exactly q[beginQ, endQ) and t[beginT, endT),
 * global spanning both sequences, semi starting on the first row or column and ending on
 * the last row or column. Every gap run is scored as one gap. Throws with the reason when
 * the alignment is not valid.
 */
export function rescoreCigar(
  q: Uint8Array,
  t: Uint8Array,
  a: { beginQ: number; endQ: number; beginT: number; endT: number; cigar: string },
  mode: Mode,
  gaps: Gaps,
  sub: Substitution,
): number {
  const fail = (why: string): never => {
    throw new Error(`invalid alignment ${a.cigar || '(empty)'} at q[${a.beginQ},${a.endQ}) t[${a.beginT},${a.endT}): ${why}`);
  };
  const n = q.length;
  const m = t.length;
  if (!(0 <= a.beginQ && a.beginQ <= a.endQ && a.endQ <= n && 0 <= a.beginT && a.beginT <= a.endT && a.endT <= m)) fail(`positions outside the sequences (${n} and ${m} residues)`);
  if (mode === 'global' && (a.beginQ !== 0 || a.beginT !== 0 || a.endQ !== n || a.endT !== m)) fail('a global alignment spans both sequences');
  if (mode === 'semi' && !((a.beginQ === 0 || a.beginT === 0) && (a.endQ === n || a.endT === m))) fail('a semi-global alignment starts on the first row or column and ends on the last');
  let i = a.beginQ;
  let j = a.beginT;
  let total = 0;
  let previous = '';
  for (const { length, op } of parseCigar(a.cigar)) {
    if (op === previous) fail(`two adjacent ${op} runs`);
    previous = op;
    if (op === 'I' || op === 'D') {
      total -= gapCost(gaps, length);
      if (op === 'I') i += length;
      else j += length;
      if (i > a.endQ || j > a.endT) fail('the runs consume more than the aligned ranges');
      continue;
    }
    if (i + length > a.endQ || j + length > a.endT) fail('the runs consume more than the aligned ranges');
    for (let k = 0; k < length; k++, i++, j++) {
      const x = q[i]!;
      const y = t[j]!;
      if ((x === y) !== (op === '=')) fail(`${op} at q[${i}], t[${j}], which are ${x === y ? 'equal' : 'different'}`);
      total += sub.scores[x * sub.size + y]!;
    }
  }
  if (i !== a.endQ || j !== a.endT) fail(`the runs end at q[${i}], t[${j}]`);
  return total;
}
