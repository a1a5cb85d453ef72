// Seeded procedural scenes of any size: a ground grid, tessellated spheres, axis-aligned
// and rotated boxes, scattered small triangles and a sprinkling of degenerate triangles
// (repeated vertices, collinear points), so the BVHs built over them have real structure
// (clusters, empty space, flat boxes) and the kernels meet the awkward cases. Used by the
// tests, `npm start` and the benchmarks' small inputs; the same options give the same mesh.
import { makeMesh, type Mesh } from './mesh.ts';
import { seededRandom } from '../shared/random.ts';

export interface ProceduralOptions {
  /** Exact number of triangles in the result (≥ 1). */
  readonly triangles: number;
  /** Seed of the generator; the same seed gives the same scene. */
  readonly seed: number;
  /** Fraction of degenerate (zero-area) triangles, default 0.02; at least one when > 0 and triangles ≥ 8. */
  readonly degenerateFraction?: number;
}



class MeshWriter {
  positions: number[] = [];
  triangles: number[] = [];
  vertex(x: number, y: number, z: number): number {
    this.positions.push(x, y, z);
    return this.positions.length / 3 - 1;
  }
  triangle(a: number, b: number, c: number): void {
    this.triangles.push(a, b, c);
  }
  get count(): number {
    return this.triangles.length / 3;
  }
}

/** A scene of exactly `triangles` triangles inside roughly [-10, 10] × [0, 6] × [-10, 10]. */
export function proceduralScene(options: ProceduralOptions): Mesh {
  const total = Math.floor(options.triangles);
  if (!(total >= 1)) throw new Error(`proceduralScene: needs at least 1 triangle, got ${options.triangles}`);
  const rnd = seededRandom(options.seed);
  const w = new MeshWriter();
  const degenerateFraction = options.degenerateFraction ?? 0.02;
  const degenerate = degenerateFraction > 0 && total >= 8 ? Math.max(1, Math.floor(total * degenerateFraction)) : 0;
  const budget = total - degenerate;
  const range = (lo: number, hi: number) => lo + (hi - lo) * rnd();

  // Ground grid: about a fifth of the triangles, slightly bumpy so it is not one plane.
  const gridCells = Math.floor(Math.sqrt(Math.max(0, budget * 0.2) / 2));
  if (gridCells >= 1) grid(w, gridCells, rnd);

  // Spheres, boxes and scattered triangles until the budget is spent; the last shape is cut.
  while (w.count < budget) {
    const left = budget - w.count;
    const pick = rnd();
    if (pick < 0.45 && left >= 24) {
      const slices = Math.max(4, Math.min(48, Math.floor(Math.sqrt(Math.min(left, 4000) / 2))));
      sphere(w, range(-8, 8), range(0.5, 5), range(-8, 8), range(0.2, 2), slices, Math.max(3, slices >> 1));
    } else if (pick < 0.8 && left >= 12) {
      box(w, range(-9, 9), range(0, 5), range(-9, 9), range(0.1, 2), range(0.1, 2), range(0.1, 2), rnd() < 0.5 ? 0 : range(0, Math.PI));
    } else {
      // A cluster of small thin triangles: leaves full of overlapping boxes.
      const cx = range(-9, 9), cy = range(0, 6), cz = range(-9, 9), n = Math.min(left, 1 + Math.floor(rnd() * 16));
      for (let i = 0; i < n; i++) {
        const s = range(0.01, 0.5);
        w.triangle(
          w.vertex(cx + range(-1, 1), cy + range(-1, 1), cz + range(-1, 1)),
          w.vertex(cx + range(-1, 1) * s, cy + range(-1, 1) * s, cz + range(-1, 1) * s),
          w.vertex(cx + range(-1, 1), cy + range(-1, 1) * s, cz + range(-1, 1)),
        );
      }
    }
  }
  w.triangles.length = budget * 3;

  // Degenerate triangles spread through the index range, so they land in many leaves.
  for (let i = 0; i < degenerate; i++) {
    const x = range(-9, 9), y = range(0, 6), z = range(-9, 9);
    const kind = i % 3;
    const a = w.vertex(x, y, z);
    if (kind === 0) {
      w.triangle(a, a, w.vertex(x + range(0, 1), y, z)); // two corners the same vertex
    } else if (kind === 1) {
      const dx = range(-1, 1), dy = range(-1, 1), dz = range(-1, 1);
      w.triangle(a, w.vertex(x + dx, y + dy, z + dz), w.vertex(x + 2 * dx, y + 2 * dy, z + 2 * dz)); // collinear
    } else {
      w.triangle(a, a, a); // a point
    }
    const at = Math.floor(rnd() * (w.count - 1));
    swapTriangles(w.triangles, at, w.count - 1);
  }
  return makeMesh(new Float32Array(w.positions), new Uint32Array(w.triangles));
}

