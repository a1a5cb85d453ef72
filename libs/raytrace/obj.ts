// A streaming Wavefront OBJ loader: `v` and `f` build the mesh (n-gons fan-triangulated
// from their first vertex, positive and negative indices, the `v/vt/vn` forms), `usemtl`
// becomes a material id per triangle, and everything else (`vt`, `vn`, `g`, `o`, `s`,
// `mtllib`, comments, statements we do not know) is skipped. Bytes are parsed as they
// arrive, straight from the buffer (no per-line strings), from a plain file, gzip
// (node:zlib) or xz (an `xz -dc` subprocess, decompressing in parallel with the parse).
// Every error names the file and line: `file:line: message`.
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { makeMesh, type Mesh } from './mesh.ts';

/** A broken or unreadable OBJ file; the message is `file:line: what is wrong` (`file: …` without a line). */
export class ObjError extends Error {
  constructor(readonly file: string, readonly line: number | undefined, readonly reason: string) {
    super(line === undefined ? `${file}: ${reason}` : `${file}:${line}: ${reason}`);
    this.name = 'ObjError';
  }
}

/** Reads an OBJ file (`.obj`, `.obj.gz`, `.obj.xz`) into a mesh; rejects with an ObjError. */
export async function loadObj(path: string): Promise<Mesh> {
  const parser = new ObjParser(path);
  if (path.endsWith('.xz')) await feedXz(path, parser);
  else {
    const file = createReadStream(path, { highWaterMark: 1 << 20 });
    let stream: AsyncIterable<Buffer> = file;
    if (path.endsWith('.gz')) {
      const gunzip = createGunzip({ chunkSize: 1 << 20 });
      file.on('error', (e) => gunzip.destroy(e));
      stream = file.pipe(gunzip);
    }
    try {
      for await (const chunk of stream) parser.feed(chunk);
    } catch (e) {
      if (e instanceof ObjError) throw e;
      throw new ObjError(path, undefined, readFailure(e));
    } finally {
      file.destroy();
    }
  }
  return parser.finish();
}

/** Parses OBJ text already in memory (`name` is the file name errors give). */
export function parseObj(text: string | Uint8Array, name = '<obj>'): Mesh {
  const parser = new ObjParser(name);
  parser.feed(typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text.buffer, text.byteOffset, text.byteLength));
  return parser.finish();
}

function readFailure(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ENOENT') return 'no such file';
  if (err.code === 'EISDIR') return 'is a directory, not an OBJ file';
  if (err.code === 'EACCES') return 'permission denied';
  if (err.code === 'Z_DATA_ERROR' || err.code === 'Z_BUF_ERROR') return `not a gzip file or damaged (${err.message})`;
  return `cannot read: ${err.message ?? String(e)}`;
}

async function feedXz(path: string, parser: ObjParser): Promise<void> {
  const child = spawn('xz', ['-dc', '--', path], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => (stderr += s));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) parser.feed(chunk);
  } catch (e) {
    child.kill();
    await exited.catch(() => undefined);
    if (e instanceof ObjError) throw e;
    throw new ObjError(path, undefined, readFailure(e));
  }
  let code: number | null;
  try {
    code = await exited;
  } catch (e) {
    throw new ObjError(path, undefined, `cannot run xz to decompress it: ${(e as Error).message}`);
  }
  if (code !== 0) {
    // xz's own message ends with the reason ("No such file or directory", "File format not recognized").
    const reason = stderr.trim().split('\n').pop()?.replace(/^xz: /, '').replace(`${path}: `, '') || `xz exited with ${code}`;
    throw new ObjError(path, undefined, reason.charAt(0).toLowerCase() + reason.slice(1));
  }
}

