// The automatic filter for higher-order parameters (AnyDSL paper, §4.3), the one
// rule the partial evaluator (pe/decide.ts) and lower2cff (transform/) apply to
// decide which arguments of a call to specialise: every higher-order parameter is
// specialised, so closures vanish, except
//   (1) first-order parameters (plain values),
//   (2)+(3) the return continuation of a closed (top-level) function, when the
//       argument is a standard return: some function's return param or a basic
//       block. Such a call is an ordinary call of a top-level function.
// On top of the paper's rule, a higher-order parameter that the callee's
// recursion changes (a non-static argument, e.g. a fresh return block of a
// non-tail recursive call), directly or through other functions, is not
// specialised: every specialisation would create the next closure to specialise
// for. The evaluator lifts this where a filter already specialises a non-static
// argument (`n` of `fn @(?n) pow`): the filter then decides how far the recursion
// unfolds, and the closures are specialised along with it.
// A recursion that passes, instead of the param, a value from outside the
// callee is static for a call passing that same value: the specialisation's
// recursive calls pass the dropped value and are rewired to it (`specialise` in
// transform/mangle.ts). This is how a `break` out of a non-tail recursive
// generator (the recursive call returns to the loop's exit, the outer call too)
// becomes a loop instead of a closure. A continuation called at one place only,
// from outside it (a return block), has no recursion to look for: specialising
// it there replaces it.
import { Continuation, type Def, Param } from './defs.ts';
import { isReturnParam } from './jumps.ts';
import { Scope } from './scope.ts';
import { typeOrder } from './types.ts';

/**
 * Whether the argument `arg` for `param` of `callee` is specialised by the
 * automatic rule. `closed`: the callee, with the arguments decided so far
 * dropped, is a top-level function; `moving`: the params its recursion changes.
 */
export function specialisesHigherOrder(
  callee: Continuation,
  param: Param,
  arg: Def,
  closed: boolean,
  moving: Moving,
): boolean {
  if (typeOrder(param.type) === 0 || arg === param) return false;
  if (closed && param === callee.retParam && isStandardReturn(arg)) return false;
  // Asked last: the answer costs a search for the callee's recursion (see `lazyMoving`).
  return !moving.has(param.index);
}

/** The params a callee's recursion changes, as `specialisesHigherOrder` asks about them. */
export interface Moving {
  has(index: number): boolean;
}

/**
 * A `Moving` that computes its set on the first question. Most higher-order
 * params at a call are the return continuation of a top-level function called
 * the ordinary way, which the rule keeps without asking, and the search for
 * recursion (`recursion`, which builds the scopes of everything the callee
 * reaches) is then never made.
 */
export function lazyMoving(compute: () => ReadonlySet<number>): Moving {
  let set: ReadonlySet<number> | undefined;
  return { has: (index) => (set ??= compute()).has(index) };
}

/** A return continuation the backend handles: some function's return param, or a block (first-order continuation). */
function isStandardReturn(a: Def): boolean {
  return isReturnParam(a) || (a instanceof Continuation && a.hasBody && a.fnType.order === 1);
}

/** Per param index, what recursive calls pass instead of the param (see `recursion`). */
export type Recursion = ReadonlyMap<number, ReadonlySet<Def> | 'varies'>;

/**
 * What the recursive calls of `callee` pass instead of each param: the values
 * from outside `callee`, or 'varies' when some call passes a value of `callee`'s
 * own scope (different in each activation). Recursion through other functions
 * (`even` calls `odd`, which calls `even`) counts too, a value of the calling
 * function's scope varying as well: its return block wraps the one `callee`
 * was called with, so specialising for it would make the next one forever. A
 * param of the calling function that only ever carries `callee`'s param around
 * the cycle is that param passed on unchanged. A continuation used only as the
 * callee of one call outside it has no recursion (`calledOnceFromOutside`).
 */
export function recursion(callee: Continuation): Recursion {
  const own = new Scope(callee);
  if (calledOnceFromOutside(callee, own)) return new Map();
  const passed = new Map<number, Set<Def> | 'varies'>();
  const scopes = [own, ...cycleThrough(own)];
  const carried = carriedParams(callee, scopes);
  for (const scope of scopes) {
    for (const c of scope.continuations) {
      if (!c.hasBody || c.callee !== callee || c.args.length !== callee.params.length) continue;
      c.args.forEach((a, i) => {
        if (a === callee.param(i) || (a instanceof Param && carried.get(a) === i)) return;
        const values = passed.get(i) ?? new Set<Def>();
        if (values === 'varies' || own.contains(a) || scope.contains(a)) {
          passed.set(i, 'varies');
        } else {
          values.add(a);
          passed.set(i, values);
        }
      });
    }
  }
  return passed;
}

