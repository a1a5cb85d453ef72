// The GPU schedule (libs/anyseq/gpu.impala) run for real on OpenCL (PoCL's CPU device on a
// machine without a GPU) against the TypeScript reference and the CPU's scalar kernels:
// every mode × gap model on generated pairs (empty, length 1, very unequal lengths) with
// small tiles, so that short pairs cross many tiles, stripes and blocks and end inside
// them; fixed lengths on both sides of the tile's rows and columns; BLOSUM62 through the
// matrix scheme; and the tiles the app uses on real windows. The same kernels compiled for
// CUDA must give PTX that `ptxas -arch=sm_90` assembles (the build runs ptxas and fails on
// its errors). Skipped with the reason where there is no OpenCL device or no ptxas.
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { main as align } from '../../apps/align/src/cli.ts';
import { findPtxas } from '../../compiler/src/driver/device-code.ts';
import { compileToLLVM } from '../../compiler/src/driver/pipeline.ts';
import { compileGpuAligners, GPU_TILES, type GpuAligner, type GpuKernel, type GpuTiles, gpuModuleSources } from '../../libs/anyseq/gpu.ts';
import { type Aligner, compileAligners } from '../../libs/anyseq/host.ts';
import { referenceScore } from '../../libs/anyseq/reference.ts';
import { DNA_ALPHABET, encode, type Gaps, MODES, simpleSubstitution } from '../../libs/anyseq/scoring.ts';
import { xorshift32 } from '../../libs/shared/random.ts';
import { deviceMissing } from '../image/gpu-cases.ts';
import { BLOSUM62, dnaFile, dnaScores, expectReference, gapsOf, pairs, PROTEIN_SIZE } from './kernels-support.ts';
import { runApp, scratch } from './support.ts';

/** OpenCL device 0 and CUDA device 0 (runtime device numbers). */
const OPENCL_0 = 2;
const CUDA_0 = 1;
/** Tiles of 2 stripes of 4 rows and 12 columns. */
const SMALL: GpuTiles = { block: 4, stripes: 2, tileW: 12 };
const GAPS = ['linear', 'affine'] as const;

const SIMPLE = MODES.flatMap((mode) => GAPS.map((gaps) => ({ mode, gaps, substitution: 'simple' as const })));
const MATRIX = [{ mode: 'local' as const, gaps: 'affine' as const, substitution: 'matrix' as const }, { mode: 'semi' as const, gaps: 'linear' as const, substitution: 'matrix' as const }];
const on = (device: number) => (k: Omit<GpuKernel, 'device'>): GpuKernel => ({ ...k, device });

const missing = await deviceMissing('opencl');
const label = (k: Omit<GpuKernel, 'device'>) => `${k.mode} ${k.gaps} ${k.substitution}`;

