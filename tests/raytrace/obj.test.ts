// The OBJ loader: every statement form it reads (n-gons fanned from the first vertex,
// negative and v/vt/vn indices, materials as ids, the statements it skips), numbers as the
// standard conversion reads them, generated meshes written with random formatting and read
// back, .obj/.obj.gz/.obj.xz giving the same mesh across arbitrary chunk boundaries, every
// error as `file:line: message`, and the shipped scenes' triangle counts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sceneByName } from '../../datasets/scenes/index.ts';
import type { Mesh } from '../../libs/raytrace/mesh.ts';
import { loadObj, ObjError, parseObj } from '../../libs/raytrace/obj.ts';
import { proceduralScene } from '../../libs/raytrace/procedural.ts';

let dir: string;
const file = (name: string) => path.join(dir, name);

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'obj-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tris = (m: Mesh) => Array.from(m.triangles);
const pos = (m: Mesh) => Array.from(m.positions);

/** The message parseObj throws for `text`. */
function errorOf(text: string | Uint8Array): string {
  try {
    parseObj(text, 'scene.obj');
  } catch (e) {
    expect(e).toBeInstanceOf(ObjError);
    return (e as Error).message;
  }
  throw new Error('expected an ObjError');
}

describe('statements', () => {
  it('reads vertices and triangles', () => {
    const m = parseObj('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
    expect(pos(m)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0]);
    expect(tris(m)).toEqual([0, 1, 2]);
    expect(m.triangleCount).toBe(1);
    expect(Array.from(m.bounds())).toEqual([0, 0, 0, 1, 1, 0]);
    expect(m.materials).toBeUndefined();
  });

  it('fans an n-gon from its first vertex, in file order', () => {
    const m = parseObj('v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 1 0\nf 1 2 3 4 5\nf 5 4 3\n');
    expect(tris(m)).toEqual([0, 1, 2, 0, 2, 3, 0, 3, 4, 4, 3, 2]);
  });

  it('reads negative indices relative to the vertices so far, and every v/vt/vn form', () => {
    const text = [
      'v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'vt 0 0', 'vt 1 0', 'vn 0 0 1',
      'f -3 -2 -1',
      'f 1/1 2/2 3/1',
      'f 1/1/1 2/2/1 3/1/1',
      'f 1//1 2//1 3//1',
      'v 5 5 5',
      'f -4/-2/-1 -1//-1 2',
    ].join('\n');
    expect(tris(parseObj(text))).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 3, 1]);
  });

  it('skips comments, groups, objects, smoothing, mtllib, lines, unknown statements and blank lines', () => {
    const text = [
      '# a comment', 'mtllib scene.mtl', 'o thing', 'g group one', 's 1', 's off', '', '   ', '\t# indented comment',
      'v 0 0 0 # trailing comment is not a number',
      'v 1 0 0', 'v 0 1 0', 'vp 0.5', 'l 1 2', 'p 1', 'cstype bspline', 'deg 3', 'newstatement 1 2 3',
      'f 1 2 3',
    ].join('\n');
    const m = parseObj(text);
    expect(tris(m)).toEqual([0, 1, 2]);
    expect(pos(m)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  });

  it('keeps usemtl as a material id per triangle (\'\' before the first)', () => {
    const text = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nusemtl stone\nf 2 3 4\nusemtl wood\nf 1 2 3 4\nusemtl stone\nf 1 2 3\n';
    const m = parseObj(text);
    expect(Array.from(m.materials!).map((id) => m.materialNames![id])).toEqual(['', 'stone', 'wood', 'wood', 'stone']);
    expect([...m.materialNames!].sort()).toEqual(['', 'stone', 'wood']);
  });

  it('accepts CRLF, tabs, a w coordinate, vertex colours and no final newline', () => {
    const m = parseObj('v\t0 0 0 1\r\nv 1 0 0 0.5 0.5 0.5\r\nv  0   1   0\r\nf\t1\t2 3');
    expect(pos(m)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0]);
    expect(tris(m)).toEqual([0, 1, 2]);
  });

  it('reads numbers in every notation as the standard conversion does, rounded to float32', () => {
    const texts = ['1', '-1', '+2.5', '.5', '-.25', '5.', '1e3', '1E-3', '-2.5e+2', '0.000001', '123456789012345678901234', '1e-40', '3.4028235e38', '1e-30', '0.1', '-0'];
    const m = parseObj(`${texts.map((t) => `v ${t} ${t} ${t}`).join('\n')}\nf 1 2 3\n`);
    texts.forEach((t, i) => expect(m.positions[3 * i]).toBe(Math.fround(Number(t))));
  });

  it('reads any double written by toString, toExponential or toFixed exactly as Number() does', () => {
    const notation = fc.constantFrom<(x: number) => string>(
      (x) => String(x), (x) => x.toExponential(), (x) => x.toExponential(8), (x) => x.toFixed(6), (x) => x.toPrecision(17),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e30, max: 1e30 }), notation), { minLength: 3, maxLength: 30 }), (values) => {
        const words = values.map(([x, f]) => f(x));
        const lines = [];
        for (let i = 0; i + 2 < words.length; i += 3) lines.push(`v ${words[i]} ${words[i + 1]} ${words[i + 2]}`);
        const m = parseObj(`${lines.join('\n')}\nf 1 1 1\n`);
        for (let i = 0; i < m.positions.length; i++) expect(m.positions[i]).toBe(Math.fround(Number(words[i])));
      }),
      { numRuns: 300 },
    );
  });
});

