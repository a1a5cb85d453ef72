// buildProgram with the pipeline replaced by hand-written results: how each outcome of
// the pipeline and the toolchain reaches the caller.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import koffi from 'koffi';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PipelineResult } from '../../compiler/src/driver/pipeline.ts';
import { RUNTIME_DECLS, run, useTempDir } from './helpers.ts';

vi.mock('../../compiler/src/driver/pipeline.ts', () => ({ compileToLLVM: vi.fn() }));
const { compileToLLVM } = await import('../../compiler/src/driver/pipeline.ts');
const { buildProgram } = await import('../../compiler/src/driver/build.ts');

const tmp = useTempDir();
const sources = [{ path: 'main.impala', text: 'fn main() -> i32 { 7 }' }];

const MAIN_IR = `${RUNTIME_DECLS}
@msg = private constant [4 x i8] c"hi\\0A\\00"
define i32 @main() {
  call void @anydsl_print_string(ptr @msg)
  ret i32 7
}
`;

function program(overrides: Partial<Extract<PipelineResult, { ok: true }>> = {}): PipelineResult {
  return { ok: true, llvm: MAIN_IR, device: [], irText: 'main: fn(mem, fn(mem, i32))\n', exports: [], hasMain: true, diagnostics: [], ...overrides };
}

describe('buildProgram', () => {
  beforeEach(() => {
    vi.mocked(compileToLLVM).mockReset().mockReturnValue(program());
  });

  it('builds an executable that links the runtime', async () => {
    const output = path.join(tmp(), 'main');
    const result = await buildProgram(sources, { kind: 'exe', output, optLevel: 0, targetCpu: 'x86-64' });
    expect(result).toEqual({ ok: true, output, diagnostics: [] });
    expect(compileToLLVM).toHaveBeenCalledWith(sources, { optLevel: 0, targetCpu: 'x86-64', peTrace: undefined, printIr: false });
    const ran = await run(output);
    expect(ran.stdout).toBe('hi\n');
    expect(ran.code).toBe(7);
  });

  it('writes the LLVM IR or the CPS IR text for --emit-llvm and --emit-ir', async () => {
    const ll = path.join(tmp(), 'main.ll');
    expect((await buildProgram(sources, { kind: 'llvm', output: ll })).ok).toBe(true);
    expect(await readFile(ll, 'utf8')).toBe(MAIN_IR);
    const ir = path.join(tmp(), 'main.ir');
    expect((await buildProgram(sources, { kind: 'ir', output: ir })).ok).toBe(true);
    expect(await readFile(ir, 'utf8')).toBe('main: fn(mem, fn(mem, i32))\n');
    expect(compileToLLVM).toHaveBeenCalledWith(sources, { optLevel: 2, targetCpu: 'native', peTrace: undefined, printIr: false });
    expect(compileToLLVM).toHaveBeenCalledWith(sources, { optLevel: 2, targetCpu: 'native', peTrace: undefined, printIr: true });
  });

  it('returns user diagnostics rendered with the source line', async () => {
    vi.mocked(compileToLLVM).mockReturnValue({
      ok: false,
      diagnostics: [{ severity: 'error', span: { file: 'main.impala', line: 1, col: 4, endLine: 1, endCol: 7 }, message: "unknown name 'mian'" }],
    });
    const result = await buildProgram(sources, { kind: 'exe', output: path.join(tmp(), 'never') });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rendered).toBe("main.impala:1 col 4 - 7: error: unknown name 'mian'\nfn main() -> i32 { 7 }\n   ^^^^");
  });

  it('reports an exception in the compiler as an internal compiler error, with the stack only on request', async () => {
    vi.mocked(compileToLLVM).mockImplementation(() => {
      throw new Error('pipeline: not wired yet');
    });
    const quiet = await buildProgram(sources, { kind: 'llvm', output: path.join(tmp(), 'x.ll') });
    expect(quiet.ok).toBe(false);
    if (quiet.ok) return;
    expect(quiet.rendered).toBe('error: internal compiler error: pipeline: not wired yet');

    vi.stubEnv('ANYDSL_DEBUG', '1');
    try {
      const loud = await buildProgram(sources, { kind: 'llvm', output: path.join(tmp(), 'x.ll') });
      expect(loud.ok || loud.rendered).toMatch(/internal compiler error: pipeline: not wired yet\nError: pipeline: not wired yet\n\s+at /);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('reports IR that clang rejects as an internal compiler error with clang\'s message', async () => {
    vi.mocked(compileToLLVM).mockReturnValue(program({ llvm: 'define i32 @main() {\n  ret i32 %oops\n}\n' }));
    const result = await buildProgram(sources, { kind: 'exe', output: path.join(tmp(), 'bad') });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rendered).toMatch(/^error: internal compiler error: clang rejected the generated LLVM IR: /);
    expect(result.rendered).toContain("use of undefined value '%oops'");
  });

  it('reports an undefined external function as a link error, not a compiler bug', async () => {
    const ir = 'declare void @no_such_function()\ndefine i32 @main() {\n  call void @no_such_function()\n  ret i32 0\n}\n';
    vi.mocked(compileToLLVM).mockReturnValue(program({ llvm: ir }));
    const dir = tmp();
    const output = path.join(dir, 'unlinked');
    // An earlier build the failed one must not destroy, nor leave a half-written file beside.
    await writeFile(output, 'the previous build');
    const result = await buildProgram(sources, { kind: 'exe', output });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rendered).toMatch(new RegExp(`^error: linking '${output}' failed:\nld\\.lld(-19)?: error: undefined symbol: no_such_function`));
    expect(result.rendered).not.toContain('internal compiler error');
    expect(await readFile(output, 'utf8')).toBe('the previous build');
    expect((await readdir(dir)).filter((f) => f.includes('unlinked'))).toEqual(['unlinked']);
  });

  it('writes to a device as it is (-o /dev/null), where there is nothing to rename over', async () => {
    vi.mocked(compileToLLVM).mockReturnValue(program({}));
    const result = await buildProgram(sources, { kind: 'llvm', output: '/dev/null' });
    expect(result.ok || result.rendered).toBe(true);
  });

  it('refuses an executable without main and an output in a missing directory, keeping warnings', async () => {
    const warning = { severity: 'warning' as const, span: null, message: 'unused variable' };
    vi.mocked(compileToLLVM).mockReturnValue(program({ hasMain: false, diagnostics: [warning] }));
    const noMain = await buildProgram(sources, { kind: 'exe', output: path.join(tmp(), 'lib') });
    expect(noMain.ok || noMain.rendered).toBe(
      "warning: unused variable\nerror: cannot build an executable: the program has no 'main' function (use a shared library for a program without one)",
    );

    const missingDir = path.join(tmp(), 'no', 'such', 'dir', 'x.ll');
    const noDir = await buildProgram(sources, { kind: 'llvm', output: missingDir });
    expect(noDir.ok || noDir.rendered).toBe(`warning: unused variable\nerror: cannot write '${missingDir}': no such directory '${path.dirname(missingDir)}'`);
  });

  it('builds a shared library', async () => {
    vi.mocked(compileToLLVM).mockReturnValue(program({ hasMain: false, llvm: 'define i32 @answer() {\n  ret i32 42\n}\n' }));
    const output = path.join(tmp(), 'libanswer.so');
    expect((await buildProgram(sources, { kind: 'shared', output })).ok).toBe(true);
    expect(koffi.load(output).func('answer', 'int32_t', [])()).toBe(42);
  });
});
