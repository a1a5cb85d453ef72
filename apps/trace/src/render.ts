// What `trace` draws: primary rays from the camera, then per pixel a shade from the hit:
// ambient occlusion (the default: the share of AO_RAYS short any-hit rays from the hit
// point that escape, times a mild facing term so shapes read), the surface normal, or the
// depth. Rows are traced a band at a time so a long render can show its progress; several
// samples per pixel are averaged, then gamma-encoded to 8 bits.
import { makeImage, type Image } from '../../../libs/image/image.ts';
import { type Camera, primaryRays } from '../../../libs/raytrace/camera.ts';
import type { Mesh } from '../../../libs/raytrace/mesh.ts';
import { RAY_FLOATS, type Rays } from '../../../libs/raytrace/rays.ts';
import { secondaryRays, type TraceFn, triangleNormal } from '../../../libs/raytrace/workloads.ts';

export const SHADES = ['ao', 'normal', 'depth'] as const;
export type Shade = (typeof SHADES)[number];

/** AO rays per primary hit. */
export const AO_RAYS = 8;


export interface RenderOptions {
  camera: Camera;
  width: number;
  height: number;
  spp: number;
  shade: Shade;
  seed?: number;
  /** Called after each band of rows with the rows done. */
  onRows?: (done: number) => void;
}

/** Rows per band: about 64K primary rays at 1 sample per pixel, whole rows. */
function bandRows(width: number, spp: number): number {
  return Math.max(1, Math.floor(65536 / (width * spp)));
}

/** Background of AO shading, where a primary ray escapes. */
const SKY = [0.5, 0.62, 0.85];

/** Grey albedo of every surface under AO shading. */
const ALBEDO = 0.8;

/** Renders `mesh` as seen by `camera`; returns the image (u8 RGB) and the rays traced, for throughput. */
export async function render(mesh: Mesh, trace: TraceFn, o: RenderOptions): Promise<{ image: Image; rays: number }> {
  const { width, height, spp } = o;
  const all = primaryRays(o.camera, width, height, spp, o.seed ?? 1);
  const color = new Float32Array(width * height * 3);
  const depth = new Float32Array(width * height);
  const depthSamples = new Uint32Array(width * height);
  const rows = bandRows(width, spp);
  const n = new Float64Array(3);
  let traced = 0;
  for (let y0 = 0; y0 < height; y0 += rows) {
    const y1 = Math.min(height, y0 + rows);
    const first = y0 * width * spp;
    const band: Rays = { count: (y1 - y0) * width * spp, data: all.data.subarray(first * RAY_FLOATS, y1 * width * spp * RAY_FLOATS) };
    const hits = await trace(band, false);
    traced += band.count;
    let open: Float32Array | undefined;
    if (o.shade === 'ao') {
      const ao = secondaryRays('ao', mesh, band, hits, { samples: AO_RAYS, seed: (o.seed ?? 1) + y0 });
      const occluded = await trace(ao, true);
      traced += ao.count;
      open = new Float32Array(band.count);
      for (let r = 0; r < ao.count; r++) if (occluded.prim[r]! < 0) open[ao.source[r]!]! += 1 / AO_RAYS;
    }
    for (let i = 0; i < band.count; i++) {
      const pixel = Math.floor((first + i) / spp);
      const prim = hits.prim[i]!;
      const c = pixel * 3;
      if (o.shade === 'depth') {
        // Averaged over the samples that hit; the range is known only at the end.
        if (prim >= 0) {
          depth[pixel]! += hits.t[i]!;
          depthSamples[pixel]!++;
        }
        continue;
      }
      if (prim < 0) {
        if (o.shade === 'ao') for (let k = 0; k < 3; k++) color[c + k]! += SKY[k]! / spp;
        continue;
      }
      triangleNormal(mesh, prim, n);
      const d = i * RAY_FLOATS;
      const facing = Math.abs(n[0]! * band.data[d + 3]! + n[1]! * band.data[d + 4]! + n[2]! * band.data[d + 5]!);
      if (o.shade === 'normal') {
        // The side facing the camera, as a colour.
        const sign = n[0]! * band.data[d + 3]! + n[1]! * band.data[d + 4]! + n[2]! * band.data[d + 5]! > 0 ? -1 : 1;
        for (let k = 0; k < 3; k++) color[c + k]! += (0.5 + 0.5 * sign * n[k]!) / spp;
      } else {
        const v = ALBEDO * open![i]! * (0.5 + 0.5 * facing);
        for (let k = 0; k < 3; k++) color[c + k]! += v / spp;
      }
    }
    o.onRows?.(y1);
  }
  if (o.shade === 'depth') shadeDepth(depth, depthSamples, color);
  return { image: toImage(color, width, height), rays: traced };
}

/** Near is bright, far dark, over the range of distances seen; misses black. */
function shadeDepth(depth: Float32Array, samples: Uint32Array, color: Float32Array): void {
  let lo = Infinity;
  let hi = -Infinity;
  for (let p = 0; p < depth.length; p++) {
    if (samples[p]! === 0) continue;
    depth[p] = depth[p]! / samples[p]!;
    lo = Math.min(lo, depth[p]!);
    hi = Math.max(hi, depth[p]!);
  }
  for (let p = 0; p < depth.length; p++) {
    if (samples[p]! === 0) continue;
    const v = hi > lo ? 1 - (0.85 * (depth[p]! - lo)) / (hi - lo) : 1;
    color.fill(v, p * 3, p * 3 + 3);
  }
}

/** Linear colours to 8-bit sRGB-like values (gamma 2.2). */
function toImage(color: Float32Array, width: number, height: number): Image {
  const img = makeImage('u8', width, height, 3);
  for (let i = 0; i < color.length; i++) img.data[i] = Math.round(255 * Math.min(1, Math.max(0, color[i]!)) ** (1 / 2.2));
  return img;
}
