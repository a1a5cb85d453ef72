// Runs one Impala program both ways the CPU tests compare: natively, through the
// real driver (buildProgram to an executable, or compile() to a loaded library),
// and in the IR interpreter on the graph emission produces (the oracle; it runs
// `parallel` and `spawn` bodies sequentially).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { buildProgram } from '../../compiler/src/driver/build.ts';
import { type CompiledLibrary, compile } from '../../compiler/src/driver/compile.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import type { Continuation } from '../../compiler/src/ir/defs.ts';
import { interpret, mainArguments, type Value } from '../../compiler/src/interp/index.ts';
import { DiagnosticSink, type SourceFile } from '../../compiler/src/syntax/diagnostics.ts';

export interface ProgramRun {
  stdout: string;
  /** Exit status (modulo 256). */
  status: number;
}

let scratch: string | null = null;
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function scratchDir(): string {
  scratch ??= mkdtempSync(path.join(os.tmpdir(), 'anydsl-cpu-'));
  return scratch;
}

function source(text: string, name: string): SourceFile {
  return { path: `${name}.impala`, text };
}

/** Builds `text` as an executable (-O2) and runs it. */
export async function runNative(text: string, name: string): Promise<ProgramRun> {
  const output = path.join(scratchDir(), name);
  const built = await buildProgram([source(text, name)], { kind: 'exe', optLevel: 2, output });
  if (!built.ok) throw new Error(`${name} does not build:\n${built.rendered}`);
  const r = spawnSync(output, [], { encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  if (r.status === null) throw new Error(`${name} ended with ${r.signal}: ${r.stderr}`);
  return { stdout: r.stdout, status: r.status };
}

interface Emitted {
  main: Continuation | null;
  exports: Map<string, Continuation>;
  run(entry: Continuation, args: readonly Value[]): { result: Value; stdout: string };
}

/** Emits `text` (no optimisation) for the interpreter. */
export function emitted(text: string, name: string): Emitted {
  const sink = new DiagnosticSink();
  const front = frontEnd([source(text, name)], sink);
  if (!front) throw new Error(`${name}: ${sink.list.map((d) => d.message).join('\n')}`);
  const { world, emitted: e } = front;
  return {
    main: e.main,
    exports: new Map(e.exports.map((c) => [c.name, c])),
    run: (entry, args) => interpret(world, entry, args, { stepLimit: 200_000_000 }),
  };
}

/** Runs `main` of `text` in the interpreter. */
export function runInterpreted(text: string, name: string): ProgramRun {
  const e = emitted(text, name);
  if (!e.main) throw new Error(`${name} has no main`);
  const r = e.run(e.main, mainArguments(e.main, [name]));
  return { stdout: r.stdout, status: Number(BigInt.asUintN(8, (r.result as bigint | undefined) ?? 0n)) };
}

/** Compiles `text` to a shared library (-O2) and loads it. */
export function nativeLibrary(text: string, name: string): Promise<CompiledLibrary> {
  return compile({ sources: [source(text, name)], options: { optLevel: 2 } });
}
