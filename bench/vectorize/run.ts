// Benchmarks the CPU schedules on three kernels: Mandelbrot (2048², f32, at most 256
// iterations), saxpy (16M f32) and a 3×3 box blur by rows (4096² f32). Each kernel
// (mandelbrot.impala, saxpy.impala, blur.impala) is written once against the loop
// combinators `rows`, `cols` and `each`; a schedule module defines them, and the
// partial evaluation that follows turns each combination into its own code:
//
//   scalar         rows = cols = each = range                       one thread
//   vectorize(8)   cols = each = vectorize(8, …), rows = range      one thread, SPMD lanes
//   vectorize(16)  likewise with 16 lanes
//   parallel(0)    rows = each = parallel(0, …), cols = range       all cores (TBB)
//
// Every variant is built at -O3 for the host CPU through compile() and called
// through koffi: one warm-up, then the median of `--runs` (default 5) timed
// calls, on the same arrays for all variants of a kernel and in rounds of one
// call per variant, so that neither the placement of the arrays nor a change in
// the load of a shared machine favours any of them (see `time`). Results are
// checked against the scalar variant bit for bit. A variant that does not
// build reads 'n/a (build failed)'; no number is ever made up. Prints one
// table and writes the raw numbers to out/bench/vectorize.json (or --json FILE).
//
//   npx tsx bench/vectorize/run.ts [--runs N] [--json FILE]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CompiledLibrary, CompileFailure, compile, type NativeFunction } from '@anydsl/compiler';
import { median } from '../../libs/image/bench.ts';
import { xorshift32 } from '../../libs/shared/random.ts';
import { benchArgs, benchFail } from '../shared/cli.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

const cli = benchArgs(import.meta.url, {
  runs: { type: 'string', default: '5' },
  json: { type: 'string', default: path.join(root, 'out', 'bench', 'vectorize.json') },
});
const runs = Number(cli.runs);
if (!Number.isInteger(runs) || runs < 1) benchFail(import.meta.url, `--runs must be a positive integer, not '${cli.runs}'`);

// ------------------------------------------------------------ schedules

interface Variant {
  id: 'scalar' | 'vectorize8' | 'vectorize16' | 'parallel';
  title: string;
  /** Impala source defining `rows`, `cols` and `each`. */
  schedule: string;
}

const loop = (name: string, body: string): string => `fn @${name}(a: i32, b: i32, f: fn(i32) -> ()) -> () { ${body} }`;

function variant(id: Variant['id'], title: string, rows: string, cols: string, each: string): Variant {
  return { id, title, schedule: [loop('rows', rows), loop('cols', cols), loop('each', each)].join('\n') };
}

const variants: Variant[] = [
  variant('scalar', 'scalar', 'range(a, b, f)', 'range(a, b, f)', 'range(a, b, f)'),
  variant('vectorize8', 'vectorize(8)', 'range(a, b, f)', 'vectorize(8, a, b, f)', 'vectorize(8, a, b, f)'),
  variant('vectorize16', 'vectorize(16)', 'range(a, b, f)', 'vectorize(16, a, b, f)', 'vectorize(16, a, b, f)'),
  variant('parallel', 'parallel(0)', 'parallel(0, a, b, f)', 'range(a, b, f)', 'parallel(0, a, b, f)'),
];

// ------------------------------------------------------------ kernels

/** One call of a kernel on prepared inputs; `output` is what the variants must agree on. */
interface Workload {
  /** Resets the inputs the kernel overwrites, outside the timed region. */
  reset(): void;
  call(fn: NativeFunction): void;
  output(): Int32Array | Float32Array;
}

interface Kernel {
  id: string;
  title: string;
  file: string;
  symbol: string;
  workload(): Workload;
}

/** Deterministic inputs in [0, 1). */
function pseudoRandom(n: number, seed: number): Float32Array {
  const a = new Float32Array(n);
  const next = xorshift32(seed);
  for (let i = 0; i < n; i++) a[i] = Math.floor(next() * 2 ** 24) / 2 ** 24;
  return a;
}

const kernels: Kernel[] = [
  {
    id: 'mandelbrot',
    title: 'mandelbrot 2048² f32',
    file: 'mandelbrot.impala',
    symbol: 'mandelbrot',
    workload() {
      const out = new Int32Array(2048 * 2048);
      return { reset: () => out.fill(0), call: (fn) => fn(out), output: () => out };
    },
  },
  {
    id: 'saxpy',
    title: 'saxpy 16M f32',
    file: 'saxpy.impala',
    symbol: 'saxpy',
    workload() {
      const n = 16 * 1024 * 1024;
      const x = pseudoRandom(n, 1);
      const y0 = pseudoRandom(n, 2);
      const y = new Float32Array(n);
      return { reset: () => y.set(y0), call: (fn) => fn(n, 2.5, x, y), output: () => y };
    },
  },
  {
    id: 'blur',
    title: 'box blur 3×3 4096² f32',
    file: 'blur.impala',
    symbol: 'blur',
    workload() {
      const w = 4096;
      const src = pseudoRandom(w * w, 3);
      const dst = new Float32Array(w * w);
      return { reset: () => dst.fill(0), call: (fn) => fn(w, w, src, dst), output: () => dst };
    },
  },
];

