// Rays, hits, the camera and the workloads (libs/raytrace/{rays,camera,workloads}.ts):
// the text and binary files round-trip exactly and reject bad lines with file:line, a
// tracer's arrays are checked for room, the camera's rays match the pinhole geometry
// computed independently, and the AO/diffuse sets are deterministic by seed,
// cosine-distributed on the right side of the surface, and stored once.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultCamera, parseCamera, primaryRays, sceneCamera, sceneName } from '../../libs/raytrace/camera.ts';
import { makeMesh } from '../../libs/raytrace/mesh.ts';
import { proceduralScene } from '../../libs/raytrace/procedural.ts';
import {
  checkTraceArrays,
  decodeHits,
  decodeRays,
  encodeHitsBinary,
  encodeRaysBinary,
  formatFloat32,
  formatHitsText,
  formatRaysText,
  type Hits,
  parseHitsText,
  makeHits,
  makeRays,
  parseRaysText,
  RayFileError,
  type Rays,
} from '../../libs/raytrace/rays.ts';
import { traceBruteForce } from '../../libs/raytrace/reference.ts';
import { loadWorkloads, secondaryRays, type TraceFn, triangleNormal } from '../../libs/raytrace/workloads.ts';

const f32 = fc.float({ noNaN: true, noDefaultInfinity: true, min: Math.fround(-1e6), max: Math.fround(1e6) });

/** Random valid rays: finite origin, a non-zero direction, 0 ≤ tmin, tmax finite or ∞. */
const raysArb = fc
  .array(
    fc.tuple(f32, f32, f32, f32, f32, f32, fc.float({ min: 0, max: Math.fround(1e3), noNaN: true }), fc.oneof(fc.constant(Infinity), fc.float({ min: 0, max: Math.fround(1e6), noNaN: true }))),
    { maxLength: 40 },
  )
  .map((list) => list.filter((r) => r[3] !== 0 || r[4] !== 0 || r[5] !== 0))
  .map((list): Rays => ({ count: list.length, data: Float32Array.from(list.flat()) }));

const hitsArb = fc
  .array(fc.oneof(fc.constant([-1, -1] as const), fc.tuple(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.float({ min: 0, max: Math.fround(1e30), noNaN: true }))), { maxLength: 40 })
  .map((list): Hits => ({ prim: Int32Array.from(list.map((h) => h[0])), t: Float32Array.from(list.map((h) => h[1])) }));

