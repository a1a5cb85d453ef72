// Shared by the emit tests: compile Impala source (with the prelude) to a World,
// inspect the resulting graph, and run it in the IR interpreter.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Continuation, type Def, Param, PrimOp, type PrimOpTag, World } from '../../compiler/src/ir/index.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import { DiagnosticSink, parseModule, renderDiagnostics } from '../../compiler/src/syntax/index.ts';
import { checkProgram } from '../../compiler/src/sema/check.ts';
import { emitProgram, type EmitResult } from '../../compiler/src/emit/index.ts';
import { interpret } from '../../compiler/src/interp/index.ts';

const preludePath = fileURLToPath(new URL('../../compiler/lib/prelude.impala', import.meta.url));
const prelude = { path: 'prelude.impala', text: readFileSync(preludePath, 'utf8') };

export interface Emitted extends EmitResult {
  world: World;
  sink: DiagnosticSink;
}

function check(text: string, sink: DiagnosticSink) {
  const user = { path: 'test.impala', text };
  const program = checkProgram([parseModule(prelude, sink), parseModule(user, sink)], sink);
  if (sink.hasErrors) throw new Error(renderDiagnostics(sink.list, [prelude, user]));
  return program;
}

/** Parses, checks and emits `text`; throws with the diagnostics on any error. */
export function emit(text: string): Emitted {
  const sink = new DiagnosticSink();
  const program = check(text, sink);
  const world = new World();
  const result = emitProgram(program, world, sink);
  if (sink.hasErrors) throw new Error(sink.list.map((d) => d.message).join('\n'));
  return { ...result, world, sink };
}

/** The messages emit reports for `text` (which sema must accept). */
export function emitErrors(text: string): string[] {
  const sink = new DiagnosticSink();
  const program = check(text, sink);
  emitProgram(program, new World(), sink);
  return sink.list.map((d) => d.message);
}

/**
 * Emits `text`, checks the graph with the verifier and runs `main` (no arguments)
 * in the IR interpreter: the reference semantics, straight from emission.
 */
export function run(text: string): { stdout: string; result: unknown } {
  const r = emit(text);
  const problems = verify(r.world).filter((p) => !p.startsWith('note:'));
  if (problems.length) throw new Error(`verifier:\n${problems.join('\n')}`);
  const out = interpret(r.world, r.main!, [], { stepLimit: 1_000_000 });
  return { stdout: out.stdout, result: out.result };
}

/** Every def reachable from `roots` through operands, params' continuations and filters. */
export function reachable(roots: readonly Def[]): Set<Def> {
  const seen = new Set<Def>();
  const stack = [...roots];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    stack.push(...d.ops);
    if (d instanceof Param) stack.push(d.continuation);
    if (d instanceof Continuation && d.filter) stack.push(...d.filter);
  }
  return seen;
}

export function primops(roots: readonly Def[], tag?: PrimOpTag): PrimOp[] {
  return [...reachable(roots)].filter((d): d is PrimOp => d instanceof PrimOp && (tag === undefined || d.tag === tag));
}

export function continuations(roots: readonly Def[]): Continuation[] {
  return [...reachable(roots)].filter((d): d is Continuation => d instanceof Continuation);
}

/** Continuations whose body jumps to the intrinsic `kind`. */
export function jumpsTo(roots: readonly Def[], kind: string): Continuation[] {
  return continuations(roots).filter((c) => c.hasBody && c.callee instanceof Continuation && c.callee.intrinsic === kind);
}

/** The continuation named `name` reachable from `roots`. */
export function named(roots: readonly Def[], name: string): Continuation {
  const c = continuations(roots).find((k) => k.name === name);
  if (!c) throw new Error(`no continuation '${name}'`);
  return c;
}
