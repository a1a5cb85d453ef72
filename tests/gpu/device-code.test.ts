// The device code of the GPU programs (programs.ts, compiled as one program per target):
// the OpenCL C of their `opencl` launches passes clang's OpenCL 1.2 front end, and with
// `nvvm` and `cuda` launches they compile to PTX that `ptxas -arch=sm_90` assembles (the build itself runs ptxas and fails
// on its errors; skipped with a message where ptxas is not on the PATH). The host module
// launches each kernel through the runtime with the program embedded.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findLibdevice, findPtxas } from '../../compiler/src/driver/device-code.ts';
import { compileToLLVM } from '../../compiler/src/driver/pipeline.ts';
import { findToolchain } from '../../compiler/src/driver/toolchain.ts';
import { allPrograms, gpuProgram, PROGRAMS } from './programs.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'anydsl-gpu-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function deviceCode(text: string, name: string) {
  const r = compileToLLVM([{ path: `${name}.impala`, text }], { optLevel: 2 });
  if (!r.ok) throw new Error(`${name}: ${r.diagnostics.map((d) => `${d.span?.line ?? '?'}: ${d.message}`).join('\n')}`);
  return r;
}

const KERNELS = PROGRAMS.map((_, i) => i);

describe('OpenCL C', () => {
  it(`of ${PROGRAMS.map((p) => p.name).join(', ')}: passes clang as OpenCL C 1.2`, () => {
    const r = deviceCode(allPrograms('opencl'), 'gpu_programs');
    const cl = r.device.find((d) => d.target === 'opencl')!;
    expect(cl.kernels).toEqual(KERNELS.map((i) => `opencl_kernel_${i}`));
    expect(r.llvm.match(/call void @anydsl_launch_kernel\(i32 2, ptr @anydsl_opencl_program_key, ptr @anydsl_opencl_program,/g)).toHaveLength(PROGRAMS.length);
    const file = path.join(scratch, 'gpu_programs.cl');
    writeFileSync(file, cl.code);
    const clang = spawnSync(findToolchain().clang, ['-x', 'cl', '-cl-std=CL1.2', '-Xclang', '-finclude-default-header', '-fsyntax-only', file], { encoding: 'utf8' });
    expect(clang.stderr).toBe('');
    expect(clang.status).toBe(0);
  });
});

const ptxas = findPtxas();
if (!ptxas) console.warn('tests/gpu: ptxas is not on the PATH, so the PTX of the NVVM kernels is not assembled');

describe.skipIf(!ptxas)('NVVM kernels', () => {
  it.each(['nvvm', 'cuda'] as const)(`of ${PROGRAMS.map((p) => p.name).join(', ')} (%s): PTX that ptxas -arch=sm_90 accepts`, (target) => {
    // compileToLLVM assembles the PTX with ptxas and fails on its errors.
    const r = deviceCode(allPrograms(target), `gpu_programs_${target}`);
    const ptx = r.device.find((d) => d.target === 'nvvm')!;
    expect(ptx.code).toMatch(/\.target sm_90/);
    for (const i of KERNELS) expect(ptx.code).toContain(`.entry nvvm_kernel_${i}(`);
    expect(ptx.llvm).toContain(`!nvvm.annotations = !{${KERNELS.map((i) => `!${i}`).join(', ')}}`);
    // reduce and histogram keep their shared arrays in shared memory.
    expect(ptx.code).toMatch(/\.shared .*\[256\]/);
    expect(ptx.code).toMatch(/atom\.shared\.add/);
    expect(ptx.code).toMatch(/atom\.global\.add/);
    // The host launches them on CUDA (platform 1, device 0) with the PTX embedded.
    expect(r.llvm.match(/call void @anydsl_launch_kernel\(i32 1, ptr @anydsl_nvvm_program_key, ptr @anydsl_nvvm_program,/g)).toHaveLength(PROGRAMS.length);
  });
});

const MATH = `
fn main() -> i32 {
    let d = ALLOC(0, 128i64);
    ACC.exec((16, 1, 1), (16, 1, 1), |item| {
        let a = bitcast[&mut[1][f32]](d.data);
        let x = item.gidx() as f32;
        a(item.gidx()) = math::sinf(x) + math::expf(x) + math::sqrtf(x) + math::powf(x, 1.5f) + math::fminf(x, 2.0f);
        let b = bitcast[&mut[1][f64]](d.data);
        b(item.gidx()) = math::cos(x as f64) + math::log(x as f64) + math::floor(x as f64);
    });
    0
}`;

describe('math in kernels', () => {
  it('OpenCL: the prelude\'s math intrinsics are OpenCL built-ins', () => {
    const cl = deviceCode(gpuProgram({ name: 'math', text: MATH }, 'opencl'), 'math').device[0]!.code;
    for (const f of ['sin', 'exp', 'sqrt', 'pow', 'fmin', 'cos', 'log', 'floor']) expect(cl).toMatch(new RegExp(`\\b${f}\\(`));
    expect(cl).toContain('#pragma OPENCL EXTENSION cl_khr_fp64 : enable');
    // Each float operation rounds on its own, as on the CPU: no fma contraction by the driver's compiler.
    expect(cl).toContain('#pragma OPENCL FP_CONTRACT OFF');
  });

  it.skipIf(!ptxas || !findLibdevice())('NVVM: libdevice provides what NVPTX lacks, and ptxas accepts the result', () => {
    const r = deviceCode(gpuProgram({ name: 'math', text: MATH }, 'nvvm'), 'math');
    const nvvm = r.device[0]!;
    expect(nvvm.llvm).toMatch(/declare float @__nv_sinf\(float\)/);
    expect(nvvm.llvm).toMatch(/declare float @llvm\.sqrt\.f32\(float\)/);
    expect(nvvm.code).toMatch(/\.func .*__nv_sinf/);
  });
});
