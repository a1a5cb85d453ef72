// Call syntax: calls of functions and continuations, enum constructors, the
// `extern "thorin"` functions that are primops, and indexing (`a(i)`, `t(0)`,
// `v(lane)`), which is a place read.
import { type Def, type FnType, VariantType } from '../ir/index.ts';
import type { ExprOf, FnDecl } from '../syntax/ast.ts';
import { bitcastProblem } from '../sema/type-ops.ts';
import { prune, type Type } from '../sema/types.ts';
import { primopBuiltins } from './emitter.ts';
import { dead, expr } from './expr.ts';
import type { FnEmitter } from './fn.ts';
import { adaptArgs } from './adapt.ts';
import { emitJumpCall, isJumpExpr } from './jumps.ts';
import { place, readPlace } from './place.ts';

/** `run`: the callee is wrapped in `run` (`@@f(args)`), forcing its specialisation. */
export function callExpr(fx: FnEmitter, e: ExprOf<'call'>, run: boolean): Def {
  const w = fx.world;
  const ct = prune(fx.type(e.callee.type!));
  if (ct.tag !== 'fn') return readPlace(fx, place(fx, e));
  const callee = e.callee;
  if (isJumpExpr(callee)) {
    const args = e.args.map((a) => expr(fx, a));
    if (fx.reachable) emitJumpCall(fx, callee, args);
    return dead(fx, e);
  }
  if (callee.kind === 'path' && callee.res?.kind === 'variant') {
    const payload = w.tuple(e.args.map((a) => expr(fx, a)));
    return fx.reachable ? w.variant(fx.ir(e.type!) as VariantType, callee.res.index, payload) : dead(fx, e);
  }
  if (callee.kind === 'path' && callee.res?.kind === 'fn' && isPrimopBuiltin(callee.res.decl)) {
    return builtin(fx, e, callee.res.decl.name.name, callee.res.typeArgs);
  }
  let c = expr(fx, callee);
  if (run) c = w.run(c);
  const args = e.args.map((a) => expr(fx, a));
  if (!fx.reachable) return dead(fx, e);
  const returns = callReturns(ct, args.length);
  const vals = adaptArgs(w, c.type as FnType, args, returns);
  if (!returns) {
    fx.jumpValue(c, vals);
    return dead(fx, e);
  }
  return fx.call(c, vals, e.span);
}

/**
 * Whether a call with `argCount` arguments returns: the callee has a return type,
 * or it takes a continuation after the arguments, which the call passes itself
 * (`fn(A, fn(R) -> !) -> !` called as `fn(A) -> R`).
 */
export function callReturns(callee: Extract<Type, { tag: 'fn' }>, argCount: number): boolean {
  // A direct-style fn given its return continuation explicitly (`f(x, return)`) does not.
  if (callee.ret !== null) return callee.params.length === argCount;
  return callee.params.length === argCount + 1;
}

function isPrimopBuiltin(decl: FnDecl): boolean {
  return decl.abi === 'thorin' && primopBuiltins.has(decl.name.name);
}

function builtin(fx: FnEmitter, e: ExprOf<'call'>, name: string, typeArgs: readonly Type[]): Def {
  const w = fx.world;
  const args = e.args.map((a) => expr(fx, a));
  if (!fx.reachable) return dead(fx, e);
  const [a, b, c] = args;
  switch (name) {
    case 'bitcast': {
      // Sema checked the concrete bitcasts; this instance's type arguments may make one invalid.
      const problem = bitcastProblem(fx.type(e.args[0]!.type!), fx.type(e.type!));
      if (!problem) return w.bitcast(fx.ir(e.type!), a!);
      fx.em.sink.error(e.span, problem);
      return dead(fx, e);
    }
    case 'select':
      return w.select(a!, b!, c!);
    case 'insert':
      return w.insert(a!, b!, c!);
    // The 2018 declaration `sizeof[T]() -> i64` gets the i32 widened.
    case 'sizeof':
      return w.cast(fx.ir(e.type!), w.sizeof(fx.ir(typeArgs[0]!)));
    case 'alignof':
      return w.cast(fx.ir(e.type!), w.alignof(fx.ir(typeArgs[0]!)));
    case 'undef':
      return w.bottom(fx.ir(e.type!));
    case 'nontemporal_store':
      fx.store(a!, b!, 'nontemporal');
      return w.tuple([]);
    default:
      throw new Error(`internal: no primop for '${name}'`);
  }
}
