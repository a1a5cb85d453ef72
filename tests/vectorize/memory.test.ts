// Memory under `vectorize`: contiguous accesses, gathers and scatters, uniform
// addresses under masks, element types of every size, local variables, and the
// remainder iteration. Native results must equal the interpreter's.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Arg, type Native, buildNative, expectSameMemory, random } from './support.ts';

type Make = (n: number, rnd: () => number) => Arg[];

interface Kernel {
  /** Params after `n: i32`. */
  params: string;
  body: string;
  widths: number[];
  args: Make;
}

const ints = (len: number, rnd: () => number, lo: number, hi: number): Int32Array =>
  Int32Array.from({ length: len }, () => lo + Math.floor(rnd() * (hi - lo)));
const floats = (len: number, rnd: () => number): Float32Array => Float32Array.from({ length: len }, () => rnd() * 2 - 1);

const kernels: Record<string, Kernel> = {
  contiguous: {
    params: 'a: f32, x: &[f32], y: &mut [f32]',
    body: 'y(i) = a * x(i) + y(i);',
    widths: [4, 8, 16],
    args: (n, r) => [1.5, floats(n, r), floats(n + 1, r)],
  },
  offset: {
    params: 'x: &[i32], y: &mut [i32]',
    body: 'y(i + 2) = x(i + 1) - x(i);',
    widths: [4, 8, 16],
    args: (n, r) => [ints(n + 1, r, -99, 99), ints(n + 2, r, 0, 9)],
  },
  gather: {
    params: 'idx: &[i32], x: &[f32], y: &mut [f32]',
    body: 'if idx(i) >= 0 { y(i) = x(idx(i)) * 2.0f; }',
    widths: [4, 8, 16],
    args: (n, r) => [ints(n, r, -5, n), floats(n, r), floats(n, r)],
  },
  scatter: {
    params: 'perm: &[i32], x: &[f32], y: &mut [f32]',
    body: 'if x(i) > -0.5f { y(perm(i)) = x(i) + 1.0f; }',
    widths: [4, 8, 16],
    args: (n, r) => [Int32Array.from({ length: n }, (_, k) => k).sort(() => r() - 0.5), floats(n, r), floats(n, r)],
  },
  strided: {
    params: 'x: &[i32], y: &mut [i32]',
    body: 'y(3 * i + 1) = x(2 * i) + x(2 * i + 1);',
    widths: [4, 8, 16],
    args: (n, r) => [ints(2 * n, r, 0, 99), ints(3 * n, r, 0, 9)],
  },
  // Uniform addresses under a mask: loads only when some lane is active, and the
  // last active lane's value is what a uniform address keeps.
  uniform: {
    params: 'x: &mut [i32], y: &mut [i32]',
    body: 'if y(i) > 10 { y(i) = x(0) + x(1); x(2) = y(i) + i; } if y(i) == 3 { x(3) = 42; }',
    widths: [4, 8, 16],
    args: (n, r) => [ints(4, r, 0, 99), ints(n, r, 0, 20)],
  },
  bools: {
    params: 'b: &mut [bool], y: &mut [i32]',
    body: 'if b(i) { y(i) = y(i) + 1; } b(i) = y(i) % 2 == 0;',
    widths: [4, 8, 16, 32],
    args: (n, r) => [Uint8Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0)), ints(n, r, 0, 20)],
  },
  bytes: {
    params: 'x: &mut [u8]',
    body: 'if x(i) > 100u8 { x(i) = x(i) * 3u8 + (i as u8); } else { x(i) = x(i) / 2u8; }',
    widths: [8, 16, 32, 64],
    args: (n, r) => [Uint8Array.from({ length: n }, () => Math.floor(r() * 256))],
  },
  shorts: {
    params: 'x: &mut [i16]',
    body: 'if x(i) > 100i16 { x(i) = x(i) - 7i16; } else { x(i) = x(i) * 2i16; }',
    widths: [8, 16, 32, 64],
    args: (n, r) => [Int16Array.from({ length: n }, () => Math.floor(r() * 400) - 100)],
  },
  doubles: {
    params: 'x: &mut [f64]',
    body: 'if x(i) < 0.3 { x(i) = x(i) * 0.5 + 1.0; }',
    widths: [2, 4, 8],
    args: (n, r) => [Float64Array.from({ length: n }, () => r())],
  },
  // Streaming stores (`nontemporal_store`): the same values as plain stores, whether a lane
  // group's address is aligned (one streaming store) or not, all lanes on or some.
  streamed: {
    params: 'x: &[i32], y: &mut [i32], z: &mut [f32], b: &mut [u8]',
    body: `
      nontemporal_store(&mut y(i + (n & 1)), x(i) * 3 + 1);
      if x(i) > 0 { nontemporal_store(&mut z(i), x(i) as f32 * 0.5f); }
      nontemporal_store(&mut b(i), x(i) as u8);`,
    widths: [4, 8, 16, 32],
    args: (n, r) => [ints(n, r, -99, 99), ints(n + 1, r, 0, 9), floats(n, r), new Uint8Array(n)],
  },
  // Integer division in lanes that do not divide must not trap.
  division: {
    params: 'x: &[i32], y: &mut [i32]',
    body: 'if x(i) != 0 { y(i) = 1000 / x(i) + 1000 % x(i); }',
    widths: [4, 8, 16],
    args: (n, r) => [ints(n, r, -3, 4), ints(n, r, 0, 9)],
  },
  // Arrays of structs (a gather or scatter per field), tuple and struct values merged at joins.
  structs: {
    params: 'pts: &[P], res: &mut [P], out: &mut [f32]',
    body: `
      let (a, b) = if pts(i).x > 0.0f { (pts(i).x, 1.0f) } else { (pts(i).y, 2.0f) };
      let mut p = pts(i);
      if a > 0.5f { p = P { x: p.y, y: a * b }; }
      res(n - 1 - i) = p;
      out(i) = a * b;`,
    widths: [4, 8, 16],
    args: (n, r) => [floats(2 * n, r), new Float32Array(2 * n), new Float32Array(n)],
  },
  // A struct local whose address is taken (captured by a loop body).
  struct_local: {
    params: 'pts: &[P], res: &mut [P]',
    body: `
      let mut acc = P { x: 0.0f, y: 1.0f };
      for k in range(0, 3) { acc.x += pts(i).x * (k as f32); if pts(i).y > 0.0f { acc.y *= pts(i).y; } }
      res(i) = acc;`,
    widths: [4, 8, 16],
    args: (n, r) => [floats(2 * n, r), new Float32Array(2 * n)],
  },
  // Local variables whose address is taken (captured by a loop body) and a local array.
  locals: {
    params: 'x: &[i32], y: &mut [i32]',
    body: `
      let mut s = 0;
      let mut t: [i32 * 4] = [0, 0, 0, 0];
      for k in range(0, 4) { s += x(i) * k; t(k) = s; }
      if s > 100 { s = t(1) + t(3); }
      y(i) = s;`,
    widths: [4, 8, 16],
    args: (n, r) => [ints(n, r, -50, 50), ints(n, r, 0, 9)],
  },
};