/** A mesh written as OBJ text with the formatting choices drawn from `rnd` (index form, sign, spacing, n-gons where possible). */
function writeObj(mesh: Mesh, choices: number[]): string {
  let c = 0;
  const pick = (n: number) => choices[c++ % choices.length]! % n;
  const lines: string[] = ['# generated'];
  const nv = mesh.positions.length / 3;
  for (let v = 0; v < nv; v++) {
    const x = [0, 1, 2].map((k) => mesh.positions[3 * v + k]!);
    lines.push(`v${pick(2) ? '\t' : ' '}${x.map((f) => (pick(2) ? f.toExponential(9) : String(f))).join(pick(2) ? '  ' : ' ')}`);
    if (pick(4) === 0) lines.push(`vt ${pick(10) / 10} 0.5`);
  }
  lines.push('vn 0 0 1');
  for (let t = 0; t < mesh.triangleCount; t++) {
    if (pick(5) === 0) lines.push(pick(2) ? `usemtl m${pick(3)}` : `g part${pick(3)}`);
    const idx = [0, 1, 2].map((k) => mesh.triangles[3 * t + k]!);
    const ref = (v: number) => {
      const i = pick(2) ? String(v + 1) : String(v - nv); // every vertex is defined before the faces
      switch (pick(4)) {
        case 0: return i;
        case 1: return `${i}/1`;
        case 2: return `${i}/1/1`;
        default: return `${i}//1`;
      }
    };
    lines.push(`f ${idx.map(ref).join(' ')}${pick(3) === 0 ? ' ' : ''}`);
  }
  return lines.join(pick(2) ? '\n' : '\r\n') + (pick(2) ? '\n' : '');
}

describe('generated meshes', () => {
  it('read back exactly, whatever the formatting', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer(), fc.array(fc.nat(1000), { minLength: 1, maxLength: 50 }), (n, seed, choices) => {
        const mesh = proceduralScene({ triangles: n, seed });
        const m = parseObj(writeObj(mesh, choices));
        expect(tris(m)).toEqual(tris(mesh));
        expect(pos(m)).toEqual(pos(mesh));
      }),
      { numRuns: 60 },
    );
  });

  it('.obj, .obj.gz and .obj.xz give the same mesh as the text in memory (chunks split lines anywhere)', async () => {
    const mesh = proceduralScene({ triangles: 20_000, seed: 7 });
    const text = writeObj(mesh, [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]);
    expect(text.length).toBeGreaterThan(300_000);
    writeFileSync(file('big.obj'), text);
    writeFileSync(file('big.obj.gz'), gzipSync(text));
    execFileSync('xz', ['-k', '-0', file('big.obj')]);
    const expected = parseObj(text);
    expect(tris(expected)).toEqual(tris(mesh));
    for (const name of ['big.obj', 'big.obj.gz', 'big.obj.xz']) {
      const m = await loadObj(file(name));
      expect(tris(m), name).toEqual(tris(mesh));
      expect(pos(m), name).toEqual(pos(mesh));
      expect(Array.from(m.materials!), name).toEqual(Array.from(expected.materials!));
    }
  });
});