function swapTriangles(t: number[], i: number, j: number): void {
  for (let k = 0; k < 3; k++) {
    const tmp = t[3 * i + k]!;
    t[3 * i + k] = t[3 * j + k]!;
    t[3 * j + k] = tmp;
  }
}

function grid(w: MeshWriter, cells: number, rnd: () => number): void {
  const base = w.positions.length / 3;
  const size = 20 / cells;
  for (let j = 0; j <= cells; j++) {
    for (let i = 0; i <= cells; i++) w.vertex(-10 + i * size, (rnd() - 0.5) * 0.05, -10 + j * size);
  }
  for (let j = 0; j < cells; j++) {
    for (let i = 0; i < cells; i++) {
      const a = base + j * (cells + 1) + i, b = a + 1, c = a + cells + 1, d = c + 1;
      w.triangle(a, c, b);
      w.triangle(b, c, d);
    }
  }
}

function sphere(w: MeshWriter, cx: number, cy: number, cz: number, r: number, slices: number, stacks: number): void {
  const top = w.vertex(cx, cy + r, cz);
  const rings: number[] = [];
  for (let s = 1; s < stacks; s++) {
    const phi = (Math.PI * s) / stacks;
    rings.push(w.positions.length / 3);
    for (let i = 0; i < slices; i++) {
      const theta = (2 * Math.PI * i) / slices;
      w.vertex(cx + r * Math.sin(phi) * Math.cos(theta), cy + r * Math.cos(phi), cz + r * Math.sin(phi) * Math.sin(theta));
    }
  }
  const bottom = w.vertex(cx, cy - r, cz);
  for (let i = 0; i < slices; i++) {
    const i1 = (i + 1) % slices;
    w.triangle(top, rings[0]! + i1, rings[0]! + i);
    for (let s = 0; s + 1 < rings.length; s++) {
      const a = rings[s]! + i, b = rings[s]! + i1, c = rings[s + 1]! + i, d = rings[s + 1]! + i1;
      w.triangle(a, b, c);
      w.triangle(b, d, c);
    }
    const last = rings[rings.length - 1]!;
    w.triangle(bottom, last + i, last + i1);
  }
}

function box(w: MeshWriter, cx: number, cy: number, cz: number, hx: number, hy: number, hz: number, yaw: number): void {
  const cos = Math.cos(yaw), sin = Math.sin(yaw);
  const v: number[] = [];
  for (let k = 0; k < 8; k++) {
    const x = k & 1 ? hx : -hx, y = k & 2 ? hy : -hy, z = k & 4 ? hz : -hz;
    v.push(w.vertex(cx + cos * x - sin * z, cy + y, cz + sin * x + cos * z));
  }
  const faces = [
    [0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5],
  ];
  for (const [a, b, c, d] of faces) {
    w.triangle(v[a!]!, v[b!]!, v[c!]!);
    w.triangle(v[a!]!, v[c!]!, v[d!]!);
  }
}
