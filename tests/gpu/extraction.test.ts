// Kernel extraction (transform/kernels.ts) checked by the interpreter, independently of any
// device: each GPU program of programs.ts prints the same after the whole pass list, where
// its launches are calls of anydsl_launch_kernel with the kernel's arguments in a record,
// as right after emission, where the interpreter emulates the launch intrinsics directly.
import { describe, expect, it } from 'vitest';
import { runPasses } from '../../compiler/src/driver/passes.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { interpret, mainArguments } from '../../compiler/src/interp/index.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { kernelsOf } from '../../compiler/src/transform/kernels.ts';
import { allPrograms, PROGRAMS } from './programs.ts';

describe('kernel extraction', () => {
  it.each(['opencl', 'nvvm'] as const)(`${PROGRAMS.map((p) => p.name).join(', ')} (%s): the extracted kernels compute what the launches did`, (target) => {
    const sink = new DiagnosticSink();
    const front = frontEnd([{ path: 'gpu_programs.impala', text: allPrograms(target) }], sink);
    expect(front, sink.list.map((d) => d.message).join('\n')).not.toBeNull();
    const { world, emitted } = front!;
    const main = emitted.main!;
    const run = () => interpret(world, main, mainArguments(main, ['gpu_programs']), { stepLimit: 100_000_000 });
    const before = run();
    let launches = -1;
    expect(runPasses(world, { sink, observe: (pass, w) => void (pass === 'kernels' && (launches = kernelsOf(w).length)) })).toBe(true);
    expect(launches).toBe(PROGRAMS.length);
    expect(kernelsOf(world)).toEqual(PROGRAMS.map((_, i) => ({ name: `${target}_kernel_${i}`, target })));
    const after = run();
    expect(after.stdout).toBe(before.stdout);
    expect(after.result).toBe(before.result);
  });
});
