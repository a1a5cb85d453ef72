// GPU programs the tests of tests/gpu run on every target: each one copies its input to a
// device buffer, launches kernels on it and prints what comes back, so the interpreter
// (which emulates the launches) and a native build (which runs them through the
// runtime) must print the same bytes. `ACC` and `ALLOC` name the accelerator and the
// allocator of the target under test (`gpuProgram` fills them in).

export type GpuTarget = 'opencl' | 'nvvm' | 'cuda';

export interface GpuProgram {
  name: string;
  /** The source with `ACC` for the accelerator and `ALLOC` for the device allocator. */
  text: string;
}

/** `program` for `target`: `opencl_accelerator(0)` and `alloc_opencl(0, …)`, or the CUDA ones. */
export function gpuProgram(program: GpuProgram, target: GpuTarget): string {
  return helpers + forTarget(program.text, target);
}

/**
 * All of PROGRAMS as one program for `target` (one build, one device program): each one's
 * main renamed, and a main that runs them in order, each after a line with its name.
 */
export function allPrograms(target: GpuTarget): string {
  const mains = PROGRAMS.map((p) => forTarget(p.text, target).replace('fn main() -> i32', `fn main_${p.name}() -> i32`));
  const calls = PROGRAMS.map((p) => `    println("== ${p.name}");\n    status |= main_${p.name}();`).join('\n');
  return `${helpers}${mains.join('\n')}\nfn main() -> i32 {\n    let mut status = 0;\n${calls}\n    status\n}\n`;
}

function forTarget(text: string, target: GpuTarget): string {
  const alloc = target === 'opencl' ? 'alloc_opencl' : 'alloc_cuda';
  return text.replaceAll('ACC', `${target}_accelerator(0)`).replaceAll('ALLOC', alloc);
}

const helpers = `
fn print_line_i32(a: &[i32], n: i32) -> () {
    for i in range(0, n) { print_i32(a(i)); print_char(if i + 1 == n { '\\n' } else { ' ' }) }
}
`;