/**
 * Whether the one use of `callee` is the call of a continuation outside its scope (the
 * return block of a call, most often). Specialising it there replaces it: the clone is a
 * copy of `callee`'s scope, which does not hold that call, is again called there alone,
 * with fewer params, and `callee` is left without a use; so nothing can unfold, whatever
 * cycle the call lies on. Asking is cheap, where the search for that cycle builds the
 * scope of everything `callee` reaches, for a return block in a loop most of the
 * function around it, once per return block.
 */
function calledOnceFromOutside(callee: Continuation, own: Scope): boolean {
  if (callee.uses.size !== 1) return false;
  const [use] = callee.uses.values();
  return use!.index === 0 && use!.user instanceof Continuation && !own.contains(use!.user);
}

/**
 * For the params of the other functions of the cycle (`scopes` past the first),
 * the index of `callee`'s param each one always holds: every call inside the
 * cycle passes that param, the param itself, or another param holding it. A
 * greatest fixpoint, as a loop's invariant: a param is assumed to hold its value
 * until some call passes something else.
 */
function carriedParams(callee: Continuation, scopes: readonly Scope[]): Map<Param, number> {
  const members = new Set(scopes.slice(1).map((s) => s.entry));
  // An index, or null once some call passes something else; absent while no call says anything.
  const holds = new Map<Param, number | null>();
  const holding = (a: Def): number | null | undefined => {
    const i = callee.params.indexOf(a as Param);
    if (i >= 0) return i;
    return a instanceof Param && members.has(a.continuation) ? holds.get(a) : null;
  };
  for (let changed = true; changed; ) {
    changed = false;
    const settle = (p: Param, v: number | null): void => {
      const old = holds.get(p);
      const next = old === undefined || old === v ? v : null;
      if (next !== old) {
        holds.set(p, next);
        changed = true;
      }
    };
    for (const scope of scopes) {
      for (const d of scope.defs) {
        d.ops.forEach((o, k) => {
          if (!(o instanceof Continuation) || !members.has(o)) return;
          // Passed on as a value, a member may be called with anything.
          const called = d instanceof Continuation && d.hasBody && k === 0 && d.args.length === o.params.length;
          o.params.forEach((p, j) => {
            if (!called) return settle(p, null);
            const a = (d as Continuation).arg(j);
            if (a === p) return;
            const v = holding(a);
            if (v !== undefined) settle(p, v);
          });
        });
      }
    }
  }
  const carried = new Map<Param, number>();
  for (const [p, v] of holds) if (v !== null) carried.set(p, v);
  return carried;
}

/**
 * The scopes, outside `own`, of the continuations that `own`'s entry reaches and
 * that reach it back, by mentioning continuations outside their own scope.
 */
function cycleThrough(own: Scope): Scope[] {
  const scopes = new Map<Continuation, Scope>([[own.entry, own]]);
  const mentions = new Map<Continuation, Continuation[]>();
  const queue = [own.entry];
  while (queue.length) {
    const g = queue.pop()!;
    const scope = scopes.get(g)!;
    const out = new Set<Continuation>();
    for (const d of scope.defs) {
      for (const o of d.ops) {
        if (o instanceof Continuation && o.hasBody && !o.isIntrinsic && !scope.contains(o)) out.add(o);
      }
    }
    mentions.set(g, [...out]);
    for (const o of out) {
      if (scopes.has(o)) continue;
      scopes.set(o, new Scope(o));
      queue.push(o);
    }
  }
  // Backwards from the entry: who reaches it.
  const back = new Set<Continuation>([own.entry]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [g, out] of mentions) {
      if (!back.has(g) && out.some((o) => back.has(o))) {
        back.add(g);
        grew = true;
      }
    }
  }
  return [...back].filter((g) => g !== own.entry && !own.contains(g)).map((g) => scopes.get(g)!);
}

/** Indices of the params that the recursion changes for the call `callee(args…)` (the non-static arguments). */
export function nonStaticParams(r: Recursion, args: readonly Def[]): Set<number> {
  const moving = new Set<number>();
  for (const [i, values] of r) {
    if (values === 'varies' || [...values].some((v) => v !== args[i])) moving.add(i);
  }
  return moving;
}
