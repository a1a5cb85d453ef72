// The pass list: every stage between emission and code generation, in the one order
// the compiler runs them. Tests run this list (observing the World after a stage
// through `observe`) instead of calling the passes in an order of their own.
//
// Why this order: the partial evaluator first (it consumes the run/hlt/known markers
// and specialises what the program asks for); cleanup after every pass (markers
// resolved, dead code gone, so each pass sees only reachable calls); lower2cff
// eliminates closures; the SPMD vectoriser needs `vectorize` bodies as the
// specialised continuations lower2cff leaves; the lowering of `parallel`/`spawn`/
// `sync` to the runtime takes the closures lower2cff leaves on purpose; closure
// conversion turns what could not be eliminated into records; the last cleanup
// drops the originals that specialisation and conversion left unreachable.
import type { World } from '../ir/world.ts';
import { partialEvaluate, type PeOptions } from '../pe/index.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import { cleanup } from '../transform/cleanup.ts';
import { closureConvert } from '../transform/closure_convert.ts';
import { extractKernels } from '../transform/kernels.ts';
import { lower2cff } from '../transform/lower2cff.ts';
import { lowerParallel } from '../transform/lower_parallel.ts';
import { vectorizeAll } from '../vectorize/index.ts';
import { type StageTimer, timed } from './timings.ts';

export type PassName = 'pe' | 'cleanup' | 'lower2cff' | 'kernels' | 'vectorize' | 'parallel' | 'closure-convert';

export interface PassContext {
  sink: DiagnosticSink;
  /** The partial evaluator's options besides the sink: its trace, budgets. */
  pe?: Omit<PeOptions, 'sink'>;
  /** Most specialisations lower2cff may make before reporting that it does not terminate. */
  specialisationBudget?: number;
  /**
   * Called with the World after each pass that succeeded (`index` is the pass's place in
   * PASSES, telling apart the cleanups); returning false stops the run there.
   */
  observe?: (pass: PassName, world: World, index: number) => boolean | void;
  /** Collects the time of each pass. */
  timer?: StageTimer;
}

export interface Pass {
  name: PassName;
  /** Transforms the World in place; false when it failed (with an error in the sink). */
  run(world: World, ctx: PassContext): boolean;
}

const cleanupPass: Pass = { name: 'cleanup', run: (world) => (cleanup(world), true) };

export const PASSES: readonly Pass[] = [
  { name: 'pe', run: (world, ctx) => partialEvaluate(world, { ...ctx.pe, sink: ctx.sink }) },
  cleanupPass,
  { name: 'lower2cff', run: (world, ctx) => lower2cff(world, { sink: ctx.sink, budget: ctx.specialisationBudget }) },
  cleanupPass,
  { name: 'kernels', run: (world, ctx) => extractKernels(world, ctx.sink) },
  cleanupPass,
  { name: 'vectorize', run: (world, ctx) => vectorizeAll(world, ctx.sink) },
  cleanupPass,
  { name: 'parallel', run: (world, ctx) => lowerParallel(world, ctx.sink) },
  cleanupPass,
  { name: 'closure-convert', run: (world, ctx) => closureConvert(world, ctx.sink) },
  cleanupPass,
];

export interface PassRange {
  /** Start after the first pass of this name (default: at the beginning). */
  after?: PassName;
  /** Stop after the first pass of this name (default: at the end). */
  through?: PassName;
  /** Stop before the first pass of this name: the World as that pass would receive it. */
  before?: PassName;
}

/**
 * Runs PASSES (or the part `range` selects) on `world` in order. Stops at the first
 * pass that fails or reports an error, or whose observer returns false; returns
 * whether every selected pass ran and succeeded.
 */
export function runPasses(world: World, ctx: PassContext, range: PassRange = {}): boolean {
  const start = range.after === undefined ? 0 : indexOf(range.after) + 1;
  const end = range.before !== undefined ? indexOf(range.before) : range.through !== undefined ? indexOf(range.through) + 1 : PASSES.length;
  for (let i = start; i < end; i++) {
    const pass = PASSES[i]!;
    const ok = timed(ctx.timer, pass.name, () => pass.run(world, ctx));
    if (!ok || ctx.sink.hasErrors) return false;
    if (ctx.observe?.(pass.name, world, i) === false) return false;
  }
  return true;
}

function indexOf(name: PassName): number {
  return PASSES.findIndex((p) => p.name === name);
}

/** The passes after the partial evaluator: for Worlds built without one (IR tests) or already evaluated. */
export function optimise(world: World, ctx: PassContext): boolean {
  return runPasses(world, ctx, { after: 'pe' });
}
