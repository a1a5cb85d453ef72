// Sorting networks (the AnyDSL paper's example of partial evaluation): Bose–Nelson
// and Batcher's odd–even merge sort written as ordinary recursive code with filters
// (tests/pe/programs/sorting_networks.impala), specialised for n = 2…8. Each exported
// sorter must be straight-line code — no loop, no call — whose compare-exchanges are
// exactly the textbook network, and the native library must sort random arrays.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CompiledLibrary, compile } from '../../compiler/src/driver/compile.ts';
import { compileToLLVM } from '../../compiler/src/driver/pipeline.ts';
import { llvmFunction } from './support.ts';
import { random } from '../random.ts';

const file = 'sorting_networks.impala';
const text = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'programs', file), 'utf8');
const sources = [{ path: file, text }];

const SIZES = [2, 3, 4, 5, 6, 7, 8] as const;
type Network = 'bn' | 'batcher';
const NETWORKS: readonly Network[] = ['bn', 'batcher'];
type Comparator = readonly [number, number];

// Reference generators, transcribed from the classic formulations.
function boseNelson(n: number): Comparator[] {
  const out: Comparator[] = [];
  const merge = (i: number, x: number, j: number, y: number): void => {
    if (x === 1 && y === 1) out.push([i, j]);
    else if (x === 1 && y === 2) out.push([i, j + 1], [i, j]);
    else if (x === 2 && y === 1) out.push([i, j], [i + 1, j]);
    else {
      const a = Math.floor(x / 2);
      const b = x % 2 === 1 ? Math.floor(y / 2) : Math.floor((y + 1) / 2);
      merge(i, a, j, b);
      merge(i + a, x - a, j + b, y - b);
      merge(i + a, x - a, j, b);
    }
  };
  const split = (i: number, len: number): void => {
    if (len >= 2) {
      const m = Math.floor(len / 2);
      split(i, m);
      split(i + m, len - m);
      merge(i, m, i + m, len - m);
    }
  };
  split(0, n);
  return out;
}

/** Batcher's odd–even merge sort on the next power of two, dropping comparators past n. */
function batcher(n: number): Comparator[] {
  const out: Comparator[] = [];
  const cmp = (i: number, j: number) => {
    if (j < n) out.push([i, j]);
  };
  const merge = (lo: number, hi: number, r: number): void => {
    const step = r * 2;
    if (step < hi - lo) {
      merge(lo, hi, step);
      merge(lo + r, hi, step);
      for (let i = lo + r; i < hi - r; i += step) cmp(i, i + r);
    } else cmp(lo, lo + r);
  };
  const sort = (lo: number, hi: number): void => {
    if (hi - lo >= 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      sort(lo, mid);
      sort(mid + 1, hi);
      merge(lo, hi, 1);
    }
  };
  let p = 1;
  while (p < n) p *= 2;
  sort(0, p - 1);
  return out;
}

const reference: Record<Network, (n: number) => Comparator[]> = { bn: boseNelson, batcher };

/** Known network sizes for n = 2…8 (both constructions agree on these). */
const KNOWN_SIZE: Record<number, number> = { 2: 1, 3: 3, 4: 5, 5: 9, 6: 12, 7: 16, 8: 19 };

/**
 * The compare-exchanges of a straight-line sorter in emission order, read back from
 * the LLVM IR: `icmp slt (load (gep %a, i)), (load (gep %a, j))` is comparator (i, j).
 */
function comparators(fn: string): Comparator[] {
  const index = new Map<string, number>();
  const loadOf = new Map<string, number>();
  const out: Comparator[] = [];
  for (const line of fn.split('\n')) {
    let m = /^\s*(%[\w.]+) = getelementptr inbounds i32, ptr %a, i64 (\d+)$/.exec(line);
    if (m) {
      index.set(m[1]!, Number(m[2]));
      continue;
    }
    m = /^\s*(%[\w.]+) = load i32, ptr (%[\w.]+)$/.exec(line);
    if (m) {
      const i = index.get(m[2]!);
      if (i === undefined) throw new Error(`load from an unknown address: ${line}`);
      loadOf.set(m[1]!, i);
      continue;
    }
    m = /= icmp \w+ i32 (%[\w.]+), (%[\w.]+)$/.exec(line);
    if (m) {
      const i = loadOf.get(m[1]!);
      const j = loadOf.get(m[2]!);
      if (i === undefined || j === undefined) throw new Error(`compare of non-loads: ${line}`);
      out.push([i, j]);
    }
  }
  return out;
}

