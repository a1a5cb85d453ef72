// Lambda mangling (Leißa's thesis, §11.1): THE one transformation. Cloning the
// scope of a continuation while replacing some of its params by values (dropping)
// and turning some free defs into new params (lifting) gives inlining,
// specialisation, loop peeling, static-argument rewriting and lambda lifting.
//
// The clone is built through the World, so every primop folds again with its new
// operands: a branch on a parameter that became a literal turns into a jump, and
// the untaken side is never copied because continuations are cloned lazily, when
// the rewrite first reaches them.
import { Continuation, type Def, Param, PrimOp, isLit } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import type { FnType } from '../ir/types.ts';
import { type World, isStatic } from '../ir/world.ts';

/**
 * Copies the part of the graph inside `scope`, rewriting every def through `map`.
 * Seed `map` with the replacements of the entry's params (and of lifted defs), then
 * call `rewrite`/`cloneBody` and `run`. The entry itself is never cloned: references
 * to it inside the scope (recursive calls) keep pointing at the original, and the
 * caller decides whether to rewire them.
 */
export class Cloner {
  /** Old def to new def; identity for defs the clone shares with the original. */
  readonly map = new Map<Def, Def>();
  /** Every continuation this cloner copied, as [original, copy]. */
  readonly cloned: [Continuation, Continuation][] = [];
  private readonly pending: [Continuation, Continuation][] = [];
  /** Whether a def outside the scope is mapped to another; decided at the first look outside, once seeded. */
  private mapsOutside: boolean | undefined;

  constructor(protected readonly world: World, protected readonly scope: Scope) {}

  /** The rewritten `root`. Iterative: unrolled code makes primop chains thousands deep. */
  rewrite(root: Def): Def {
    const stack: Def[] = [root];
    while (stack.length) {
      const d = stack[stack.length - 1]!;
      if (this.map.has(d)) {
        stack.pop();
        continue;
      }
      if (!(d instanceof PrimOp) || !this.descend(d)) {
        stack.pop();
        this.map.set(d, this.leaf(d));
        continue;
      }
      const missing = d.ops.filter((o) => !this.map.has(o));
      if (missing.length) {
        stack.push(...missing);
        continue;
      }
      stack.pop();
      this.map.set(d, this.rebuild(d, d.ops.map((o) => this.map.get(o)!)));
    }
    return this.map.get(root)!;
  }

  /**
   * Primops that may change: those inside the scope and, once some def outside
   * the scope is mapped to another (a lifted free param, an environment value),
   * those depending on params (it may hide below an out-of-scope primop). Static
   * primops, and for a plain drop everything outside the scope, are shared as
   * they are: looking into them costs time proportional to all the code that
   * computed the arguments (a counter decremented at every unrolled level).
   */
  protected descend(p: PrimOp): boolean {
    if (this.scope.contains(p)) return true;
    this.mapsOutside ??= [...this.map].some(([from, to]) => from !== to && !this.scope.contains(from));
    return this.mapsOutside && !isStatic(p);
  }

  protected rebuild(p: PrimOp, ops: readonly Def[]): Def {
    return this.world.rebuild(p, ops);
  }

  /** A def the rewrite does not look into: continuations and params of the scope are cloned, the rest is shared. */
  protected leaf(d: Def): Def {
    if (d instanceof Continuation && d !== this.scope.entry && this.scope.contains(d)) return this.clone(d);
    if (d instanceof Param && d.continuation !== this.scope.entry && this.scope.contains(d.continuation)) {
      this.clone(d.continuation);
      return this.map.get(d)!;
    }
    return d;
  }

  /** The copy of `old` (a continuation of the scope), created on first use; its body is filled by `run`. */
  protected clone(old: Continuation): Continuation {
    const done = this.map.get(old);
    if (done) return done as Continuation;
    const fresh = this.world.continuation(this.cloneType(old), old.name, old.params.map((p) => p.name));
    fresh.span = old.span;
    this.map.set(old, fresh);
    old.params.forEach((p, i) => this.map.set(p, fresh.param(i)));
    this.cloned.push([old, fresh]);
    this.pending.push([old, fresh]);
    if (old.filter) fresh.filter = old.filter.map((f) => this.rewrite(f));
    return fresh;
  }

  protected cloneType(old: Continuation): FnType {
    return old.fnType;
  }

  /** Sets `fresh`'s body to the rewritten body of `old`; branches and matches fold on constant conditions. */
  cloneBody(old: Continuation, fresh: Continuation): void {
    if (!old.hasBody) return;
    const callee = this.rewrite(old.callee);
    const taken = this.takenTarget(callee, old.args);
    if (taken) {
      fresh.jump(this.rewrite(taken), [this.rewrite(old.arg(0))]);
      return;
    }
    jumpFolded(this.world, fresh, callee, old.args.map((a) => this.rewrite(a)));
  }

  /** The one target of a branch or match whose condition rewrites to a literal (so the others are not copied). */
  private takenTarget(callee: Def, args: readonly Def[]): Def | null {
    if (!(callee instanceof Continuation) || (callee.intrinsic !== 'branch' && callee.intrinsic !== 'match')) return null;
    const cond = this.rewrite(args[1]!);
    if (!isLit(cond)) return null;
    if (callee.intrinsic === 'branch') return cond.payload ? args[2]! : args[3]!;
    for (let i = 3; i + 1 < args.length; i += 2) if (this.rewrite(args[i]!) === cond) return args[i + 1]!;
    return args[2]!;
  }

