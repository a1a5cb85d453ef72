// No input makes the compiler fail internally (issue 10): each program here once crashed
// a stage (a stack overflow, a backend "non-local jump", an out-of-memory abort, a string
// too long to render). Each must now compile, or get located errors, in bounded time and
// output. The inputs are generated here; where a program compiles, the interpreter checks
// its result.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileToLLVM, frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { buildRuntime } from '../../compiler/src/driver/runtime-build.ts';
import { llvmToExecutable } from '../../compiler/src/driver/toolchain.ts';
import { interpret, mainArguments } from '../../compiler/src/interp/index.ts';
import { DiagnosticSink, maxErrors, renderDiagnostics, type SourceFile } from '../../compiler/src/syntax/diagnostics.ts';
import { random } from '../random.ts';
import { run, useTempDir } from './helpers.ts';

const file = 'robust.impala';
const tmp = useTempDir();

/** Compiles `text` to LLVM IR; whatever happens, the result is the rendered diagnostics. */
function compile(text: string): { ok: boolean; rendered: string; llvm: string } {
  const sources: SourceFile[] = [{ path: file, text }];
  const r = compileToLLVM(sources, { optLevel: 0, targetCpu: 'x86-64' });
  const rendered = renderDiagnostics(r.diagnostics, sources);
  expect(rendered).not.toMatch(/internal/i);
  return { ok: r.ok, rendered, llvm: r.ok ? r.llvm : '' };
}

/** `main(argc, argv)` of `text` run by the interpreter with no program arguments (argc = 1). */
function runMain(text: string): unknown {
  return interpretMain(text).result;
}

function interpretMain(text: string): { result: unknown; stdout: string } {
  const sink = new DiagnosticSink();
  const front = frontEnd([{ path: file, text }], sink);
  expect(sink.list.map((d) => d.message)).toEqual([]);
  const main = front!.emitted.main!;
  return interpret(front!.world, main, mainArguments(main, ['robust']), { stepLimit: 10_000_000 });
}

const mainOf = (body: string): string => `fn main(argc: i32, argv: &[&[u8]]) -> i32 {\n${body}\n}\n`;