/** The 0-1 principle: a network sorts every input iff it sorts all 2^n inputs of 0s and 1s. */
function sortsAllZeroOne(n: number, net: readonly Comparator[]): boolean {
  for (let bits = 0; bits < 1 << n; bits++) {
    const v = Array.from({ length: n }, (_, k) => (bits >> k) & 1);
    for (const [i, j] of net) {
      if (v[i]! > v[j]!) [v[i], v[j]] = [v[j]!, v[i]!];
    }
    for (let k = 1; k < n; k++) if (v[k - 1]! > v[k]!) return false;
  }
  return true;
}


describe('sorting networks specialised by the partial evaluator', () => {
  let llvm: string;
  beforeAll(() => {
    const r = compileToLLVM(sources, { optLevel: 2, targetCpu: 'native' });
    if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
    llvm = r.llvm;
  });

  it('the reference networks have the known sizes and sort (0-1 principle)', () => {
    for (const net of NETWORKS) {
      for (const n of SIZES) {
        const c = reference[net](n);
        expect(c, `${net} n=${n}`).toHaveLength(KNOWN_SIZE[n]!);
        expect(sortsAllZeroOne(n, c), `${net} n=${n}`).toBe(true);
      }
    }
  });

  it('only the 14 sorters are left: every helper was specialised away', () => {
    const defined = [...llvm.matchAll(/^define [^@]*@([\w.]+)\(/gm)].map((m) => m[1]);
    expect(defined.sort()).toEqual(NETWORKS.flatMap((net) => SIZES.map((n) => `sort_${net}_${n}`)).sort());
  });

  for (const net of NETWORKS) {
    for (const n of SIZES) {
      it(`sort_${net}_${n} is straight-line code with exactly the network's compare-exchanges`, () => {
        const f = llvmFunction(llvm, `sort_${net}_${n}`);
        // One block, no branch (so no back-edge), no phi, no call.
        expect(f).not.toMatch(/\bcall\b|\bphi\b|\bbr\b|\bswitch\b/);
        expect([...f.matchAll(/^[\w.]+:/gm)]).toHaveLength(1);
        // Two selects, two loads and two stores per compare-exchange; no branches inside it.
        const size = KNOWN_SIZE[n]!;
        expect((f.match(/= icmp /g) ?? []).length).toBe(size);
        expect((f.match(/= select /g) ?? []).length).toBe(2 * size);
        expect((f.match(/^\s*store i32 /gm) ?? []).length).toBe(2 * size);
        const c = comparators(f);
        expect(c).toEqual(reference[net](n));
        expect(sortsAllZeroOne(n, c)).toBe(true);
      });
    }
  }

  describe('natively', () => {
    let lib: CompiledLibrary;
    beforeAll(async () => {
      lib = await compile({ sources, options: { optLevel: 2 } });
    });

    for (const net of NETWORKS) {
      it(`sort_${net}_n sorts random arrays of n = 2…8, with duplicates and negatives`, () => {
        const rnd = random(net === 'bn' ? 0x5eed : 0xbeef);
        for (const n of SIZES) {
          const sort = lib.fn(`sort_${net}_${n}`);
          const ranges = [3, 20, 2 ** 31]; // few distinct values (many duplicates) … the full i32 range
          for (let trial = 0; trial < 600; trial++) {
            const span = ranges[trial % ranges.length]!;
            // One extra element after the n sorted: it must not be touched.
            const a = Int32Array.from({ length: n + 1 }, () => Math.floor(rnd() * 2 * span) - span);
            if (trial % 50 === 0) a.fill(a[0]!, 0, n); // all equal
            if (trial % 50 === 1) a.set([2147483647, -2147483648, 0], 0);
            const expected = Array.from(a.subarray(0, n)).sort((x, y) => x - y);
            const guard = a[n];
            sort(a);
            expect(Array.from(a.subarray(0, n)), `sort_${net}_${n}`).toEqual(expected);
            expect(a[n]).toBe(guard);
          }
          // Every permutation of distinct values, for the small sizes.
          if (n <= 6) {
            const perms = (xs: number[]): number[][] =>
              xs.length <= 1 ? [xs] : xs.flatMap((x, k) => perms([...xs.slice(0, k), ...xs.slice(k + 1)]).map((p) => [x, ...p]));
            const sorted = Array.from({ length: n }, (_, k) => k * 7 - 20);
            for (const p of perms(sorted)) {
              const a = Int32Array.from(p);
              sort(a);
              expect(Array.from(a)).toEqual(sorted);
            }
          }
        }
      });
    }
  });
});
