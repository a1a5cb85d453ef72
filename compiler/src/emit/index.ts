// Typed AST to CPS graph: the entry point of emission.
import type { Continuation, World } from '../ir/index.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import type { Program } from '../sema/program.ts';
import { Emitter } from './emitter.ts';

export interface EmitResult {
  /** The user's `main`, external with the C calling convention, or null when there is none. */
  main: Continuation | null;
  /** `extern fn` definitions: external, C calling convention, named as in the source. */
  exports: Continuation[];
}

/**
 * Emits `main`, the exported functions and everything they use (fns are
 * instantiated on demand, once per concrete type arguments). Expects a program
 * sema checked without errors; user errors found here go to `sink`.
 */
export function emitProgram(program: Program, world: World, sink: DiagnosticSink): EmitResult {
  const em = new Emitter(world, program, sink);
  const exported = (c: Continuation, name: string): Continuation => {
    c.external = true;
    c.cc = 'C';
    c.name = name;
    return c;
  };
  const exports: Continuation[] = [];
  for (const decl of program.exports) {
    if (decl.typeParams.length) sink.error(decl.span, `exported function '${decl.name.name}' cannot be generic`);
    else exports.push(exported(em.instance(decl, []), decl.name.name));
  }
  const main = program.main ? exported(em.instance(program.main, []), 'main') : null;
  em.drain();
  // Phi removal rebuilds primops; the old versions must not linger as users of live defs.
  world.sweep();
  return { main, exports };
}
