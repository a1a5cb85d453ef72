// The oracle side of the conformance corpus: every positive program is run by the
// interpreter on the IR that emission produces and again after the optimisation
// pipeline; stdout and exit code must match the corpus both times. Needs no toolchain.
import { describe, expect, it } from 'vitest';
import { preludeSources } from '../../compiler/src/driver/pipeline.ts';
import { emitProgram } from '../../compiler/src/emit/index.ts';
import type { Continuation } from '../../compiler/src/ir/index.ts';
import { printWorld } from '../../compiler/src/ir/printer.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import { World } from '../../compiler/src/ir/world.ts';
import { interpret, mainArguments } from '../../compiler/src/interp/index.ts';
import { checkProgram } from '../../compiler/src/sema/check.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { parseModule } from '../../compiler/src/syntax/parser.ts';
import { optimise } from '../../compiler/src/transform/pipeline.ts';
import { type CorpusProgram, loadPrograms } from '../conformance/corpus.ts';

const STEP_LIMIT = 50_000_000;

function emit(p: CorpusProgram): { world: World; main: Continuation; sink: DiagnosticSink } {
  const sink = new DiagnosticSink();
  const modules = [...preludeSources(), { path: p.relPath, text: p.text }].map((s) => parseModule(s, sink));
  const program = checkProgram(modules, sink);
  const world = new World();
  const { main } = emitProgram(program, world, sink);
  expect(sink.list.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  expect(main).not.toBeNull();
  return { world, main: main!, sink };
}

/** Runs `main` as the native runner does (argv = the program's path) and checks its output. */
function run(world: World, main: Continuation, p: CorpusProgram): void {
  const r = interpret(world, main, mainArguments(main, [p.relPath]), { stepLimit: STEP_LIMIT });
  expect(r.stdout).toBe(p.stdout.toString('utf8'));
  // The exit status is main's result modulo 256, as the OS reports it.
  expect(Number(BigInt.asUintN(8, r.result as bigint))).toBe(p.exitCode);
}

describe('interpreter on the conformance corpus', () => {
  it.each(loadPrograms('pos').map((p) => [p.name, p] as const))('%s', (_name, p) => {
    const { world, main, sink } = emit(p);
    expect(verify(world).filter((m) => !m.startsWith('note:'))).toEqual([]);
    run(world, main, p);
    optimise(world, { sink });
    expect(sink.list.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    expect(verify(world).filter((m) => !m.startsWith('note:'))).toEqual([]);
    expect(printWorld(world)).toContain('fn main_');
    const optimised = [...world.continuations].find((c) => c.external && c.name === 'main' && c.hasBody);
    expect(optimised).toBeDefined();
    run(world, optimised!, p);
  });
});
