// compile() end to end with the pipeline replaced by a hand-written LLVM module, so the
// cache, the toolchain and the koffi loader are tested before the compiler exists.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PipelineResult } from '../../compiler/src/driver/pipeline.ts';
import { RUNTIME_DECLS, usePrivateCache } from './helpers.ts';

vi.mock('../../compiler/src/driver/pipeline.ts', () => ({ compileToLLVM: vi.fn() }));
vi.mock('../../compiler/src/driver/toolchain.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../compiler/src/driver/toolchain.ts')>();
  return { ...original, llvmToSharedLibrary: vi.fn(original.llvmToSharedLibrary) };
});

const { compileToLLVM } = await import('../../compiler/src/driver/pipeline.ts');
const { llvmToSharedLibrary } = await import('../../compiler/src/driver/toolchain.ts');
const { compile, CompileFailure } = await import('../../compiler/src/driver/compile.ts');

usePrivateCache();

// scale(data, n, k): data[i] *= k in place; iota(data, n): data[i] = i through the runtime's parallel_for.
const LIBRARY_IR = `${RUNTIME_DECLS}
define void @scale(ptr %data, i32 %n, float %k) {
entry:
  %empty = icmp sle i32 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr float, ptr %data, i32 %i
  %x = load float, ptr %p
  %y = fmul float %x, %k
  store float %y, ptr %p
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
define internal void @iota_body(ptr %data, i32 %lo, i32 %hi) {
entry:
  br label %loop
loop:
  %i = phi i32 [ %lo, %entry ], [ %next, %loop ]
  %p = getelementptr i32, ptr %data, i32 %i
  store i32 %i, ptr %p
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, %hi
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
define void @iota(ptr %data, i32 %n) {
  call void @anydsl_parallel_for(i32 0, i32 0, i32 %n, ptr %data, ptr @iota_body)
  ret void
}
define i64 @twice(i64 %x) {
  %y = mul i64 %x, 2
  ret i64 %y
}
`;

const okResult: Extract<PipelineResult, { ok: true }> = {
  ok: true,
  llvm: LIBRARY_IR,
  device: [],
  irText: '',
  hasMain: false,
  diagnostics: [{ severity: 'warning', span: null, message: 'a warning worth keeping' }],
  exports: [
    { name: 'scale', params: ['ptr', 'i32', 'f32'], ret: 'void' },
    { name: 'iota', params: ['ptr', 'i32'], ret: 'void' },
    { name: 'twice', params: ['i64'], ret: 'i64' },
  ],
};

const sources = [{ path: 'lib.impala', text: 'extern fn scale(data: &mut [f32], n: i32, k: f32) -> () { }' }];

describe('compile', () => {
  beforeEach(() => {
    vi.mocked(compileToLLVM).mockReset().mockReturnValue(okResult);
    vi.mocked(llvmToSharedLibrary).mockClear();
  });

  it('builds a shared library whose exports work on typed arrays in place', async () => {
    const lib = await compile({ sources, options: { optLevel: 2 } });
    expect(lib.cached).toBe(false);
    expect(lib.path).toMatch(/lib\.so$/);
    expect(lib.diagnostics).toEqual(okResult.diagnostics);

    const data = new Float32Array([1, 2, 3, 4.5]);
    lib.fn('scale')(data, data.length, 2);
    expect([...data]).toEqual([2, 4, 6, 9]);

    const ints = new Int32Array(10_000);
    lib.fn('iota')(ints, ints.length);
    expect(ints.every((v, i) => v === i)).toBe(true);

    expect(lib.fn('twice')(21)).toBe(42);
    expect(() => lib.fn('missing')).toThrow("no exported function 'missing'");
    expect(compileToLLVM).toHaveBeenCalledWith(sources, { optLevel: 2, targetCpu: 'native', peTrace: undefined });
  });

  it('serves a repeated compile from the cache without the pipeline or clang', async () => {
    const first = await compile({ sources, options: { optLevel: 1 } });
    expect(first.cached).toBe(false);
    expect(compileToLLVM).toHaveBeenCalledTimes(1);
    expect(llvmToSharedLibrary).toHaveBeenCalledTimes(1);

    const second = await compile({ sources, options: { optLevel: 1 } });
    expect(second.cached).toBe(true);
    expect(second.path).toBe(first.path);
    expect(second.exports).toEqual(okResult.exports);
    expect(second.diagnostics).toEqual(okResult.diagnostics);
    expect(compileToLLVM).toHaveBeenCalledTimes(1);
    expect(llvmToSharedLibrary).toHaveBeenCalledTimes(1);
    const data = new Float32Array([3]);
    second.fn('scale')(data, 1, -1);
    expect(data[0]).toBe(-3);

    // Any change to the sources or options is a different artifact.
    await compile({ sources, options: { optLevel: 3 } });
    await compile({ sources: [{ ...sources[0]!, text: `${sources[0]!.text}\n` }], options: { optLevel: 1 } });
    expect(llvmToSharedLibrary).toHaveBeenCalledTimes(3);
  });

  it('reports the program\'s errors as a CompileFailure with rendered diagnostics', async () => {
    const text = 'fn f() -> i32 { 1.0f }';
    vi.mocked(compileToLLVM).mockReturnValue({
      ok: false,
      diagnostics: [
        {
          severity: 'error',
          span: { file: 'bad.impala', line: 1, col: 17, endLine: 1, endCol: 20 },
          message: "mismatched types: expected 'i32' but found 'f32'",
        },
      ],
    });
    const error = await compile({ sources: [{ path: 'bad.impala', text }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CompileFailure);
    expect((error as InstanceType<typeof CompileFailure>).rendered).toBe(
      "bad.impala:1 col 17 - 20: error: mismatched types: expected 'i32' but found 'f32'\n" + `${text}\n` + '                ^^^^',
    );
    expect(llvmToSharedLibrary).not.toHaveBeenCalled();
  });

  it('reports a crash in the compiler as an internal compiler error', async () => {
    vi.mocked(compileToLLVM).mockImplementation(() => {
      throw new Error('emit: unexpected node');
    });
    const error = await compile({ sources: [{ path: 'x.impala', text: 'fn g() {}' }] }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('error: internal compiler error: emit: unexpected node');
  });
});
