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

/** A main that blurs a w × h i32 image with `blur(i, o)` and prints the result; `device` puts the images in OpenCL buffers. */
function program(blur: string, device: boolean): string {
  const alloc = device ? 'alloc_opencl(0, bytes)' : 'alloc_cpu(bytes)';
  return `
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
    ${blur};
    copy(dout, hout);
    let b = bitcast[&[i32]](hout.data);
    for k in range(0, w * h) { print_i32(b(k)); print_char(if k % w == w - 1 { '\\n' } else { ' ' }) }
    0
}`;
}

/** One source text: the library's files, then the program (the test helpers take a single text). */
function withLibrary(text: string): string {
  return [...librarySources().map((s) => s.text), text].join('\n');
}

describe('libs/image on OpenCL', () => {
  it.each(MODES)('box3_gpu_at, %s: native on OpenCL = interpreter = the CPU schedule', async (mode) => {
    const gpu = withLibrary(program(`box3_gpu_at(i, o, opencl_accelerator(0), 16, 4, ${mode}_mode(), 7)`, true));
    const cpu = withLibrary(program(`box3(i, o, seq_stages(), ${mode}_mode(), 7)`, false));
    const expected = runInterpreted(cpu, `box3_cpu_${mode}`);
    expect(expected.stdout.split('\n')).toHaveLength(10);
    expect(runInterpreted(gpu, `box3_gpu_${mode}`)).toEqual(expected);
    expect(await runNative(gpu, `box3_gpu_${mode}`)).toEqual(expected);
  });
});
