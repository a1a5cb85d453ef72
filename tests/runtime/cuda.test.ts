// The runtime's CUDA platform, through the harness (harness.c) with the kernels of
// kernels.cu as PTX, against two drivers:
// - the NVIDIA driver, where there is one (else skipped, with the runtime's reason, after
//   checking that the runtime gives exactly that reason): the PTX JIT-loaded and run;
// - fake-cuda.c, a host emulation of the driver API built as libcuda.so.1 here, so that the
//   runtime's CUDA glue (loading, device naming, memory, copies at offsets, launch geometry
//   and argument passing, kernel time, every error path) runs on every machine.
// Results are compared with the TypeScript references the OpenCL test uses.
import fc from 'fast-check';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { findToolchain, runTool } from '../../compiler/src/driver/toolchain.ts';
import { useTempDir } from '../driver/helpers.ts';
import { buildHarness, buildPtx, type Case, caseArg, expectedCopies, expectedLine, expectedMemoryKinds, runHarness } from './support.ts';

const tmp = useTempDir('anydsl-runtime-cuda-');
let harness = '';
let ptx = '';
let noCuda: string | null = null;
let fakeDir = '';

beforeAll(async () => {
  const dir = path.join(tmp(), 'bin');
  harness = await buildHarness(dir);
  ptx = await buildPtx(dir);
  fakeDir = path.join(tmp(), 'fake-driver');
  await mkdir(fakeDir, { recursive: true });
  await runTool(findToolchain().clang, [
    '-shared', '-fPIC', '-O1', '-Wall', '-Wextra', '-Werror', path.join(repoRoot, 'tests', 'runtime', 'fake-cuda.c'),
    '-o', path.join(fakeDir, 'libcuda.so.1'),
  ]);
  const probe = await runHarness(harness, ['device'], { ANYDSL_DEVICE: 'cuda' });
  if (probe.code !== 0) noCuda = probe.stderr.trim();
});

it('says why there is no CUDA device, naming what to install, or names the GPU', async () => {
  const r = await runHarness(harness, ['device'], { ANYDSL_DEVICE: 'cuda' });
  if (noCuda) {
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^anydsl runtime error: ANYDSL_DEVICE "cuda": no CUDA( device)?: .*(install|update) the NVIDIA driver|^anydsl runtime error: ANYDSL_DEVICE "cuda": no CUDA device: /);
  } else {
    expect(r.stdout).toMatch(/^device 1 CUDA 0: .* \(sm_\d+\)\n$/);
  }
});

const drivers = [
  { name: 'the NVIDIA driver', fake: false },
  { name: 'a host emulation of the driver (fake-cuda.c)', fake: true },
];

describe.each(drivers)('CUDA through $name', ({ fake }) => {
  const env = () => ({
    ANYDSL_DEVICE: 'cuda',
    HARNESS_PTX: ptx,
    ...(fake ? { LD_LIBRARY_PATH: [fakeDir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') } : {}),
  });

  function needDriver(ctx: TestContext): void {
    if (!fake && noCuda) {
      console.warn(`skipped: ${noCuda}`);
      ctx.skip();
    }
  }

  async function lines(cases: readonly string[]): Promise<string[]> {
    const r = await runHarness(harness, cases, env());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return r.stdout.trimEnd().split('\n');
  }

  it('names the device with its compute capability', async (ctx) => {
    needDriver(ctx);
    const [line] = await lines(['device']);
    expect(line).toMatch(fake ? /^device 1 CUDA 0: Fake GPU .* \(sm_90\)$/ : /^device 1 CUDA 0: .* \(sm_\d+\)$/);
  });

  it('computes elementwise, shared-memory reduction and divergent kernels like the references', async (ctx) => {
    needDriver(ctx);
    const cases: Case[] = fc.sample(
      fc.record({
        kernel: fc.constantFrom('elementwise' as const, 'reduce' as const, 'divergent' as const),
        n: fc.integer({ min: 0, max: 5000 }),
        seed: fc.integer({ min: 1, max: 0x7fffffff }),
        block: fc.constantFrom(1, 32, 64, 128, 256),
      }),
      { numRuns: 30, seed: 1 },
    );
    const got = await lines([...cases.map(caseArg), 'kernel-time']);
    cases.forEach((c, i) => expect(got[i], caseArg(c)).toBe(expectedLine(c)));
    expect(Number(got[cases.length]!.split(' ')[1])).toBeGreaterThan(0);
  });

  it('copies host to device, within a device at offsets, between buffers and back; host and unified memory', async (ctx) => {
    needDriver(ctx);
    const sizes = [1, 17, 4096];
    expect(await lines(sizes.map((n) => `copies:${n}:${n}`))).toEqual(sizes.map((n) => expectedCopies(n, n)));
    expect((await lines(['memory-kinds:37:5'])).join('\n')).toBe(expectedMemoryKinds(37, 5));
  });

  const misuses: [string, RegExp][] = [
    ['host-pointer', /^argument 1 of kernel affine is not a CUDA buffer on device 1 \(CUDA 0\) \(a host pointer\?\)$/],
    ['copy-bounds', /^anydsl_copy: 400 bytes at offset 0 do not fit the destination, 256 bytes of device 1 \(CUDA 0\)$/],
    ['overrun', /^a kernel wrote past the end of a 240-byte buffer of device 1 \(CUDA 0\) \(found at a copy from it to the host; the last kernel launched there was overrun\)$/],
    ['bad-kernel', /^CUDA error 500 \(CUDA_ERROR_NOT_FOUND\) in cuModuleGetFunction of kernel no_such_kernel \(program harness-program-1 has no such kernel\?\) on device 1 \(CUDA 0\)$/],
    ['build-error', /^CUDA error (218|200) \(CUDA_ERROR_INVALID_(PTX|IMAGE)\) in cuModuleLoadDataEx: program harness-broken \(kernel broken\) does not load on device 1 \(CUDA 0: .*\):$/],
    ['fault', /^CUDA error 700 \(CUDA_ERROR_ILLEGAL_ADDRESS\) in kernel fault on device 1 \(CUDA 0\) \(reported by cuCtxSynchronize\)$/],
    ['geometry', /^kernel affine on device 1 \(CUDA 0\): grid \(100, 1, 1\) and block \(16, 1, 1\): the grid counts work items and must be a non-empty multiple of the block$/],
  ];
  it.for(misuses)('ends the program with one line: %s', async ([misuse, message], ctx) => {
    needDriver(ctx);
    const r = await runHarness(harness, [misuse], env());
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    const reported = r.stderr.split('\n').filter((l) => l.startsWith('anydsl runtime error: '));
    expect(reported).toHaveLength(1);
    expect(reported[0]!.slice('anydsl runtime error: '.length)).toMatch(message);
  });
});
