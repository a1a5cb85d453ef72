// Lower to control-flow form (Leißa's thesis, §11.2, "lower2cff"): eliminate
// closures by specialising every call that passes higher-order arguments.
//
// A call `u: f(args…)` to a continuation `f` with a body is bad when
//   - `f` is closed (a top-level function) and takes a higher-order argument other
//     than its return continuation, or its return continuation is not a standard
//     one (the caller's own return param, or a block: a first-order continuation);
//   - `f` is not closed (a local closure nested in some function) and takes any
//     higher-order argument, its return continuation included.
// A bad call is replaced by a call to `f` specialised for its higher-order
// arguments (`specialise`: dropped params, recursion passing them unchanged
// rewired to the specialisation), memoised per (callee, dropped arguments). A
// specialised top-level function that captured a local closure becomes a local
// one, so the next round drops its return continuation too: it ends up a first-
// order block of the caller, and cleanup merges blocks with one predecessor. So
// `range(0, n, body)` becomes a loop inside the caller with the body inlined.
//
// Which arguments are dropped is the automatic rule of ir/higher-order.ts, the
// one the partial evaluator applies: a higher-order param is only specialised
// when the callee's recursion (direct or through other functions) does not change
// it, otherwise each round would create a new closure to specialise for. Such
// calls are left to closure conversion. A budget of specialisations still turns
// anything that specialises forever into a diagnostic at the call site.
import { Closedness } from '../ir/closedness.ts';
import { Continuation, type Def } from '../ir/defs.ts';
import { lazyMoving, type Moving, nonStaticParams, type Recursion, recursion, specialisesHigherOrder } from '../ir/higher-order.ts';
import { isControlOperand } from '../ir/jumps.ts';
import { reachable } from '../ir/reachable.ts';
import { typeOrder } from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import { cleanup } from './cleanup.ts';
import { specialise } from './mangle.ts';

export interface Lower2CffOptions {
  sink: DiagnosticSink;
  /** Most specialisations before giving up with a diagnostic. */
  budget?: number;
}

export const defaultSpecialisationBudget = 10_000;

/** Runs to a fixed point with cleanup in between; false (with an error in the sink) when the budget ran out. */
export function lower2cff(world: World, opts: Lower2CffOptions): boolean {
  const budget = opts.budget ?? defaultSpecialisationBudget;
  const memo = new Map<string, Continuation>();
  let steps = 0;
  for (;;) {
    cleanup(world);
    const r = reachable(world);
    const free = new Closedness(r.continuations);
    const recursionOf = new Map<Continuation, Recursion>();
    let changed = false;
    for (const u of r.continuations) {
      if (!u.hasBody) continue;
      const callee = u.callee;
      if (!(callee instanceof Continuation) || !callee.hasBody || callee.isIntrinsic) continue;
      if (callee.params.length !== u.args.length) continue;
      // Only higher-order params can be dropped, and the scope of a block in a long chain is the rest of the chain.
      if (callee.params.every((p) => typeOrder(p.type) === 0)) continue;
      const moving = lazyMoving(() => {
        let rec = recursionOf.get(callee);
        if (!rec) recursionOf.set(callee, (rec = recursion(callee)));
        return nonStaticParams(rec, u.args);
      });
      const dropped = badArguments(u, callee, free.isClosed(callee), moving);
      if (!dropped) continue;
      const key = `${callee.gid}:${dropped.map((d) => (d ? d.gid : '_')).join(',')}`;
      let spec = memo.get(key);
      if (!spec || !world.continuations.has(spec) || !spec.hasBody) {
        if (++steps > budget) {
          opts.sink.error(
            u.span ?? callee.span,
            `lowering to control-flow form does not terminate: '${callee.name || callee.label}' keeps being specialised ` +
              `for new higher-order arguments (${budget} specialisations)`,
          );
          return false;
        }
        spec = specialise(world, callee, dropped);
        memo.set(key, spec);
      }
      u.jump(spec, u.args.filter((_, i) => dropped[i] === null));
      changed = true;
    }
    if (!changed) return true;
  }
}

/** The arguments of `u`'s call to drop into `callee` (null slots stay params), or null when the call is fine. */
function badArguments(u: Continuation, callee: Continuation, closed: boolean, moving: Moving): (Def | null)[] | null {
  const dropped = callee.params.map((p) => (specialisesHigherOrder(callee, p, u.arg(p.index), closed, moving) ? u.arg(p.index) : null));
  return dropped.some((d) => d !== null) ? dropped : null;
}

/**
 * What keeps the world from being in control-flow form, one line per offence: a
 * higher-order param of a top-level function other than its return, a returned
 * function value, or a continuation nested in a function that is not a
 * first-order block used for control flow only. Empty after a successful
 * `lower2cff` of CFF-convertible code; closure conversion handles the rest.
 */
export function cffViolations(world: World): string[] {
  const r = reachable(world);
  const free = new Closedness(r.continuations);
  const out: string[] = [];
  for (const c of r.continuations) {
    if (!c.hasBody || c.isIntrinsic) continue;
    if (free.isClosed(c)) {
      for (const p of c.params) {
        if (p === c.retParam) {
          if (typeOrder(p.type) > 1) out.push(`${c.label} returns a function value through ${p.label}`);
        } else if (typeOrder(p.type) > 0) {
          out.push(`${c.label} has the higher-order param ${p.label}: ${p.type}`);
        }
      }
      continue;
    }
    if (c.fnType.order !== 1) out.push(`${c.label} is a higher-order continuation nested in a function: ${c.type}`);
    for (const { user, index } of c.uses.values()) {
      if (!(user instanceof Continuation) || !isControlOperand(user, index)) {
        out.push(`${c.label} is nested in a function and used as a value by ${user.label}`);
        break;
      }
    }
  }
  return out;
}
