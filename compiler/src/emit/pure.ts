// Expressions evaluated without a block to run in: filters (over a
// continuation's params) and static initialisers (to constants). They are emitted
// into a scratch block; any jump, call, memory effect or new continuation means
// the expression was not pure, and the caller reports it.
import type { Def } from '../ir/index.ts';
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
): Def | null {
  const w = em.world;
  const scratch = w.continuation(w.fnType([w.mem]), 'pure');
  const count = w.continuations.size;
  const fx = new FnEmitter(em, body, scratch, tmap, parent, { frame: false, pure: true });
  let v: Def;
  try {
    v = expr(fx, e);
  } catch (err) {
    if (!(err instanceof NotPure)) throw err;
    w.forget(scratch);
    return null;
  }
  const pure = fx.cur === fx.entry && !scratch.hasBody && fx.mem === scratch.param(0) && w.continuations.size === count;
  w.forget(scratch);
  return pure ? v : null;
}