function source(): string {
  const out: string[] = ['struct P { x: f32, y: f32 }'];
  for (const [name, k] of Object.entries(kernels)) {
    for (const w of k.widths) {
      out.push(`extern fn ${name}_w${w}(n: i32, ${k.params}) -> () { vectorize(${w}, 0, n, |i| { ${k.body} }); }`);
    }
  }
  return out.join('\n');
}

describe('vectorised memory accesses match the interpreter', () => {
  const src = source();
  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(src);
  });

  it.each(Object.keys(kernels))('%s', (name) => {
    const k = kernels[name]!;
    const rnd = random(name.length * 104729);
    for (const w of k.widths) {
      for (const n of [0, 1, w - 1, w, 3 * w + 1, 70]) {
        expectSameMemory(lib, src, `${name}_w${w}`, [n, ...k.args(n, rnd)], { w, n });
      }
    }
  });
});

describe('the code of memory accesses', () => {
  it('uses contiguous masked loads and stores for index + lane, gathers and scatters otherwise', async () => {
    const lib = await buildNative(source());
    const fn = (name: string): string => {
      const start = lib.llvm.indexOf(`@${name}(`);
      return lib.llvm.slice(start, lib.llvm.indexOf('\n}', start));
    };
    expect(fn('contiguous_w8')).toMatch(/llvm\.masked\.load\.v8f32\.p0/);
    expect(fn('contiguous_w8')).toMatch(/llvm\.masked\.store\.v8f32\.p0/);
    expect(fn('contiguous_w8')).not.toMatch(/gather|scatter/);
    expect(fn('gather_w16')).toMatch(/llvm\.masked\.gather\.v16f32\.v16p0/);
    expect(fn('scatter_w4')).toMatch(/llvm\.masked\.scatter\.v4f32\.v4p0/);
    expect(fn('bytes_w64')).toMatch(/llvm\.masked\.load\.v64i8\.p0/);
    // A streaming store is a store of a whole register where every lane is on and the address aligned, the masked store otherwise.
    expect(fn('streamed_w16')).toMatch(/anydsl\.masked\.store_nontemporal\.v16i32\.p0/);
    expect(lib.llvm).toMatch(/store <16 x i32> %v, ptr %p, align 64, !nontemporal !\{i32 1\}/);
    expect(lib.llvm).toMatch(/store <32 x i8> %v, ptr %p, align 32, !nontemporal !\{i32 1\}/);
    // A register wider than 16 bytes tries 16-byte streaming pieces before the masked store.
    expect(lib.llvm).toMatch(/store <16 x i32> %v, ptr %p, align 16, !nontemporal !\{i32 1\}/);
    // The full iterations address index + lane with i64 arithmetic (behind the check of addressing.ts)
    // and prefetch what they load.
    expect(fn('offset_w8')).toMatch(/getelementptr inbounds i32, ptr %x, i64 /);
    expect(fn('offset_w8')).toMatch(/call void @llvm\.prefetch\.p0\(ptr %[\w.]+, i32 0, i32 3, i32 1\)/);
  });

  it('gives a loop of one full iteration with known bounds (the children of a BVH node) no prefetches', async () => {
    const src = 'extern fn node_w8(n: i32, k: i32, x: &[f32], y: &mut [f32]) -> () { vectorize(8, 0, 8, |i| { y(i) = x(k + i) * 2.0f; }); }';
    const lib = await buildNative(src);
    expect(lib.llvm).not.toMatch(/llvm\.prefetch/);
    expectSameMemory(lib, src, 'node_w8', [8, 5, Float32Array.from({ length: 40 }, (_, j) => j - 7), new Float32Array(8)]);
  });
});

