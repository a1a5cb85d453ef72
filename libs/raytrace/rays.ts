// Rays and hits as the whole ray-tracing library passes them (flat typed arrays, what the
// kernels, the brute-force reference and the Embree driver read and write), and their
// files: the text formats of `trace --rays FILE --hits FILE` (one ray per line
// `ox oy oz dx dy dz tmin tmax`; one hit per line `prim t`, `-1 -1` for a miss, or `1`/`0`
// with --any-hit) and a binary form for large sets, which the benchmark's cached workloads
// and the Embree driver use. A file's first bytes say which form it is.
import { readFile } from 'node:fs/promises';

/** Floats per ray in `Rays.data`. */
export const RAY_FLOATS = 8;

export interface Rays {
  count: number;
  /** 8 floats per ray: ox oy oz dx dy dz tmin tmax. */
  data: Float32Array;
}

export interface Hits {
  /** Triangle index in file order, -1 for a miss (with any-hit, some occluding triangle). */
  prim: Int32Array;
  /** Distance along the ray (in units of the direction's length); unspecified for a miss. */
  t: Float32Array;
  /** Barycentrics of the hit point, (1−u−v)·p0 + u·p1 + v·p2, when the tracer reports them. */
  u?: Float32Array;
  v?: Float32Array;
}

export function makeRays(count: number): Rays {
  return { count, data: new Float32Array(count * RAY_FLOATS) };
}

/** Hits for `count` rays, all misses. */
export function makeHits(count: number): Hits {
  return { prim: new Int32Array(count).fill(-1), t: new Float32Array(count).fill(-1) };
}

/** Throws unless `rays` holds its `count` rays and every array of `hits` has room for them (what a tracer checks before its kernel writes). */
export function checkTraceArrays(rays: Rays, hits: Hits): void {
  const n = rays.count;
  if (rays.data.length < n * RAY_FLOATS) throw new Error(`${n} rays need ${n * RAY_FLOATS} floats, got ${rays.data.length}`);
  for (const [name, a] of [['prim', hits.prim], ['t', hits.t], ['u', hits.u], ['v', hits.v]] as const) {
    if (a && a.length < n) throw new Error(`hits.${name} holds ${a.length} entries for ${n} rays`);
  }
}

/** A bad ray or hit file: the message starts with `file:line:` (`file:` for the binary form). */
export class RayFileError extends Error {}

// ------------------------------------------------------------ binary form

// Little-endian: 8 magic bytes, u32 count, u32 flags, then the arrays. Rays: count × 8 f32.
// Hits: count i32 prims, count f32 t, and with flag bit 1 count f32 u and count f32 v.
const RAYS_MAGIC = 'ANYRAYS1';
const HITS_MAGIC = 'ANYHITS1';
const HEADER = 16;
const HITS_UV = 2;

/** The binary form is picked by the output's extension. */
export function isBinaryName(file: string): boolean {
  return file.toLowerCase().endsWith('.bin');
}

export function encodeRaysBinary(rays: Rays): Uint8Array {
  const out = new Uint8Array(HEADER + rays.count * RAY_FLOATS * 4);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(RAYS_MAGIC), 0);
  view.setUint32(8, rays.count, true);
  view.setUint32(12, 0, true);
  out.set(new Uint8Array(rays.data.buffer, rays.data.byteOffset, rays.count * RAY_FLOATS * 4), HEADER);
  return out;
}

export function encodeHitsBinary(hits: Hits): Uint8Array {
  const n = hits.prim.length;
  const uv = hits.u !== undefined && hits.v !== undefined;
  const out = new Uint8Array(HEADER + n * 4 * (uv ? 4 : 2));
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(HITS_MAGIC), 0);
  view.setUint32(8, n, true);
  view.setUint32(12, uv ? HITS_UV : 0, true);
  const arrays: ArrayBufferView[] = uv ? [hits.prim, hits.t, hits.u!, hits.v!] : [hits.prim, hits.t];
  arrays.forEach((a, i) => out.set(new Uint8Array(a.buffer, a.byteOffset, n * 4), HEADER + i * n * 4));
  return out;
}

function magicOf(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes.subarray(0, 8));
}

