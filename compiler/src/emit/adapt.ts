// Values in the representation a use wants. Sema treats some spellings of a type as one
// type that lower to different IR types: a continuation taking just `()` is `fn(mem)`,
// and the continuation of a tuple `fn((A, B)) -> !` is the same type as `fn(A, B) -> !`
// (sema's `contParams`), as in the original compiler, where `fn() -> (A, B)` is
// `fn(fn(A, B) -> !) -> !`. Where such values meet, a fn value is wrapped in a
// continuation of the wanted type that passes its params on in the other form; partial
// evaluation inlines the wrapper.
import { type Def, FnType, type IRType, TupleType, type World } from '../ir/index.ts';

/**
 * Arguments as the callee's IR type `ft` wants them (without the return continuation
 * when `returns`): a tuple is split into the elements a continuation takes, or elements
 * packed into the one tuple it takes; fn values are adapted (`adaptValue`).
 */
export function adaptArgs(w: World, ft: FnType, args: readonly Def[], returns: boolean): Def[] {
  const n = ft.params.length - 1 - (returns ? 1 : 0);
  let vals = [...args];
  if (vals.length !== n) {
    const only = vals.length === 1 ? vals[0]!.type : null;
    if (only instanceof TupleType && only.elems.length === n) vals = only.elems.map((_, i) => w.extract(vals[0]!, i));
    else if (n === 1 && ft.params[1] instanceof TupleType) vals = [w.tuple(vals)];
    else throw new Error(`internal: ${args.length} arguments for ${ft}`);
  }
  return vals.map((v, i) => adaptValue(w, v, ft.params[i + 1]!));
}

/** `d` as a value of type `to`: itself, or for fn types that differ, a wrapper continuation. */
export function adaptValue(w: World, d: Def, to: IRType): Def {
  const from = d.type;
  if (from === to || !(from instanceof FnType) || !(to instanceof FnType)) return d;
  const c = w.continuation(to, 'adapt');
  c.jump(d, [c.param(0), ...adaptArgs(w, from, c.params.slice(1), false)]);
  return c;
}