/** Exact powers of ten a double holds (10^0 … 10^22): mantissa ÷ 10^k is then correctly rounded. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** A typed array that doubles when full. */
class Grow<T extends Float32Array | Uint32Array> {
  length = 0;
  constructor(public data: T) {}
  reserve(n: number): void {
    if (this.length + n <= this.data.length) return;
    const next = new (this.data.constructor as new (size: number) => T)(Math.max(this.data.length * 2, this.length + n));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}

const NL = 10, CR = 13, SPACE = 32, TAB = 9, HASH = 35, SLASH = 47, MINUS = 45, PLUS = 43, DOT = 46;

function isSpace(c: number): boolean {
  return c === SPACE || c === TAB || c === CR || c === 11 || c === 12;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isKeywordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || isDigit(c) || c === 95;
}

/** The byte-level parser: `feed` whole buffers as they come, `finish` for the mesh. */
class ObjParser {
  private readonly positions = new Grow(new Float32Array(1 << 16));
  private readonly triangles = new Grow(new Uint32Array(1 << 16));
  private readonly materials = new Grow(new Uint32Array(1 << 16));
  private readonly materialIds = new Map<string, number>();
  /** Current material id; -1 before the first `usemtl` (such triangles get the material named ''). */
  private material = -1;
  private sawMaterial = false;
  private line = 0;
  private rest: Buffer | null = null;
  /** Vertex indices of the face being read (n-gons grow it). */
  private face = new Int32Array(64);
  /** Where the last number parsed ended. */
  private pos = 0;

  constructor(private readonly file: string) {}

  feed(chunk: Buffer): void {
    let buf = chunk;
    if (this.rest) {
      buf = Buffer.concat([this.rest, chunk]);
      this.rest = null;
    }
    const last = buf.lastIndexOf(NL);
    if (last < 0) {
      this.rest = buf;
      return;
    }
    this.parseLines(buf, 0, last + 1);
    if (last + 1 < buf.length) this.rest = Buffer.from(buf.subarray(last + 1));
  }

  finish(): Mesh {
    if (this.rest) {
      const tail = this.rest;
      this.rest = null;
      this.parseLines(tail, 0, tail.length);
    }
    if (this.triangles.length === 0) {
      throw new ObjError(this.file, undefined, this.line === 0 ? 'empty file, no triangles' : 'no triangles (no `f` statement with 3 or more vertices)');
    }
    const positions = this.positions.data.slice(0, this.positions.length);
    const triangles = this.triangles.data.slice(0, this.triangles.length);
    if (!this.sawMaterial) return makeMesh(positions, triangles);
    return makeMesh(positions, triangles, {
      materials: this.materials.data.slice(0, this.materials.length),
      materialNames: [...this.materialIds.keys()],
    });
  }

  private fail(reason: string): never {
    throw new ObjError(this.file, this.line, reason);
  }

  /** Parses the lines in buf[start, stop); stop is just past a newline or the end of the input. */
  private parseLines(b: Buffer, start: number, stop: number): void {
    let i = start;
    while (i < stop) {
      this.line++;
      let end = b.indexOf(NL, i);
      if (end < 0 || end > stop) end = stop;
      while (i < end && isSpace(b[i]!)) i++;
      if (i < end) {
        const c = b[i]!;
        const next = i + 1 < end ? b[i + 1]! : SPACE;
        if (c === 118 /* v */ && isSpace(next)) this.vertex(b, i + 1, end);
        else if (c === 102 /* f */ && isSpace(next)) this.faceLine(b, i + 1, end);
        else if (c !== HASH) this.statement(b, i, end);
      }
      i = end + 1;
    }
  }

  private statement(b: Buffer, i: number, end: number): void {
    let k = i;
    while (k < end && isKeywordChar(b[k]!)) k++;
    if (k === i || !(k === end || isSpace(b[k]!)) || isDigit(b[i]!)) {
      const shown = b.toString('latin1', i, Math.min(end, i + 24)).replace(/[^\x20-\x7e]/g, '?');
      this.fail(`not a Wavefront OBJ statement: '${shown}'`);
    }
    const keyword = b.toString('latin1', i, k);
    if (keyword === 'usemtl') {
      this.material = this.materialId(b.toString('utf8', k, end).trim());
      this.sawMaterial = true;
    }
    // Every other statement (vt, vn, vp, g, o, s, mtllib, l, p, curves, …) carries nothing we keep.
  }

  private materialId(name: string): number {
    let id = this.materialIds.get(name);
    if (id === undefined) {
      id = this.materialIds.size;
      this.materialIds.set(name, id);
    }
    return id;
  }

  private vertex(b: Buffer, i: number, end: number): void {
    const p = this.positions;
    p.reserve(3);
    for (let k = 0; k < 3; k++) {
      while (i < end && isSpace(b[i]!)) i++;
      if (i >= end) this.fail(`vertex needs 3 coordinates, found ${k}`);
      const x = this.number(b, i, end);
      if (!Number.isFinite(x)) {
        const token = this.token(b, i, end);
        this.fail(Number.isNaN(x) ? `coordinate '${token}' is not a number` : `coordinate '${token}' is infinite`);
      }
      p.data[p.length + k] = x;
      i = this.pos;
    }
    // A 4th value (w) or vertex colours may follow; they are not positions.
    p.length += 3;
  }

