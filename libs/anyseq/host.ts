// The TypeScript side of the alignment kernels: compiles an aligner's kernels (the library
// plus a generated entry module, through `compile()` at -O3 and its artifact cache), runs
// score passes with the 16-bit kernel first and the 32-bit one when a score leaves the
// 16-bit range, and builds alignments in linear space with Hirschberg's recursion on top of
// the passes (traceback.ts). A score or an alignment is a sequence of kernel calls
// (`KernelSteps`), run either on this thread or, for progress on long alignments, with the
// long calls on a worker thread while the kernels count the cells they relax.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CompiledLibrary, compile, type NativeFunction, type SourceFile } from '@anydsl/compiler';
import { databaseLimit, databaseLookup, MIN_DATABASE_PAIRS, runDatabasePass } from './database.ts';
import { type DbKernel, entryFunction, type GapKind, type Kernel, kernelName, type Lookup, type PassKernel, type PassMode, type Schedule, type ScoreWidth, type SubstKind, type Width } from './kernels.ts';
import type { AlignResult, ScoreResult } from './reference.ts';
import { checkGaps, type Gaps, type Mode, simpleScores, type Substitution } from './scoring.ts';
import { alignLinearSpace } from './traceback.ts';

const LIBRARY_FILES = ['arith.impala', 'scoring.impala', 'stripe.impala', 'schedules.impala', 'inter.impala'];

/** The library's Impala sources, with paths relative to the repository for diagnostics. */
export function librarySources(): SourceFile[] {
  return LIBRARY_FILES.map((file) => ({
    path: `libs/anyseq/${file}`,
    text: readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8'),
  }));
}

export interface AlignerOptions {
  mode: Mode;
  gaps: GapKind;
  substitution: SubstKind;
  schedule: Schedule;
  /**
   * Score width to try first, redone wider when a score leaves the range: 16 or 32; 8 (the
   * default of local `inter` aligners) for the database kernel, which `scoreMany` uses for
   * queries with many targets in local mode.
   */
  width?: ScoreWidth;
  /** Also compile the kernels `align` needs (default true). */
  traceback?: boolean;
  /** How the database kernels look up substitution scores: `auto` (default: AVX-512 permutes where the CPU has them) or `lanes` (portable). */
  lookup?: 'auto' | Lookup;
}

export interface AlignParams {
  gaps: Gaps;
  sub: Substitution;
  /** Threads of the wavefront and inter-sequence schedules (0 or absent: all cores). */
  threads?: number;
  /** Where the kernels count the cells they relax (read it while `scoreAsync`/`alignAsync` run). */
  progress?: AlignProgress;
}

/**
 * How far a long alignment is: the cells relaxed so far, which the pass kernels add to
 * `counter` as they go (one store per row of a stripe, or per diagonal of tiles), against the
 * cells `planned`. The caller plans the work (`plannedCells` for each pair); a traceback
 * refines its pair's share as it learns the alignment's ends, and `done` reaches `planned`
 * when everything planned has run.
 */
export class AlignProgress {
  /** Cells relaxed so far (host memory the kernels write; an i64). */
  readonly counter = new BigInt64Array(1);
  planned = 0;
  get done(): number {
    return Number(this.counter[0]);
  }
  add(cells: number): void {
    this.counter[0]! += BigInt(cells);
  }
}

/**
 * The cells one pair costs: the score pass; with a traceback also the anchored pass that finds
 * a local or semi-global beginning (at most the whole matrix) and Hirschberg's passes (about
 * twice the alignment's rectangle: each level of the recursion halves the area).
 */
export function plannedCells(nq: number, nt: number, mode: Mode, traceback: boolean): number {
  const area = nq * nt;
  return traceback ? area + (mode === 'global' ? 0 : area) + 2 * area : area;
}

/** One native kernel call a computation waits for; its results land in the arrays it was given. */
export interface KernelCall {
  fn: NativeFunction;
  args: unknown[];
  /** The cells it relaxes (what decides whether it is worth a worker thread). */
  cells: number;
}

/** A computation as the kernel calls it makes: it yields each call and reads the results when resumed. */
export type KernelSteps<T> = Generator<KernelCall, T, void>;