describe('programs that once crashed the compiler', () => {
  it('compiles code after a loop that never ends, whose body calls a function', () => {
    const text = mainOf('    let mut x = argc;\n    while true { print_i32(x); x += 1; }\n    print_i32(x);\n    0');
    expect(compile(text).ok).toBe(true);
  });

  it('builds a program with a GPU launch: the launch becomes a call of the runtime', () => {
    const text = mainOf('    let acc = nvvm_accelerator(0);\n    acc.exec((1, 1, 1), (1, 1, 1), |i| { });\n    0');
    const r = compile(text);
    expect(r.ok, r.rendered).toBe(true);
    expect(r.llvm).toContain('@anydsl_launch_kernel');
  });

  it('checks and emits a flat chain of 20 000 `+` terms', () => {
    const text = mainOf(`    argc${' + argc'.repeat(20_000)}`);
    expect(compile(text).ok).toBe(true);
    expect(runMain(text)).toBe(20_001n);
  });

  it('checks and emits a flat chain of 2000 `&&` terms', () => {
    const text = mainOf(`    if argc > 0${' && argc < 3'.repeat(2000)} { 7 } else { 8 }`);
    expect(compile(text).ok).toBe(true);
    expect(runMain(text)).toBe(7n);
  });

  it('checks and emits an `else if` chain of 5000 links', () => {
    // The front end only: the whole pipeline on this chain is slow (transform/cleanup), not wrong.
    const chain = Array.from({ length: 5000 }, (_, i) => `if argc == ${i} { r = ${i * 3}; }`).join(' else ');
    expect(runMain(mainOf(`    let mut r = 7;\n    ${chain}\n    r`))).toBe(3n);
  });

  it('compiles a string literal of 150 000 characters', () => {
    const text = mainOf(`    let s = "${'ab'.repeat(75_000)}";\n    print_string(&s);\n    s(argc + 149_998) as i32`);
    expect(compile(text).ok).toBe(true);
    expect(runMain(text)).toBe(BigInt('b'.charCodeAt(0)));
  });

  it('compiles a static array of a million zeros', () => {
    const text = `static mut big = [0, .. 1000000];\n${mainOf('    big(999_999) = argc;\n    big(3) + big(999_999)')}`;
    const { ok, llvm } = compile(text);
    expect(ok).toBe(true);
    expect(llvm.length).toBeLessThan(100_000);
    expect(runMain(text)).toBe(1n);
  });

  it('repeated arrays: zero, other constants and run-time values agree in the interpreter and natively', async () => {
    const text = `static table = [7u8, .. 100000];\nstatic mut big = [0, .. 1000000];\n${mainOf(`
    let mut local = [argc + 2, .. 100];
    local(argc) = 9;
    let mut wide = [0i64, .. 200];
    wide(argc) = 5i64;
    big(999_999) = argc;
    print_i32(table(99_999) as i32); print_char('\\n');
    print_i32(local(argc + 98)); print_char('\\n');
    (table(argc) as i32) + local(99) + (wide(1) as i32) + (wide(2) as i32) + big(999_999) + big(3) + local(argc)`)}`;
    const { ok, llvm } = compile(text);
    expect(ok).toBe(true);
    const expected = interpretMain(text);
    expect(expected.stdout).toBe('7\n3\n');
    expect(expected.result).toBe(25n);
    const exe = path.join(tmp(), 'repeat');
    await llvmToExecutable(llvm, exe, await buildRuntime(), { optLevel: 2 });
    const native = await run(exe);
    expect({ code: native.code, stdout: native.stdout }).toEqual({ code: 25, stdout: expected.stdout });
  });

  it('a repeated array of a varying value in a vectorized loop agrees in the interpreter and natively', async () => {
    const text = mainOf(`
    let buf = ~[16: i32];
    for i in vectorize(4, 0, 16) {
        let mut a = [i + argc, .. 100];
        a(argc) = 5;
        buf(i) = a(i % 3);
    }
    let mut s = 0;
    for i in range(0, 16) { print_i32(buf(i)); print_char(' '); s += buf(i); }
    s`);
    const { ok, llvm } = compile(text);
    expect(ok).toBe(true);
    // A mutable array of more than 16 elements lives in memory (emit/captures.ts): one copy per lane.
    expect(llvm).toContain('[4 x [100 x i32]]');
    const expected = interpretMain(text);
    expect(expected.stdout).toBe('1 5 3 4 5 6 7 5 9 10 5 12 13 5 15 16 ');
    const exe = path.join(tmp(), 'repeat-vector');
    await llvmToExecutable(llvm, exe, await buildRuntime(), { optLevel: 2 });
    const native = await run(exe);
    expect({ code: native.code, stdout: native.stdout }).toEqual({ code: Number(expected.result), stdout: expected.stdout });
  });

  it('compiles a static array of 100 million zeros, or says it is too large', () => {
    const { ok, rendered } = compile(`static mut big = [0, .. 100000000];\n${mainOf('    big(3)')}`);
    if (!ok) expect(rendered).toMatch(/^robust\.impala:1 col \d+( - \d+)?: error: .*too large/);
  });

  it('reports an array of a billion i64 as too large', () => {
    const { ok, rendered } = compile(`static mut big = [0i64, .. 1000000000];\n${mainOf('    big(3) as i32')}`);
    expect(ok).toBe(false);
    expect(rendered).toMatch(/^robust\.impala:1 col \d+( - \d+)?: error: array of 1000000000 elements of type 'i64' is too large/);
    expect(rendered.split('\n').filter((l) => l.includes(': error: '))).toHaveLength(1);
  });

  it('reports a line of 100 000 junk characters with at most 50 errors and short excerpts', () => {
    const run = compile(`${'#'.repeat(100_000)}\n`);
    expect(run.ok).toBe(false);
    expect(run.rendered).toMatch(/^robust\.impala:1 col 1 - 100000: error: unexpected characters '#{20}…'\n#{120}…\n\^{120}$/);
    const { ok, rendered } = compile(`${'# '.repeat(50_000)}\n`);
    expect(ok).toBe(false);
    const lines = rendered.split('\n');
    expect(lines.filter((l) => l.includes(': error: ')).length).toBe(maxErrors);
    expect(lines.at(-1)).toMatch(/^error: \d+ more errors$/);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(200);
  });

  it('reports 10 MB of junk without a stack overflow', () => {
    const next = random(10);
    const alphabet = '(((([[[[{{{{<))]]}}>fn let if while x 1 "+-*/&|!=;,.:@?$~%^\n';
    const chars: string[] = [];
    for (let i = 0; i < 10_000_000; i++) chars.push(alphabet[Math.floor(next() * alphabet.length)]!);
    const { ok, rendered } = compile(chars.join(''));
    expect(ok).toBe(false);
    expect(rendered.split('\n').filter((l) => l.includes(': error: ')).length).toBeLessThanOrEqual(maxErrors);
  });

  it('compiles nesting up to the parser\'s limit and reports deeper nesting where it starts', () => {
    const parens = (n: number) => mainOf(`    ${'('.repeat(n)}argc${' + 1)'.repeat(n)}`);
    expect(compile(parens(500)).ok).toBe(true);
    expect(runMain(parens(500))).toBe(501n);
    expect(compile(mainOf(`    ${'(|| '.repeat(250)}argc${')()'.repeat(250)}`)).ok).toBe(true);
    expect(compile(mainOf(`    ${'if argc > 0 { '.repeat(500)}argc${' } else { 0 }'.repeat(500)}`)).ok).toBe(true);
    const { ok, rendered } = compile(parens(100_000));
    expect(ok).toBe(false);
    expect(rendered).toMatch(/^robust\.impala:2 col \d+( - \d+)?: error: program is nested too deeply\n/);
  });

  it('skips a leading UTF-8 byte order mark and counts columns after it', () => {
    expect(compile(`\ufefffn main() -> i32 { 0 }\n`).ok).toBe(true);
    const { rendered } = compile(`\ufefffn main() -> i32 { x }\n`);
    expect(rendered).toContain('robust.impala:1 col 20: error:');
    expect(rendered.split('\n')[1]).toBe('fn main() -> i32 { x }');
  });
});
