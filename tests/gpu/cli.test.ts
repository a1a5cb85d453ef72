// The impala command on a program with GPU launches, as a user runs it (the bin script in a
// subprocess): --emit-opencl and --emit-ptx write the device code of its `opencl` and
// `nvvm` launches, and --run builds it and runs its OpenCL launch on the device
// (PoCL's CPU device where there is no GPU), printing what the kernel computed.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { findPtxas } from '../../compiler/src/driver/device-code.ts';
import { deviceMissing } from '../image/gpu-cases.ts';
import { useTempDir } from '../driver/helpers.ts';

const bin = path.join(repoRoot, 'apps/impala/bin/impala.mjs');
const tmp = useTempDir('anydsl-gpu-cli-');
const missing = await deviceMissing('opencl');

// Every element of 0..63 becomes 3i + 1 on the OpenCL device, and the host prints their
// sum, 3 · 2016 + 64 = 6112. With an argument, the same on CUDA through an nvvm launch.
const PROGRAM = `
fn scale_on(acc: Accelerator, dev: i32) -> i32 {
    let n = 64;
    let host = alloc_cpu(n as i64 * 4i64);
    let h = bitcast[&mut [i32]](host.data);
    for i in range(0, n) { h(i) = i }
    let buf = alloc(dev, host.size);
    copy(host, buf);
    acc.exec((n, 1, 1), (16, 1, 1), |item| {
        let a = bitcast[&mut[1][i32]](buf.data);
        a(item.gidx()) = a(item.gidx()) * 3 + 1;
    });
    copy(buf, host);
    let mut sum = 0;
    for i in range(0, n) { sum += h(i) }
    release(buf);
    release(host);
    sum
}
fn main(argc: i32, argv: &[&[u8]]) -> i32 {
    let sum = if argc > 1 { scale_on(nvvm_accelerator(0), runtime_device(1, 0)) } else { scale_on(opencl_accelerator(0), runtime_device(2, 0)) };
    print_i32(sum);
    print_char('\\n');
    0
}
`;

let source = '';
beforeAll(() => {
  source = path.join(tmp(), 'scale.impala');
  writeFileSync(source, PROGRAM);
});

function impala(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: tmp(), timeout: 300_000 });
}

describe('impala with GPU launches', () => {
  it('--emit-opencl writes the OpenCL C of the opencl launch, --emit-ptx the PTX of the nvvm one', () => {
    const cl = impala(['--emit-opencl', source, '-o', path.join(tmp(), 'scale.cl')]);
    expect(cl.stderr).toBe('');
    expect(cl.status).toBe(0);
    const code = readFileSync(path.join(tmp(), 'scale.cl'), 'utf8');
    expect(code.match(/__kernel void opencl_kernel_\d+\(/g)).toHaveLength(1);
    expect(code).not.toMatch(/nvvm_kernel/);
    // By default next to the input, named after it (the build assembles it with ptxas where there is one).
    const ptx = impala(['--emit-ptx', source]);
    expect(ptx.stderr).toBe('');
    expect(ptx.status).toBe(0);
    const text = readFileSync(path.join(tmp(), 'scale.ptx'), 'utf8');
    expect(text).toMatch(/\.target sm_90/);
    expect(text.match(/\.entry nvvm_kernel_\d+\(/g)).toHaveLength(1);
    if (!findPtxas()) console.warn('tests/gpu/cli: ptxas is not on the PATH, so the emitted PTX was not assembled');
  });

  it.skipIf(missing !== null)(`--run runs the OpenCL launch and prints what it computed${missing ? ` (skipped: ${missing})` : ''}`, () => {
    const r = impala(['--run', source]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('6112\n');
    expect(r.status).toBe(0);
  });
});
