// Shared by the runtime platform tests: builds harness.c against the runtime object the
// driver builds (the one every artifact links), runs it on a chosen device, and computes
// what each of its cases must print with independent TypeScript references.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { buildRuntime } from '../../compiler/src/driver/runtime-build.ts';
import { findToolchain, runTool } from '../../compiler/src/driver/toolchain.ts';
import { run, type RunResult } from '../driver/helpers.ts';
import { xorshift32 } from '../../libs/shared/random.ts';

const here = path.join(repoRoot, 'tests', 'runtime');

/**
 * Compiles a C test program (by default this folder's harness.c) against the runtime into
 * `dir`, named after its source, and returns its path.
 */
export async function buildHarness(dir: string, source = path.join(here, 'harness.c')): Promise<string> {
  const toolchain = findToolchain();
  const runtime = await buildRuntime(toolchain);
  await mkdir(dir, { recursive: true });
  const output = path.join(dir, path.basename(source, '.c'));
  await runTool(toolchain.clang, [
    '-std=c11', '-D_POSIX_C_SOURCE=200809L', '-O1', '-Wall', '-Wextra', '-Werror', '-I', path.join(repoRoot, 'runtime'),
    source, ...runtime.objects, `--ld-path=${toolchain.lld}`, ...runtime.linkFlags, '-o', output,
  ]);
  return output;
}

/** The PTX of kernels.cu (clang's NVPTX back end, no CUDA headers needed), written into `dir`. */
export async function buildPtx(dir: string): Promise<string> {
  const output = path.join(dir, 'kernels.ptx');
  await runTool(findToolchain().clang, [
    '--cuda-device-only', '--cuda-gpu-arch=sm_52', '-nocudainc', '-nocudalib', '-Wno-unknown-cuda-version', '-O2', '-S',
    '-x', 'cuda', path.join(here, 'kernels.cu'), '-o', output,
  ]);
  return output;
}

/** Runs the harness's cases with ANYDSL_DEVICE (and any other variables) set as given. */
export function runHarness(harness: string, cases: readonly string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete merged[k];
    else merged[k] = v;
  }
  return run(harness, cases, { env: merged });
}

/** The harness's generator: xorshift32 from seed (1 for 0). */
export function inputs(n: number, seed: number): Uint32Array {
  const a = new Uint32Array(n);
  const next = xorshift32(seed);
  for (let i = 0; i < n; i++) a[i] = next() * 2 ** 32;
  return a;
}

export interface Case {
  kernel: 'elementwise' | 'reduce' | 'divergent';
  n: number;
  seed: number;
  block: number;
}

export const caseArg = (c: Case): string => `${c.kernel}:${c.n}:${c.seed}:${c.block}`;

/** The line the harness prints for a case, computed without any device. */
export function expectedLine(c: Case): string {
  const a = inputs(c.n, c.seed);
  let values: number[];
  if (c.kernel === 'elementwise') {
    const b = inputs(c.n, c.seed + 1);
    values = Array.from(a, (x, i) => (Math.imul(x, c.seed) + b[i]!) >>> 0);
  } else if (c.kernel === 'reduce') {
    const groups = c.n === 0 ? 1 : Math.ceil(c.n / c.block);
    values = new Array<number>(groups).fill(0);
    a.forEach((x, i) => (values[Math.floor(i / c.block)] = (values[Math.floor(i / c.block)]! + x) >>> 0));
  } else {
    values = Array.from(a, (v) => collatz(v % 1000));
  }
  return [c.kernel, ...values].join(' ');
}

function collatz(x: number): number {
  if (x % 7 === 0) return -7;
  let steps = 0;
  while (x !== 1 && x !== 0) {
    if (steps === 60) return -1;
    x = x & 1 ? 3 * x + 1 : x / 2;
    steps++;
  }
  return steps;
}

/** What `copies:N:SEED` prints: the input rotated by half its length. */
export function expectedCopies(n: number, seed: number): string {
  const a = inputs(n, seed);
  const half = Math.floor(n / 2);
  return ['copies', ...Array.from(a, (_, i) => a[(i + half) % n])].join(' ');
}

/** What `memory-kinds:N:SEED` prints: unified c = a * 3 + i, then the input back through host memory. */
export function expectedMemoryKinds(n: number, seed: number): string {
  const a = inputs(n, seed);
  return [['unified', ...Array.from(a, (x, i) => (Math.imul(x, 3) + i) >>> 0)].join(' '), ['host', ...a].join(' ')].join('\n');
}
