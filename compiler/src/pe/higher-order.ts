// The automatic filter for higher-order parameters (AnyDSL paper, §4.3): every
// higher-order parameter is specialised, so closures vanish, except
//   (1) first-order parameters (plain values),
//   (2)+(3) the return continuation of a closed (top-level) function, when the
//       argument is a standard return: some function's return param or a basic
//       block. Such a call is an ordinary call of a top-level function.
// On top of the paper's rule, a higher-order parameter that the callee's own
// recursion changes (a non-static argument, e.g. a fresh return block of a
// non-tail recursive call) is not specialised: every specialisation would create
// the next closure to specialise for. This is the rule lower2cff applies to the
// calls the evaluator leaves, so both passes agree on what a bad call is. The
// evaluator lifts it where a filter already specialises a non-static argument
// (`n` of `fn @(?n) pow`): the filter then decides how far the recursion
// unfolds, and the closures are specialised along with it.
// A recursion that passes, instead of the param, a value from outside the
// callee is static for a call passing that same value: the specialisation's
// recursive calls pass the dropped value and are rewired to it. This is how a
// `break` out of a non-tail recursive generator (the recursive call returns to
// the loop's exit, the outer call too) becomes a loop instead of a closure.
import { Continuation, type Def, Param } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import { typeOrder } from '../ir/types.ts';
import { isReturnParam } from '../transform/analysis.ts';

/**
 * Whether the argument `arg` for `param` of `callee` is specialised by the
 * automatic rule. `closed`: the callee, with the arguments decided so far
 * dropped, is a top-level function; `moving`: the params its recursion changes.
 */
export function specialisesHigherOrder(
  callee: Continuation,
  param: Param,
  arg: Def,
  closed: boolean,
  moving: ReadonlySet<number>,
): boolean {
  if (typeOrder(param.type) === 0 || moving.has(param.index) || arg === param) return false;
  return !(closed && param === callee.retParam && isStandardReturn(arg));
}

/** A return continuation the backend handles: some function's return param, or a block (first-order continuation). */
function isStandardReturn(a: Def): boolean {
  return isReturnParam(a) || (a instanceof Continuation && a.hasBody && a.fnType.order === 1);
}

/** Per param index, what recursive calls pass instead of the param (see `recursion`). */
export type Recursion = ReadonlyMap<number, ReadonlySet<Def> | 'varies'>;

/**
 * What the recursive calls inside `callee` pass instead of each param: the
 * values from outside `callee`, or 'varies' when some call passes a value of
 * `callee`'s own scope (different in each activation).
 */
export function recursion(callee: Continuation): Recursion {
  const passed = new Map<number, Set<Def> | 'varies'>();
  const scope = new Scope(callee);
  for (const c of scope.continuations) {
    if (!c.hasBody || c.callee !== callee || c.args.length !== callee.params.length) continue;
    c.args.forEach((a, i) => {
      if (a === callee.param(i)) return;
      const values = passed.get(i) ?? new Set<Def>();
      if (values === 'varies' || scope.contains(a)) {
        passed.set(i, 'varies');
      } else {
        values.add(a);
        passed.set(i, values);
      }
    });
  }
  return passed;
}

/** Indices of the params that the recursion changes for the call `callee(args…)` (the non-static arguments). */
export function nonStaticParams(r: Recursion, args: readonly Def[]): Set<number> {
  const moving = new Set<number>();
  for (const [i, values] of r) {
    if (values === 'varies' || [...values].some((v) => v !== args[i])) moving.add(i);
  }
  return moving;
}
