// The 2018 runtime's platform files (issue 13 rule 7): platform/opencl_2018.impala and
// platform/nvvm_2018.impala written as the 2018 release's opencl.impala and nvvm.impala (their
// own Accelerator with exec, sync, alloc, alloc_unified and barrier over the compiler-known
// `opencl(dev, grid, block, body)` / `nvvm(…)` and the device builtins declared
// `extern "device"`), with platform/app.impala, which copies data to the device, launches a
// kernel whose work items read a neighbour's element before a block barrier, synchronises,
// copies back, releases and checks the result on the CPU. OpenCL runs natively (PoCL's CPU
// device on a machine without a GPU); NVVM's PTX is assembled by ptxas where it is on the PATH.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../compiler/src/driver/build.ts';
import { findPtxas } from '../../compiler/src/driver/device-code.ts';
import type { SourceFile } from '../../compiler/src/syntax/diagnostics.ts';
import { useTempDir } from '../driver/helpers.ts';
import { deviceMissing } from '../image/gpu-cases.ts';

const dir = path.join(import.meta.dirname, 'platform');
const load = (...names: string[]): SourceFile[] => names.map((n) => ({ path: `tests/compat/platform/${n}`, text: readFileSync(path.join(dir, n), 'utf8') }));
const tmp = useTempDir('anydsl-compat-platform-');
const missing = await deviceMissing('opencl');

describe('the 2018 platform files', () => {
  it.skipIf(missing !== null)(`opencl.impala: the program runs on OpenCL and its kernel computes what the CPU does${missing ? ` (skipped: ${missing})` : ''}`, async () => {
    const output = path.join(tmp(), 'app');
    const built = await buildProgram(load('opencl_2018.impala', 'app.impala'), { kind: 'exe', optLevel: 1, output });
    if (!built.ok) throw new Error(built.rendered);
    const r = spawnSync(output, [], { encoding: 'utf8', timeout: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('wrong: 0\n');
    expect(r.status).toBe(0);
  }, 300_000);

  it('nvvm.impala: the program compiles to one PTX kernel with the barrier', async () => {
    const output = path.join(tmp(), 'app.ptx');
    const built = await buildProgram(load('nvvm_2018.impala', 'app.impala'), { kind: 'ptx', optLevel: 1, output });
    if (!built.ok) throw new Error(built.rendered);
    const ptx = readFileSync(output, 'utf8');
    expect(ptx.match(/\.entry nvvm_kernel_\d+\(/g)).toHaveLength(1);
    expect(ptx).toMatch(/bar\.sync/);
    if (!findPtxas()) console.warn('tests/compat/platform: ptxas is not on the PATH, so the emitted PTX was not assembled');
  }, 300_000);
});