/** Runs every kernel call of `steps` on this thread. */
export function runSteps<T>(steps: KernelSteps<T>): T {
  for (let next = steps.next(); ; next = steps.next()) {
    if (next.done) return next.value;
    next.value.fn(...next.value.args);
  }
}

/** Kernel calls from this many cells on run on a worker thread (shorter ones cost less than the hand-over). */
const WORKER_CELLS = 1 << 24;

/** Runs `steps` with its long kernel calls on one of koffi's worker threads, so that the event loop (a progress line) runs meanwhile. */
export async function runStepsAsync<T>(steps: KernelSteps<T>): Promise<T> {
  for (let next = steps.next(); ; next = steps.next()) {
    if (next.done) return next.value;
    const { fn, args, cells } = next.value;
    if (cells < WORKER_CELLS) fn(...args);
    else {
      const call = fn as NativeFunction & { async(...argsAndCallback: unknown[]): void };
      await new Promise<void>((resolve, reject) => call.async(...args, (err: unknown) => (err ? reject(err) : resolve())));
    }
  }
}

/** A score pass's result and the score width that computed it. */
export interface PassResult extends ScoreResult {
  /** The width that gave the result (the first tried unless a score left its range). */
  width: ScoreWidth;
}

export interface Aligner {
  readonly options: Required<AlignerOptions>;
  score(q: Uint8Array, t: Uint8Array, params: AlignParams): PassResult;
  align(q: Uint8Array, t: Uint8Array, params: AlignParams): AlignResult;
  /** `score` with its long kernel calls on a worker thread: the event loop runs meanwhile (a progress line reading `params.progress`). */
  scoreAsync(q: Uint8Array, t: Uint8Array, params: AlignParams): Promise<PassResult>;
  /** `align` with its long kernel calls on a worker thread. */
  alignAsync(q: Uint8Array, t: Uint8Array, params: AlignParams): Promise<AlignResult>;
  scoreMany(pairs: readonly (readonly [Uint8Array, Uint8Array])[], params: AlignParams): PassResult[];
}

/** Scores stay below this in 32-bit kernels, so that minus infinity (-2^30) minus a gap never wraps. */
export const LIMIT_32 = 2 ** 29;

/** The bounds a 16-bit pass's scores must stay within so that no operation saturated, or undefined when 16 bits cannot hold this scoring. */
export function range16(params: AlignParams): { lo: number; hi: number } | undefined {
  const margin = maxAbsScore(params.sub) + gapOpen(params.gaps) + 1;
  if (margin > 8000) return undefined;
  return { lo: -32768 + margin, hi: 32767 - margin };
}

function maxAbsScore(sub: Substitution): number {
  let m = 0;
  for (const s of sub.scores) m = Math.max(m, Math.abs(s));
  return m;
}

export function gapOpen(gaps: Gaps): number {
  return gaps.kind === 'linear' ? gaps.gap : gaps.open;
}
export function gapExtend(gaps: Gaps): number {
  return gaps.kind === 'linear' ? gaps.gap : gaps.extend;
}

/** A bound on |H| over the whole matrix of an nq × nt problem. */
export function scoreBound(nq: number, nt: number, params: AlignParams): number {
  return (nq + nt + 1) * Math.max(maxAbsScore(params.sub), gapOpen(params.gaps), 1);
}

/** Refuses a pair whose scores could leave the 32-bit kernels' range (every kernel's last resort). */
export function check32Range(nq: number, nt: number, params: AlignParams): void {
  if (scoreBound(nq, nt, params) > LIMIT_32) {
    throw new Error(`scores of a ${nq} × ${nt} alignment with these penalties could exceed the 32-bit kernels' range (|score| < 2^29)`);
  }
}

/** Runs one pass kernel: buffers sized for the problem (reused across calls when large enough). */
export class PassRunner {
  private rowH16 = new Int16Array(0);
  private rowE16 = new Int16Array(0);
  private colH16 = new Int16Array(0);
  private colF16 = new Int16Array(0);
  private rowH32 = new Int32Array(0);
  private rowE32 = new Int32Array(0);
  private colH32 = new Int32Array(0);
  private colF32 = new Int32Array(0);
  private info = new Int32Array(0);
  private readonly out = new Int32Array(4);
  /** The cell counter of passes whose caller watches none. */
  private readonly unwatched = new BigInt64Array(1);