const bits = (a: Float32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

describe('ray and hit files', () => {
  it('formatFloat32 is the shortest decimal that reads back as the same float32', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const s = formatFloat32(x);
        expect(Math.fround(Number(s))).toBe(Math.fround(x));
        const digits = s.replace(/^-/, '').replace(/e.*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
        if (digits > 1) {
          // One significant digit fewer never reads back (toPrecision rounds to nearest).
          expect(Math.fround(Number(Math.fround(x).toPrecision(digits - 1)))).not.toBe(Math.fround(x));
        }
      }),
    );
  });

  it('rays round-trip exactly through the text and the binary form', () => {
    fc.assert(
      fc.property(raysArb, (rays) => {
        const text = parseRaysText('r.txt', formatRaysText(rays));
        expect(text.count).toBe(rays.count);
        expect(bits(text.data)).toEqual(bits(rays.data));
        const bin = decodeRays('r.bin', encodeRaysBinary(rays));
        expect(bits(bin.data)).toEqual(bits(rays.data));
      }),
    );
  });

  it('hits round-trip exactly through the text and the binary form; any-hit writes 1 and 0', () => {
    fc.assert(
      fc.property(hitsArb, (hits) => {
        const text = parseHitsText('h.txt', formatHitsText(hits, false), false);
        expect(Array.from(text.prim)).toEqual(Array.from(hits.prim));
        expect(bits(text.t)).toEqual(bits(hits.t));
        const bin = decodeHits('h.bin', encodeHitsBinary(hits));
        expect(Array.from(bin.prim)).toEqual(Array.from(hits.prim));
        expect(bits(bin.t)).toEqual(bits(hits.t));
        const any = formatHitsText(hits, true);
        expect(any).toBe(Array.from(hits.prim, (p) => `${p >= 0 ? 1 : 0}\n`).join(''));
        expect(Array.from(parseHitsText('a.txt', any, true).prim, (p) => p >= 0)).toEqual(Array.from(hits.prim, (p) => p >= 0));
      }),
    );
  });

  it('reads comments, blank lines, inf and a binary file with u and v from a Buffer at an odd offset', () => {
    const rays = parseRaysText('r.txt', '# origin direction tmin tmax\n\n0 0 -1  0 0 1  0 inf   # to infinity\n1 2 3 -1 0 0 0.5 INFINITY\n');
    expect(rays.count).toBe(2);
    expect(Array.from(rays.data)).toEqual([0, 0, -1, 0, 0, 1, 0, Infinity, 1, 2, 3, -1, 0, 0, 0.5, Infinity]);
    const hits: Hits = { prim: Int32Array.of(3, -1), t: Float32Array.of(1.5, -1), u: Float32Array.of(0.25, 0), v: Float32Array.of(0.5, 0) };
    const bytes = encodeHitsBinary(hits);
    const shifted = Buffer.alloc(bytes.length + 1);
    shifted.set(bytes, 1);
    const back = decodeHits('h.bin', shifted.subarray(1));
    expect([Array.from(back.prim), Array.from(back.t), Array.from(back.u!), Array.from(back.v!)]).toEqual([[3, -1], [1.5, -1], [0.25, 0], [0.5, 0]]);
  });

  it.each([
    ['0 0 0 1 0 0 0', 'r.txt:1: expected 8 numbers'],
    ['\n# c\n0 0 0 1 0 x 0 1', "r.txt:3: 'x' is not a number"],
    ['0 0 0 0x1 0 0 0 1', "r.txt:1: '0x1' is not a number"],
    ['0 0 0 0 0 0 0 1', 'r.txt:1: the direction is 0 0 0'],
    ['0 0 0 1 0 0 -1 1', 'r.txt:1: tmin is -1'],
    ['0 0 inf 1 0 0 0 1', 'r.txt:1: origin component z is Infinity'],
    ['0 0 0 1 0 0 0 nan', "r.txt:1: 'nan' is not a number"],
  ])('a bad ray line %j is an error at its line', (text, message) => {
    expect(() => parseRaysText('r.txt', text)).toThrow(RayFileError);
    expect(() => parseRaysText('r.txt', text)).toThrow(message);
  });

  it.each([
    ['1 2 3', false, "h.txt:1: expected 'prim t'"],
    ['-1 0.5', false, "h.txt:1: '0.5' is not -1 (a miss)"],
    ['-2 -1', false, "h.txt:1: '-2' is not a triangle index or -1"],
    ['4 -3', false, "h.txt:1: '-3' is not a distance ≥ 0"],
    ['1\n2', true, "h.txt:2: expected 1 (occluded) or 0, found '2'"],
  ])('a bad hit line %j is an error at its line', (text, anyHit, message) => {
    expect(() => parseHitsText('h.txt', text, anyHit)).toThrow(message);
  });

  it('a cut binary file and a hits file given as rays are errors naming the file', () => {
    const bytes = encodeRaysBinary({ count: 2, data: new Float32Array(16).fill(1) });
    expect(() => decodeRays('r.bin', bytes.subarray(0, 40))).toThrow('r.bin: the binary rays file says 2 rays (80 bytes) but has 40 bytes');
    expect(() => decodeRays('h.bin', encodeHitsBinary({ prim: Int32Array.of(1), t: Float32Array.of(1) }))).toThrow('h.bin: this is a binary hits file, not rays');
  });
});