  /** Clones bodies until every reached continuation of the scope has one. */
  run(): void {
    while (this.pending.length) {
      const [old, fresh] = this.pending.pop()!;
      this.cloneBody(old, fresh);
    }
  }
}

/** `from.jump(callee, args)`, folding a branch or match whose condition is a literal. */
export function jumpFolded(world: World, from: Continuation, callee: Def, args: readonly Def[]): void {
  if (callee instanceof Continuation && callee.intrinsic === 'branch') {
    world.branch(from, args[0]!, args[1]!, args[2]!, args[3]!);
  } else if (callee instanceof Continuation && callee.intrinsic === 'match') {
    const cases: [Def, Def][] = [];
    for (let i = 3; i + 1 < args.length; i += 2) cases.push([args[i]!, args[i + 1]!]);
    world.match(from, args[0]!, args[1]!, args[2]!, cases);
  } else {
    from.jump(callee, args);
  }
}

/**
 * Clones the scope of `scope.entry` into a new entry whose params are the entry's
 * params whose `drop` slot is null, followed by one new param per `lift`ed def.
 * A non-null `drop[i]` replaces param i everywhere in the clone; a lifted def is
 * replaced by its new param. Lifted defs are free params of the scope (or primops
 * over them). Jumps to the original entry inside the scope stay jumps to the
 * original: see `specialise` for rewiring static recursion.
 */
export function mangle(world: World, scope: Scope, drop: readonly (Def | null)[], lift: readonly Def[]): Continuation {
  return mangleWith(world, scope, drop, lift).entry;
}

export interface Mangled {
  entry: Continuation;
  /** [original, copy] for every continuation of the scope that the clone reached. */
  cloned: readonly [Continuation, Continuation][];
}

/** `mangle`, also reporting which continuations were copied (callers rewire jumps inside them). */
export function mangleWith(world: World, scope: Scope, drop: readonly (Def | null)[], lift: readonly Def[]): Mangled {
  const old = scope.entry;
  if (drop.length !== old.params.length) {
    throw new Error(`internal: mangle of ${old.label} with ${drop.length} drop slots for ${old.params.length} params`);
  }
  const kept = old.params.filter((_, i) => drop[i] === null);
  const type = world.fnType([...kept.map((p) => p.type), ...lift.map((d) => d.type)]);
  const entry = world.continuation(type, old.name, [...kept.map((p) => p.name), ...lift.map(liftedName)]);
  entry.span = old.span;
  const cloner = new Cloner(world, scope);
  let next = 0;
  old.params.forEach((p, i) => cloner.map.set(p, drop[i] ?? entry.param(next++)));
  lift.forEach((d, j) => cloner.map.set(d, entry.param(kept.length + j)));
  if (old.filter) {
    const keptFilter = old.filter.filter((_, i) => drop[i] === null).map((f) => cloner.rewrite(f));
    entry.filter = [...keptFilter, ...lift.map(() => world.litBool(false))];
  }
  cloner.cloneBody(old, entry);
  cloner.run();
  return { entry, cloned: cloner.cloned };
}

function liftedName(d: Def): string {
  return d instanceof Param ? d.name : '';
}

/** Lambda dropping: `mangle` with nothing lifted. */
export function drop(world: World, scope: Scope, args: readonly (Def | null)[]): Continuation {
  return mangle(world, scope, args, []);
}

/** Lambda lifting: `mangle` that keeps every param and turns `defs` into new trailing params. */
export function lift(world: World, scope: Scope, defs: readonly Def[]): Continuation {
  return mangle(world, scope, scope.entry.params.map(() => null), defs);
}

/**
 * Inlines the call that ends `caller`: `caller: f(args…)` becomes the body of a
 * copy of `f`'s scope with every param dropped to its argument. Returns false
 * (and changes nothing) when the callee is not a continuation with a body.
 */
export function inline(world: World, caller: Continuation): boolean {
  const f = caller.callee;
  if (!(f instanceof Continuation) || !f.hasBody || f.isIntrinsic) return false;
  const dropped = drop(world, new Scope(f), caller.args);
  // The dropped copy takes no params and nothing refers to it yet: its body becomes the caller's.
  jumpFolded(world, caller, dropped.callee, dropped.args);
  world.forget(dropped);
  return true;
}

/**
 * Specialises `callee` for the non-null slots of `dropped` and rewires recursion:
 * inside the copy, a jump to `callee` that passes exactly the dropped values again
 * (a static argument, e.g. `range` passing its body `f` to itself) becomes a jump
 * to the copy with the remaining arguments. This keeps recursive higher-order
 * functions loops instead of unrolling them.
 */
export function specialise(world: World, callee: Continuation, dropped: readonly (Def | null)[]): Continuation {
  return specialiseWith(world, callee, dropped).entry;
}

/** `specialise`, also reporting which continuations were copied (the partial evaluator visits them next). */
export function specialiseWith(world: World, callee: Continuation, dropped: readonly (Def | null)[]): Mangled {
  const { entry, cloned } = mangleWith(world, new Scope(callee), dropped, []);
  for (const c of [entry, ...cloned.map(([, copy]) => copy)]) {
    if (c.hasBody && c.callee === callee && passesDropped(c.args, dropped)) {
      c.jump(entry, c.args.filter((_, i) => dropped[i] === null));
    }
  }
  return { entry, cloned };
}

function passesDropped(args: readonly Def[], dropped: readonly (Def | null)[]): boolean {
  return args.length === dropped.length && dropped.every((d, i) => d === null || args[i] === d);
}