describe.skipIf(missing !== null)(`the GPU schedule on OpenCL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  const small = new Map<string, GpuAligner>();
  const cpu = new Map<string, Aligner>();
  let app: GpuAligner;
  let mtHuman: Uint8Array;
  let mtOrangutan: Uint8Array;

  beforeAll(async () => {
    const kernels = [...SIMPLE, ...MATRIX];
    const [gpu, [wide], scalar] = await Promise.all([
      compileGpuAligners(kernels.map(on(OPENCL_0)), SMALL),
      compileGpuAligners([on(OPENCL_0)({ mode: 'local', gaps: 'affine', substitution: 'simple' })]),
      compileAligners(SIMPLE.map((k) => ({ ...k, schedule: 'scalar' as const, width: 32 as const, traceback: false }))),
    ]);
    kernels.forEach((k, n) => small.set(label(k), gpu[n]!));
    SIMPLE.forEach((k, n) => cpu.set(label(k), scalar[n]!));
    app = wide!;
    mtHuman = await dnaFile('mt_human.fa');
    mtOrangutan = await dnaFile('mt_orangutan.fa');
  }, 900_000);

  it.each(SIMPLE.map((k) => [label(k), k] as const))('%s: scores and end cells equal the reference and the CPU kernel on generated pairs', (name, k) => {
    fc.assert(
      fc.property(pairs(5), gapsOf(k.gaps), dnaScores, ([q, t], gaps, sub) => {
        const got = small.get(name)!.score(q, t, { gaps, sub });
        expectReference(got, q, t, k.mode, { gaps, sub });
        expect(got).toEqual(cpu.get(name)!.score(q, t, { gaps, sub }));
      }),
      { numRuns: 25, seed: 16 },
    );
  });

  it('every mode and gap model at lengths on both sides of the tile rows (8) and columns (12)', () => {
    const next = xorshift32(6);
    const seq = (n: number) => Uint8Array.from({ length: n }, () => next() % 4);
    const sub = simpleSubstitution(DNA_ALPHABET, 2, -3);
    const lengths = [[0, 0], [0, 13], [9, 0], [1, 1], [1, 40], [40, 1], [8, 12], [16, 24], [7, 11], [17, 25], [3, 100], [100, 3], [33, 37]] as const;
    for (const k of SIMPLE) {
      const gaps: Gaps = k.gaps === 'linear' ? { kind: 'linear', gap: 3 } : { kind: 'affine', open: 5, extend: 2 };
      for (const [n, m] of lengths) {
        const [q, t] = [seq(n), seq(m)];
        expectReference(small.get(label(k))!.score(q, t, { gaps, sub }), q, t, k.mode, { gaps, sub });
      }
    }
  });

  it.each(MATRIX.map((k) => [label(k), k] as const))('%s: BLOSUM62 scores equal the reference on generated protein pairs', (name, k) => {
    fc.assert(
      fc.property(pairs(PROTEIN_SIZE, 80), gapsOf(k.gaps), ([q, t], gaps) => {
        expectReference(small.get(name)!.score(q, t, { gaps, sub: BLOSUM62 }), q, t, k.mode, { gaps, sub: BLOSUM62 });
      }),
      { numRuns: 20, seed: 61 },
    );
  });

  it(`the app's tiles (${GPU_TILES.stripes} stripes of ${GPU_TILES.block} rows, ${GPU_TILES.tileW} columns) on mitochondria windows, and the device's times`, () => {
    const sub = simpleSubstitution(DNA_ALPHABET, 2, -3);
    const gaps: Gaps = { kind: 'affine', open: 5, extend: 2 };
    const before = [app.kernelMicros(), app.copyMicros()];
    for (const [at, n, m] of [[0, 300, 520], [9000, 1, 300], [3000, 300, 2]] as const) {
      const q = mtHuman.subarray(at, at + n);
      const t = mtOrangutan.subarray(at + 7, at + 7 + m);
      expectReference(app.score(q, t, { gaps, sub }), q, t, 'local', { gaps, sub });
    }
    expect(app.deviceName()).toMatch(/^OpenCL 0: /);
    expect(app.kernelMicros()).toBeGreaterThan(before[0]!);
    expect(app.copyMicros()).toBeGreaterThan(before[1]!);
  });

  it('align --device opencl --score-only: the scores of the reference, the device in the summary, kernel and copy time with --bench', async () => {
    // Local affine with the default DNA scoring: the kernel the tiles test compiled (cached).
    const tmp = scratch('anyseq-gpu-');
    try {
      const next = xorshift32(3);
      const seqs = [300, 1, 90].map((n) => Array.from({ length: n }, () => 'ACGT'[next() % 4]).join(''));
      const a = tmp.file('a.fa', `>x\n${seqs[0]}\n>y\n${seqs[1]}\n`);
      const b = tmp.file('b.fa', `>z\n${seqs[2]}\n`);
      const r = await runApp(align, [a, b, '--device', 'opencl', '--score-only', '--mode', 'local', '--format', 'tsv', '--bench', '1']);
      expect(r.code).toBe(0);
      const sub = simpleSubstitution(DNA_ALPHABET, 2, -3);
      const want = [seqs[0]!, seqs[1]!].map((q) => referenceScore(encode(q, sub), encode(seqs[2]!, sub), 'local', { kind: 'affine', open: 5, extend: 2 }, sub).score);
      expect(r.out.split('\n').filter((l) => /^[xy]\tz\t/.test(l)).map((l) => Number(l.split('\t')[2]))).toEqual(want);
      expect(r.err).toMatch(/AnySeq gpu on OpenCL 0: .*GCUPS/);
      expect(r.err).toMatch(/on the device: kernels [\d.]+ ms .* copies [\d.]+ ms/);
      const traceback = await runApp(align, [a, b, '--device', 'opencl', '--mode', 'local']);
      expect(traceback.code).toBe(1);
      expect(traceback.err).toBe('align: --device with a GPU computes scores only: add --score-only, or align on the host (--device host)\n');
    } finally {
      rmSync(tmp.dir, { recursive: true, force: true });
    }
  });

  it('refuses residues outside the alphabet and the wrong gap model, in one line', () => {
    const sub = simpleSubstitution(DNA_ALPHABET, 2, -3);
    const al = small.get('global linear simple')!;
    expect(() => al.score(Uint8Array.of(9), Uint8Array.of(0), { gaps: { kind: 'linear', gap: 2 }, sub })).toThrow(/^the query has residue code 9 at 0/);
    expect(() => al.score(Uint8Array.of(0), Uint8Array.of(0), { gaps: { kind: 'affine', open: 3, extend: 1 }, sub })).toThrow(/compiled for linear gaps/);
  });
});

const ptxas = findPtxas();

describe.skipIf(!ptxas)(`the GPU schedule for CUDA${ptxas ? '' : ' (skipped: ptxas is not on the PATH)'}`, () => {
  it('compiles every mode × gap model and the matrix scheme to PTX that ptxas -arch=sm_90 accepts, tiles in shared memory', () => {
    // compileToLLVM assembles the PTX with ptxas and fails on its errors.
    const r = compileToLLVM(gpuModuleSources([...SIMPLE, ...MATRIX].map(on(CUDA_0))), { optLevel: 3 });
    if (!r.ok) throw new Error(r.diagnostics.map((d) => `${d.span?.file ?? ''}:${d.span?.line ?? '?'}: ${d.message}`).join('\n'));
    const ptx = r.device.find((d) => d.target === 'nvvm')!;
    expect(ptx.code).toMatch(/\.target sm_90/);
    // Per kernel: the borders' set-up and the tiles' launch.
    expect(ptx.code.match(/\.entry /g)).toHaveLength(2 * (SIMPLE.length + MATRIX.length));
    expect(ptx.code).toMatch(/\.shared /);
    expect(ptx.code).toMatch(/bar\.sync/);
  }, 600_000);
});
