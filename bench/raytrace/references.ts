// Embree 3.13 (Debian's libembree-dev) as the reference of libs/raytrace: the one
// implementation of building its driver (embree_driver.cpp, cached under
// .cache/bench/raytrace/embree-<hash of source, compiler, CPU>), handing it a mesh and ray
// sets and reading back its hits, times, memory and its own BVH (rtcBuildBVH), shared by
// bench/raytrace/run.ts and `trace --compare embree`. Nothing is installed from here: a
// missing package is an error that names it and the command that installs it
// (bench/shared/native.ts, which builds the driver too).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bvh, BvhNode } from '../../libs/raytrace/bvh.ts';
import type { Mesh } from '../../libs/raytrace/mesh.ts';
import { decodeHits, encodeRaysBinary, type Hits, RAY_FLOATS, type Rays } from '../../libs/raytrace/rays.ts';
import { compareHits, traceBruteForce } from '../../libs/raytrace/reference.ts';
import { byFile, cacheDir, type DebianPackage, exec, GXX, gxx, missingPackages, notInstalled } from '../shared/native.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

export const EMBREE_TITLE = 'Embree 3.13';
const EMBREE_HEADER = '/usr/include/embree3/rtcore.h';

/** Embree's ways of tracing: one ray per call, SoA packets, and the stream API (1M). */
export const EMBREE_MODES = ['single', 'packet4', 'packet8', 'packet16', 'stream'] as const;
export type EmbreeMode = (typeof EMBREE_MODES)[number];

export const EMBREE_MODE_TITLES: Record<EmbreeMode, string> = {
  single: 'rtcIntersect1/rtcOccluded1',
  packet4: 'rtcIntersect4/rtcOccluded4',
  packet8: 'rtcIntersect8/rtcOccluded8',
  packet16: 'rtcIntersect16/rtcOccluded16',
  stream: 'rtcIntersect1M/rtcOccluded1M, 1024 rays per call',
};

/** What the Embree reference needs from Debian. */
export const EMBREE_PACKAGES: DebianPackage[] = [GXX, byFile('libembree-dev', EMBREE_HEADER)];

/** The Debian packages the Embree reference needs that are not installed. */
export const missingEmbreePackages = (): Promise<string[]> => missingPackages(EMBREE_PACKAGES);

let driver: Promise<string> | undefined;

/**
 * The driver executable, built once per source, compiler and CPU (`-march=native`, as
 * Embree's own kernels are picked for this CPU at run time). The build goes to a private
 * name and is renamed into place, so concurrent builds never see half a file.
 */
export function embreeDriver(): Promise<string> {
  driver ??= (async () => {
    const missing = await missingEmbreePackages();
    if (missing.length) throw notInstalled(EMBREE_TITLE, missing);
    const source = path.join(here, 'embree_driver.cpp');
    const dir = await cacheDir('raytrace/embree', [source, EMBREE_HEADER]);
    return gxx(dir, 'embree_driver', ['-O3', '-std=c++17', '-march=native', source, '-lembree3', '-lpthread']);
  })();
  // A failure is not remembered: the package may be installed by the next call.
  driver.catch(() => (driver = undefined));
  return driver;
}

/** The mesh in the driver's binary form: "ANYMESH1", u32 vertices, u32 triangles, positions, indices. */
export function encodeMesh(mesh: Mesh): Uint8Array {
  const nv = mesh.positions.length / 3;
  const out = new Uint8Array(16 + mesh.positions.byteLength + mesh.triangles.byteLength);
  out.set(new TextEncoder().encode('ANYMESH1'), 0);
  const view = new DataView(out.buffer);
  view.setUint32(8, nv, true);
  view.setUint32(12, mesh.triangleCount, true);
  out.set(new Uint8Array(mesh.positions.buffer, mesh.positions.byteOffset, mesh.positions.byteLength), 16);
  out.set(new Uint8Array(mesh.triangles.buffer, mesh.triangles.byteOffset, mesh.triangles.byteLength), 16 + mesh.positions.byteLength);
  return out;
}