  constructor(
    private readonly fn16: NativeFunction | undefined,
    private readonly fn32: NativeFunction,
    /** The mode's borders cost gaps (global and anchored passes), so they too must fit 16 bits. */
    private readonly costedBorders: boolean,
  ) {}

  /**
   * Runs q against t; `inGap`: column 0 continues a vertical gap (Hirschberg's split). With
   * `rows`, the last row's H and E (columns 0..|t|) are copied there as numbers.
   */
  run(q: Uint8Array, t: Uint8Array, params: AlignParams, inGap = false, rows?: { h: Int32Array; e: Int32Array }): PassResult {
    return runSteps(this.steps(q, t, params, inGap, rows));
  }

  /** `run` as its kernel calls. */
  *steps(q: Uint8Array, t: Uint8Array, params: AlignParams, inGap = false, rows?: { h: Int32Array; e: Int32Array }): KernelSteps<PassResult> {
    const nq = q.length;
    const nt = t.length;
    check32Range(nq, nt, params);
    const counter = params.progress?.counter ?? this.unwatched;
    const before = counter[0]!;
    const r16 = this.fn16 ? range16(params) : undefined;
    if (r16 && (!this.costedBorders || scoreBound(0, Math.max(nq, nt), params) < r16.hi)) {
      // The borders fit 16 bits (no cell there is checked); the cells are checked by the kernel.
      yield this.call(16, q, t, params, inGap, r16.lo, r16.hi, counter);
      if (this.out[3] === 0) return this.finish(16, nt, rows);
      // Redone wider: the cells count once.
      counter[0] = before;
    }
    yield this.call(32, q, t, params, inGap, -LIMIT_32, LIMIT_32, counter);
    return this.finish(32, nt, rows);
  }

  /** The result the last call left in `out`. */
  private finish(width: Width, nt: number, rows?: { h: Int32Array; e: Int32Array }): PassResult {
    if (rows) {
      const [h, e] = width === 16 ? [this.rowH16, this.rowE16] : [this.rowH32, this.rowE32];
      for (let j = 0; j <= nt; j++) {
        rows.h[j] = h[j]!;
        rows.e[j] = e[j]!;
      }
    }
    return { score: this.out[0]!, endQ: this.out[1]!, endT: this.out[2]!, width };
  }

  private call(width: Width, q: Uint8Array, t: Uint8Array, params: AlignParams, inGap: boolean, lo: number, hi: number, counter: BigInt64Array): KernelCall {
    const nq = q.length;
    const nt = t.length;
    if (this.info.length < 3 * (nq + 1)) this.info = new Int32Array(3 * (nq + 1));
    let row: [Int16Array | Int32Array, Int16Array | Int32Array];
    let col: [Int16Array | Int32Array, Int16Array | Int32Array];
    if (width === 16) {
      if (this.rowH16.length < nt + 1) [this.rowH16, this.rowE16] = [new Int16Array(nt + 1), new Int16Array(nt + 1)];
      if (this.colH16.length < nq + 1) [this.colH16, this.colF16] = [new Int16Array(nq + 1), new Int16Array(nq + 1)];
      row = [this.rowH16, this.rowE16];
      col = [this.colH16, this.colF16];
    } else {
      if (this.rowH32.length < nt + 1) [this.rowH32, this.rowE32] = [new Int32Array(nt + 1), new Int32Array(nt + 1)];
      if (this.colH32.length < nq + 1) [this.colH32, this.colF32] = [new Int32Array(nq + 1), new Int32Array(nq + 1)];
      row = [this.rowH32, this.rowE32];
      col = [this.colH32, this.colF32];
    }
    const fn = width === 16 ? this.fn16! : this.fn32;
    const { sub, gaps } = params;
    const args = [q, nq, t, nt, sub.scores, sub.size, gapOpen(gaps), gapExtend(gaps), inGap ? 1 : 0, params.threads ?? 0, row[0], row[1], col[0], col[1], this.info, lo, hi, counter, this.out];
    return { fn, args, cells: nq * nt };
  }
}

