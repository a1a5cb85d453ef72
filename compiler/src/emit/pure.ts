// Expressions evaluated without a block to run in: filters (over a
// continuation's params) and static initialisers (to constants). They are emitted
// into a scratch block; any jump, call or memory effect means the expression was not
// pure, and the caller reports it. A filter may not create continuations; a static's
// initialiser may (fn items and closures: `static math = Intrinsics { sqrtf: … }`), as
// long as none of them uses the scratch block, which would not exist at run time.
import { Continuation, type Def } from '../ir/index.ts';
import { bodyRefs } from '../ir/closedness.ts';
import type { Expr, TypeParam } from '../syntax/ast.ts';
import type { Type } from '../sema/types.ts';
import type { Emitter } from './emitter.ts';
import { expr } from './expr.ts';
import { type Body, FnEmitter, NotPure } from './fn.ts';

export function evalPure(
  em: Emitter,
  body: Body,
  tmap: ReadonlyMap<TypeParam, Type>,
  parent: FnEmitter | null,
  e: Expr,
  functions = false,
): Def | null {
  const w = em.world;
  const scratch = w.continuation(w.fnType([w.mem]), 'pure');
  const count = w.continuations.size;
  const before = functions ? new Set(w.continuations) : null;
  const fx = new FnEmitter(em, body, scratch, tmap, parent, { frame: false, pure: true });
  let v: Def;
  try {
    v = expr(fx, e);
  } catch (err) {
    if (!(err instanceof NotPure)) throw err;
    w.forget(scratch);
    return null;
  }
  const closed = before
    ? [...w.continuations].every((c) => before.has(c) || !usesScratch(c, scratch))
    : w.continuations.size === count;
  const pure = fx.cur === fx.entry && !scratch.hasBody && fx.mem === scratch.param(0) && closed;
  w.forget(scratch);
  return pure ? v : null;
}

function usesScratch(c: Continuation, scratch: Continuation): boolean {
  const refs = bodyRefs(c);
  return refs.continuations.has(scratch) || scratch.params.some((p) => refs.params.has(p));
}