async function runDriver<T>(args: string[], work: (tmp: string) => Promise<string[]>, read: (json: T, tmp: string) => Promise<T>): Promise<T> {
  const exe = await embreeDriver();
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'embree-'));
  try {
    const r = await exec(exe, [...args, ...(await work(tmp))]);
    if (!r.ok) throw new Error(`${EMBREE_TITLE}: ${r.stderr.trim().split('\n').slice(-1)[0] ?? 'the driver failed'}`);
    const json = r.stdout.split('\n').find((l) => l.startsWith('{'));
    if (!json) throw new Error(`${EMBREE_TITLE}: the driver printed no result`);
    return await read(JSON.parse(json) as T, tmp);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

export interface EmbreeJob {
  rays: Rays;
  anyHit: boolean;
  /** Embree's COHERENT context flag (packet traversal inside stream calls), for primary rays. */
  coherent?: boolean;
}

export interface EmbreeTraceOptions {
  arity: 4 | 8;
  modes: readonly EmbreeMode[];
  /** Timed runs per mode, after one warm-up run. */
  runs: number;
  threads: number;
  /** Scene builds timed (the last one is traced). */
  builds?: number;
}

export interface EmbreeTrace {
  version: number;
  config: string;
  buildMs: number[];
  /** Bytes Embree's memory monitor saw the last scene build keep. */
  bytes: number;
  jobs: { coherent: boolean; modes: Partial<Record<EmbreeMode, { ms: number[]; hits: Hits }>> }[];
}

/** Builds Embree's scene of `mesh` and traces every job with every mode. */
export async function embreeTrace(mesh: Mesh, jobs: readonly EmbreeJob[], o: EmbreeTraceOptions): Promise<EmbreeTrace> {
  type Raw = Omit<EmbreeTrace, 'jobs'> & { jobs: { modes: Record<string, { ms: number[] }> }[] };
  const args = ['trace', '--bvh', String(o.arity), '--modes', o.modes.join(','), '--runs', String(o.runs), '--threads', String(o.threads), '--builds', String(o.builds ?? 1)];
  const result = await runDriver<Raw>(
    args,
    async (tmp) => {
      const files = ['--mesh', path.join(tmp, 'mesh.bin')];
      await writeFile(path.join(tmp, 'mesh.bin'), encodeMesh(mesh));
      for (const [i, job] of jobs.entries()) {
        await writeFile(path.join(tmp, `rays${i}.bin`), encodeRaysBinary(job.rays));
        files.push('--job', `${path.join(tmp, `rays${i}.bin`)},${job.anyHit ? 'any' : 'closest'},${path.join(tmp, `hits${i}`)}${job.coherent ? ',coherent' : ''}`);
      }
      return files;
    },
    async (raw, tmp) => {
      for (const [i, job] of raw.jobs.entries()) {
        for (const mode of Object.keys(job.modes)) {
          const file = path.join(tmp, `hits${i}-${mode}.bin`);
          (job.modes[mode] as { hits?: Hits }).hits = decodeHits(file, await readFile(file));
        }
      }
      return raw;
    },
  );
  return result as unknown as EmbreeTrace;
}

export interface EmbreeBvhOptions {
  arity: 2 | 4 | 8;
  maxLeafSize: number;
  /** Embree's sahBlockSize: a leaf costs per started block of this many triangles (default 1). */
  sahBlock?: number;
  traversalCost: number;
  intersectionCost: number;
  quality: 'low' | 'medium' | 'high';
  threads: number;
  builds?: number;
}

/** Embree's own tree of `mesh` from rtcBuildBVH (spatial splits with quality high), as a libs/raytrace Bvh. */
export async function embreeBuildBvh(mesh: Mesh, o: EmbreeBvhOptions): Promise<{ bvh: Bvh; buildMs: number[]; version: number }> {
  type Raw = { version: number; buildMs: number[]; bvh: Bvh };
  const args = ['buildbvh', '--arity', String(o.arity), '--max-leaf', String(o.maxLeafSize), '--trav-cost', String(o.traversalCost), '--int-cost', String(o.intersectionCost)];
  args.push('--sah-block', String(o.sahBlock ?? 1), '--quality', o.quality, '--threads', String(o.threads), '--builds', String(o.builds ?? 1));
  return runDriver<Raw>(
    args,
    async (tmp) => {
      await writeFile(path.join(tmp, 'mesh.bin'), encodeMesh(mesh));
      return ['--mesh', path.join(tmp, 'mesh.bin'), '--out', path.join(tmp, 'tree.bin')];
    },
    async (raw, tmp) => ({ ...raw, bvh: decodeTree(await readFile(path.join(tmp, 'tree.bin'))) }),
  );
}

/** The driver's tree ("ANYBVH01", u32 arity, u32 nodes, u32 root, then kind, n, bounds[6], items[n] per node). */
function decodeTree(bytes: Uint8Array): Bvh {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== 'ANYBVH01') throw new Error(`${EMBREE_TITLE}: the driver wrote no tree`);
  const arity = view.getUint32(8, true) as 2 | 4 | 8;
  const count = view.getUint32(12, true);
  const nodes: BvhNode[] = new Array(count);
  let o = 20;
  for (let i = 0; i < count; i++) {
    const leaf = view.getUint32(o, true) === 1;
    const n = view.getUint32(o + 4, true);
    const bounds = new Float32Array(6);
    for (let k = 0; k < 6; k++) bounds[k] = view.getFloat32(o + 8 + 4 * k, true);
    o += 32;
    const items = new Uint32Array(n);
    for (let k = 0; k < n; k++) items[k] = view.getUint32(o + 4 * k, true);
    o += 4 * n;
    nodes[i] = { bounds, children: leaf ? [] : Array.from(items), prims: leaf ? items : new Uint32Array(0) };
  }
  return { arity, nodes, root: view.getUint32(16, true) };
}