/** The pass kernels an aligner needs: its mode's score pass, and for `align` the global pass and the anchored one that finds where a local or semi-global alignment begins. */
function kernelsOf(o: Required<AlignerOptions>): Kernel[] {
  const schedule = o.schedule === 'inter' ? 'simd' : o.schedule;
  const pass = (mode: PassMode, width: Width): PassKernel => ({ kind: 'pass', mode, gaps: o.gaps, substitution: o.substitution, schedule, width });
  const out: Kernel[] = [pass(o.mode, 32)];
  if (o.width !== 32) out.push(pass(o.mode, 16));
  if (o.schedule === 'inter') {
    out.push({ kind: 'many', mode: o.mode, gaps: o.gaps, substitution: o.substitution, width: 32 });
    if (o.width !== 32) out.push({ kind: 'many', mode: o.mode, gaps: o.gaps, substitution: o.substitution, width: 16 });
    if (o.mode === 'local') out.push(...databaseKernels(o));
  }
  if (o.traceback) {
    if (o.mode !== 'global') out.push(pass('global', 32));
    if (o.mode === 'local') out.push(pass('anchored_any', 32));
    if (o.mode === 'semi') out.push(pass('anchored_border', 32));
  }
  return out;
}

/** Checks the parameters against the aligner's kernels; a message for a user. */
export function checkParams(o: Pick<AlignerOptions, 'gaps' | 'substitution'>, params: AlignParams): void {
  checkGaps(params.gaps);
  if (params.gaps.kind !== o.gaps) throw new Error(`this aligner was compiled for ${o.gaps} gaps, got ${params.gaps.kind} ones`);
  if (o.substitution === 'simple' && !simpleScores(params.sub)) {
    throw new Error(`this aligner was compiled for match/mismatch scores; ${params.sub.name ?? 'this substitution'} needs the matrix kernels`);
  }
  const threads = params.threads ?? 0;
  if (!Number.isInteger(threads) || threads < 0) throw new Error(`threads must be a non-negative integer, got ${threads}`);
}

export function checkCodes(seq: Uint8Array, sub: Substitution, what: string): void {
  for (let i = 0; i < seq.length; i++) {
    if (seq[i]! >= sub.size) throw new Error(`${what} has residue code ${seq[i]} at ${i}, outside the alphabet of ${sub.size} codes`);
  }
}

/**
 * Compilations in flight at once: the compiler specialises one module while clang builds
 * the previous ones. One kernel per module, so that every aligner and every test that
 * needs a kernel shares its cached library.
 */
const CONCURRENT_COMPILES = 3;

/** Compiles kernels at -O3 for this machine's CPU, one module each (each cached on its own). */
async function compileKernels(kernels: readonly Kernel[]): Promise<Map<string, NativeFunction>> {
  const unique = [...new Map(kernels.map((k) => [kernelName(k), k])).values()];
  const fns = new Map<string, NativeFunction>();
  let next = 0;
  const worker = async () => {
    while (next < unique.length) {
      const k = unique[next++]!;
      const library: CompiledLibrary = await compile({
        sources: [...librarySources(), { path: 'anyseq_entry.impala', text: entryFunction(k) + '\n' }],
        options: { optLevel: 3 },
      });
      fns.set(kernelName(k), library.fn(kernelName(k)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_COMPILES, unique.length) }, worker));
  return fns;
}

/** Compiles an aligner's kernels at -O3 for this machine's CPU (cached). */
export async function compileAligner(options: AlignerOptions): Promise<Aligner> {
  return (await compileAligners([options]))[0]!;
}

/** Compiles several aligners, their kernels together (shared where they coincide). */
export async function compileAligners(options: readonly AlignerOptions[]): Promise<Aligner[]> {
  const all = options.map((opts): Required<AlignerOptions> => ({ width: opts.schedule === 'inter' && opts.mode === 'local' ? 8 : 16, traceback: true, lookup: 'auto', ...opts }));
  const fns = await compileKernels(all.flatMap(kernelsOf));
  return all.map((o) => makeAligner(o, fns));
}

