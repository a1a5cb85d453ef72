// The runtime's CUDA platform on an NVIDIA GPU: kernels.cu compiled to PTX by clang and
// JIT-loaded by the driver, run through anydsl_launch_kernel on generated inputs against
// the same TypeScript references as the OpenCL test, plus copies and the misuse messages.
// Skipped, with the runtime's reason, where the CUDA driver or a GPU is missing; without
// one, what can be checked is that the runtime reports exactly that.
import fc from 'fast-check';
import path from 'node:path';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { useTempDir } from '../driver/helpers.ts';
import { buildHarness, buildPtx, type Case, caseArg, expectedCopies, expectedLine, runHarness } from './support.ts';

const tmp = useTempDir('anydsl-runtime-cuda-');
let harness = '';
let noCuda: string | null = null;
let env: Record<string, string> = {};

beforeAll(async () => {
  const dir = path.join(tmp(), 'bin');
  harness = await buildHarness(dir);
  const probe = await runHarness(harness, ['device'], { ANYDSL_DEVICE: 'cuda' });
  if (probe.code !== 0) {
    noCuda = probe.stderr.trim();
    return;
  }
  env = { ANYDSL_DEVICE: 'cuda', HARNESS_PTX: await buildPtx(dir) };
});

function needCuda(ctx: TestContext): void {
  if (noCuda) {
    console.warn(`skipped: ${noCuda}`);
    ctx.skip();
  }
}

async function lines(cases: readonly string[]): Promise<string[]> {
  const r = await runHarness(harness, cases, env);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trimEnd().split('\n');
}

describe('CUDA kernels through anydsl_launch_kernel', () => {
  it('says why there is no CUDA device, naming what to install, or names the GPU', async () => {
    const r = await runHarness(harness, ['device'], { ANYDSL_DEVICE: 'cuda' });
    if (noCuda) {
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^anydsl runtime error: ANYDSL_DEVICE "cuda": no CUDA( device)?: /);
    } else {
      expect(r.stdout).toMatch(/^device 1 CUDA 0: .* \(sm_\d+\)\n$/);
    }
  });

  it('computes elementwise, shared-memory reduction and divergent kernels like the references', async (ctx) => {
    needCuda(ctx);
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
    expect(Number(got[cases.length]!.split(' ')[1])).toBeGreaterThanOrEqual(0);
  });

  it('copies host to device, within a device at offsets, between buffers and back', async (ctx) => {
    needCuda(ctx);
    const sizes = [1, 17, 4096];
    expect(await lines(sizes.map((n) => `copies:${n}:${n}`))).toEqual(sizes.map((n) => expectedCopies(n, n)));
  });

  it('rejects a host pointer as a kernel argument, a copy past the end and a kernel that wrote past it', async (ctx) => {
    needCuda(ctx);
    const host = await runHarness(harness, ['host-pointer'], env);
    expect(host.code).toBe(1);
    expect(host.stderr).toContain('argument 1 of kernel affine is not a CUDA buffer on device 1 (CUDA 0) (a host pointer?)');
    const bounds = await runHarness(harness, ['copy-bounds'], env);
    expect(bounds.code).toBe(1);
    expect(bounds.stderr).toContain('anydsl_copy: 400 bytes at offset 0 do not fit the destination, 256 bytes of device 1 (CUDA 0)');
    const overrun = await runHarness(harness, ['overrun'], env);
    expect(overrun.code).toBe(1);
    expect(overrun.stderr).toContain('a kernel wrote past the end of a 240-byte buffer of device 1 (CUDA 0) (found at a copy from it to the host; the last kernel launched there was overrun)');
  });
});
