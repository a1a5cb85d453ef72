// The ray sets of the paper's Fig. 7: primary rays from a camera, ambient-occlusion rays
// (any-hit, short, cosine-distributed about the surface normal at each primary hit) and
// diffuse rays (closest-hit, one cosine-distributed bounce from each primary hit). The
// secondary sets depend on the primary hits, which a tracer given by the caller computes
// (the library's kernels or Embree: this file has no tracer of its own); they are generated
// once for a seed and stored, so that every side of a comparison traces exactly the same rays.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '@anydsl/compiler';
import { type Camera, formatCamera, primaryRays } from './camera.ts';
import { type Mesh, sceneDiagonal } from './mesh.ts';
import { seededRandom } from '../shared/random.ts';
import { decodeRays, encodeRaysBinary, type Hits, makeRays, RAY_FLOATS, type Rays } from './rays.ts';

export const WORKLOADS = ['primary', 'ao', 'diffuse'] as const;
export type Workload = (typeof WORKLOADS)[number];

/** Whether a workload's rays are traced for any hit (occlusion) rather than the closest. */
export const ANY_HIT: Readonly<Record<Workload, boolean>> = { primary: false, ao: true, diffuse: false };

/** Rays derived from primary hits, with the primary ray each came from. */
export interface SecondaryRays extends Rays {
  /** Per ray, the index of its primary ray. */
  source: Uint32Array;
}

/** The unit geometric normal of triangle `t` (0,0,0 for a degenerate one) into `out`. */
export function triangleNormal(mesh: Mesh, t: number, out: Float64Array): void {
  const p = mesh.positions;
  const tri = mesh.triangles;
  const a = tri[3 * t]! * 3, b = tri[3 * t + 1]! * 3, c = tri[3 * t + 2]! * 3;
  const e1x = p[b]! - p[a]!, e1y = p[b + 1]! - p[a + 1]!, e1z = p[b + 2]! - p[a + 2]!;
  const e2x = p[c]! - p[a]!, e2y = p[c + 1]! - p[a + 1]!, e2z = p[c + 2]! - p[a + 2]!;
  const nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
  const len = Math.hypot(nx, ny, nz);
  const inv = len > 0 ? 1 / len : 0;
  out[0] = nx * inv;
  out[1] = ny * inv;
  out[2] = nz * inv;
}

export interface SecondaryOptions {
  /** Rays per primary hit (AO's samples); 1 by default. */
  samples?: number;
  seed?: number;
  /** AO's tmax, relative to the scene's diagonal (0.05 by default); diffuse rays are unbounded. */
  aoDistance?: number;
}

/**
 * `samples` cosine-distributed rays from each primary hit, about the normal on the side the
 * primary ray came from, starting a little off the surface (1e-5 of the scene's diagonal
 * along the normal) so they do not hit the triangle they leave. AO rays end at `aoDistance`
 * of the diagonal; diffuse rays go on to infinity. Misses start nothing.
 */
export function secondaryRays(kind: 'ao' | 'diffuse', mesh: Mesh, primary: Rays, hits: Hits, options: SecondaryOptions = {}): SecondaryRays {
  const samples = options.samples ?? 1;
  const next = seededRandom(options.seed ?? 1);
  const diagonal = sceneDiagonal(mesh);
  const offset = 1e-5 * diagonal;
  const tmax = kind === 'ao' ? (options.aoDistance ?? 0.05) * diagonal : Infinity;
  let hitCount = 0;
  for (let i = 0; i < primary.count; i++) if (hits.prim[i]! >= 0) hitCount++;
  const rays = makeRays(hitCount * samples);
  const source = new Uint32Array(hitCount * samples);
  const d = rays.data;
  const pd = primary.data;
  const n = new Float64Array(3);
  let r = 0;
  for (let i = 0; i < primary.count; i++) {
    const prim = hits.prim[i]!;
    if (prim < 0) continue;
    const o = i * RAY_FLOATS;
    const t = hits.t[i]!;
    const px = pd[o]! + t * pd[o + 3]!, py = pd[o + 1]! + t * pd[o + 4]!, pz = pd[o + 2]! + t * pd[o + 5]!;
    triangleNormal(mesh, prim, n);
    // Face the side the primary ray came from.
    if (n[0]! * pd[o + 3]! + n[1]! * pd[o + 4]! + n[2]! * pd[o + 5]! > 0) for (let k = 0; k < 3; k++) n[k] = -n[k]!;
    const [nx, ny, nz] = [n[0]!, n[1]!, n[2]!];
    // An orthonormal basis about n (Duff et al. 2017, branchless).
    const sign = nz >= 0 ? 1 : -1;
    const a = -1 / (sign + nz);
    const b = nx * ny * a;
    const tx = [1 + sign * nx * nx * a, sign * b, -sign * nx];
    const bx = [b, sign + ny * ny * a, -ny];
    for (let s = 0; s < samples; s++) {
      // Cosine-weighted: a uniform point on the unit disc lifted onto the hemisphere.
      const phi = 2 * Math.PI * next();
      const r2 = next();
      const rad = Math.sqrt(r2);
      const lx = rad * Math.cos(phi), ly = rad * Math.sin(phi), lz = Math.sqrt(Math.max(0, 1 - r2));
      const q = r * RAY_FLOATS;
      d[q] = px + offset * nx;
      d[q + 1] = py + offset * ny;
      d[q + 2] = pz + offset * nz;
      d[q + 3] = lx * tx[0]! + ly * bx[0]! + lz * nx;
      d[q + 4] = lx * tx[1]! + ly * bx[1]! + lz * ny;
      d[q + 5] = lx * tx[2]! + ly * bx[2]! + lz * nz;
      d[q + 6] = 0;
      d[q + 7] = tmax;
      source[r++] = i;
    }
  }
  return { ...rays, source };
}

