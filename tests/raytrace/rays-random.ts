// Random rays for the app's and the Embree reference's tests: from points around a mesh's
// box towards points inside it, every seventh axis-parallel, every third with a finite
// tmax. Not rays aimed exactly at vertices or edges (kernels-cases.ts has those, judged
// with a tolerance band): Embree's Möller–Trumbore test is not watertight there and may
// take a hit the float64 reference misses, which says nothing about what these tests check.
import type { Mesh } from '../../libs/raytrace/mesh.ts';
import type { Rays } from '../../libs/raytrace/rays.ts';
import { random } from '../random.ts';

export function randomRays(mesh: Mesh, count: number, seed: number): Rays {
  const next = random(seed);
  const b = mesh.bounds();
  const data = new Float32Array(count * 8);
  const at = (k: number, grow: number) => b[k]! - grow + (b[k + 3]! - b[k]! + 2 * grow) * next();
  for (let i = 0; i < count; i++) {
    const o = [at(0, 3), at(1, 3), at(2, 3)];
    let d = [at(0, 0) - o[0]!, at(1, 0) - o[1]!, at(2, 0) - o[2]!];
    if (i % 7 === 0) d = d.map((x, k) => (k === i % 3 ? x : 0));
    data.set([o[0]!, o[1]!, o[2]!, d[0]!, d[1]!, d[2]!, 0, i % 3 === 0 ? 0.2 + next() : Infinity], i * 8);
  }
  return { count, data };
}