const norm = (v: number[]) => Math.hypot(v[0]!, v[1]!, v[2]!);
const dot = (a: number[], b: number[]) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;

describe('the arrays a tracer is handed', () => {
  it('must hold the rays and room for every hit array present', () => {
    expect(() => checkTraceArrays(makeRays(3), makeHits(3))).not.toThrow();
    expect(() => checkTraceArrays({ count: 3, data: new Float32Array(23) }, makeHits(3))).toThrow(/^3 rays need 24 floats, got 23$/);
    expect(() => checkTraceArrays(makeRays(3), { ...makeHits(3), t: new Float32Array(2) })).toThrow(/^hits\.t holds 2 entries for 3 rays$/);
    expect(() => checkTraceArrays(makeRays(3), { ...makeHits(3), v: new Float32Array(1) })).toThrow(/^hits\.v holds 1 entries for 3 rays$/);
  });
});

describe('camera', () => {
  it('parses ten numbers and rejects what cannot be a camera', () => {
    expect(parseCamera('0,1,5, 0,1,0, 0,1,0, 45')).toEqual({ eye: [0, 1, 5], at: [0, 1, 0], up: [0, 1, 0], fov: 45 });
    expect(() => parseCamera('0,1,5,0,1,0,0,1,0')).toThrow('expected 10 comma-separated numbers');
    expect(() => parseCamera('0,1,5,0,1,0,0,1,0,abc')).toThrow("'abc' is not a number");
    expect(() => parseCamera('1,1,1,1,1,1,0,1,0,45')).toThrow('the eye and the point looked at are the same');
    expect(() => parseCamera('0,0,0,0,1,0,0,2,0,45')).toThrow('the up vector is parallel to the viewing direction');
    expect(() => parseCamera('0,0,0,0,0,1,0,1,0,180')).toThrow('the field of view 180 is not between 0 and 180 degrees');
  });

  it('each primary ray leaves the eye through its pixel centre at the pinhole angles', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 10, max: 120 }), (w, h, fov) => {
        const camera = { eye: [1, 2, 3] as const, at: [4, 2, -1] as const, up: [0, 1, 0] as const, fov };
        const rays = primaryRays(camera, w, h);
        const forward = [3 / 5, 0, -4 / 5];
        const right = [4 / 5, 0, 3 / 5]; // forward × up
        const up = [0, 1, 0];
        const tan = Math.tan((fov * Math.PI) / 360);
        for (let y = 0; y < h; y++) {
          for (let x = 0; x < w; x++) {
            const r = Array.from(rays.data.subarray((y * w + x) * 8, (y * w + x + 1) * 8));
            expect(r.slice(0, 3)).toEqual([1, 2, 3]);
            expect([r[6], r[7]]).toEqual([0, Infinity]);
            const d = r.slice(3, 6);
            expect(norm(d)).toBeCloseTo(1, 6);
            // Tangents of the angles to the forward axis, horizontally and vertically.
            expect(dot(d, right) / dot(d, forward)).toBeCloseTo((((x + 0.5) / w) * 2 - 1) * tan * (w / h), 5);
            expect(dot(d, up) / dot(d, forward)).toBeCloseTo((1 - ((y + 0.5) / h) * 2) * tan, 5);
          }
        }
      }),
    );
  });

  it('several samples per pixel stay inside their pixel and are reproducible by seed', () => {
    const camera = { eye: [0, 0, 0] as const, at: [0, 0, -1] as const, up: [0, 1, 0] as const, fov: 90 };
    const a = primaryRays(camera, 4, 3, 5, 7);
    expect(bits(primaryRays(camera, 4, 3, 5, 7).data)).toEqual(bits(a.data));
    expect(bits(primaryRays(camera, 4, 3, 5, 8).data)).not.toEqual(bits(a.data));
    for (let i = 0; i < a.count; i++) {
      const pixel = Math.floor(i / 5);
      const d = a.data.subarray(i * 8 + 3, i * 8 + 6);
      // fov 90 and aspect 4/3: the image plane at z = -1 spans x in [-4/3, 4/3], y in [-1, 1].
      const px = ((-d[0]! / d[2]!) * 3) / 4;
      const py = d[1]! / -d[2]!;
      expect(Math.floor(((px + 1) / 2) * 4)).toBe(pixel % 4);
      expect(Math.floor(((1 - py) / 2) * 3)).toBe(Math.floor(pixel / 4));
    }
  });

  it('the default camera sees every corner of the bounds, for any box and aspect', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: -100, max: 100, noNaN: true }), { minLength: 6, maxLength: 6 }), fc.float({ min: Math.fround(0.2), max: 5, noNaN: true }), (v, aspect) => {
        const b = Float32Array.of(Math.min(v[0]!, v[3]!), Math.min(v[1]!, v[4]!), Math.min(v[2]!, v[5]!), Math.max(v[0]!, v[3]!), Math.max(v[1]!, v[4]!), Math.max(v[2]!, v[5]!));
        const c = defaultCamera(b, aspect);
        const forward = [c.at[0] - c.eye[0], c.at[1] - c.eye[1], c.at[2] - c.eye[2]];
        const f = norm(forward);
        const right = [forward[2]! / f, 0, -forward[0]! / f].map((x) => -x); // forward × (0,1,0), normalised below
        const rn = norm(right);
        const up = [0, 1, 0];
        const tan = Math.tan((c.fov * Math.PI) / 360);
        for (let k = 0; k < 8; k++) {
          const p = [b[k & 1 ? 3 : 0]!, b[k & 2 ? 4 : 1]!, b[k & 4 ? 5 : 2]!];
          const d = [p[0]! - c.eye[0], p[1]! - c.eye[1], p[2]! - c.eye[2]];
          const z = dot(d, forward) / f;
          expect(z).toBeGreaterThan(0);
          // The camera's up is (0,1,0) made orthogonal to forward: measure in that frame.
          const r = dot(d, right) / rn;
          const u = [up[0]! - (forward[0]! * forward[1]!) / (f * f), up[1]! - (forward[1]! * forward[1]!) / (f * f), up[2]! - (forward[2]! * forward[1]!) / (f * f)];
          expect(Math.abs(r) / z).toBeLessThanOrEqual(tan * aspect * (1 + 1e-6));
          expect(Math.abs(dot(d, u) / norm(u)) / z).toBeLessThanOrEqual(tan * (1 + 1e-6));
        }
      }),
    );
  });

  it('benchmark scenes have fixed viewpoints; other files get the default framing', () => {
    const b = Float32Array.of(-1, -1, -1, 1, 1, 1);
    expect(sceneName('/x/y/sponza_crytek.obj.xz')).toBe('sponza_crytek');
    expect(sceneCamera('sponza_crytek', b).eye).toEqual([-12.5, 2.2, -0.4]);
    expect(sceneCamera('mine', b, 2)).toEqual(defaultCamera(b, 2));
  });
});

