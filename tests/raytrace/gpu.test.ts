// The GPU traversal (libs/raytrace/gpu.impala, the BVH2 while-while loop) on OpenCL device 0
// (PoCL's CPU device on a machine without a GPU), against the brute-force reference through
// the CPU kernel tests' agreement cases (kernels-cases.ts: random and degenerate rays,
// tmin/tmax cut at the hit, a grid of shared edges, a scene that is one leaf, leaves of many
// blocks, generated scenes with spatial splits), closest and any hit, each scene copied to
// the device once and traced several times. Skipped with the reason where there is no OpenCL device. The same kernels for
// CUDA (NVVM) must give PTX that `ptxas -arch=sm_90` accepts, with the traversal stack one
// array in local memory; skipped with a message where ptxas is not on the PATH. And the
// `trace` app's --device: one line for a platform that is not there, the same hits on
// the GPU as the reference.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as trace } from '../../apps/trace/src/main.ts';
import { findPtxas } from '../../compiler/src/driver/device-code.ts';
import { compileToLLVM } from '../../compiler/src/driver/pipeline.ts';
import { buildBvh } from '../../libs/raytrace/bvh.ts';
import { compileGpuTracer, type GpuScene, type GpuTracer, gpuEntryModule, gpuLibrarySources } from '../../libs/raytrace/gpu.ts';
import { flatten } from '../../libs/raytrace/host.ts';
import type { Mesh } from '../../libs/raytrace/mesh.ts';
import { proceduralScene } from '../../libs/raytrace/procedural.ts';
import { formatFloat32, formatRaysText, makeHits, readHits } from '../../libs/raytrace/rays.ts';
import { compareHits, traceBruteForce } from '../../libs/raytrace/reference.ts';
import { pickDeviceOrHost } from '../../libs/shared/device.ts';
import { runApp } from '../image/support.ts';
import { agreementCases, type SceneBuild, type SceneTracer, testRays } from './kernels-cases.ts';
import { randomRays } from './rays-random.ts';

/** OpenCL device 0, as ANYDSL_DEVICE=opencl picks it. */
const OPENCL_0 = 2;
const missing = await pickDeviceOrHost('opencl', '--device opencl').then(
  () => null,
  (e: Error) => e.message,
);

/** The device's closest- and any-hit kernels bound to the mesh's BVH2, copied to the device (released by the caller). */
function gpuScene(tracer: GpuTracer, mesh: Mesh, build: SceneBuild): { tracers: SceneTracer[]; release: () => void } {
  const scene = upload(tracer, mesh, build.maxLeafSize, build.spatialSplits);
  const bound = (anyHit: boolean): SceneTracer => ({ label: `GPU BVH2 while-while ${anyHit ? 'any' : 'closest'}-hit`, anyHit, trace: (rays, hits) => scene.trace(rays, hits, { anyHit }) });
  return { tracers: [bound(false), bound(true)], release: () => scene.release() };
}

/** The mesh's BVH2 (leaves of up to `maxLeafSize` triangles) on the device. */
function upload(tracer: GpuTracer, mesh: Mesh, maxLeafSize = 4, spatialSplits = false): GpuScene {
  return tracer.upload(flatten(buildBvh(mesh, { arity: 2, maxLeafSize, spatialSplits }), mesh));
}