  /** The whitespace-delimited token at i, for messages. */
  private token(b: Buffer, i: number, end: number): string {
    let k = i;
    while (k < end && !isSpace(b[k]!)) k++;
    return b.toString('latin1', i, Math.min(k, i + 40)).replace(/[^\x20-\x7e]/g, '?');
  }

  /** A decimal number at b[i]; sets this.pos after it; NaN when the token is not a number. */
  private number(b: Buffer, i: number, end: number): number {
    const from = i;
    let c = b[i]!;
    let negative = false;
    if (c === MINUS || c === PLUS) {
      negative = c === MINUS;
      i++;
    }
    let mantissa = 0, digits = 0, exponent = 0, any = false;
    while (i < end && isDigit((c = b[i]!))) {
      if (digits < 17) {
        mantissa = mantissa * 10 + (c - 48);
        if (mantissa > 0) digits++;
      } else exponent++;
      any = true;
      i++;
    }
    if (i < end && b[i] === DOT) {
      i++;
      while (i < end && isDigit((c = b[i]!))) {
        if (digits < 17) {
          mantissa = mantissa * 10 + (c - 48);
          if (mantissa > 0) digits++;
          exponent--;
        }
        any = true;
        i++;
      }
    }
    if (any && i < end && (b[i] === 101 || b[i] === 69)) {
      i++;
      let expNegative = false;
      if (i < end && (b[i] === MINUS || b[i] === PLUS)) expNegative = b[i++] === MINUS;
      let e = 0, expDigits = 0;
      while (i < end && isDigit((c = b[i]!))) {
        if (e < 100000) e = e * 10 + (c - 48);
        expDigits++;
        i++;
      }
      if (expDigits === 0) any = false;
      exponent += expNegative ? -e : e;
    }
    if (any && (i === end || isSpace(b[i]!)) && exponent >= -22 && exponent <= 22) {
      this.pos = i;
      const v = exponent < 0 ? mantissa / POW10[-exponent]! : mantissa * POW10[exponent]!;
      return negative ? -v : v;
    }
    // Rare forms (large exponents, "inf", "nan", junk): the standard conversion decides.
    let k = from;
    while (k < end && !isSpace(b[k]!)) k++;
    this.pos = k;
    if (!any) return NaN;
    const text = b.toString('latin1', from, k);
    return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
  }

  private faceLine(b: Buffer, i: number, end: number): void {
    const vertexCount = this.positions.length / 3;
    let n = 0;
    for (;;) {
      while (i < end && isSpace(b[i]!)) i++;
      if (i >= end) break;
      const from = i;
      let negative = false;
      if (b[i] === MINUS) {
        negative = true;
        i++;
      }
      let index = 0, digits = 0;
      while (i < end && isDigit(b[i]!)) {
        index = index * 10 + (b[i]! - 48);
        digits++;
        i++;
      }
      // The `/vt/vn` parts name texture coordinates and normals, which we do not keep.
      if (i < end && b[i] === SLASH) {
        while (i < end && (b[i] === SLASH || b[i] === MINUS || isDigit(b[i]!))) i++;
      }
      if (digits === 0 || (i < end && !isSpace(b[i]!))) this.fail(`bad face vertex '${this.token(b, from, end)}'`);
      if (index === 0) this.fail(`vertex index 0 in a face (OBJ indices start at 1)`);
      const v = negative ? vertexCount - index : index - 1;
      if (v < 0 || v >= vertexCount) {
        this.fail(`vertex index ${negative ? -index : index} out of range (${vertexCount} vertices defined so far)`);
      }
      if (n === this.face.length) {
        const grown = new Int32Array(n * 2);
        grown.set(this.face);
        this.face = grown;
      }
      this.face[n++] = v;
    }
    if (n < 3) this.fail(`a face needs at least 3 vertices, found ${n}`);
    const t = this.triangles;
    t.reserve(3 * (n - 2));
    const m = this.materials;
    m.reserve(n - 2);
    if (this.material < 0) this.material = this.materialId('');
    const f = this.face, first = f[0]!;
    for (let k = 1; k + 1 < n; k++) {
      t.data[t.length++] = first;
      t.data[t.length++] = f[k]!;
      t.data[t.length++] = f[k + 1]!;
      m.data[m.length++] = this.material;
    }
  }
}
