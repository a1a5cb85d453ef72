// The TypeScript side of the ray-tracing kernels: writes the entry module for the chosen
// variants (BVH arity × traversal loop × hit kind × packet width), compiles it with the
// library's Impala through `compile()` at -O3 (so the artifact cache makes a repeated
// choice a load of milliseconds) and runs the kernels on flattened scenes (layout.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CompiledLibrary, compile, type SourceFile } from '@anydsl/compiler';
import { type FlatScene, leafWidthFor } from './layout.ts';
import { checkTraceArrays, type Hits, type Rays } from './rays.ts';

export { flatten, type FlatScene } from './layout.ts';

const LIBRARY_FILES = ['geometry.impala', 'layouts.impala', 'sort.impala', 'traversal.impala'];

/** The library's Impala sources, with paths relative to the repository for diagnostics. */
export function librarySources(): SourceFile[] {
  return LIBRARY_FILES.map((file) => ({
    path: `libs/raytrace/${file}`,
    text: readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8'),
  }));
}

export const TRAVERSALS = ['single', 'packet', 'hybrid'] as const;
export type Traversal = (typeof TRAVERSALS)[number];
export const PACKET_SIZES = [4, 8, 16] as const;
export type PacketSize = (typeof PACKET_SIZES)[number];

export const TRAVERSAL_DESCRIPTIONS: Record<Traversal, string> = {
  single: 'one ray at a time, SIMD across the children of a node and the triangles of a leaf block',
  packet: 'packets of rays, one SIMD lane per ray',
  hybrid: 'packets while at least a quarter of the rays agree on the next node, then one ray at a time',
};

export interface TracerOptions {
  arity: 2 | 4 | 8;
  traversal: Traversal;
  /** Occlusion rays: stop at the first hit found (any triangle), instead of the closest. */
  anyHit: boolean;
  /** Rays per packet for the packet and hybrid loops (default 8); ignored by single. */
  packetSize?: PacketSize;
}

export interface Tracer {
  readonly options: Required<TracerOptions>;
  /**
   * Traces `rays` through `scene` into `hits` (prim −1 and t −1 for a miss; u and v when
   * present). `threads`: 0 (default) uses every core.
   */
  trace(scene: FlatScene, rays: Rays, hits: Hits, options?: { threads?: number }): void;
}

const DEFAULT_PACKET: PacketSize = 8;

/** Fills in the default packet size (1 for single rays) and checks the choice. */
function normalise(o: TracerOptions): Required<TracerOptions> {
  if (o.arity !== 2 && o.arity !== 4 && o.arity !== 8) throw new Error(`BVH arity must be 2, 4 or 8, not ${o.arity}`);
  if (!TRAVERSALS.includes(o.traversal)) throw new Error(`traversal must be one of ${TRAVERSALS.join(', ')}, not ${o.traversal}`);
  const packetSize = o.traversal === 'single' ? 1 : (o.packetSize ?? DEFAULT_PACKET);
  if (o.traversal !== 'single' && !PACKET_SIZES.includes(packetSize as PacketSize)) {
    throw new Error(`packet size must be one of ${PACKET_SIZES.join(', ')}, not ${o.packetSize}`);
  }
  return { arity: o.arity, traversal: o.traversal, anyHit: o.anyHit === true, packetSize: packetSize as PacketSize };
}

/** The exported name of a variant's kernel. */
export function kernelName(o: Required<TracerOptions>): string {
  const packet = o.traversal === 'single' ? '' : String(o.packetSize);
  return `rt_bvh${o.arity}_${o.traversal}${packet}_${o.anyHit ? 'any' : 'closest'}`;
}

/** The entry function of one variant: the paper's one-line choice of loop, ray layout and BVH layout. */
function entryFunction(o: Required<TracerOptions>): string {
  const rays = `make_ray${o.packetSize}_layout(rays, prim, t, u, v)`;
  const bvh = `make_bvh${o.arity}(nodes, children, tris, ids, root)`;
  return (
    `extern fn ${kernelName(o)}(nodes: &[f32], children: &[i32], tris: &[f32], ids: &[i32], root: i32, ` +
    `n: i32, rays: &[f32], prim: &mut [i32], t: &mut [f32], u: &mut [f32], v: &mut [f32], threads: i32) -> () {\n` +
    `    trace_${o.traversal}(${bvh}, ${rays}, ${o.anyHit}, n, threads)\n}\n`
  );
}

/**
 * Kernels per compilation: they share the fixed cost of compiling the library while each
 * module stays small enough for clang, and a changed choice reuses most of the cache.
 */
const KERNELS_PER_MODULE = 3;

/** Compiles several variants, a few per module (each module cached on its own). */
export async function compileTracers(variants: readonly TracerOptions[]): Promise<Tracer[]> {
  const normal = variants.map(normalise);
  const unique = [...new Map(normal.map((v) => [kernelName(v), v])).values()];
  const owner = new Map<string, CompiledLibrary>();
  for (let i = 0; i < unique.length; i += KERNELS_PER_MODULE) {
    const group = unique.slice(i, i + KERNELS_PER_MODULE);
    const entry: SourceFile = { path: 'raytrace_entry.impala', text: group.map(entryFunction).join('\n') };
    const library = await compile({ sources: [...librarySources(), entry], options: { optLevel: 3 } });
    for (const v of group) owner.set(kernelName(v), library);
  }
  return normal.map((v) => makeTracer(v, owner.get(kernelName(v))!.fn(kernelName(v))));
}

/** Compiles one variant. */
export async function compileTracer(options: TracerOptions): Promise<Tracer> {
  return (await compileTracers([options]))[0]!;
}

function makeTracer(options: Required<TracerOptions>, fn: (...args: unknown[]) => unknown): Tracer {
  return {
    options,
    trace(scene, rays, hits, opts = {}) {
      if (scene.arity !== options.arity || scene.leafWidth !== leafWidthFor(options.arity)) {
        throw new Error(`a BVH${options.arity} tracer cannot trace a scene flattened for BVH${scene.arity}`);
      }
      const n = rays.count;
      checkTraceArrays(rays, hits);
      const threads = opts.threads ?? 0;
      if (!(Number.isInteger(threads) && threads >= 0)) throw new Error(`threads must be a non-negative integer, not ${threads}`);
      if (n === 0) return;
      const u = hits.u ?? new Float32Array(n);
      const v = hits.v ?? new Float32Array(n);
      fn(scene.nodes, scene.children, scene.tris, scene.ids, scene.root, n, rays.data, hits.prim, hits.t, u, v, threads);
    },
  };
}