describe('workloads', () => {
  // A 10 × 10 floor facing +y, seen from above: every primary ray hits it.
  const floor = makeMesh(Float32Array.of(-5, 0, -5, 5, 0, -5, 5, 0, 5, -5, 0, 5), Uint32Array.of(0, 2, 1, 0, 3, 2));
  const camera = { eye: [0, 4, 0.01] as const, at: [0, 0, 0] as const, up: [0, 0, -1] as const, fov: 60 };

  it('AO rays leave each hit on the side the ray came from, cosine-distributed, short; reproducible by seed', () => {
    const primary = primaryRays(camera, 16, 16);
    const hits = traceBruteForce(floor, primary, { anyHit: false });
    const a = secondaryRays('ao', floor, primary, hits, { samples: 64, seed: 3 });
    expect(a.count).toBe(16 * 16 * 64);
    expect(bits(secondaryRays('ao', floor, primary, hits, { samples: 64, seed: 3 }).data)).toEqual(bits(a.data));
    expect(bits(secondaryRays('ao', floor, primary, hits, { samples: 64, seed: 4 }).data)).not.toEqual(bits(a.data));
    let sumCos = 0;
    let sumCos2 = 0;
    const diagonal = Math.hypot(10, 0, 10);
    for (let i = 0; i < a.count; i++) {
      const r = a.data.subarray(i * 8, i * 8 + 8);
      const src = a.source[i]!;
      const t = hits.t[src]!;
      const p = primary.data.subarray(src * 8, src * 8 + 8);
      // Starts at the hit point, lifted off the floor by 1e-5 of the diagonal.
      expect(r[0]).toBeCloseTo(p[0]! + t * p[3]!, 4);
      expect(r[2]).toBeCloseTo(p[2]! + t * p[5]!, 4);
      expect(r[1]).toBeCloseTo(1e-5 * diagonal, 6);
      expect(Math.hypot(r[3]!, r[4]!, r[5]!)).toBeCloseTo(1, 5);
      expect(r[4]).toBeGreaterThanOrEqual(0);
      expect(r[7]).toBeCloseTo(0.05 * diagonal, 5);
      sumCos += r[4]!;
      sumCos2 += r[4]! * r[4]!;
    }
    // Cosine-weighted: E[cos θ] = 2/3, E[cos² θ] = 1/2 (uniform would give 1/2 and 1/3).
    expect(sumCos / a.count).toBeCloseTo(2 / 3, 2);
    expect(sumCos2 / a.count).toBeCloseTo(1 / 2, 2);
  });

  it('diffuse rays: one per hit, none from a miss, unbounded, and the normal flips to face the ray', () => {
    const primary: Rays = { count: 3, data: Float32Array.of(0, 1, 0, 0, -1, 0, 0, Infinity, 0, -1, 0, 0, 1, 0, 0, Infinity, 20, 1, 0, 0, -1, 0, 0, Infinity) };
    const hits = traceBruteForce(floor, primary, { anyHit: false });
    expect(Array.from(hits.prim, (p) => p >= 0)).toEqual([true, true, false]);
    const d = secondaryRays('diffuse', floor, primary, hits, { seed: 9 });
    expect(Array.from(d.source)).toEqual([0, 1]);
    expect(d.data[4]).toBeGreaterThan(0); // from above: up
    expect(d.data[8 + 4]).toBeLessThan(0); // from below: down
    expect([d.data[7], d.data[15]]).toEqual([Infinity, Infinity]);
    const n = new Float64Array(3);
    triangleNormal(floor, 0, n);
    expect(Math.abs(n[1]!)).toBeCloseTo(1, 12);
  });

  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('are generated once and stored: the second load reads them back without tracing', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'workloads-'));
    dirs.push(dir);
    const mesh = proceduralScene({ triangles: 300, seed: 5 });
    let traced = 0;
    const trace: TraceFn = async (rays, anyHit) => {
      traced++;
      return traceBruteForce(mesh, rays, { anyHit });
    };
    const spec = { camera: defaultCamera(mesh.bounds(), 1), width: 12, height: 12, seed: 2, aoSamples: 2 };
    const first = await loadWorkloads(dir, mesh, spec, trace);
    expect(traced).toBe(1);
    expect(readdirSync(dir)).toHaveLength(3);
    const second = await loadWorkloads(dir, mesh, spec, trace);
    expect(traced).toBe(1);
    for (const w of ['primary', 'ao', 'diffuse'] as const) expect(bits(second[w].data)).toEqual(bits(first[w].data));
    expect(first.ao.count).toBe(2 * first.diffuse.count);
    // Another seed is another set.
    await loadWorkloads(dir, mesh, { ...spec, seed: 3 }, trace);
    expect(traced).toBe(2);
  });
});
