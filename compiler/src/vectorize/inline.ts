// A call from a vectorised body to a function with a body would run once per lane;
// inlined, the function's code is vectorised with the body instead. So before the
// body is analysed, its calls of functions that do not call themselves are
// inlined, up to a budget (mutual recursion would go on forever). What is left
// (imports, recursive functions, function values) is called once per lane.
import { Continuation, type Def } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import type { World } from '../ir/world.ts';
import { inline } from '../transform/mangle.ts';

/** Most calls inlined into one body. */
const budget = 64;

export function inlineCalls(world: World, body: Continuation): void {
  for (let n = 0; n < budget; n++) {
    const scope = new Scope(body);
    const caller = scope.continuations.find((c) => c.hasBody && inlinable(c.callee, scope));
    if (!caller) return;
    inline(world, caller);
  }
}

/** A function other than the body's own blocks, with a body, that does not call itself. */
function inlinable(callee: Def, body: Scope): boolean {
  if (!(callee instanceof Continuation) || !callee.hasBody || callee.isIntrinsic || body.contains(callee)) return false;
  const own = new Scope(callee);
  if (own.freeParams().size) return false;
  return !own.continuations.some((c) => c.hasBody && c.ops.includes(callee));
}
