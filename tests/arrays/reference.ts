// Plain TypeScript n-d arrays: the reference every libs/arrays operation, with-loop and
// program is compared with. Arrays are row-major (last axis fastest) as in the library;
// nothing here shares code with it.

export interface NdArray {
  shape: number[];
  data: number[];
}

export function size(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

export function offsetOf(shape: readonly number[], iv: readonly number[]): number {
  let o = 0;
  for (let d = 0; d < shape.length; d++) o = o * shape[d]! + iv[d]!;
  return o;
}

export function indexOf(shape: readonly number[], o: number): number[] {
  const iv = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    iv[d] = o % shape[d]!;
    o = Math.floor(o / shape[d]!);
  }
  return iv;
}

/** Every index vector of `shape` in row-major order. */
export function* indices(shape: readonly number[]): Generator<number[]> {
  const n = size(shape);
  for (let o = 0; o < n; o++) yield indexOf(shape, o);
}

export function generate(shape: readonly number[], f: (iv: number[]) => number): NdArray {
  return { shape: [...shape], data: [...indices(shape)].map(f) };
}

export function at(a: NdArray, iv: readonly number[]): number {
  return a.data[offsetOf(a.shape, iv)]!;
}

/** A generator in normalised form: lo <= iv < hi and (iv - lo) mod step < width on every axis. */
export interface Generator_ {
  lo: number[];
  hi: number[];
  step: number[];
  width: number[];
}

export function contains(g: Generator_, iv: readonly number[]): boolean {
  return iv.every((x, d) => x >= g.lo[d]! && x < g.hi[d]! && (x - g.lo[d]!) % g.step[d]! < Math.min(g.width[d]!, g.step[d]!));
}

/** SAC's with-loop element: the last part whose generator holds iv, `base` otherwise. */
export function withLoop(shape: readonly number[], base: (iv: number[]) => number, parts: [Generator_, (iv: number[]) => number][]): NdArray {
  return generate(shape, (iv) => {
    for (let p = parts.length - 1; p >= 0; p--) if (contains(parts[p]![0], iv)) return parts[p]![1](iv);
    return base(iv);
  });
}

/** fold: op over the parts in order, each generator's index vectors in row-major order. */
export function foldWith(shape: readonly number[], op: (x: number, y: number) => number, neutral: number, parts: [Generator_, (iv: number[]) => number][]): number {
  let acc = neutral;
  for (const [g, e] of parts) for (const iv of indices(shape)) if (contains(g, iv)) acc = op(acc, e(iv));
  return acc;
}

export function reshape(shape: number[], a: NdArray): NdArray {
  return { shape, data: [...a.data] };
}

export function cat(d: number, a: NdArray, b: NdArray): NdArray {
  const shape = a.shape.map((e, k) => (k === d ? e + b.shape[d]! : e));
  return generate(shape, (iv) => (iv[d]! < a.shape[d]! ? at(a, iv) : at(b, iv.map((x, k) => (k === d ? x - a.shape[d]! : x)))));
}

export function take(n: number[], a: NdArray): NdArray {
  const len = a.shape.map((e, d) => Math.min(Math.abs(n[d]!), e));
  return generate(len, (iv) => at(a, iv.map((x, d) => x + (n[d]! < 0 ? a.shape[d]! - len[d]! : 0))));
}

export function drop(n: number[], a: NdArray): NdArray {
  const gone = a.shape.map((e, d) => Math.min(Math.abs(n[d]!), e));
  return generate(
    a.shape.map((e, d) => e - gone[d]!),
    (iv) => at(a, iv.map((x, d) => x + (n[d]! > 0 ? gone[d]! : 0))),
  );
}

export function tile(ext: number[], from: number[], a: NdArray): NdArray {
  return generate(ext, (iv) => at(a, iv.map((x, d) => x + from[d]!)));
}

export function shift(off: number[], fill: number, a: NdArray): NdArray {
  return generate(a.shape, (iv) => {
    const j = iv.map((x, d) => x - off[d]!);
    return j.every((x, d) => x >= 0 && x < a.shape[d]!) ? at(a, j) : fill;
  });
}

export function rotate(off: number[], a: NdArray): NdArray {
  const mod = (x: number, n: number) => ((x % n) + n) % n;
  return generate(a.shape, (iv) => at(a, iv.map((x, d) => mod(x - off[d]!, a.shape[d]!))));
}

export function transpose(a: NdArray): NdArray {
  return generate([...a.shape].reverse(), (iv) => at(a, [...iv].reverse()));
}

export function selBlock(k: number, iv: number[], a: NdArray): NdArray {
  return generate(a.shape.slice(k), (jv) => at(a, [...iv.slice(0, k), ...jv]));
}

/** One generation of Conway's B3/S23 on a width × height torus, row-major, 1 alive. */
export function lifeStep(board: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(board.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          if (dx === 0 && dy === 0) continue;
          n += board[((y + dy + height) % height) * width + ((x + dx + width) % width)]!;
        }
      }
      const alive = board[y * width + x] === 1;
      out[y * width + x] = n === 3 || (alive && n === 2) ? 1 : 0;
    }
  }
  return out;
}

/** PDE1 as libs/arrays/README.md defines it: red-black sweeps in place on the n³ grid. */
export function pde1(u0: Float64Array, f: Float64Array, n: number, iterations: number): Float64Array {
  const u = Float64Array.from(u0);
  const h = 1 / (n - 1);
  const h2 = h * h;
  const p = (i: number, j: number, k: number) => (i * n + j) * n + k;
  for (let it = 0; it < iterations; it++) {
    for (const parity of [0, 1]) {
      for (let i = 1; i < n - 1; i++) {
        for (let j = 1; j < n - 1; j++) {
          for (let k = 1; k < n - 1; k++) {
            if ((i + j + k) % 2 !== parity) continue;
            const s = u[p(i - 1, j, k)]! + u[p(i + 1, j, k)]! + (u[p(i, j - 1, k)]! + u[p(i, j + 1, k)]!) + (u[p(i, j, k - 1)]! + u[p(i, j, k + 1)]!);
            u[p(i, j, k)] = (s + h2 * f[p(i, j, k)]!) * (1 / 6);
          }
        }
      }
    }
  }
  return u;
}
