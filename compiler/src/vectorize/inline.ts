// A call from a vectorised body to a function with a body would run once per lane;
// inlined, the function's code is vectorised with the body instead. So before the
// body is analysed, its calls of functions that do not call themselves are
// inlined, round by round: each round inlines the calls that the last one brought
// in, up to a number of rounds and a budget of calls (mutual recursion would go on
// forever). What is left (imports, recursive functions, function values) is called
// once per lane.
// An inlined function returns by jumping to the block after the call, whose params
// take its results: a block reached by that one jump is then merged into it, so
// that a result is the value computed (an index `2·x + 1` with its stride), not a
// block param, which the vectoriser can only treat as an unknown varying value.
import { Continuation, type Def } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import type { World } from '../ir/world.ts';
import { mergeBlocks } from '../transform/cleanup.ts';
import { inline } from '../transform/mangle.ts';

/** Most rounds: the depth of calls inside calls that gets inlined. */
const rounds = 16;

/** Most calls inlined into one body (a stencil of 9 taps on 4 channels reads through 36 calls). */
const budget = 4096;

export function inlineCalls(world: World, body: Continuation): void {
  let left = budget;
  for (let round = 0; round < rounds && left > 0; round++) {
    const scope = new Scope(body);
    const verdicts = new Map<Def, boolean>();
    const inlinableHere = (callee: Def): boolean => {
      let v = verdicts.get(callee);
      if (v === undefined) verdicts.set(callee, (v = inlinable(callee, scope)));
      return v;
    };
    const callers = scope.continuations.filter((c) => c.hasBody && inlinableHere(c.callee)).slice(0, left);
    if (callers.length === 0) break;
    for (const caller of callers) inline(world, caller);
    left -= callers.length;
  }
  mergeBlocks(world, new Scope(body).continuations.filter((c) => c !== body));
}

/** A function other than the body's own blocks, with a body, that does not call itself. */
function inlinable(callee: Def, body: Scope): boolean {
  if (!(callee instanceof Continuation) || !callee.hasBody || callee.isIntrinsic || body.contains(callee)) return false;
  const own = new Scope(callee);
  if (own.freeParams().size) return false;
  return !own.continuations.some((c) => c.hasBody && c.ops.includes(callee));
}