function makeAligner(o: Required<AlignerOptions>, fns: Map<string, NativeFunction>): Aligner {
  const kernels = kernelsOf(o);
  const fnOf = (k: Kernel | undefined) => (k ? fns.get(kernelName(k)) : undefined);
  const find = (kind: 'pass' | 'many', mode: PassMode, width: Width) => kernels.find((k) => k.kind === kind && k.mode === mode && k.width === width);
  const runner = (mode: PassMode, wide = false) => {
    const fn32 = fnOf(find('pass', mode, 32));
    if (!fn32) throw new Error(`no ${mode} pass was compiled for this aligner`);
    return new PassRunner(wide || o.width === 32 ? undefined : fnOf(find('pass', mode, 16)), fn32, mode !== 'local' && mode !== 'semi');
  };
  const scorePass = runner(o.mode);
  const tracebackPasses = o.traceback
    ? { global: o.mode === 'global' ? scorePass : runner('global', true), anchored: o.mode === 'global' ? undefined : runner(o.mode === 'local' ? 'anchored_any' : 'anchored_border', true) }
    : undefined;
  const many16 = fnOf(find('many', o.mode, 16));
  const many32 = fnOf(find('many', o.mode, 32));
  const scoreSteps = (q: Uint8Array, t: Uint8Array, params: AlignParams) => {
    checkParams(o, params);
    checkCodes(q, params.sub, 'the query');
    checkCodes(t, params.sub, 'the target');
    return scorePass.steps(q, t, params);
  };
  const alignSteps = (q: Uint8Array, t: Uint8Array, params: AlignParams) => {
    if (!tracebackPasses) throw new Error('this aligner was compiled without the traceback kernels (traceback: false)');
    checkParams(o, params);
    checkCodes(q, params.sub, 'the query');
    checkCodes(t, params.sub, 'the target');
    return alignLinearSpace(q, t, o.mode, params, scorePass, tracebackPasses.global, tracebackPasses.anchored);
  };
  return {
    options: o,
    score: (q, t, params) => runSteps(scoreSteps(q, t, params)),
    align: (q, t, params) => runSteps(alignSteps(q, t, params)),
    scoreAsync: async (q, t, params) => runStepsAsync(scoreSteps(q, t, params)),
    alignAsync: async (q, t, params) => runStepsAsync(alignSteps(q, t, params)),
    scoreMany(pairs, params) {
      checkParams(o, params);
      // Each sequence once: a database's pairs share their queries and targets.
      const checked = new Set<Uint8Array>();
      pairs.forEach(([q, t], k) => {
        if (!checked.has(q)) checkCodes(q, params.sub, `the query of pair ${k}`), checked.add(q);
        if (!checked.has(t)) checkCodes(t, params.sub, `the target of pair ${k}`), checked.add(t);
      });
      if (!many32) return pairs.map(([q, t]) => scorePass.run(q, t, params));
      const rest = (list: readonly (readonly [Uint8Array, Uint8Array])[]) => scoreManyInter(list, params, o.width !== 32 ? many16 : undefined, many32);
      const db = kernels.filter((k): k is DbKernel => k.kind === 'db').map((k) => ({ width: k.width, fn: fnOf(k)! }));
      const results = db.length ? scoreManyDatabase(pairs, params, db, rest) : rest(pairs);
      // These kernels count no cells as they go: all at once.
      params.progress?.add(pairs.reduce((sum, [q, t]) => sum + q.length * t.length, 0));
      return results;
    },
  };
}

/** The database kernels of a local inter aligner: 8 bits (when tried first) and 16, each with this CPU's lookup. */
function databaseKernels(o: Required<AlignerOptions>): DbKernel[] {
  const widths = o.width === 8 ? ([8, 16] as const) : o.width === 16 ? ([16] as const) : [];
  return widths.map((width) => ({ kind: 'db', gaps: o.gaps, width, lookup: o.lookup === 'auto' ? databaseLookup(width) : o.lookup }));
}

/**
 * Local scores of many pairs: the pairs of queries with many targets through the database
 * kernels, narrowest first and redone wider on overflow, the rest (and what overflowed 16
 * bits) through `rest`, the one-pair-per-lane kernels.
 */
