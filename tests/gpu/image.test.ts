// The image library's GPU schedule on real device memory: `box3_gpu_at` (libs/image/gpu.impala,
// the stencil's input staged in shared memory behind a barrier) on images copied to OpenCL
// buffers runs natively on the OpenCL device (PoCL's CPU device without a GPU) and prints
// what the interpreter prints, at a size that is no multiple of the block, and what the
// library's CPU schedule `seq` computes on host memory.
import { describe, expect, it } from 'vitest';
import { librarySources } from '../../libs/image/host.ts';
import { runInterpreted, runNative } from '../cpu/support.ts';

// Two of the four modes keep the file fast; tests/image checks every mode of box3_gpu_at in the interpreter.
const MODES = ['mirror', 'const'] as const;

/**
 * A main that runs `blurs` on a w × h i32 image `i` into `o` and prints the results
 * (`show(o_host())` copies `o` back and prints it); `device` puts the images in OpenCL buffers.
 */
function program(blurs: string, device: boolean): string {
  const alloc = device ? 'alloc_opencl(0, bytes)' : 'alloc_cpu(bytes)';
  return `
fn show(b: &[i32], w: i32, h: i32) -> () {
    for k in range(0, w * h) { print_i32(b(k)); print_char(if k % w == w - 1 { '\\n' } else { ' ' }) }
}
fn main() -> i32 {
    let w = 33; let h = 9;
    let bytes = (w * h) as i64 * 4i64;
    let hin = alloc_cpu(bytes); let hout = alloc_cpu(bytes);
    let a = bitcast[&mut [i32]](hin.data);
    for k in range(0, w * h) { a(k) = (k * 7919) % 255 }
    let din = ${alloc}; let dout = ${alloc};
    copy(hin, din);
    let i = channel_i32(bitcast[&mut [i32]](din.data), w, h, 1, 0);
    let o = channel_i32(bitcast[&mut [i32]](dout.data), w, h, 1, 0);
    let o_host = || { copy(dout, hout); bitcast[&[i32]](hout.data) };
    let show = |b: &[i32]| show(b, w, h);
    ${blurs};
    0
}`;
}

/** One source text: the library's files, then the program (the test helpers take a single text). */
function withLibrary(text: string): string {
  return [...librarySources().map((s) => s.text), text].join('\n');
}

describe('libs/image on OpenCL', () => {
  // Both modes in one program: one native build and one OpenCL program keep the file fast.
  it(`box3_gpu_at (${MODES.join(', ')}): native on OpenCL = interpreter = the CPU schedule`, async () => {
    const blurs = (call: (mode: string) => string) => MODES.map((m) => `println("== ${m}"); ${call(m)}`).join(';\n    ');
    const gpu = withLibrary(program(blurs((m) => `box3_gpu_at(i, o, opencl_accelerator(0), 16, 4, ${m}_mode(), 7); show(o_host())`), true));
    const cpu = withLibrary(program(blurs((m) => `box3(i, o, seq_stages(), ${m}_mode(), 7); show(o_host())`), false));
    const expected = runInterpreted(cpu, 'box3_cpu');
    expect(expected.stdout.split('\n')).toHaveLength(MODES.length * 10 + 1);
    expect(runInterpreted(gpu, 'box3_gpu')).toEqual(expected);
    expect(await runNative(gpu, 'box3_gpu')).toEqual(expected);
  });
});