export interface Agreement {
  /** Rays where ours and Embree disagree (beyond ties within 1e-4 relative). */
  disagree: number;
  /** Of those, rays where ours also disagrees with the float64 brute-force reference: our errors. */
  oursWrong: number;
  /** The first of our errors: the ray, our hit and the exact one. */
  firstWrong?: string;
}

/**
 * Compares our hits with Embree's ray by ray; each ray they disagree on is traced by the
 * brute-force reference (every triangle, float64), which says whose answer is right.
 * Embree's Möller–Trumbore test is not watertight: a ray through a shared edge can slip
 * between two triangles, or take one the exact test misses, and that is not our error.
 */
export function judgeAgainstEmbree(mesh: Mesh, rays: Rays, embree: Hits, ours: Hits, anyHit: boolean): Agreement {
  const bad = compareHits(mesh, rays, embree, ours, { anyHit });
  if (bad.length === 0) return { disagree: 0, oursWrong: 0 };
  const subset: Rays = { count: bad.length, data: new Float32Array(bad.length * RAY_FLOATS) };
  bad.forEach((b, i) => subset.data.set(rays.data.subarray(b.ray * RAY_FLOATS, (b.ray + 1) * RAY_FLOATS), i * RAY_FLOATS));
  const pick = (h: Hits): Hits => ({ prim: Int32Array.from(bad, (b) => h.prim[b.ray]!), t: Float32Array.from(bad, (b) => h.t[b.ray]!) });
  const exact = traceBruteForce(mesh, subset, { anyHit });
  const wrong = compareHits(mesh, subset, exact, pick(ours), { anyHit });
  const hit = (h: { prim: number; t: number }) => (h.prim < 0 ? 'a miss' : `triangle ${h.prim} at t ${h.t.toPrecision(7)}`);
  const w = wrong[0];
  const firstWrong = w && `ray ${bad[w.ray]!.ray}: ours ${hit(w.actual)}, exact ${hit(w.expected)}`;
  return { disagree: bad.length, oursWrong: wrong.length, firstWrong };
}

/** "agree", or how many rays differ and whose answer the exact reference takes. */
export function describeAgreement(a: Agreement, rays: number): string {
  if (a.disagree === 0) return 'agree';
  const embrees = a.disagree - a.oursWrong;
  const parts = [];
  if (embrees) parts.push(`${embrees} where ours matches the exact reference and Embree does not`);
  if (a.oursWrong) parts.push(`${a.oursWrong} where OURS DIFFERS from the exact reference (${a.firstWrong})`);
  return `${a.disagree} of ${rays} differ: ${parts.join(', ')}`;
}