function scoreManyDatabase(
  pairs: readonly (readonly [Uint8Array, Uint8Array])[],
  params: AlignParams,
  db: readonly { width: 8 | 16; fn: NativeFunction }[],
  rest: (list: readonly (readonly [Uint8Array, Uint8Array])[]) => PassResult[],
): PassResult[] {
  const results: PassResult[] = new Array(pairs.length);
  const perQuery = new Map<Uint8Array, number>();
  for (const [q] of pairs) perQuery.set(q, (perQuery.get(q) ?? 0) + 1);
  let todo: number[] = [];
  const others: number[] = [];
  pairs.forEach(([q, t], k) => (perQuery.get(q)! >= MIN_DATABASE_PAIRS && scoreBound(q.length, t.length, params) <= LIMIT_32 ? todo : others).push(k));
  const open = gapOpen(params.gaps);
  for (const { width, fn } of db) {
    const hi = databaseLimit(width, params.sub, open);
    if (hi === undefined || todo.length === 0) continue;
    const { results: done, again } = runDatabasePass(pairs, todo, { width, fn, hi }, { sub: params.sub, open, extend: gapExtend(params.gaps), threads: params.threads ?? 0 });
    for (const [k, r] of done) results[k] = { ...r, width };
    todo = again;
  }
  const wide = [...others, ...todo];
  if (wide.length > 0) rest(wide.map((k) => pairs[k]!)).forEach((r, n) => (results[wide[n]!] = r));
  return results;
}

/** Pairs per call of an inter-sequence kernel; pairs of similar lengths share a group of lanes. */
function scoreManyInter(pairs: readonly (readonly [Uint8Array, Uint8Array])[], params: AlignParams, fn16: NativeFunction | undefined, fn32: NativeFunction): PassResult[] {
  const results: PassResult[] = new Array(pairs.length);
  for (const [q, t] of pairs) check32Range(q.length, t.length, params);
  // Longest first, so the lanes of a group have similar lengths.
  const order = pairs.map((_, k) => k).sort((a, b) => pairs[b]![0].length + pairs[b]![1].length - (pairs[a]![0].length + pairs[a]![1].length));
  const run = (fn: NativeFunction, idx: number[], lo: number, hi: number): Int32Array => {
    const qOff = new Int32Array(idx.length + 1);
    const tOff = new Int32Array(idx.length + 1);
    idx.forEach((k, n) => {
      qOff[n + 1] = qOff[n]! + pairs[k]![0].length;
      tOff[n + 1] = tOff[n]! + pairs[k]![1].length;
    });
    const qs = new Uint8Array(qOff[idx.length]!);
    const ts = new Uint8Array(tOff[idx.length]!);
    idx.forEach((k, n) => {
      qs.set(pairs[k]![0], qOff[n]!);
      ts.set(pairs[k]![1], tOff[n]!);
    });
    const out = new Int32Array(4 * idx.length);
    fn(qs, qOff, ts, tOff, idx.length, params.sub.scores, params.sub.size, gapOpen(params.gaps), gapExtend(params.gaps), params.threads ?? 0, lo, hi, out);
    return out;
  };
  const r16 = fn16 ? range16(params) : undefined;
  let wide = order;
  if (r16 && fn16) {
    const fits = order.filter((k) => scoreBound(0, Math.max(pairs[k]![0].length, pairs[k]![1].length), params) < r16.hi);
    const out = run(fn16, fits, r16.lo, r16.hi);
    const again: number[] = [];
    fits.forEach((k, n) => {
      if (out[4 * n + 3] !== 0) again.push(k);
      else results[k] = { score: out[4 * n]!, endQ: out[4 * n + 1]!, endT: out[4 * n + 2]!, width: 16 };
    });
    const fitSet = new Set(fits);
    wide = [...order.filter((k) => !fitSet.has(k)), ...again];
  }
  if (wide.length > 0) {
    const out = run(fn32, wide, -LIMIT_32, LIMIT_32);
    wide.forEach((k, n) => {
      results[k] = { score: out[4 * n]!, endQ: out[4 * n + 1]!, endT: out[4 * n + 2]!, width: 32 };
    });
  }
  return results;
}
