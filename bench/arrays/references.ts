// The references libs/arrays and libs/multigrid are measured against: hand-written C
// (reference.c: clang-19 -O3 -march=native, OpenMP on every core) and NumPy (reference.py,
// Debian's python3-numpy), for Game of Life, PDE1 and the V-cycle. One implementation of
// building and running them on inputs in memory, shared by bench/arrays/run.ts and the
// apps' --compare.
//
// Input shapes (all arrays row-major):
//   life:   { board: Uint8Array (width × height, 1 alive, 0 dead), width, height, steps } → the board after `steps` generations (torus)
//   pde1:   { u: Float64Array, f: Float64Array (n × n × n each), n, iterations } → u after `iterations` red-black iterations
//   vcycle: { rhs: Float64Array (n × n), n, levels, cycles, ssteps, merge, firstLevel? } → the solution from a zero guess after
//           `cycles` V-cycles and the residual norms before and after each cycle; with firstLevel the finest level's work once
//           (smoothing, residual and restriction, interpolation, smoothing) and no norms
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../../libs/image/bench.ts';
import { buildExecutable, byFile, cacheDir, type DebianPackage, exec, installMissing, missingPackages, notInstalled } from '../shared/native.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

export const IMPLS = ['c', 'numpy'] as const;
export type Impl = (typeof IMPLS)[number];
export type Program = 'life' | 'pde1' | 'vcycle';

export const IMPL_TITLES: Record<Impl, string> = { c: 'C (clang-19 -O3 -march=native, OpenMP)', numpy: 'NumPy' };

export interface LifeInput { board: Uint8Array; width: number; height: number; steps: number }
export interface Pde1Input { u: Float64Array; f: Float64Array; n: number; iterations: number }
export interface VcycleInput { rhs: Float64Array; n: number; levels: number; cycles: number; ssteps: number; merge: boolean; firstLevel?: boolean }
export interface VcycleOutput { solution: Float64Array; norms: number[] }

type InputOf<P extends Program> = P extends 'life' ? LifeInput : P extends 'pde1' ? Pde1Input : VcycleInput;
type OutputOf<P extends Program> = P extends 'life' ? Uint8Array : P extends 'pde1' ? Float64Array : VcycleOutput;

export interface ReferenceRun<P extends Program> {
  output: OutputOf<P>;
  /** Milliseconds of each run after the warm-up, input copies and file I/O excluded. */
  times: number[];
  medianMs: number;
}

/** The Debian packages each implementation needs. */
const PACKAGES: Record<Impl, DebianPackage[]> = {
  c: [
    { apt: 'clang-19', present: async () => (await exec('clang-19', ['--version'])).ok },
    byFile('libomp-19-dev', '/usr/lib/llvm-19/lib/clang/19/include/omp.h'),
  ],
  numpy: [byFile('python3-numpy', '/usr/lib/python3/dist-packages/numpy/__init__.py')],
};

/** Installs what `impls` need where running as root (bench/shared/native.ts); returns the implementations still missing something. */
export async function installReferences(label: string, impls: readonly Impl[]): Promise<Impl[]> {
  const still = await installMissing(label, impls.flatMap((i) => PACKAGES[i]));
  return impls.filter((i) => PACKAGES[i].some((p) => still.includes(p.apt)));
}

/** Throws the one line naming what to install when `impl` cannot run here. */
export async function checkReference(impl: Impl): Promise<void> {
  const missing = await missingPackages(PACKAGES[impl]);
  if (missing.length > 0) throw notInstalled(IMPL_TITLES[impl], missing);
}

const C_FLAGS = ['-O3', '-march=native', '-fopenmp'];
let cBuild: Promise<string> | undefined;

/** The C reference, built once per source, compiler and CPU into .cache/bench. */
function cExecutable(): Promise<string> {
  cBuild ??= (async () => {
    const source = path.join(here, 'reference.c');
    const dir = await cacheDir('arrays', [source], `clang-19 ${C_FLAGS.join(' ')}\0${(await exec('clang-19', ['--version'])).stdout}`);
    return buildExecutable('clang-19', dir, 'reference', [...C_FLAGS, source, '-lm']);
  })();
  return cBuild;
}

function bytesOf(a: Uint8Array | Float64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** The file the program reads and its command-line arguments after RUNS IN OUT. */
function encode(program: Program, input: LifeInput | Pde1Input | VcycleInput): { data: Uint8Array[]; args: number[] } {
  if (program === 'life') {
    const i = input as LifeInput;
    if (i.board.length !== i.width * i.height) throw new Error(`a ${i.width}×${i.height} board has ${i.width * i.height} cells, not ${i.board.length}`);
    return { data: [i.board], args: [i.width, i.height, i.steps] };
  }
  if (program === 'pde1') {
    const i = input as Pde1Input;
    if (i.u.length !== i.n ** 3 || i.f.length !== i.n ** 3) throw new Error(`u and f must hold ${i.n}³ values`);
    return { data: [bytesOf(i.u), bytesOf(i.f)], args: [i.n, i.iterations] };
  }
  const i = input as VcycleInput;
  if (i.rhs.length !== i.n * i.n) throw new Error(`rhs must hold ${i.n}×${i.n} values, not ${i.rhs.length}`);
  return { data: [bytesOf(i.rhs)], args: [i.n, i.levels, i.cycles, i.ssteps, i.merge ? 1 : 0, i.firstLevel ? 1 : 0] };
}

function decode(program: Program, input: LifeInput | Pde1Input | VcycleInput, file: Buffer): Uint8Array | Float64Array | VcycleOutput {
  if (program === 'life') return new Uint8Array(file);
  const all = new Float64Array(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
  if (program === 'pde1') return all;
  const n = (input as VcycleInput).n;
  return { solution: all.slice(0, n * n), norms: [...all.slice(n * n)] };
}

/** Runs `program` with `impl` `runs` times after a warm-up run on `input` (each run from the same input) and returns the last output and the times. */
export async function runReference<P extends Program>(program: P, impl: Impl, input: InputOf<P>, runs = 1): Promise<ReferenceRun<P>> {
  await checkReference(impl);
  const { data, args } = encode(program, input);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'arrays-ref-'));
  try {
    const inFile = path.join(dir, 'in.bin');
    const outFile = path.join(dir, 'out.bin');
    await writeFile(inFile, Buffer.concat(data));
    // One more run than asked, whose time is dropped: the first starts OpenMP's threads or NumPy's allocator.
    const argv = [program, String(runs + 1), inFile, outFile, ...args.map(String)];
    const r = impl === 'c' ? await exec(await cExecutable(), argv) : await exec('/usr/bin/python3', [path.join(here, 'reference.py'), ...argv]);
    if (!r.ok) throw new Error(`the ${IMPL_TITLES[impl]} reference of ${program} failed: ${r.stderr.trim().split('\n').pop()}`);
    const times = r.stdout.trim().split('\n').map(Number).slice(1);
    return { output: decode(program, input, await readFile(outFile)) as OutputOf<P>, times, medianMs: median(times) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The largest difference between two f64 arrays relative to the largest magnitude of `expected` (0 when both are zero). */
export function relativeDifference(actual: Float64Array, expected: Float64Array): number {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < expected.length; i++) {
    diff = Math.max(diff, Math.abs(actual[i]! - expected[i]!));
    scale = Math.max(scale, Math.abs(expected[i]!));
  }
  return scale === 0 ? diff : diff / scale;
}
