// Inline assembly (issue 13 item 8): `asm("template" : outputs : inputs : clobbers : options)`
// is passed through to LLVM's `call … asm` on the CPU target and runs natively; the
// interpreter, whose semantics are machine independent, refuses it with a clear error.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../compiler/src/driver/build.ts';
import { compileToLLVM, frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { interpret } from '../../compiler/src/interp/index.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';

// x86-64 AT&T templates: an output and two inputs, two outputs with a clobber, a write
// through a pointer with the memory clobber, an Intel-syntax template, a volatile one in a loop.
const source = `
fn lea_add(a: i32, b: i32) -> i32 {
    let mut r = 0;
    asm("leal ($1,$2), $0" : "=r"(r) : "r"(a), "r"(b));
    r
}
fn main() -> i32 {
    let mut lo = 0u32;
    let mut hi = 0u32;
    asm("movl $$7, $0\\n\\tmovl $$9, $1" : "=r"(lo), "=r"(hi) :: "cc");
    let mut cell = 1;
    asm("movl $$42, ($0)" :: "r"(&mut cell) : "memory" : "volatile");
    let mut twice = 0;
    asm("lea $0, [$1 + $1]" : "=r"(twice) : "r"(21) :: "intel");
    let mut s = 0;
    for i in range(0, 4) {
        let mut v = 0;
        asm("movl $1, $0" : "=r"(v) : "r"(i * 10) :: "volatile");
        s += v;
    }
    print_i32(lea_add(2, 3)); print_char(' ');
    print_u32(lo); print_char(' '); print_u32(hi); print_char(' ');
    print_i32(cell); print_char(' '); print_i32(twice); print_char(' '); print_i32(s); print_char('\\n');
    0
}
`;
const sources = [{ path: 'asm.impala', text: source }];

describe.skipIf(process.arch !== 'x64')('inline asm', () => {
  it('becomes LLVM inline assembly with the constraints, clobbers and options', () => {
    const r = compileToLLVM(sources, { optLevel: 0, targetCpu: 'x86-64' });
    if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
    expect(r.llvm).toContain('call { i32, i32 } asm "movl $$7, $0\\0A\\09movl $$9, $1", "=r,=r,~{cc}"()');
    expect(r.llvm).toMatch(/call void asm sideeffect "movl \$\$42, \(\$0\)", "r,~\{memory\}"\(ptr %/);
    expect(r.llvm).toContain('asm inteldialect "lea $0, [$1 + $1]", "=r,r"(i32 21)');
  });

  it('runs natively', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'asm-test-'));
    try {
      const output = path.join(dir, 'prog');
      const r = await buildProgram(sources, { optLevel: 2, kind: 'exe', output });
      if (!r.ok) throw new Error(r.rendered);
      const run = spawnSync(output, [], { encoding: 'utf8' });
      expect(run.stdout).toBe('5 7 9 42 42 60\n');
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is refused by the interpreter with an error naming it', () => {
    const sink = new DiagnosticSink();
    const front = frontEnd(sources, sink);
    expect(sink.list).toEqual([]);
    expect(() => interpret(front!.world, front!.emitted.main!, [])).toThrow(/inline assembly cannot be interpreted \('movl \$\$7, \$0/);
  });
});
