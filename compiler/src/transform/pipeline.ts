// The optimisation pipeline between emission and code generation. The order
// matters: cleanup first (markers resolved, dead code gone, so lower2cff sees
// only reachable calls), then closure elimination, then the SPMD vectoriser
// (it needs `vectorize` bodies as specialised continuations), then the lowering of
// `parallel`/`spawn`/`sync` to the runtime (their bodies are the closures lower2cff
// leaves on purpose), then closure conversion of what could not be eliminated,
// then a last cleanup of the originals that specialisation and conversion left
// unreachable. The partial evaluator runs in front of all of this (driver/pipeline.ts).
import type { World } from '../ir/world.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import { cleanup } from './cleanup.ts';
import { closureConvert } from './closure_convert.ts';
import { lower2cff } from './lower2cff.ts';
import { lowerParallel } from './lower_parallel.ts';
import { vectorizeAll } from '../vectorize/index.ts';

export interface OptimiseOptions {
  sink: DiagnosticSink;
  /** For the partial evaluator: print each specialisation it makes. */
  peTrace?: boolean;
  /** Most specialisations lower2cff may make before reporting that it does not terminate. */
  specialisationBudget?: number;
}

/** Runs the passes in order; stops at the first one that reports an error to `opts.sink`. */
export function optimise(world: World, opts: OptimiseOptions): void {
  cleanup(world);
  if (!lower2cff(world, { sink: opts.sink, budget: opts.specialisationBudget })) return;
  cleanup(world);
  if (!vectorizeAll(world, opts.sink)) return;
  cleanup(world);
  if (!lowerParallel(world, opts.sink)) return;
  cleanup(world);
  if (!closureConvert(world, opts.sink)) return;
  cleanup(world);
}
