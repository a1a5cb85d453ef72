// The triangle mesh every part of the ray-tracing library shares: vertex positions and
// index triples in flat typed arrays (what the OBJ loader and the procedural generator
// produce, what the BVH builder and the kernels' flattening read). Triangle i is the
// i-th triangle in file order, so a hit's primitive id names a face of the user's file.

/** Axis-aligned box as minx, miny, minz, maxx, maxy, maxz. */
export type Bounds = Float32Array;

export interface Mesh {
  /** x, y, z per vertex. */
  readonly positions: Float32Array;
  /** 3 vertex indices per triangle, in file order; n-gons fan-triangulated from their first vertex. */
  readonly triangles: Uint32Array;
  /** Material id per triangle (index into `materialNames`; the name '' for triangles before any `usemtl`), when the source had `usemtl` statements. */
  readonly materials?: Uint32Array;
  /** Names of the materials `materials` indexes. */
  readonly materialNames?: readonly string[];
  /** Number of triangles (triangles.length / 3). */
  readonly triangleCount: number;
  /** The box of every vertex a triangle uses (an empty box, min > max, for no triangles); computed once. */
  bounds(): Bounds;
}

/** A mesh over the given arrays; checks that every index names a vertex. */
export function makeMesh(
  positions: Float32Array,
  triangles: Uint32Array,
  extra: { materials?: Uint32Array; materialNames?: readonly string[] } = {},
): Mesh {
  if (positions.length % 3 !== 0) throw new Error(`mesh: ${positions.length} position floats is not a multiple of 3`);
  if (triangles.length % 3 !== 0) throw new Error(`mesh: ${triangles.length} indices is not a multiple of 3`);
  const vertexCount = positions.length / 3;
  for (let i = 0; i < triangles.length; i++) {
    if (triangles[i]! >= vertexCount) {
      throw new Error(`mesh: triangle ${Math.floor(i / 3)} uses vertex ${triangles[i]} of ${vertexCount}`);
    }
  }
  if (extra.materials && extra.materials.length !== triangles.length / 3) {
    throw new Error(`mesh: ${extra.materials.length} material ids for ${triangles.length / 3} triangles`);
  }
  let cached: Bounds | undefined;
  return {
    positions,
    triangles,
    materials: extra.materials,
    materialNames: extra.materialNames,
    triangleCount: triangles.length / 3,
    bounds() {
      cached ??= meshBounds(positions, triangles);
      return cached;
    },
  };
}

/** An empty box: any point grows it to itself. */
export function emptyBounds(): Bounds {
  return new Float32Array([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
}

function meshBounds(positions: Float32Array, triangles: Uint32Array): Bounds {
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let i = 0; i < triangles.length; i++) {
    const v = triangles[i]! * 3;
    const x = positions[v]!, y = positions[v + 1]!, z = positions[v + 2]!;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    if (z < z0) z0 = z;
    if (z > z1) z1 = z;
  }
  return new Float32Array([x0, y0, z0, x1, y1, z1]);
}

/** The length of the mesh's box diagonal, the scale offsets and tolerances are relative to (1 for an empty or flat-to-a-point mesh). */
export function sceneDiagonal(mesh: Mesh): number {
  const b = mesh.bounds();
  const d = Math.hypot(b[3]! - b[0]!, b[4]! - b[1]!, b[5]! - b[2]!);
  return Number.isFinite(d) && d > 0 ? d : 1;
}

/** The box of triangle `t` written into `out` at `offset` (6 floats). */
export function triangleBounds(mesh: Mesh, t: number, out: Float32Array, offset = 0): void {
  const p = mesh.positions, tri = mesh.triangles;
  const a = tri[3 * t]! * 3, b = tri[3 * t + 1]! * 3, c = tri[3 * t + 2]! * 3;
  for (let k = 0; k < 3; k++) {
    const va = p[a + k]!, vb = p[b + k]!, vc = p[c + k]!;
    out[offset + k] = Math.min(va, vb, vc);
    out[offset + 3 + k] = Math.max(va, vb, vc);
  }
}

/** Surface area of a box; 0 for an empty or inverted one. */
export function surfaceArea(b: ArrayLike<number>, offset = 0): number {
  const dx = b[offset + 3]! - b[offset]!, dy = b[offset + 4]! - b[offset + 1]!, dz = b[offset + 5]! - b[offset + 2]!;
  if (!(dx >= 0 && dy >= 0 && dz >= 0)) return 0;
  return 2 * (dx * dy + dy * dz + dz * dx);
}
