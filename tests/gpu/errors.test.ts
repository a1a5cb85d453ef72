// What cannot run on a GPU is a located compile error where the compiler can see it (a
// kernel that captures a closure, the address of a host variable, calls a host function,
// launches a kernel itself) and a clear run-time error otherwise (a host buffer passed to
// an OpenCL kernel, a store past the end of a device buffer), never an internal error or a crash.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../compiler/src/driver/build.ts';
import { compileToLLVM } from '../../compiler/src/driver/pipeline.ts';

/** The rendered-free diagnostics of compiling `text` as `bad.impala`: `line: message`. */
function errors(text: string): string[] {
  const r = compileToLLVM([{ path: 'bad.impala', text }], { optLevel: 2 });
  expect(r.ok).toBe(false);
  return r.diagnostics.map((d) => `${d.span?.file}:${d.span?.line}: ${d.message}`);
}

describe('GPU kernels the compiler refuses', () => {
  it('a kernel capturing a closure that partial evaluation could not remove', () => {
    const e = errors(`
fn @apply(f: fn(i32) -> i32, n: i32) -> () {
    let d = alloc_opencl(0, 64i64);
    opencl_accelerator(0).exec((n, 1, 1), (4, 1, 1), |item| {
        bitcast[&mut[1][i32]](d.data)(item.gidx()) = f(item.gidx());
    });
}
fn main(argc: i32, argv: &[&[u8]]) -> i32 {
    let fs = [|x: i32| x + 1, |x: i32| x * 2];
    apply(fs(argc % 2), 4);
    0
}`);
    expect(e).toEqual([expect.stringMatching(/^bad\.impala:5: the GPU kernel uses a value of the host, a function \(a closure that partial evaluation did not remove\)/)]);
  });

  it('a kernel writing to a local variable of the host', () => {
    const e = errors(`
fn main() -> i32 {
    let mut local: [i32 * 4];
    let p = &mut local;
    nvvm_accelerator(0).exec((4, 1, 1), (4, 1, 1), |item| { p(item.gidx()) = 1; });
    0
}`);
    expect(e).toEqual([expect.stringMatching(/^bad\.impala:\d+: the GPU kernel uses the address of a local variable of the host: a kernel can only reach device buffers/)]);
  });

  it.each(['opencl', 'nvvm'])('a %s kernel calling a host function', (acc) => {
    const e = errors(`
fn main() -> i32 {
    ${acc}_accelerator(0).exec((4, 1, 1), (4, 1, 1), |item| { print_i32(item.gidx()) });
    0
}`);
    const target = acc === 'opencl' ? 'OpenCL' : 'NVVM';
    expect(e).toEqual([expect.stringMatching(new RegExp(`^bad\\.impala:\\d+: this GPU kernel cannot be compiled for ${target}: .*anydsl_print_i32`))]);
  });

  it("a kernel writing to the host's global variable", () => {
    const e = errors(`
static mut COUNTER: i32 = 0;
fn main() -> i32 {
    opencl_accelerator(0).exec((4, 1, 1), (4, 1, 1), |item| { COUNTER = item.gidx(); });
    0
}`);
    expect(e).toEqual([expect.stringMatching(/^bad\.impala:\d+: the GPU kernel uses the host's global variable 'COUNTER'/)]);
  });

  it('a launch inside a kernel', () => {
    const e = errors(`
fn main() -> i32 {
    let acc = opencl_accelerator(0);
    acc.exec((4, 1, 1), (4, 1, 1), |item| { acc.exec((1, 1, 1), (1, 1, 1), |j| ()) });
    0
}`);
    expect(e).toEqual([expect.stringMatching(/^bad\.impala:\d+: a 'opencl' launch inside a GPU kernel/)]);
  });
});

const scratch = mkdtempSync(path.join(os.tmpdir(), 'anydsl-gpu-errors-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('GPU errors at run time', () => {
  // One build, two deliberately wrong kernels: with no argument a host buffer passed to an
  // OpenCL kernel, with one a kernel storing one element past the end of a device buffer
  // (the runtime's guard after every device allocation finds it at the copy back).
  it('a host buffer passed to an OpenCL kernel, and a store past the end of a device buffer, stop the program with one line', async () => {
    const output = path.join(scratch, 'wrong_kernels');
    const text = `
fn main(argc: i32, argv: &[&[u8]]) -> i32 {
    if argc == 1 {
        let h = alloc_cpu(64i64);
        opencl_accelerator(0).exec((16, 1, 1), (4, 1, 1), |item| { bitcast[&mut[1][i32]](h.data)(item.gidx()) = 1; });
    } else {
        let h = alloc_cpu(64i64);
        let d = alloc_opencl(0, 64i64);
        // 17 items for 16 elements: the last one stores past the end.
        opencl_accelerator(0).exec((17, 1, 1), (1, 1, 1), |item| { bitcast[&mut[1][i32]](d.data)(item.gidx()) = 7; });
        copy(d, h);
    }
    print_string("not reached\\n");
    0
}`;
    const built = await buildProgram([{ path: 'wrong_kernels.impala', text }], { kind: 'exe', output });
    expect(built.ok, built.ok ? '' : built.rendered).toBe(true);
    const hostBuffer = spawnSync(output, [], { encoding: 'utf8', timeout: 60_000 });
    expect(hostBuffer.signal).toBe(null);
    expect(hostBuffer.status).not.toBe(0);
    expect(hostBuffer.stdout).toBe('');
    expect(hostBuffer.stderr).toMatch(/argument 0 of kernel opencl_kernel_\d+ is not an OpenCL buffer/);
    const overrun = spawnSync(output, ['overrun'], { encoding: 'utf8', timeout: 60_000 });
    expect(overrun.signal).toBe(null);
    expect(overrun.status).not.toBe(0);
    expect(overrun.stdout).toBe('');
    expect(overrun.stderr).toMatch(/a kernel wrote past the end of a 64-byte buffer of device 2 \(OpenCL 0\) \(found at a copy from it to the host; the last kernel launched there was opencl_kernel_\d+\)/);
  });
});