export const PROGRAMS: readonly GpuProgram[] = [
  {
    // Elementwise: every third item leaves early, the others scale their element in place.
    name: 'map',
    text: `
fn main() -> i32 {
    let n = 96;
    let host = alloc_cpu(n as i64 * 4i64);
    let h = bitcast[&mut [f32]](host.data);
    for i in range(0, n) { h(i) = (i as f32) * 0.5f - 7.0f }
    let dev = ALLOC(0, host.size);
    copy(host, dev);
    let scale = 2.5f;
    ACC.exec((n, 1, 1), (32, 1, 1), |item| {
        let a = bitcast[&mut[1][f32]](dev.data);
        let i = item.gidx();
        if i % 3 == 0 { return() }
        a(i) = a(i) * scale + 1.0f;
    });
    copy(dev, host);
    for i in range(0, n) { print_f32(h(i)); print_char(if i % 8 == 7 { '\\n' } else { ' ' }) }
    release(dev);
    release(host);
    0
}`,
  },
  {
    // A 3x3 weighted stencil over a 37x23 image with clamped borders, in 8x4 blocks: the
    // grid is rounded up, so the items outside the image leave at once.
    name: 'stencil',
    text: `
fn main() -> i32 {
    let w = 37;
    let h = 23;
    let bytes = (w * h) as i64 * 4i64;
    let input = alloc_cpu(bytes);
    let output = alloc_cpu(bytes);
    let inp = bitcast[&mut [i32]](input.data);
    for i in range(0, w * h) { inp(i) = (i * 7919) % 1000 - 500 }
    let din = ALLOC(0, bytes);
    let dout = ALLOC(0, bytes);
    copy(input, din);
    let acc = ACC;
    acc.exec(((w + 7) / 8 * 8, (h + 3) / 4 * 4, 1), (8, 4, 1), |item| {
        let x = item.gidx();
        let y = item.gidy();
        if x >= w || y >= h { return() }
        let src = bitcast[&[1][i32]](din.data);
        let dst = bitcast[&mut[1][i32]](dout.data);
        let clamp = |v: i32, hi: i32| if v < 0 { 0 } else if v >= hi { hi - 1 } else { v };
        let weights = [1, 2, 1];
        let mut sum = 0;
        for dy in unroll(-1, 2) {
            for dx in unroll(-1, 2) {
                sum += weights(dx + 1) * weights(dy + 1) * src(clamp(y + dy, h) * w + clamp(x + dx, w));
            }
        }
        dst(y * w + x) = sum / 16;
    });
    copy(dout, output);
    let out = bitcast[&[i32]](output.data);
    for y in range(0, h) { print_line_i32(bitcast[&[i32]](&out(y * w)), w) }
    release(din); release(dout); release(input); release(output);
    0
}`,
  },
  {
    // A block reduction: each block of 64 sums its elements in shared memory with a tree of
    // barriers, the host adds the block sums.
    name: 'reduce',
    text: `
fn main() -> i32 {
    let n = 1024;
    let block = 64;
    let blocks = n / block;
    let input = alloc_cpu(n as i64 * 4i64);
    let sums = alloc_cpu(blocks as i64 * 4i64);
    let inp = bitcast[&mut [i32]](input.data);
    for i in range(0, n) { inp(i) = (i * 37) % 101 - 50 }
    let din = ALLOC(0, input.size);
    let dsums = ALLOC(0, sums.size);
    copy(input, din);
    let acc = ACC;
    acc.exec((n, 1, 1), (block, 1, 1), |item| {
        let s = reserve_shared[i32](64);
        let t = item.tidx();
        s(t) = bitcast[&[1][i32]](din.data)(item.gidx());
        acc.barrier();
        for d in unroll(0, 6) {
            let half = 32 >> d;
            if t < half { s(t) += s(t + half) }
            acc.barrier();
        }
        if t == 0 { bitcast[&mut[1][i32]](dsums.data)(item.bidx()) = s(0) }
    });
    copy(dsums, sums);
    let bs = bitcast[&[i32]](sums.data);
    print_line_i32(bs, blocks);
    let mut total = 0;
    for i in range(0, blocks) { total += bs(i) }
    print_i32(total); print_char('\\n');
    release(din); release(dsums); release(input); release(sums);
    0
}`,
  },
  {
    // A histogram: every item adds to a global bin with an atomic, and counts its block's
    // items in a shared counter reset by item 0 behind a barrier.
    name: 'histogram',
    text: `
fn main() -> i32 {
    let n = 256;
    let bins = 8;
    let out = alloc_cpu((bins + n / 32) as i64 * 4i64);
    let o = bitcast[&mut [i32]](out.data);
    for i in range(0, bins + n / 32) { o(i) = 0 }
    let dev = ALLOC(0, out.size);
    copy(out, dev);
    let acc = ACC;
    acc.exec((n, 1, 1), (32, 1, 1), |item| {
        let d = bitcast[&mut[1][i32]](dev.data);
        let count = reserve_shared[i32](1);
        if item.tidx() == 0 { count(0) = 0 }
        acc.barrier();
        let i = item.gidx();
        let bin = (i * i + 3 * i) % bins;
        atomic[i32](ATOMIC_ADD, &mut d(bin), 1);
        atomic[i32](ATOMIC_ADD, &mut count(0), i % 5);
        acc.barrier();
        if item.tidx() == 0 { d(bins + item.bidx()) = count(0) }
    });
    copy(dev, out);
    print_line_i32(o, bins + n / 32);
    release(dev); release(out);
    0
}`,
  },
  {
    // Divergent control flow: data-dependent loops with break and early return, a match, and
    // values of several types passed by value (i64, f64, u8, bool, a tuple).
    name: 'divergent',
    text: `
fn main() -> i32 {
    let n = 128;
    let output = alloc_cpu(n as i64 * 8i64);
    let dout = ALLOC(0, output.size);
    let offset = 1i64 << 33;
    let factor = 0.25;
    let mask = 0x5au8;
    let flip = true;
    let pair = (3, -2.5f);
    ACC.exec((n, 1, 1), (16, 1, 1), |item| {
        let out = bitcast[&mut[1][i64]](dout.data);
        let i = item.gidx();
        if i == 5 { out(i) = -1i64; return() }
        let mut x = i + 1;
        let mut steps = 0;
        while x != 1 {
            if steps >= 40 { break() }
            x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
            steps++;
        }
        let kind = match i % 4 { 0 => 10, 1 => 20, 2 => 30, _ => 40 };
        let bits = ((i as u8) ^ mask) as i64;
        let scaled = ((i as f64) * factor) as i64;
        let (pa, pb) = pair;
        let extra = if flip { pa as i64 + (pb * 2.0f) as i64 } else { 0i64 };
        if steps > 30 { out(i) = offset + steps as i64; return() }
        out(i) = (steps * 1000 + kind) as i64 + bits * 100000i64 + scaled + extra;
    });
    copy(dout, output);
    let o = bitcast[&[i64]](output.data);
    for i in range(0, n) { print_i64(o(i)); print_char(if i % 8 == 7 { '\\n' } else { ' ' }) }
    release(dout); release(output);
    0
}`,
  },
];