describe('the bounds of the vector loop', () => {
  // `i + k` wraps for no i in the first case (the full iterations use 64-bit
  // addresses); in the second it wraps for every i, to small indices (the
  // masked iterations do all the work); in the third the last lanes' indices
  // lie above the i32 range (they must stay inactive); the fourth is empty.
  const cases: [lo: number, hi: number, k: number][] = [
    [5, 40, -5],
    [-(2 ** 31), -(2 ** 31) + 37, -(2 ** 31)],
    [2 ** 31 - 38, 2 ** 31 - 1, -(2 ** 31 - 38)],
    [2 ** 31 - 38, 2 ** 31 - 38 - 5, 0],
  ];
  const widths = [4, 8, 16];
  const src = widths
    .map((w) => `extern fn bounds_w${w}(lo: i32, hi: i32, k: i32, x: &[i32], y: &mut [i32]) -> () { vectorize(${w}, lo, hi, |i| { y(i + k) = x(i + k) * 3 + i; }); }`)
    .join('\n');
  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(src);
  });

  it.each(cases)('from %d to %d, indices shifted by %d', (lo, hi, k) => {
    const rnd = random(lo ^ hi);
    for (const w of widths) {
      expectSameMemory(lib, src, `bounds_w${w}`, [lo, hi, k, ints(48, rnd, -99, 99), ints(48, rnd, 0, 9)], { w });
    }
  });
});

describe('the alignment peel before a streaming store', () => {
  // The full iterations start where the streaming store's lanes are aligned, after a masked
  // iteration of the lanes before: every start of the range and every offset of the array
  // (its base aligned to 4 bytes and more), ranges shorter than the peel included.
  const widths = [8, 16];
  const src = widths
    .map((w) => `extern fn peel_w${w}(lo: i32, hi: i32, x: &[i32], y: &mut [i32]) -> () { vectorize(${w}, lo, hi, |i| { nontemporal_store(&mut y(i), x(i) * 2 + i); }); }`)
    .join('\n');

  it('gives the interpreter\'s results', async () => {
    const lib = await buildNative(src);
    expect(lib.llvm).toMatch(/call i32 @anydsl\.elements_to_align\.p0[\w.]*\(ptr %[\w.]+, i32 4, i32 (32|64)\)/);
    const rnd = random(7919);
    for (const w of widths) {
      for (const offset of [0, 1, 2, 3, 5]) {
        for (const lo of [0, 1, 3, w - 1, w + 2]) {
          for (const len of [0, 1, 3, w, 2 * w + 5, 70]) {
            const n = lo + len;
            const y = new Int32Array(n + 8).subarray(offset, offset + n);
            expectSameMemory(lib, src, `peel_w${w}`, [lo, lo + len, ints(n, rnd, -99, 99), y], { w, offset, lo, len });
          }
        }
      }
    }
  });
});