/** Traces rays closest-hit or any-hit: the library's tracer or a reference, whichever the caller has. */
export type TraceFn = (rays: Rays, anyHit: boolean) => Promise<Hits>;

export interface WorkloadSpec {
  camera: Camera;
  width: number;
  height: number;
  /** Seed of the secondary rays' directions. */
  seed: number;
  /** AO rays per primary hit. */
  aoSamples: number;
}

/** A key naming the mesh's geometry: a hash of its positions and triangles. */
export function meshKey(mesh: Mesh): string {
  const h = createHash('sha256');
  h.update(new Uint8Array(mesh.positions.buffer, mesh.positions.byteOffset, mesh.positions.byteLength));
  h.update(new Uint8Array(mesh.triangles.buffer, mesh.triangles.byteOffset, mesh.triangles.byteLength));
  return h.digest('hex').slice(0, 16);
}

/** The file a workload is stored in: everything that determines its rays is in the name's hash. */
function workloadFile(dir: string, mesh: Mesh, kind: Workload, spec: WorkloadSpec): string {
  const what = [meshKey(mesh), kind, formatCamera(spec.camera), spec.width, spec.height, kind === 'primary' ? '' : `${spec.seed}/${kind === 'ao' ? spec.aoSamples : 1}`];
  const hash = createHash('sha256').update(what.join('\0')).digest('hex').slice(0, 16);
  return path.join(dir, `${kind}-${spec.width}x${spec.height}-${hash}.bin`);
}

/** The three workloads of a scene for `spec`: primary rays, then AO and diffuse rays from the primary hits `trace` finds. */
export async function generateWorkloads(mesh: Mesh, spec: WorkloadSpec, trace: TraceFn): Promise<Record<Workload, Rays>> {
  const primary = primaryRays(spec.camera, spec.width, spec.height);
  const hits = await trace(primary, false);
  const ao = secondaryRays('ao', mesh, primary, hits, { samples: spec.aoSamples, seed: spec.seed });
  const diffuse = secondaryRays('diffuse', mesh, primary, hits, { seed: spec.seed + 1 });
  return { primary, ao: { count: ao.count, data: ao.data }, diffuse: { count: diffuse.count, data: diffuse.data } };
}

/**
 * The three workloads of a scene, read from `dir` when stored there before, otherwise
 * generated and stored. The primary rays depend only on the camera; AO and diffuse rays on
 * the primary hits too, which is why they are stored: a different tracer, or a later
 * version, could round a hit point differently.
 */
export async function loadWorkloads(dir: string, mesh: Mesh, spec: WorkloadSpec, trace: TraceFn): Promise<Record<Workload, Rays>> {
  mkdirSync(dir, { recursive: true });
  const files = Object.fromEntries(WORKLOADS.map((w) => [w, workloadFile(dir, mesh, w, spec)])) as Record<Workload, string>;
  if (WORKLOADS.every((w) => existsSync(files[w]))) {
    const read = async (w: Workload) => decodeRays(files[w], await readFile(files[w]));
    return { primary: await read('primary'), ao: await read('ao'), diffuse: await read('diffuse') };
  }
  const sets = await generateWorkloads(mesh, spec, trace);
  for (const w of WORKLOADS) await writeFileAtomic(files[w], encodeRaysBinary(sets[w]));
  return sets;
}
