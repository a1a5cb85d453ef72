// The V-cycle's GPU schedules compiled for CUDA: NVVM kernels whose PTX `ptxas -arch=sm_90`
// assembles (compileToLLVM runs ptxas where it is on the PATH and fails on its errors;
// skipped with the reason where it is not). Merged under `gpu` (no barrier, no shared
// memory: a work item per coarse cell) and under `gpu_shared` (a block's fine residuals in a
// shared f64 array of 32 × 8, a barrier before the restriction), f64 arithmetic rounded
// operation by operation as on the CPU (no fused multiply-add); both in one compile.
import { describe, expect, it } from 'vitest';
import { findPtxas } from '../../compiler/src/driver/device-code.ts';
import { compileToLLVM } from '../../compiler/src/driver/pipeline.ts';
import { type MgVariant, multigridSources } from '../../libs/multigrid/host.ts';

/** CUDA device 0. */
const CUDA_0 = 1;
const GPU_MERGED: MgVariant = { levels: 3, schedule: 'gpu', merge: true, device: CUDA_0 };
const SHARED_MERGED: MgVariant = { levels: 3, schedule: 'gpu_shared', merge: true, device: CUDA_0 };
const ptxas = findPtxas();

describe.skipIf(!ptxas)(`the V-cycle for CUDA${ptxas ? '' : ' (skipped: ptxas is not on the PATH)'}`, () => {
  it('merged under gpu and gpu_shared: PTX that ptxas accepts, shared memory and a barrier only in gpu_shared\'s residual and restriction', () => {
    const r = compileToLLVM(multigridSources([GPU_MERGED, SHARED_MERGED]), { optLevel: 3 });
    if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
    expect(r.device.map((d) => d.target)).toEqual(['nvvm']);
    const ptx = r.device[0]!.code;
    expect(ptx).toMatch(/\.target sm_90/);
    // Every division correctly rounded and no fused multiply-add: the CPU's f64 arithmetic.
    expect(ptx).toMatch(/div\.rn\.f64/);
    expect(ptx).not.toMatch(/fma\.rn\.f64/);
    const kernels = ptx.split(/\.visible \.entry /).slice(1);
    expect(kernels.length).toBeGreaterThan(20);
    // One kernel with a barrier: gpu_shared's blocks, 32 × 8 f64 of residual in shared memory.
    const blocks = kernels.filter((k) => /bar\.sync\s+0;/.test(k));
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatch(/\.shared \.align \d+ \.b8 \S+\[2048\]/);
    expect(blocks[0]).toMatch(/st\.shared\.f64/);
    expect(blocks[0]).toMatch(/ld\.shared\.f64/);
    expect(kernels.filter((k) => /\.shared/.test(k))).toHaveLength(1);
    // Both variants' launches go to CUDA device 0.
    expect(r.llvm).toMatch(/call void @anydsl_launch_kernel\(i32 1, /);
    expect(r.llvm).not.toMatch(/call void @anydsl_launch_kernel\(i32 [02-9]/);
  }, 900_000);
});
