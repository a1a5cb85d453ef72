// The vcycle app in-process on a small grid (the variants tests/multigrid/vcycle.test.ts and
// gpu-opencl.test.ts also compile): the residual per cycle, --bench, --compare against the C
// and NumPy references where installed, --schedule gpu on OpenCL (PoCL without a GPU), and bad
// input as one line with exit status 1, a device that is not there included.
import { afterEach, describe, expect, it } from 'vitest';
import { main as vcycle } from '../../apps/vcycle/src/cli.ts';
import { missingPackages } from '../../bench/shared/native.ts';
import { byFile } from '../../bench/shared/native.ts';
import { deviceMissing } from '../image/gpu-cases.ts';
import { runApp as run } from '../image/support.ts';

const missingC = await missingPackages([byFile('libomp-19-dev', '/usr/lib/llvm-19/lib/clang/19/include/omp.h')]);
const missingNumpy = await missingPackages([byFile('python3-numpy', '/usr/lib/python3/dist-packages/numpy/__init__.py')]);
const skipNote = (missing: string[]) => (missing.length ? ` (skipped: needs apt-get install ${missing.join(' ')})` : '');
const missingOpenCL = await deviceMissing('opencl');
const savedDevice = process.env.ANYDSL_DEVICE;

afterEach(() => {
  if (savedDevice === undefined) delete process.env.ANYDSL_DEVICE;
  else process.env.ANYDSL_DEVICE = savedDevice;
});

describe('vcycle', () => {
  it('prints the residual per cycle, falling by a factor below 0.2, and the error against the known solution', async () => {
    const r = await run(vcycle, ['--size', '32', '--levels', '6', '--cycles', '4', '--bench', '2']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const factors = [...r.out.matchAll(/\(×([0-9.]+)\)/g)].map((m) => Number(m[1]));
    expect(factors).toHaveLength(4);
    for (const f of factors) expect(f).toBeLessThan(0.2);
    expect(r.out).toMatch(/max \|u − sin\(πx\) sin\(πy\)\| = [0-9.]+e-[34]/);
    expect(r.out).toMatch(/V-cycle: median [0-9.]+ ms over 2 runs; finest level alone .*: median [0-9.]+ ms/);
  });

  it('notes on stderr when the coarsest grid is too large for its sweeps to solve', async () => {
    const r = await run(vcycle, ['--size', '1024', '--levels', '6', '--cycles', '1']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('vcycle: note: the coarsest grid (32×32) gets only 2 sweeps, which leave its smooth error in place, so the residual falls slowly; 11 levels (the default) go down to 1×1\n');
  });

  it.skipIf(missingC.length > 0)(`--compare c agrees with the hand-written C${skipNote(missingC)}`, async () => {
    const r = await run(vcycle, ['--size', '32', '--levels', '6', '--cycles', '2', '--compare', 'c']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/C \(clang-19.*\): solutions agree/);
    expect(r.out).toMatch(/ratio [0-9.]+×/);
  });

  it.skipIf(missingNumpy.length > 0)(`--compare numpy agrees with NumPy${skipNote(missingNumpy)}`, async () => {
    const r = await run(vcycle, ['--size', '32', '--levels', '6', '--cycles', '2', '--compare', 'numpy']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/NumPy: solutions agree/);
  });

  it.each([
    [['--size', '48', '--levels', '6'], /^vcycle: the size 48 must be divisible by 2\^\(levels − 1\) = 32 for 6 levels\n$/],
    [['--size', 'big'], /^error: option '--size <n>' argument 'big' is invalid\. must be an integer from 1 to 32768\n$/],
    [['--levels', '17'], /argument '17' is invalid\. must be an integer from 1 to 16/],
    [['--schedule', 'simd'], /argument 'simd' is invalid\. Allowed choices are seq, par, vec, gpu, gpu_shared/],
    [['--compare', 'fortran'], /Allowed choices are c, numpy/],
  ])('%j is one line and exit status 1', async (args, message) => {
    const r = await run(vcycle, args);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.out).toBe('');
  });

  it.skipIf(missingOpenCL !== null)(`--schedule gpu runs on OpenCL, the residual falling as on the CPU, --bench with kernel and copy time${missingOpenCL ? ` (skipped: ${missingOpenCL})` : ''}`, async () => {
    process.env.ANYDSL_DEVICE = 'opencl';
    const r = await run(vcycle, ['--schedule', 'gpu', '--size', '16', '--levels', '4', '--cycles', '3', '--bench', '2']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^device: OpenCL 0: .*\n16×16 cells, 4 levels .*schedule gpu, residual and restriction merged\n/);
    const factors = [...r.out.matchAll(/\(×([0-9.]+)\)/g)].map((m) => Number(m[1]));
    expect(factors).toHaveLength(3);
    for (const f of factors) expect(f).toBeLessThan(0.2);
    expect(r.out).toMatch(/V-cycle: median [0-9.]+ ms \(kernels [0-9.]+ ms, copies in and out [0-9.]+ ms\) over 2 runs; finest level alone .*: median [0-9.]+ ms \(kernels [0-9.]+ ms, copies in and out [0-9.]+ ms\)/);
  }, 600_000);

  it.each(['gpu', 'gpu_shared'])('--schedule %s without a device (ANYDSL_DEVICE=host) is one line and exit status 1', async (schedule) => {
    process.env.ANYDSL_DEVICE = 'host';
    const r = await run(vcycle, ['--schedule', schedule, '--size', '16']);
    expect(r.code).toBe(1);
    expect(r.err).toBe('vcycle: the gpu schedule needs a CUDA or OpenCL device, and ANYDSL_DEVICE=host names the host\n');
    expect(r.out).toBe('');
  });
});