describe('errors name the file and line', () => {
  it.each([
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n', 'scene.obj:4: vertex index 4 out of range (3 vertices defined so far)'],
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n', 'scene.obj:4: vertex index 0 in a face (OBJ indices start at 1)'],
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf -1 -2 -4\n', 'scene.obj:5: vertex index -4 out of range (3 vertices defined so far)'],
    ['f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n', 'scene.obj:1: vertex index 1 out of range (0 vertices defined so far)'],
    ['v 0 0 0\nv 1 nan 0\n', "scene.obj:2: coordinate 'nan' is not a number"],
    ['v 0 0 0\nv 1 0 NaN\n', "scene.obj:2: coordinate 'NaN' is not a number"],
    ['v inf 0 0\n', "scene.obj:1: coordinate 'inf' is not a number"],
    ['v 1e999 0 0\n', "scene.obj:1: coordinate '1e999' is infinite"],
    ['v -Infinity 0 0\n', "scene.obj:1: coordinate '-Infinity' is not a number"],
    ['v 1.5.5 0 0\n', "scene.obj:1: coordinate '1.5.5' is not a number"],
    ['v 1,5 0 0\n', "scene.obj:1: coordinate '1,5' is not a number"],
    ['# two\nv 1 2\n', 'scene.obj:2: vertex needs 3 coordinates, found 2'],
    ['v 0 0 0\nv 1 0 0\nf 1 2\n', 'scene.obj:3: a face needs at least 3 vertices, found 2'],
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n', "scene.obj:4: bad face vertex 'x'"],
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n', "scene.obj:4: bad face vertex '3x'"],
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 /3\n', "scene.obj:4: bad face vertex '/3'"],
    ['v 0 0 0\nv 1 0 0\nv 0 1 0\n', 'scene.obj: no triangles (no `f` statement with 3 or more vertices)'],
    ['', 'scene.obj: empty file, no triangles'],
    ['{"json": true}\n', "scene.obj:1: not a Wavefront OBJ statement: '{\"json\": true}'"],
    ['v 0 0 0\n3 4 5\n', "scene.obj:2: not a Wavefront OBJ statement: '3 4 5'"],
    ['v 0 0 0\nf\n', 'scene.obj:2: a face needs at least 3 vertices, found 0'],
    ['v\n', 'scene.obj:1: vertex needs 3 coordinates, found 0'],
  ])('%j', (text, message) => {
    expect(errorOf(text)).toBe(message);
  });

  it('rejects binary data', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(errorOf(png)).toBe("scene.obj:1: not a Wavefront OBJ statement: '?PNG?'");
  });

  it('counts lines across CRLF and blank lines', () => {
    expect(errorOf('v 0 0 0\r\n\r\n# c\r\nv 1 x 0\r\n')).toBe("scene.obj:4: coordinate 'x' is not a number");
  });

  it('reports unreadable, missing and damaged files', async () => {
    writeFileSync(file('bad.obj.gz'), 'not gzip');
    writeFileSync(file('bad.obj.xz'), 'not xz');
    writeFileSync(file('broken.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n');
    writeFileSync(file('broken.obj.gz'), gzipSync('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n'));
    const cases: [string, RegExp][] = [
      [file('missing.obj'), /missing\.obj: no such file$/],
      [file('missing.obj.xz'), /missing\.obj\.xz: no such file or directory$/],
      [dir, /: is a directory, not an OBJ file$/],
      [file('bad.obj.gz'), /bad\.obj\.gz: not a gzip file or damaged/],
      [file('bad.obj.xz'), /bad\.obj\.xz: file format not recognized$/],
      [file('broken.obj'), /broken\.obj:4: vertex index 9 out of range/],
      [file('broken.obj.gz'), /broken\.obj\.gz:4: vertex index 9 out of range/],
    ];
    for (const [p, pattern] of cases) {
      const err = await loadObj(p).then(() => null, (e: unknown) => e);
      expect(err, p).toBeInstanceOf(ObjError);
      expect((err as Error).message, p).toMatch(pattern);
      expect((err as Error).message.split('\n')).toHaveLength(1);
    }
  });
});

describe('the shipped scenes', () => {
  it('Crytek Sponza and the Dabrovic Sponza (vt, vn, groups, n-gons free) load with the published counts', async () => {
    for (const name of ['sponza_crytek', 'sponza_dabrovic']) {
      const scene = sceneByName(name)!;
      const m = await loadObj(scene.path);
      expect(m.triangleCount, name).toBe(scene.triangles);
      expect(m.positions.length / 3, name).toBe(scene.vertices);
    }
  });
});
