// Shared by the emit tests: compile Impala source (with the prelude) to a World,
// and inspect the resulting graph.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Continuation, type Def, Param, PrimOp, type PrimOpTag, type World } from '../../compiler/src/ir/index.ts';
import { World as IRWorld } from '../../compiler/src/ir/index.ts';
import { DiagnosticSink, parseModule, renderDiagnostics } from '../../compiler/src/syntax/index.ts';
import { checkProgram } from '../../compiler/src/sema/check.ts';
import { emitProgram, type EmitResult } from '../../compiler/src/emit/index.ts';

const preludePath = fileURLToPath(new URL('../../compiler/lib/prelude.impala', import.meta.url));
const prelude = { path: 'prelude.impala', text: readFileSync(preludePath, 'utf8') };

export interface Emitted extends EmitResult {
  world: World;
  sink: DiagnosticSink;
}

/** Parses, checks and emits `text`; throws with rendered diagnostics on any error. */
export function emit(text: string): Emitted {
  const sink = new DiagnosticSink();
  const user = { path: 'test.impala', text };
  const modules = [parseModule(prelude, sink), parseModule(user, sink)];
  if (sink.hasErrors) throw new Error(renderDiagnostics(sink.list, [prelude, user]));
  const program = checkProgram(modules, sink);
  if (sink.hasErrors) throw new Error(renderDiagnostics(sink.list, [prelude, user]));
  const world = new IRWorld();
  const result = emitProgram(program, world, sink);
  return { ...result, world, sink };
}

/** Emits `text` and returns the emit-time diagnostics (sema must accept it). */
export function emitErrors(text: string): string[] {
  const sink = new DiagnosticSink();
  const user = { path: 'test.impala', text };
  const modules = [parseModule(prelude, sink), parseModule(user, sink)];
  const program = checkProgram(modules, sink);
  if (sink.hasErrors) throw new Error(renderDiagnostics(sink.list, [prelude, user]));
  emitProgram(program, new IRWorld(), sink);
  return sink.list.map((d) => d.message);
}

/** Every def reachable from `roots` through operands and continuation bodies. */
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

/** A readable listing of the continuations reachable from `roots`, for failing tests. */
export function dump(roots: readonly Def[]): string {
  const name = (d: Def): string => {
    if (d instanceof PrimOp) {
      if (d.tag === 'lit') return `${String(d.payload)}:${d.type}`;
      return `${d.tag}(${d.ops.map(name).join(', ')})`;
    }
    return d.label;
  };
  return continuations(roots)
    .filter((c) => c.hasBody)
    .map((c) => `${c.label}(${c.params.map((p) => `${p.label}: ${p.type}`).join(', ')}) = ${name(c.callee)}(${c.args.map(name).join(', ')})`)
    .join('\n');
}
