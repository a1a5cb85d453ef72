// Filters are bool expressions over the callee's params. At a call site the
// evaluator substitutes the actual arguments and rebuilds the expression through
// the World, so constants, `?` (`known`), comparisons, arithmetic and `&`/`|`
// fold exactly as they would in code: a filter fires when it folds to `true`.
import { type Def, Param, PrimOp } from '../ir/defs.ts';
import { type World, isStatic } from '../ir/world.ts';

export interface Substitution {
  /** Final values: the arguments of the call for the callee's params. */
  readonly args: ReadonlyMap<Param, Def>;
  /**
   * Params that an in-place inlining replaced by a value everywhere except in
   * filters (which are not operands). Their values are substituted further.
   */
  readonly replaced: ReadonlyMap<Param, Def>;
}

/** `root` with the substitution applied, folded. Iterative: replaced values may be long primop chains. */
export function instantiate(world: World, root: Def, subst: Substitution): Def {
  const done = new Map<Def, Def>();
  const stack: Def[] = [root];
  while (stack.length) {
    const d = stack[stack.length - 1]!;
    if (done.has(d)) {
      stack.pop();
      continue;
    }
    if (d instanceof Param) {
      const arg = subst.args.get(d);
      const later = arg === undefined ? subst.replaced.get(d) : undefined;
      if (later !== undefined && !done.has(later)) {
        stack.push(later);
        continue;
      }
      stack.pop();
      done.set(d, arg ?? (later !== undefined ? done.get(later)! : d));
      continue;
    }
    if (!(d instanceof PrimOp) || isStatic(d)) {
      stack.pop();
      done.set(d, d);
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
