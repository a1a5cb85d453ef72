// Which arguments of a call the evaluator specialises (drops into a clone of the
// callee), and why: `@@` forces all of them, a filter that folds to true forces
// its own, and the automatic rule takes the higher-order ones. Arguments hidden
// with `$` are never specialised, whatever the reason.
import { Continuation, type Def, type Param, PrimOp, litValue } from '../ir/defs.ts';
import { typeOrder } from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import { lazyMoving, specialisesHigherOrder } from '../ir/higher-order.ts';

export type Reason = '@@' | 'filter' | 'higher-order';

export interface Decision {
  readonly callee: Continuation;
  /** Per param of the callee: the argument dropped into the specialisation, or null where the param stays. */
  readonly dropped: readonly (Def | null)[];
  readonly reasons: readonly (Reason | null)[];
}

/** What the decision needs to know about the world beyond the call itself. */
export interface Facts {
  readonly world: World;
  /** Whether `c` is closed: a top-level function. */
  closed(c: Continuation): boolean;
  /** Whether a value uses no param, directly or through the continuations it mentions. */
  valueClosed(d: Def): boolean;
  /** Params that `c`'s recursion changes for a call passing `args` (see `nonStaticParams`). */
  moving(c: Continuation, args: readonly Def[]): ReadonlySet<number>;
}

/** The callee of `u`'s body if the evaluator may specialise it, and whether `@@` forces the call. */
export function callTarget(u: Continuation): { callee: Continuation; forced: boolean } | null {
  let callee = u.callee;
  let forced = false;
  if (callee instanceof PrimOp && callee.tag === 'run') {
    callee = callee.op(0);
    forced = true;
  }
  if (!(callee instanceof Continuation) || !callee.hasBody || callee.isIntrinsic) return null;
  if (callee.params.length !== u.args.length) return null;
  return { callee, forced };
}

/** The specialisation the call `u: callee(args…)` asks for, or null when every param stays. */
export function decide(u: Continuation, callee: Continuation, forced: boolean, facts: Facts): Decision | null {
  const dropped: (Def | null)[] = callee.params.map(() => null);
  const reasons: (Reason | null)[] = callee.params.map(() => null);
  const mark = (p: Param, why: Reason): void => {
    dropped[p.index] = u.arg(p.index);
    reasons[p.index] = why;
  };
  // Passing a param to itself (static recursion in the original) specialises nothing.
  const candidates = callee.params.filter((p) => !isHidden(u.arg(p.index)) && u.arg(p.index) !== p);
  if (forced) {
    for (const p of candidates) mark(p, '@@');
  } else {
    const filterFires = filterEvaluator(u, callee, facts);
    for (const p of candidates) if (filterFires(p)) mark(p, 'filter');
    const higherOrder = candidates.filter((p) => dropped[p.index] === null && typeOrder(p.type) > 0);
    if (higherOrder.length === 0) return decision(callee, dropped, reasons);
    const moving = lazyMoving(() => {
      const nonStatic = facts.moving(callee, u.args);
      const unfolding = reasons.some((r, i) => r === 'filter' && nonStatic.has(i));
      return unfolding ? new Set<number>() : nonStatic;
    });
    const ret = callee.retParam;
    for (const p of higherOrder) {
      if (p !== ret && specialisesHigherOrder(callee, p, u.arg(p.index), true, moving)) mark(p, 'higher-order');
    }
    // The return continuation last: it may stay only if the specialisation is still a top-level function.
    if (ret && higherOrder.includes(ret)) {
      const closed = facts.closed(callee) && dropped.every((d) => d === null || facts.valueClosed(d));
      if (specialisesHigherOrder(callee, ret, u.arg(ret.index), closed, moving)) mark(ret, 'higher-order');
    }
  }
  return decision(callee, dropped, reasons);
}

function decision(callee: Continuation, dropped: (Def | null)[], reasons: (Reason | null)[]): Decision | null {
  return reasons.some((r) => r !== null) ? { callee, dropped, reasons } : null;
}

/** `$e`: hidden from the evaluator. */
function isHidden(d: Def): boolean {
  return d instanceof PrimOp && d.tag === 'hlt';
}

/**
 * Filters are bool expressions over the callee's params. At a call they are
 * rebuilt through the World with the arguments substituted, so constants, `?`
 * (`known`), comparisons, arithmetic and `&`/`|` fold as they would in code: a
 * filter fires when it folds to true. `World.substitute` also brings a filter up
 * to date with params replaced since (a specialisation's filter may mention its
 * caller's values, and inlining in place replaces those).
 */
function filterEvaluator(u: Continuation, callee: Continuation, facts: Facts): (p: Param) => boolean {
  const filter = callee.filter;
  if (!filter) return () => false;
  const args = new Map<Def, Def>(callee.params.map((p) => [p, u.arg(p.index)]));
  return (p) => {
    const f = filter[p.index];
    return f !== undefined && litValue(facts.world.substitute(f, args)) === true;
  };
}
