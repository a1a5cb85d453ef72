// What the program still uses: everything reachable from the exported
// continuations through bodies and primop operands. Leftovers of earlier passes
// that nothing reaches (an unspecialised higher-order original, say) are never
// looked at by the passes after them, nor by the backend.
import { Continuation, type Def, PrimOp } from './defs.ts';
import type { World } from './world.ts';

export interface Reachable {
  /** Continuations reachable from the roots through bodies and primop operands. */
  readonly continuations: Continuation[];
  readonly primops: PrimOp[];
}

/** Everything reachable from the exported continuations with a body. */
export function reachable(world: World): Reachable {
  return reachableFrom([...world.continuations].filter((c) => c.external && c.hasBody));
}

/** Everything reachable from `roots` (bodies, then primop operands); iterative, as unrolled code chains thousands of nodes. */
export function reachableFrom(roots: Iterable<Continuation>): Reachable {
  const seen = new Set<Def>();
  const continuations: Continuation[] = [];
  const primops: PrimOp[] = [];
  const stack: Def[] = [...roots];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    if (d instanceof Continuation) continuations.push(d);
    else if (d instanceof PrimOp) primops.push(d);
    if (d instanceof Continuation || d instanceof PrimOp) for (const o of d.ops) if (!seen.has(o)) stack.push(o);
  }
  return { continuations, primops };
}
