// The TypeScript side of the GPU traversal (gpu.impala): the entry module of a device's
// two kernels (closest and any hit; the platform picks the accelerator, so NVVM/PTX for
// CUDA, OpenCL C for OpenCL), compiled with the library through the artifact cache, and
// scenes copied to the device once and traced there. Only BVH2 scenes: the while-while
// loop is binary. The device is chosen by libs/shared/device.ts (pickDeviceOrHost).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CompiledLibrary, compile, type SourceFile } from '@anydsl/compiler';
import { deviceRuntime, gpuPlatform } from '../shared/device.ts';
import { librarySources } from './host.ts';
import type { FlatScene } from './layout.ts';
import { checkTraceArrays, type Hits, type Rays } from './rays.ts';

/** The library's sources with the GPU traversal. */
export function gpuLibrarySources(): SourceFile[] {
  const path = 'libs/raytrace/gpu.impala';
  return [...librarySources(), { path, text: readFileSync(fileURLToPath(new URL('gpu.impala', import.meta.url)), 'utf8') }];
}

/** The exported name of a device's kernel entry. */
export function gpuKernelName(device: number, anyHit: boolean): string {
  return `rt_gpu_bvh2_${anyHit ? 'any' : 'closest'}_d${device}`;
}

/** The entry module for `device`: closest-hit and any-hit kernels over a BVH2 in device memory, rays and hits on the host. */
export function gpuEntryModule(device: number): SourceFile {
  const acc = gpuPlatform(device).accelerator;
  const entry = (anyHit: boolean) =>
    `extern fn ${gpuKernelName(device, anyHit)}(nodes: &[f32], children: &[i32], tris: &[f32], ids: &[i32], root: i32, ` +
    `n: i32, rays: &[f32], prim: &mut [i32], t: &mut [f32], u: &mut [f32], v: &mut [f32]) -> () {\n` +
    `    trace_gpu(${acc}, ${device}, make_bvh2(nodes, children, tris, ids, root), ${anyHit}, n, rays, prim, t, u, v)\n}\n`;
  return { path: 'raytrace_gpu_entry.impala', text: `${entry(false)}\n${entry(true)}` };
}

/** A scene in a device's memory: copied once, traced any number of times. */
export interface GpuScene {
  /** Traces `rays` into `hits` (prim −1 and t −1 for a miss; u and v when present): rays copied in, hits out. */
  trace(rays: Rays, hits: Hits, options: { anyHit: boolean }): void;
  /** Gives the device memory back; the scene cannot be traced afterwards. */
  release(): void;
}

export interface GpuTracer {
  /** The runtime device number (platform | (index << 4)). */
  readonly device: number;
  /** What the runtime calls it (`OpenCL 0: Portable Computing Language, …`). */
  readonly deviceName: string;
  /** Copies a BVH2 scene (flatten's arrays) to the device. */
  upload(scene: FlatScene): GpuScene;
  /** Microseconds the kernels of this tracer's module have run so far. */
  kernelMicros(): number;
  /** Microseconds of its copies to and from the device so far (the scene's included). */
  copyMicros(): number;
}

/** Compiles the closest- and any-hit kernels for runtime `device` (one module, cached) at -O3. */
export async function compileGpuTracer(device: number): Promise<GpuTracer> {
  const entry = gpuEntryModule(device);
  const library = await compile({ sources: [...gpuLibrarySources(), entry], options: { optLevel: 3 } });
  return makeGpuTracer(device, library);
}

function makeGpuTracer(device: number, library: CompiledLibrary): GpuTracer {
  const runtime = deviceRuntime(library.path);
  const upload = library.fn('rt_gpu_upload');
  const free = library.fn('rt_gpu_release');
  const kernels = { closest: library.fn(gpuKernelName(device, false)), any: library.fn(gpuKernelName(device, true)) };
  return {
    device,
    deviceName: runtime.name(device),
    kernelMicros: runtime.kernelMicros,
    copyMicros: runtime.copyMicros,
    upload(scene) {
      if (scene.arity !== 2) throw new Error(`the GPU traversal traces BVH2 scenes, not a scene flattened for BVH${scene.arity}`);
      // A scene that is one leaf has no inner nodes; a device buffer is never empty.
      const arrays = [scene.nodes, scene.children, scene.tris, scene.ids].map((a) => (a.length > 0 ? a : new Int32Array(1)));
      const buffers = arrays.map((a) => ({ data: upload(device, a, a.byteLength) as unknown, bytes: a.byteLength }));
      let live = true;
      return {
        trace(rays, hits, { anyHit }) {
          if (!live) throw new Error('this GPU scene was released');
          const n = rays.count;
          checkTraceArrays(rays, hits);
          if (n === 0) return;
          // The kernel copies back exactly n entries of each.
          const exact = <A extends Int32Array | Float32Array>(a: A | undefined, make: (n: number) => A): A => (a && a.length === n ? a : make(n));
          const prim = exact(hits.prim, (k) => new Int32Array(k));
          const t = exact(hits.t, (k) => new Float32Array(k));
          const u = exact(hits.u, (k) => new Float32Array(k));
          const v = exact(hits.v, (k) => new Float32Array(k));
          const [nodes, children, tris, ids] = buffers.map((b) => b.data);
          (anyHit ? kernels.any : kernels.closest)(nodes, children, tris, ids, scene.root, n, rays.data, prim, t, u, v);
          if (prim !== hits.prim) hits.prim.set(prim);
          if (t !== hits.t) hits.t.set(t);
          if (hits.u && u !== hits.u) hits.u.set(u);
          if (hits.v && v !== hits.v) hits.v.set(v);
        },
        release() {
          if (!live) return;
          live = false;
          for (const b of buffers) free(device, b.data, b.bytes);
        },
      };
    },
  };
}
