// GPU kernels end to end: the programs of programs.ts (an elementwise map with early exits,
// a 2-D stencil, a block reduction in shared memory with barriers, a histogram with global
// and shared atomics, divergent control flow with values of several types passed to the kernel) run natively with their `opencl`
// launches on the OpenCL device the runtime picks (PoCL's CPU device where there is no
// GPU) and must print what the interpreter's emulation of the launches prints.
// device-code.test.ts checks the generated code itself.
import { describe, expect, it } from 'vitest';
import { runInterpreted, runNative } from '../cpu/support.ts';
import { gpuProgram, PROGRAMS } from './programs.ts';

describe('OpenCL kernels', () => {
  it.each(PROGRAMS.map((p) => [p.name, p] as const))('%s: runs natively as in the interpreter', async (name, program) => {
    const text = gpuProgram(program, 'opencl');
    const expected = runInterpreted(text, name);
    expect(expected.status).toBe(0);
    expect(await runNative(text, `${name}_opencl`)).toEqual(expected);
  });
});