function binaryHeader(file: string, bytes: Uint8Array, what: string, itemBytes: (flags: number) => number): { count: number; flags: number } {
  if (bytes.length < HEADER) throw new RayFileError(`${file}: the binary ${what} file is cut short (${bytes.length} bytes, no complete header)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(8, true);
  const flags = view.getUint32(12, true);
  const expected = HEADER + count * itemBytes(flags);
  if (bytes.length !== expected) throw new RayFileError(`${file}: the binary ${what} file says ${count} ${what} (${expected} bytes) but has ${bytes.length} bytes`);
  return { count, flags };
}

/** A copy of `n` 4-byte items at `offset` into a fresh (aligned) buffer: a Buffer's slice would share, and be unaligned. */
function copyWords(bytes: Uint8Array, offset: number, n: number): ArrayBuffer {
  return new Uint8Array(bytes.subarray(offset, offset + n * 4)).buffer;
}

function floats(bytes: Uint8Array, offset: number, n: number): Float32Array {
  return new Float32Array(copyWords(bytes, offset, n));
}

function decodeRaysBinary(file: string, bytes: Uint8Array): Rays {
  const { count } = binaryHeader(file, bytes, 'rays', () => RAY_FLOATS * 4);
  const rays = { count, data: floats(bytes, HEADER, count * RAY_FLOATS) };
  for (let i = 0; i < count; i++) {
    const why = checkRay(rays.data, i * RAY_FLOATS);
    if (why) throw new RayFileError(`${file}: ray ${i}: ${why}`);
  }
  return rays;
}

function decodeHitsBinary(file: string, bytes: Uint8Array): Hits {
  const { count, flags } = binaryHeader(file, bytes, 'hits', (f) => (f & HITS_UV ? 16 : 8));
  const hits: Hits = { prim: new Int32Array(copyWords(bytes, HEADER, count)), t: floats(bytes, HEADER + count * 4, count) };
  if (flags & HITS_UV) {
    hits.u = floats(bytes, HEADER + 2 * count * 4, count);
    hits.v = floats(bytes, HEADER + 3 * count * 4, count);
  }
  return hits;
}

// ------------------------------------------------------------ text form

/** Why the ray at `o` in `data` cannot be traced, or undefined when it can. */
function checkRay(data: Float32Array, o: number): string | undefined {
  for (let k = 0; k < 6; k++) if (!Number.isFinite(data[o + k])) return `${k < 3 ? 'origin' : 'direction'} component ${'xyz'[k % 3]} is ${data[o + k]}, not a finite number`;
  if (data[o + 3] === 0 && data[o + 4] === 0 && data[o + 5] === 0) return 'the direction is 0 0 0';
  const tmin = data[o + 6]!, tmax = data[o + 7]!;
  if (!(tmin >= 0) || tmin === Infinity) return `tmin is ${tmin}, not a finite number ≥ 0`;
  if (Number.isNaN(tmax)) return 'tmax is NaN';
  return undefined;
}

/** A number of the text forms: what Number reads, and inf/infinity in any case with a sign. */
function parseNumber(word: string): number {
  const lower = word.toLowerCase();
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity' || lower === '+infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  // Number('') is 0 and Number('0x10') is 16: only decimal notation is a number here.
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(word) ? Number(word) : NaN;
}

/** The lines of a text file that hold data (blank lines and `#` comments left out), with their line numbers. */
function* dataLines(text: string): Generator<{ line: number; words: string[] }> {
  let line = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    const raw = text.slice(start, end);
    const hash = raw.indexOf('#');
    const content = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (content) yield { line, words: content.split(/\s+/) };
    start = end + 1;
  }
}

export function parseRaysText(file: string, text: string): Rays {
  const values: number[] = [];
  for (const { line, words } of dataLines(text)) {
    if (words.length !== RAY_FLOATS) throw new RayFileError(`${file}:${line}: expected 8 numbers 'ox oy oz dx dy dz tmin tmax', found ${words.length}`);
    const ray = new Float32Array(RAY_FLOATS);
    words.forEach((w, k) => {
      const x = parseNumber(w);
      if (Number.isNaN(x)) throw new RayFileError(`${file}:${line}: '${w}' is not a number`);
      ray[k] = x;
    });
    const why = checkRay(ray, 0);
    if (why) throw new RayFileError(`${file}:${line}: ${why}`);
    for (const x of ray) values.push(x);
  }
  return { count: values.length / RAY_FLOATS, data: Float32Array.from(values) };
}

export function parseHitsText(file: string, text: string, anyHit: boolean): Hits {
  const prims: number[] = [];
  const ts: number[] = [];
  for (const { line, words } of dataLines(text)) {
    if (anyHit) {
      if (words.length !== 1 || (words[0] !== '0' && words[0] !== '1')) throw new RayFileError(`${file}:${line}: expected 1 (occluded) or 0, found '${words.join(' ')}'`);
      prims.push(words[0] === '1' ? 0 : -1);
      ts.push(-1);
      continue;
    }
    if (words.length !== 2) throw new RayFileError(`${file}:${line}: expected 'prim t', found ${words.length} words`);
    const prim = parseNumber(words[0]!);
    const t = parseNumber(words[1]!);
    if (!Number.isInteger(prim) || prim < -1 || prim > 0x7fffffff) throw new RayFileError(`${file}:${line}: '${words[0]}' is not a triangle index or -1`);
    if (prim === -1 ? t !== -1 : !(t >= 0 && t < Infinity)) throw new RayFileError(`${file}:${line}: '${words[1]}' is not ${prim === -1 ? '-1 (a miss)' : 'a distance ≥ 0'}`);
    prims.push(prim);
    ts.push(t);
  }
  return { prim: Int32Array.from(prims), t: Float32Array.from(ts) };
}

/** The shortest decimal that reads back as the same float32. */
export function formatFloat32(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : x < 0 ? '-inf' : 'nan';
  const f = Math.fround(x);
  if (Object.is(f, -0)) return '-0';
  for (let p = 1; p < 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return String(Number(s));
  }
  return String(Number(f.toPrecision(9)));
}

export function formatRaysText(rays: Rays): string {
  const lines: string[] = [];
  const row = new Array<string>(RAY_FLOATS);
  for (let i = 0; i < rays.count; i++) {
    for (let k = 0; k < RAY_FLOATS; k++) row[k] = formatFloat32(rays.data[i * RAY_FLOATS + k]!);
    lines.push(row.join(' '));
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

export function formatHitsText(hits: Hits, anyHit: boolean): string {
  const n = hits.prim.length;
  const lines = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const p = hits.prim[i]!;
    lines[i] = anyHit ? (p >= 0 ? '1' : '0') : p < 0 ? '-1 -1' : `${p} ${formatFloat32(hits.t[i]!)}`;
  }
  return n ? `${lines.join('\n')}\n` : '';
}

// ------------------------------------------------------------ files

/** Parses rays from a file's bytes; the binary form is recognised by its magic bytes. */
export function decodeRays(file: string, bytes: Uint8Array): Rays {
  if (magicOf(bytes) === RAYS_MAGIC) return decodeRaysBinary(file, bytes);
  if (magicOf(bytes) === HITS_MAGIC) throw new RayFileError(`${file}: this is a binary hits file, not rays`);
  return parseRaysText(file, new TextDecoder().decode(bytes));
}

export function decodeHits(file: string, bytes: Uint8Array, anyHit = false): Hits {
  if (magicOf(bytes) === HITS_MAGIC) return decodeHitsBinary(file, bytes);
  if (magicOf(bytes) === RAYS_MAGIC) throw new RayFileError(`${file}: this is a binary rays file, not hits`);
  return parseHitsText(file, new TextDecoder().decode(bytes), anyHit);
}

async function readBytes(file: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new RayFileError(`${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message}`);
  }
}

export async function readRays(file: string): Promise<Rays> {
  return decodeRays(file, await readBytes(file));
}

export async function readHits(file: string, anyHit = false): Promise<Hits> {
  return decodeHits(file, await readBytes(file), anyHit);
}

/** The bytes of a hits file: binary for a `.bin` name, text otherwise. */
export function encodeHits(file: string, hits: Hits, anyHit: boolean): Uint8Array | string {
  return isBinaryName(file) ? encodeHitsBinary(hits) : formatHitsText(hits, anyHit);
}

/** The bytes of a rays file: binary for a `.bin` name, text otherwise. */
export function encodeRays(file: string, rays: Rays): Uint8Array | string {
  return isBinaryName(file) ? encodeRaysBinary(rays) : formatRaysText(rays);
}
