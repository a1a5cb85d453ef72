// Filters are bool expressions over the callee's params. At a call site the
// evaluator substitutes the actual arguments and rebuilds the expression through
// the World, so constants, `?` (`known`), comparisons, arithmetic and `&`/`|`
// fold exactly as they would in code: a filter fires when it folds to `true`.
import { type Def, Param, PrimOp } from '../ir/defs.ts';
import { type World, isStatic } from '../ir/world.ts';

/**
 * `filter` with the callee's params replaced by `args`, folded. The filter is
 * first brought up to date: inlining in place replaces params outside the
 * callee (a specialisation's filter may mention its caller's values).
 * Iterative: those values may be long primop chains.
 */
export function instantiate(world: World, filter: Def, args: ReadonlyMap<Param, Def>): Def {
  const root = world.current(filter);
  const done = new Map<Def, Def>();
  const stack: Def[] = [root];
  while (stack.length) {
    const d = stack[stack.length - 1]!;
    if (done.has(d)) {
      stack.pop();
      continue;
    }
    if (!(d instanceof PrimOp) || isStatic(d)) {
      stack.pop();
      done.set(d, (d instanceof Param ? args.get(d) : undefined) ?? d);
      continue;
    }
    const missing = d.ops.filter((o) => !done.has(o));
    if (missing.length) {
      stack.push(...missing);
      continue;
    }
    stack.pop();
    const ops = d.ops.map((o) => done.get(o)!);
    done.set(d, ops.every((o, i) => o === d.op(i)) ? d : world.rebuild(d, ops));
  }
  return done.get(root)!;
}
