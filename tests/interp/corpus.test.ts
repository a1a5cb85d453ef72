// The oracle side of the conformance corpus: every positive program is run by the
// interpreter on the IR that emission produces, again after partial evaluation and
// again after the rest of the pass list (observed through the list's hook); stdout and exit code must match the corpus
// every time. Needs no toolchain.
import { describe, expect, it } from 'vitest';
import { runPasses } from '../../compiler/src/driver/passes.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import type { Continuation } from '../../compiler/src/ir/index.ts';
import { printWorld } from '../../compiler/src/ir/printer.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { interpret, mainArguments } from '../../compiler/src/interp/index.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { type CorpusProgram, loadPrograms } from '../conformance/corpus.ts';

const STEP_LIMIT = 50_000_000;

function emit(p: CorpusProgram): { world: World; main: Continuation; sink: DiagnosticSink } {
  const sink = new DiagnosticSink();
  const front = frontEnd([{ path: p.relPath, text: p.text }], sink);
  expect(sink.list.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  expect(front?.emitted.main).toBeTruthy();
  return { world: front!.world, main: front!.emitted.main!, sink };
}

/** Runs `main` as the native runner does (argv = the program's path) and checks its output. */
function run(world: World, main: Continuation, p: CorpusProgram): void {
  const r = interpret(world, main, mainArguments(main, [p.relPath]), { stepLimit: STEP_LIMIT });
  expect(r.stdout).toBe(p.stdout.toString('utf8'));
  // The exit status is main's result modulo 256, as the OS reports it.
  expect(Number(BigInt.asUintN(8, r.result as bigint))).toBe(p.exitCode);
}

// Programs the interpreter cannot follow through every stage, and why; the native conformance
// run (tests/conformance.test.ts) and tests/compat check them.
const NOT_EVERY_STAGE: Record<string, string> = {
  // `?x` is false before partial evaluation by definition; the program checks PE's answer.
  compat_pe_forward: 'its result is what PE knows',
  // The interpreter's C emulation cannot call back into Impala (tests/compat/runtime.test.ts runs it).
  compat_runtime_taskgraph: 'the 2018 task graph calls back from C',
  // rv_* mean W lanes; before vectorize the interpreter runs the body one lane at a time.
  compat_rv_intrinsics: 'rv_* results depend on the vector width',
};

describe('interpreter on the conformance corpus', () => {
  it('the programs left out exist', () => {
    const names = loadPrograms('pos').map((p) => p.name);
    for (const name of Object.keys(NOT_EVERY_STAGE)) expect(names).toContain(name);
  });

  it.each(loadPrograms('pos').filter((p) => !Object.hasOwn(NOT_EVERY_STAGE, p.name)).map((p) => [p.name, p] as const))('%s', (_name, p) => {
    const { world, main, sink } = emit(p);
    expect(verify(world).filter((m) => !m.startsWith('note:'))).toEqual([]);
    run(world, main, p);
    const observed: string[] = [];
    runPasses(world, {
      sink,
      observe: (pass) => {
        observed.push(pass);
        if (pass === 'pe') run(world, liveMain(world), p);
      },
    });
    expect(sink.list.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    expect(observed[0]).toBe('pe');
    expect(verify(world).filter((m) => !m.startsWith('note:'))).toEqual([]);
    expect(printWorld(world)).toContain('fn main_');
    run(world, liveMain(world), p);
  });
});

/** Passes may replace `main` by a rewritten copy; the live one is the external with a body. */
function liveMain(world: World): Continuation {
  const main = [...world.continuations].find((c) => c.external && c.name === 'main' && c.hasBody);
  expect(main).toBeDefined();
  return main!;
}
