// Filters are bool expressions over the callee's params. At a call site the
// evaluator substitutes the actual arguments and rebuilds the expression through
// the World, so constants, `?` (`known`), comparisons, arithmetic and `&`/`|`
// fold exactly as they would in code: a filter fires when it folds to `true`.
// `World.substitute` also brings the filter up to date: inlining in place
// replaces params outside the callee, and a specialisation's filter may mention
// its caller's values.
import { type Def, type Param, litValue } from '../ir/defs.ts';
import type { World } from '../ir/world.ts';

/** Whether `filter`, with the callee's params replaced by `args`, folds to true. */
export function fires(world: World, filter: Def, args: ReadonlyMap<Param, Def>): boolean {
  return litValue(world.substitute(filter, args)) === true;
}
