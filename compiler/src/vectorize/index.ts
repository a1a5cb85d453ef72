// The SPMD vectoriser behind `vectorize` (run after lower2cff, before closure
// conversion): every reachable `vectorize(width, lower, upper, body)` call becomes
// a call of a vector loop over `body` (vloop.ts), and the lane queries left over
// (outside any vectorised body, or in functions such a body calls) get their
// one-lane meaning.
import { Continuation, type Def } from '../ir/defs.ts';
import type { World } from '../ir/world.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import { reachable } from '../ir/reachable.ts';
import { VectorizeError } from './error.ts';
import { isLaneQuery } from './lanes.ts';
import { vectorizeCall } from './vloop.ts';

/** Vectorises every `vectorize` call; false when one could not be (reported to `sink`). */
export function vectorizeAll(world: World, sink: DiagnosticSink): boolean {
  let ok = true;
  for (const c of reachable(world).continuations) {
    if (!c.hasBody || !(c.callee instanceof Continuation) || c.callee.intrinsic !== 'vectorize') continue;
    try {
      vectorizeCall(world, c);
    } catch (e) {
      if (!(e instanceof VectorizeError)) throw e;
      sink.error(c.arg(4).span ?? c.span, e.message);
      ok = false;
    }
  }
  if (ok) scalarLaneQueries(world);
  return ok;
}

/** A lane query outside a vectorised body: every iteration is a group of one lane. */
function scalarLaneQueries(world: World): void {
  for (const c of reachable(world).continuations) {
    if (!c.hasBody || !isLaneQuery(c.callee)) continue;
    const args = c.args;
    const [mem, x] = args;
    const ret = args[args.length - 1]!;
    let value: Def;
    switch (c.callee.intrinsic) {
      case 'lane_id':
        value = world.litI32(0);
        break;
      case 'num_lanes':
        value = world.litI32(1);
        break;
      case 'ballot':
        value = world.select(x!, world.litI32(1), world.litI32(0));
        break;
      default:
        value = x!;
    }
    c.jump(ret, [mem!, value]);
  }
}
