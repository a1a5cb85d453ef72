// The runtime's OpenCL platform, for real on whatever OpenCL device is present (PoCL's
// CPU device on machines without a GPU): hand-written kernels (elementwise, a block
// reduction in __local memory with barriers, divergent early exits) launched through
// anydsl_launch_kernel on generated inputs and compared with TypeScript references;
// copies of every kind; and each misuse (a host pointer as a buffer, a kernel writing past
// the end of a buffer, ...) ending in its one-line message with exit status 1.
// Skipped, with the reason, where no OpenCL device exists.
import fc from 'fast-check';
import path from 'node:path';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { useTempDir } from '../driver/helpers.ts';
import { buildHarness, type Case, caseArg, expectedCopies, expectedLine, expectedMemoryKinds, runHarness } from './support.ts';

const tmp = useTempDir('anydsl-runtime-');
let harness = '';
let noOpenCL: string | null = null;
const opencl = { ANYDSL_DEVICE: 'opencl' };

beforeAll(async () => {
  harness = await buildHarness(path.join(tmp(), 'bin'));
  const probe = await runHarness(harness, ['device'], opencl);
  if (probe.code !== 0) noOpenCL = probe.stderr.trim();
});

function needOpenCL(ctx: TestContext): void {
  if (noOpenCL) {
    console.warn(`skipped: ${noOpenCL}`);
    ctx.skip();
  }
}

/** Runs cases in one harness process (one OpenCL setup, programs built once) and returns its lines. */
async function lines(cases: readonly string[]): Promise<string[]> {
  const r = await runHarness(harness, cases, opencl);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trimEnd().split('\n');
}

// PoCL compiles a kernel once per work-group size: a few sizes, the extremes among them.
const blocks = [1, 16, 64, 256];

describe('OpenCL kernels through anydsl_launch_kernel', () => {
  it('names the OpenCL device it runs on', async (ctx) => {
    needOpenCL(ctx);
    expect(await lines(['device'])).toEqual([expect.stringMatching(/^device 2 OpenCL 0: \S.*, \S/)]);
  });

  it('computes elementwise, block-reduction and divergent kernels like the references', async (ctx) => {
    needOpenCL(ctx);
    const edge: Case[] = [
      { kernel: 'elementwise', n: 1, seed: 7, block: 1 },
      { kernel: 'elementwise', n: 0, seed: 3, block: 16 },
      { kernel: 'reduce', n: 0, seed: 3, block: 16 },
      { kernel: 'reduce', n: 1023, seed: 11, block: 256 },
      { kernel: 'divergent', n: 769, seed: 5, block: 32 },
    ];
    const generated = fc.sample(
      fc.record({
        kernel: fc.constantFrom('elementwise' as const, 'reduce' as const, 'divergent' as const),
        n: fc.integer({ min: 1, max: 3000 }),
        seed: fc.integer({ min: 1, max: 0x7fffffff }),
        block: fc.constantFrom(...blocks),
      }),
      { numRuns: 18, seed: 12 },
    );
    const cases = [...edge, ...generated];
    const got = await lines(cases.map(caseArg));
    expect(got).toHaveLength(cases.length);
    cases.forEach((c, i) => expect(got[i], caseArg(c)).toBe(expectedLine(c)));
  });

  it('copies host to device, within a device at offsets, between buffers and back', async (ctx) => {
    needOpenCL(ctx);
    const sizes = [1, 2, 17, 1000];
    expect(await lines(sizes.map((n) => `copies:${n}:${n + 9}`))).toEqual(sizes.map((n) => expectedCopies(n, n + 9)));
  });

  it('uses host memory as a copy source and target, and unified memory in a kernel and on the host', async (ctx) => {
    needOpenCL(ctx);
    expect((await lines(['memory-kinds:37:5'])).join('\n')).toBe(expectedMemoryKinds(37, 5));
  });

  it('runs launches and copies from four threads at once on the shared device', async (ctx) => {
    needOpenCL(ctx);
    const seeds = [21, 22, 23, 24];
    expect(await lines(['concurrent:3001:21'])).toEqual(seeds.map((seed) => expectedLine({ kernel: 'elementwise', n: 3001, seed, block: 16 })));
  });

  it('gives a released device buffer to the next allocation of its size, which computes like a fresh one', async (ctx) => {
    needOpenCL(ctx);
    const after = { kernel: 'elementwise' as const, n: 250, seed: 8, block: 16 };
    expect(await lines(['reuse:250', caseArg(after), 'reduce:250:3:64'])).toEqual(['reuse 1 1 1', expectedLine(after), expectedLine({ kernel: 'reduce', n: 250, seed: 3, block: 64 })]);
  });

  it('adds the kernels\' time to anydsl_get_kernel_time', async (ctx) => {
    needOpenCL(ctx);
    const got = await lines(['kernel-time', 'elementwise:200000:3:64', 'kernel-time']);
    expect(got[0]).toBe('kernel-time 0');
    expect(Number(got[2]!.split(' ')[1])).toBeGreaterThan(0);
  });
});

