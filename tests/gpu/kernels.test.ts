// GPU kernels end to end: the programs of programs.ts (an elementwise map with early exits,
// a 2-D stencil, a block reduction in shared memory with barriers, a histogram with global
// and shared atomics, divergent control flow with values of several types passed to the
// kernel) run natively with their `opencl` launches on the OpenCL device the runtime picks
// (PoCL's CPU device where there is no GPU) and must print what the interpreter's
// emulation of the launches prints.
// device-code.test.ts checks the generated code itself.
import { describe, expect, it } from 'vitest';
import { runInterpreted, runNative } from '../cpu/support.ts';
import { allPrograms, PROGRAMS } from './programs.ts';

describe('OpenCL kernels', () => {
  // One program of all of them: one build and one OpenCL program keep the file fast.
  it(`${PROGRAMS.map((p) => p.name).join(', ')}: run natively as in the interpreter`, async () => {
    const text = allPrograms('opencl');
    const expected = runInterpreted(text, 'gpu_programs');
    expect(expected.status).toBe(0);
    for (const p of PROGRAMS) expect(expected.stdout).toContain(`== ${p.name}\n`);
    const native = await runNative(text, 'gpu_programs_opencl');
    // Section by section first, so that a failure names the program.
    const sections = (out: string) => out.split(/^== /m);
    expect(sections(native.stdout)).toEqual(sections(expected.stdout));
    expect(native).toEqual(expected);
  });
});
