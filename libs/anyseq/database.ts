// Database search on the host: local alignment of queries against many targets each with
// the database kernel (inter.impala's `run_db`, one target per SIMD lane, the query shared
// by the lanes). The pairs of each query are sorted by target length and cut into groups
// of one vector's lanes, so that the lanes of a group have similar lengths; the groups run
// longest first over the threads. A pass of one width returns the pairs whose score passed
// the width's range, which the caller redoes wider (8 → 16 → 32 bits).
import { readFileSync } from 'node:fs';
import type { NativeFunction } from '@anydsl/compiler';
import { type DbWidth, dbLanes, type Lookup } from './kernels.ts';
import type { ScoreResult } from './reference.ts';
import type { Substitution } from './scoring.ts';

/** A query needs this many targets for the database kernel; fewer leave too many lanes of a group idle. */
export const MIN_DATABASE_PAIRS = 8;

let flags: Set<string> | undefined;

/** The CPU's feature flags as Linux reports them (empty elsewhere). */
function cpuFlags(): Set<string> {
  if (!flags) {
    let text = '';
    try {
      text = readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      // Not Linux: no flags, so the portable lookup.
    }
    flags = new Set(text.match(/^flags\s*:(.*)$/m)?.[1]?.trim().split(/\s+/) ?? []);
  }
  return flags;
}

/** The lookup the database kernel of a width uses on this CPU: AVX-512 VBMI's vpermb for 8 bits, BW's vpermw for 16, lane by lane otherwise. */
export function databaseLookup(width: DbWidth): Lookup {
  return cpuFlags().has(width === 8 ? 'avx512vbmi' : 'avx512bw') ? 'permute' : 'lanes';
}

/** The largest score a database pass of a width holds exactly, or undefined when the scoring does not fit it. */
export function databaseLimit(width: DbWidth, sub: Substitution, open: number): number | undefined {
  let maxAbs = 0;
  for (const s of sub.scores) maxAbs = Math.max(maxAbs, Math.abs(s));
  // The matrix, plus the padding entry, lives in one value of `lanes` entries.
  if (sub.size >= dbLanes(width)) return undefined;
  const margin = maxAbs + open + 1;
  // 8 bits hold base -128 + score (0 ..= 255), 16 bits the score itself.
  const top = width === 8 ? 255 : 32767;
  return margin < top / 4 ? top - margin : undefined;
}

export interface DatabasePass {
  width: DbWidth;
  fn: NativeFunction;
  /** Scores above this are redone wider. */
  hi: number;
}

/**
 * Scores the pairs `idx` (indices into `pairs`) with one database pass: the results of those
 * that fit the width, and the indices of those to redo wider.
 */
export function runDatabasePass(
  pairs: readonly (readonly [Uint8Array, Uint8Array])[],
  idx: readonly number[],
  pass: DatabasePass,
  params: { sub: Substitution; open: number; extend: number; threads: number },
): { results: Map<number, ScoreResult>; again: number[] } {
  const lanes = dbLanes(pass.width);
  // Each distinct query and target once (by identity: a database's sequences are shared by its pairs).
  const queries = new Map<Uint8Array, number>();
  const targets = new Map<Uint8Array, number>();
  const byQuery = new Map<number, number[]>();
  for (const k of idx) {
    const [q, t] = pairs[k]!;
    if (!queries.has(q)) queries.set(q, queries.size);
    if (!targets.has(t)) targets.set(t, targets.size);
    const qi = queries.get(q)!;
    let list = byQuery.get(qi);
    if (!list) byQuery.set(qi, (list = []));
    list.push(k);
  }
  const concat = (seqs: Map<Uint8Array, number>): [Uint8Array, Int32Array] => {
    const off = new Int32Array(seqs.size + 1);
    let n = 0;
    for (const [s, i] of seqs) off[i + 1] = n += s.length;
    const all = new Uint8Array(n);
    for (const [s, i] of seqs) all.set(s, off[i]!);
    return [all, off];
  };
  const [qs, qOff] = concat(queries);
  const [ts, tOff] = concat(targets);
  // Groups: a query's pairs by falling target length, `lanes` at a time; the costliest first.
  const groups: { q: number; pairs: number[]; cost: number }[] = [];
  for (const [qi, list] of byQuery) {
    list.sort((a, b) => pairs[b]![1].length - pairs[a]![1].length);
    const nq = qOff[qi + 1]! - qOff[qi]!;
    for (let s = 0; s < list.length; s += lanes) {
      const members = list.slice(s, s + lanes);
      groups.push({ q: qi, pairs: members, cost: nq * pairs[members[0]!]![1].length });
    }
  }
  groups.sort((a, b) => b.cost - a.cost);
  const groupQ = new Int32Array(groups.length);
  const groupS = new Int32Array(groups.length + 1);
  const slotPair: number[] = [];
  groups.forEach((g, n) => {
    groupQ[n] = g.q;
    slotPair.push(...g.pairs);
    groupS[n + 1] = slotPair.length;
  });
  const slotT = Int32Array.from(slotPair, (k) => targets.get(pairs[k]![1])!);
  const out = new Int32Array(4 * slotPair.length);
  const { sub } = params;
  pass.fn(qs, qOff, ts, tOff, slotT, groupQ, groupS, groups.length, sub.scores, sub.size, params.open, params.extend, params.threads, pass.hi, out);
  const results = new Map<number, ScoreResult>();
  const again: number[] = [];
  slotPair.forEach((k, s) => {
    if (out[4 * s + 3] !== 0) again.push(k);
    else results.set(k, { score: out[4 * s]!, endQ: out[4 * s + 1]!, endT: out[4 * s + 2]! });
  });
  return { results, again };
}