describe.skipIf(missing !== null)(`the BVH2 while-while kernel on OpenCL 0${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let tracer: GpuTracer;
  // One module of two kernels; minutes on a busy machine with a cold cache.
  beforeAll(async () => {
    tracer = await compileGpuTracer(OPENCL_0);
  }, 600_000);

  // The CPU kernels' cases at BVH2 (fewer generated scenes: PoCL is slow to launch).
  agreementCases(2, 4, (mesh, build) => gpuScene(tracer, mesh, build), { runs: 8, seed: 0x6c });

  it('names its device and counts kernel and copy time', () => {
    expect(tracer.deviceName).toMatch(/^OpenCL 0: /);
    const before = [tracer.kernelMicros(), tracer.copyMicros()];
    const mesh = proceduralScene({ triangles: 100, seed: 13 });
    const scene = upload(tracer, mesh);
    scene.trace(testRays(mesh, 5, 10), makeHits(60), { anyHit: false });
    scene.release();
    expect(tracer.kernelMicros()).toBeGreaterThan(before[0]!);
    expect(tracer.copyMicros()).toBeGreaterThan(before[1]!);
  });

  it('traces no rays, refuses other arities and a released scene', () => {
    const mesh = proceduralScene({ triangles: 50, seed: 7 });
    const scene = upload(tracer, mesh);
    const none = makeHits(0);
    scene.trace({ count: 0, data: new Float32Array(0) }, none, { anyHit: false });
    scene.release();
    expect(() => scene.trace(testRays(mesh, 1, 1), makeHits(6), { anyHit: false })).toThrow(/^this GPU scene was released$/);
    expect(() => tracer.upload(flatten(buildBvh(mesh, { arity: 4 }), mesh))).toThrow(/^the GPU traversal traces BVH2 scenes, not a scene flattened for BVH4$/);
  });
});

describe('the entry module', () => {
  it('names the accelerator of a CUDA or OpenCL device and refuses any other device number', () => {
    expect(gpuEntryModule(1).text).toContain('trace_gpu(nvvm_accelerator(0), 1,');
    expect(gpuEntryModule(18).text).toContain('trace_gpu(opencl_accelerator(1), 18,');
    for (const device of [0, 19, -2, 2.5]) expect(() => gpuEntryModule(device)).toThrow(/^device [-\d.]+ is not a CUDA or OpenCL device/);
  });
});

const ptxas = findPtxas();
if (!ptxas) console.warn('tests/raytrace/gpu: ptxas is not on the PATH, so the PTX of the NVVM traversal is not assembled');

describe.skipIf(!ptxas)('the BVH2 while-while kernel for CUDA', () => {
  it('compiles to PTX that ptxas -arch=sm_90 accepts, its stack one array in local memory', () => {
    // compileToLLVM assembles the PTX with ptxas and fails on its errors.
    const r = compileToLLVM([...gpuLibrarySources(), gpuEntryModule(1)], { optLevel: 3 });
    if (!r.ok) expect.fail(r.diagnostics.map((d) => d.message).join('\n'));
    const ptx = r.device.find((d) => d.target === 'nvvm')!;
    expect(ptx.code).toMatch(/\.target sm_90/);
    const entries = [...ptx.code.matchAll(/\.entry (nvvm_kernel_\d+)\(/g)].map((m) => m[1]);
    expect(entries).toEqual(['nvvm_kernel_0', 'nvvm_kernel_1']);
    // 256 entries of 4 bytes, not copies of the whole stack at each push.
    const depots = [...ptx.code.matchAll(/__local_depot\d+\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(depots).toHaveLength(2);
    for (const bytes of depots) expect(bytes).toBeLessThanOrEqual(1024 + 64);
  }, 600_000);
});

describe('trace --device', () => {
  const mesh = proceduralScene({ triangles: 300, seed: 21 });
  let dir: string;
  const file = (name: string) => path.join(dir, name);
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'trace-gpu-'));
    const lines: string[] = [];
    for (let i = 0; i < mesh.positions.length; i += 3) lines.push(`v ${[0, 1, 2].map((k) => formatFloat32(mesh.positions[i + k]!)).join(' ')}`);
    for (let i = 0; i < mesh.triangles.length; i += 3) lines.push(`f ${mesh.triangles[i]! + 1} ${mesh.triangles[i + 1]! + 1} ${mesh.triangles[i + 2]! + 1}`);
    writeFileSync(file('scene.obj'), `${lines.join('\n')}\n`);
    writeFileSync(file('rays.txt'), formatRaysText(randomRays(mesh, 200, 5)));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names what to install when the platform is not there, and refuses CPU-only choices on a GPU, in one line', async () => {
    const args = ['--rays', file('rays.txt'), '--hits', file('hits.txt'), file('scene.obj')];
    const cuda = await pickDeviceOrHost('cuda', '--device cuda').then(
      () => null,
      (e: Error) => e.message,
    );
    if (cuda !== null) {
      expect(cuda).toMatch(/^--device cuda: .*install/);
      const r = await runApp(trace, ['--device', 'cuda', ...args]);
      expect(r).toMatchObject({ code: 1, out: '' });
      expect(r.err).toBe(`trace: ${cuda}\n`);
    }
    const bad = await runApp(trace, ['--device', 'gpu', ...args]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^trace: --device gpu: expected auto, cuda, opencl or host[^\n]*\n$/);
    if (missing === null) {
      for (const [flags, message] of [
        [['--bvh4'], 'the GPU traces a BVH2 (while-while); drop --bvh4 or use --device host'],
        [['--traversal', 'packet'], '--traversal chooses among the CPU loops; the GPU runs the while-while loop (use --device host)'],
      ] as const) {
        const r = await runApp(trace, ['--device', 'opencl', ...flags, ...args]);
        expect(r).toEqual({ code: 1, out: '', err: `trace: ${message}\n` });
      }
    }
  });

  it('--device opencl on a machine whose OpenCL loader finds no platform: one line saying what to install', () => {
    // In a process of its own: the ICD loader reads OCL_ICD_VENDORS (here an empty folder) once per process.
    mkdirSync(file('no-vendors'));
    const bin = path.join(import.meta.dirname, '../../apps/trace/bin/trace.mjs');
    const r = spawnSync(process.execPath, [bin, '--device', 'opencl', '--rays', file('rays.txt'), '--hits', file('hits.txt'), file('scene.obj')], {
      encoding: 'utf8',
      env: { ...process.env, OCL_ICD_VENDORS: file('no-vendors'), ANYDSL_DEBUG: '' },
    });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^trace: --device opencl: [^\n]*install[^\n]*\n$/);
    expect(r.status).toBe(1);
  }, 120_000);

  it.skipIf(missing !== null)('opencl traces --rays into the reference\'s hits, closest and any, and --bench reports kernel and copy time', async () => {
    const rays = randomRays(mesh, 200, 5);
    for (const anyHit of [false, true]) {
      const r = await runApp(trace, ['--device', 'opencl', ...(anyHit ? ['--any-hit'] : []), '--rays', file('rays.txt'), '--hits', file('hits.txt'), file('scene.obj')]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^tracing on OpenCL 0: /);
      const hits = await readHits(file('hits.txt'), anyHit);
      expect(compareHits(mesh, rays, traceBruteForce(mesh, rays, { anyHit }), hits, { anyHit })).toEqual([]);
    }
    const r = await runApp(trace, ['--device', 'opencl', '--bench', '2', '--rays', file('rays.txt'), '--hits', file('hits.txt'), file('scene.obj')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/rays: 200 rays, closest hit: [\d.]+ Mrays\/s \(median of 2 runs, BVH2 while-while\)\n {2}on the device: kernel [\d.]+ ms \([\d.]+ Mrays\/s\), copies of rays in and hits out [\d.]+ ms/);
  });
});
