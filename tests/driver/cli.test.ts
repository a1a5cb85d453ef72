// The impala command: in-process with a stand-in pipeline for builds, and as a real
// subprocess (through the bin script) for everything that fails before the pipeline.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../../compiler/src/driver/cache.ts';
import { run, usePrivateCache, useTempDir } from './helpers.ts';

vi.mock('../../compiler/src/driver/pipeline.ts', () => ({ compileToLLVM: vi.fn() }));
const { compileToLLVM } = await import('../../compiler/src/driver/pipeline.ts');
const { main } = await import('../../compiler/src/driver/cli.ts');

const tmp = useTempDir();
// Builds go through the artifact cache (driver/cached-build.ts); the stand-in pipeline's programs must not land in the real one.
usePrivateCache();
const bin = path.join(repoRoot, 'apps/impala/bin/impala.mjs');
let source = '';

// Exits with argc * 10 + strlen(argv[1]), so the exit code shows which arguments arrived.
const ARGS_IR = `
declare i64 @strlen(ptr)
define i32 @main(i32 %argc, ptr %argv) {
  %p = getelementptr ptr, ptr %argv, i64 1
  %a1 = load ptr, ptr %p
  %len = call i64 @strlen(ptr %a1)
  %len32 = trunc i64 %len to i32
  %tens = mul i32 %argc, 10
  %code = add i32 %tens, %len32
  ret i32 %code
}
`;

function capture() {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

beforeAll(async () => {
  source = path.join(tmp(), 'prog.impala');
  await writeFile(source, 'fn main() -> i32 { 0 }\n');
});

describe('impala (in process)', () => {
  beforeEach(() => {
    vi.mocked(compileToLLVM)
      .mockReset()
      .mockReturnValue({ ok: true, llvm: ARGS_IR, device: [], irText: 'the IR\n', exports: [], hasMain: true, diagnostics: [] });
  });

  it('--run builds, forwards the arguments after -- and exits with the program\'s code', async () => {
    const io = capture();
    expect(await main(['--run', source, '-O1', '--', 'abcd', 'e'], io)).toBe(34);
    expect(io.stderr).toBe('');
    expect(compileToLLVM).toHaveBeenCalledWith([{ path: source, text: 'fn main() -> i32 { 0 }\n' }], {
      optLevel: 1,
      targetCpu: 'native',
      peTrace: undefined,
      printIr: false,
    });
  });

  it('passes -O3, --target-cpu and --pe-trace to the pipeline and writes -o', async () => {
    const out = path.join(tmp(), 'prog.ll');
    const io = capture();
    expect(await main(['--emit-llvm', '-O3', '--target-cpu', 'znver3', '--pe-trace', source, '-o', out], io)).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(ARGS_IR);
    expect(compileToLLVM).toHaveBeenCalledWith(expect.anything(), { optLevel: 3, targetCpu: 'znver3', peTrace: true, printIr: false });
  });

  it('prints --emit-ir to stdout without -o', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await main(['--emit-ir', source], capture())).toBe(0);
      expect(write).toHaveBeenCalledWith('the IR\n');
    } finally {
      write.mockRestore();
    }
  });

  it('prints diagnostics to stderr and exits 1', async () => {
    vi.mocked(compileToLLVM).mockReturnValue({
      ok: false,
      diagnostics: [{ severity: 'error', span: { file: source, line: 1, col: 20, endLine: 1, endCol: 20 }, message: "mismatched types: expected 'i32' but found 'bool'" }],
    });
    const io = capture();
    expect(await main([source, '-o', path.join(tmp(), 'never')], io)).toBe(1);
    expect(io.stderr).toBe(`${source}:1 col 20: error: mismatched types: expected 'i32' but found 'bool'\nfn main() -> i32 { 0 }\n                   ^\n`);
  });

  it('rejects conflicting modes, stray program arguments, bad -O levels and overwriting an input', async () => {
    const cases: [string[], string][] = [
      [['--shared', '--emit-llvm', source], '--emit-llvm and --shared cannot be combined'],
      [[source, '--', 'x'], "arguments after '--' are for the program and need --run"],
      [['-O4', source], "unknown optimisation level '-O4'"],
      [[source, '-o', source], `the output '${source}' would overwrite an input file`],
    ];
    for (const [argv, message] of cases) {
      const io = capture();
      expect(await main(argv, io)).toBe(1);
      expect(io.stderr).toContain(`impala: error: ${message}`);
    }
    expect(compileToLLVM).not.toHaveBeenCalled();
  });
});

describe('impala (the installed command)', () => {
  it('teaches with --help from any directory', async () => {
    const result = await run(process.execPath, [bin, '--help'], { cwd: tmp() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: impala [options] <files...> [-- program-args...]');
    expect(result.stdout).toContain('impala --run fib.impala -- 30');
  });

  it('reports unreadable files and unknown options without a stack trace', async () => {
    const missing = await run(process.execPath, [bin, 'nope.impala'], { cwd: tmp() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("impala: error: cannot read 'nope.impala': no such file\n");

    const dir = await run(process.execPath, [bin, tmp()], { cwd: tmp() });
    expect(dir.stderr).toBe(`impala: error: cannot read '${tmp()}': it is a directory\n`);

    const unknown = await run(process.execPath, [bin, '--frobnicate', 'x.impala'], { cwd: tmp() });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("error: unknown option '--frobnicate'");
    expect(unknown.stderr).not.toMatch(/\n\s+at /);

    const none = await run(process.execPath, [bin], { cwd: tmp() });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("missing required argument 'files'");
  });
});
