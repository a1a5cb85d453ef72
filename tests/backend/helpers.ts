// Shared scaffolding for backend tests: concise IR construction and clang-19 runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Continuation } from '../../compiler/src/ir/defs.ts';
import type { FnType, IRType } from '../../compiler/src/ir/types.ts';
import { World } from '../../compiler/src/ir/world.ts';

export { World };

/** `fn(mem, params…, fn(mem[, ret]))`: an Impala function type. */
export function fnType(w: World, params: readonly IRType[], ret: IRType | null): FnType {
  return w.fnType([w.mem, ...params, w.fnType(ret ? [w.mem, ret] : [w.mem])]);
}

/** A function with a body to come; `exported` makes it a C-ABI root. */
export function func(w: World, name: string, params: readonly IRType[], ret: IRType | null, exported = false): Continuation {
  const f = w.continuation(fnType(w, params, ret), name);
  if (exported) {
    f.external = true;
    f.cc = 'C';
  }
  return f;
}

/** A basic block `fn(mem, params…)`. */
export function block(w: World, name: string, params: readonly IRType[] = []): Continuation {
  return w.continuation(w.fnType([w.mem, ...params]), name);
}

/** Checks that clang accepts the IR (the verifier runs on it). */
export function verifyIR(ir: string): void {
  const r = spawnSync('clang-19', ['-x', 'ir', '-', '-c', '-o', '/dev/null', '-Wno-override-module'], { input: ir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`clang rejected the IR:\n${r.stderr}\n--- IR ---\n${ir}`);
}

/** Links the IR with a C driver, runs it, and returns its stdout. */
export function runWithC(ir: string, cMain: string, opt = '-O0'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'backend-test-'));
  try {
    writeFileSync(path.join(dir, 'prog.ll'), ir);
    writeFileSync(path.join(dir, 'main.c'), cMain);
    const exe = path.join(dir, 'prog');
    const cc = spawnSync('clang-19', [opt, '-Wno-override-module', path.join(dir, 'prog.ll'), path.join(dir, 'main.c'), '-o', exe], { encoding: 'utf8' });
    if (cc.status !== 0) throw new Error(`clang failed:\n${cc.stderr}\n--- IR ---\n${ir}`);
    const run = spawnSync(exe, [], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`program exited with ${run.status}: ${run.stderr}`);
    return run.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