// ------------------------------------------------------------ measuring

type Cell =
  | { status: 'ok'; timesMs: number[]; medianMs: number; speedup: number; matchesScalar: boolean; mismatches: number }
  | { status: 'failed'; reason: string };

function mismatches(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) n++;
  return n + Math.abs(a.length - b.length);
}

async function build(kernel: Kernel, v: Variant): Promise<CompiledLibrary> {
  const text = readFileSync(path.join(here, kernel.file), 'utf8');
  return compile({
    sources: [
      { path: `bench/vectorize/${kernel.file}`, text },
      { path: `bench/vectorize/schedule-${v.id}.impala`, text: v.schedule },
    ],
    options: { optLevel: 3 },
  });
}

function firstLine(s: string): string {
  return s.split('\n').find((l) => l.trim() !== '') ?? s;
}

/** A variant built and run once, the warm-up: its output is what every timed call computes again. */
interface Prepared {
  fn: NativeFunction;
  output: Int32Array | Float32Array;
}

async function prepare(kernel: Kernel, v: Variant, work: Workload): Promise<Prepared | { failed: string }> {
  let lib: CompiledLibrary;
  try {
    lib = await build(kernel, v);
  } catch (e) {
    if (!(e instanceof CompileFailure)) throw e;
    return { failed: e.rendered };
  }
  const fn = lib.fn(kernel.symbol);
  work.reset();
  work.call(fn);
  return { fn, output: work.output().slice() };
}

/**
 * The timed calls of each variant on the same arrays, in rounds of one call per
 * variant. The machine may be shared: a change in its load then touches every
 * variant alike instead of the ones that happen to run during it. Arrays of
 * their own would give each variant its own physical pages, and with them
 * cache and DRAM conflicts that differ by as much as the variants do.
 */
function time(prepared: readonly Prepared[], work: Workload): number[][] {
  const times = prepared.map((): number[] => []);
  for (let r = 0; r < runs; r++) {
    prepared.forEach((p, k) => {
      work.reset();
      const start = performance.now();
      work.call(p.fn);
      times[k]!.push(performance.now() - start);
    });
  }
  return times;
}

function show(cell: Cell): string {
  switch (cell.status) {
    case 'failed': return 'n/a (build failed)';
    case 'ok': {
      const t = `${cell.medianMs.toFixed(1)} ms (${cell.speedup.toFixed(2)}×)`;
      return `${t}${cell.matchesScalar ? '' : ` WRONG (${cell.mismatches} differ)`}`;
    }
  }
}

function table(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

// ------------------------------------------------------------ main

const cores = os.availableParallelism();
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(`${cpu}, ${cores} cores (parallel(0) uses all of them); -O3 for this CPU; median of ${runs} runs after one warm-up`);

const results: Record<string, Record<string, Cell>> = {};
let wrong = false;
const rows: string[][] = [];
for (const kernel of kernels) {
  const work = kernel.workload();
  const prepared = new Map<Variant['id'], Prepared>();
  const cells: Record<string, Cell> = {};
  for (const v of variants) {
    process.stderr.write(`${kernel.id} ${v.title}…\n`);
    const p = await prepare(kernel, v, work);
    if ('failed' in p) {
      if (v.id === 'scalar') throw new Error(`the scalar ${kernel.id} does not build:\n${p.failed}`);
      process.stderr.write(`${kernel.id} ${v.title} does not build: ${firstLine(p.failed)}\n`);
      cells[v.id] = { status: 'failed', reason: p.failed };
    } else {
      prepared.set(v.id, p);
    }
  }
  const ready = [...prepared];
  const times = time(ready.map(([, p]) => p), work);
  const reference = prepared.get('scalar')!.output;
  const scalarMs = median(times[ready.findIndex(([id]) => id === 'scalar')]!);
  ready.forEach(([id, p], k) => {
    const bad = mismatches(p.output, reference);
    if (bad) wrong = true;
    const medianMs = median(times[k]!);
    cells[id] = { status: 'ok', timesMs: times[k]!, medianMs, speedup: scalarMs / medianMs, matchesScalar: bad === 0, mismatches: bad };
  });
  results[kernel.id] = cells;
  rows.push([kernel.title, ...variants.map((v) => show(cells[v.id]!))]);
}

console.log(table(['kernel', ...variants.map((v) => v.title)], rows));

mkdirSync(path.dirname(cli.json), { recursive: true });
writeFileSync(
  cli.json,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: { cpu, cores, platform: `${os.platform()} ${os.arch()}`, node: process.version },
      optLevel: 3,
      runs,
      variants: variants.map((v) => ({ id: v.id, title: v.title, schedule: v.schedule })),
      kernels: kernels.map((k) => ({ id: k.id, title: k.title, results: results[k.id] })),
    },
    null,
    2,
  )}\n`,
);
console.log(`raw numbers: ${path.relative(process.cwd(), cli.json) || cli.json}`);
if (wrong) process.exitCode = 1;