describe('OpenCL misuse ends the program with one clear message', () => {
  const misuses: [string, RegExp][] = [
    ['host-pointer', /^argument 1 of kernel affine is not an OpenCL buffer on device 2 \(OpenCL 0\) \(a host pointer\?\)$/],
    ['bad-kernel', /^OpenCL error -46 \(CL_INVALID_KERNEL_NAME\) in clCreateKernel of kernel no_such_kernel \(program harness-program-1 has no such kernel\?\) on device 2 \(OpenCL 0\)$/],
    ['argument-count', /^kernel affine on device 2 \(OpenCL 0\) takes 5 arguments, the launch passes 4$/],
    ['copy-bounds', /^anydsl_copy: 400 bytes at offset 0 do not fit the destination, 256 bytes of device 2 \(OpenCL 0\)$/],
    ['copy-offset', /^anydsl_copy: 100 bytes at offset 200 do not fit the source, 256 bytes of device 2 \(OpenCL 0\)$/],
    ['copy-host-as-device', /^anydsl_copy: the source is not a buffer of device 2 \(OpenCL 0\) \(a host pointer\?\)$/],
    ['geometry', /^kernel affine on device 2 \(OpenCL 0\): grid \(100, 1, 1\) and block \(16, 1, 1\): the grid counts work items and must be a non-empty multiple of the block$/],
    ['overrun', /^a kernel wrote past the end of a 240-byte buffer of device 2 \(OpenCL 0\) \(found at a copy from it to the host; the last kernel launched there was overrun\)$/],
    ['overrun-release', /^a kernel wrote past the end of a 240-byte buffer of device 2 \(OpenCL 0\) \(found at its release; the last kernel launched there was overrun\)$/],
    ['double-release', /^anydsl_release: the pointer is not a buffer of device 2 \(OpenCL 0\) \(released twice, or a host pointer\?\)$/],
    ['key-reuse', /^program key harness-program-1 names two different programs \(kernel affine on device 2 \(OpenCL 0\)\)$/],
  ];
  it.for(misuses)('%s', async ([misuse, message], ctx) => {
    needOpenCL(ctx);
    const r = await runHarness(harness, [misuse], opencl);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const reported = r.stderr.split('\n').filter((l) => l.startsWith('anydsl runtime error: '));
    expect(reported).toHaveLength(1);
    expect(reported[0]!.slice('anydsl runtime error: '.length)).toMatch(message);
  });

  it('prints the build log of a program that does not compile', async (ctx) => {
    needOpenCL(ctx);
    const r = await runHarness(harness, ['build-error'], opencl);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /anydsl runtime error: OpenCL error -11 \(CL_BUILD_PROGRAM_FAILURE\) in clBuildProgram: program harness-broken \(kernel broken\) does not build on device 2 \(OpenCL 0: .*\):\n/,
    );
    expect(r.stderr).toContain('undefined_name');
  });
});

describe('device selection', () => {
  // The ICD loader reads its vendor list from OCL_ICD_VENDORS: an empty directory is a
  // machine without any OpenCL platform.
  const withoutOpenCL = () => ({ OCL_ICD_VENDORS: path.join(tmp(), 'no-vendors') });

  it('runs on the host when asked', async () => {
    const r = await runHarness(harness, ['device'], { ANYDSL_DEVICE: 'host' });
    expect(r.stdout).toBe('device 0 host: the CPU\n');
  });

  it('auto picks an OpenCL device when there is no CUDA, the host when there is no OpenCL either', async (ctx) => {
    needOpenCL(ctx);
    const auto = await runHarness(harness, ['device'], { ANYDSL_DEVICE: undefined });
    // A CUDA machine picks device 1; elsewhere the OpenCL device the probe found.
    expect(auto.stdout).toMatch(/^device (1 CUDA 0|2 OpenCL 0): /);
    const r = await runHarness(harness, ['device'], { ANYDSL_DEVICE: 'auto', ...withoutOpenCL() });
    if (!/^device 1 /.test(r.stdout)) expect(r.stdout).toBe('device 0 host: the CPU\n');
  });

  it('names what to install when the requested platform is missing', async () => {
    const r = await runHarness(harness, ['device'], { ANYDSL_DEVICE: 'opencl', ...withoutOpenCL() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^anydsl runtime error: ANYDSL_DEVICE "opencl": no OpenCL( platform)?: .*install .*pocl-opencl-icd/m);
  });

  it('rejects an unknown request and an index past the last device', async (ctx) => {
    const unknown = await runHarness(harness, ['device'], { ANYDSL_DEVICE: 'gpu' });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('ANYDSL_DEVICE "gpu": expected auto, cuda, opencl or host');
    needOpenCL(ctx);
    const past = await runHarness(harness, ['device'], { ANYDSL_DEVICE: 'opencl:99' });
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(/ANYDSL_DEVICE "opencl:99": OpenCL has \d+ devices?, opencl:0 to opencl:\d+/);
  });
});
