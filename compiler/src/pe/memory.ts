// Load forwarding on stack slots, as precise as the original's: a load from a
// local whose address has been taken (so it lives in a slot, not in SSA values)
// gets the value last stored to its location, looking back along the memory chain
// through loads and through stores to other locations: other slots, other fields
// or constant elements of the same slot, and, while the slot's address has gone
// nowhere but into loads and stores, stores through pointers of unknown origin.
// The forwarded value is static where the stored one was, so `?x` on a field read
// from such a local answers as it would for a plain `let`. The walk stops at
// anything else (a call's result memory, a parameter, a store that may overlap).
import { type Continuation, type Def, isLit, litValue, PrimOp } from '../ir/defs.ts';
import { DefiniteArrayType, IndefiniteArrayType, PtrType } from '../ir/types.ts';
import type { World } from '../ir/world.ts';

/** How far back one load looks: straight-line code unrolled from big loops must not cost quadratic time. */
const MAX_STEPS = 256;

/** A slot and the constant (or repeated dynamic) indices from it to an address; null for anything else. */
interface Address {
  readonly slot: PrimOp;
  readonly path: readonly Def[];
}

function addressOf(ptr: Def): Address | null {
  const path: Def[] = [];
  let p = ptr;
  for (;;) {
    if (!(p instanceof PrimOp)) return null;
    if (p.tag === 'slot') return { slot: p, path: path.reverse() };
    if (p.tag === 'lea') {
      path.push(p.op(1));
      p = p.op(0);
    } else if (p.tag === 'bitcast' && isArrayView(p)) {
      p = p.op(0);
    } else {
      return null;
    }
  }
}

/** `&[T * n]` seen as `&[T]`: indexing either addresses the same elements. */
function isArrayView(cast: PrimOp): boolean {
  const to = cast.type;
  const from = cast.op(0).type;
  if (!(to instanceof PtrType && from instanceof PtrType)) return false;
  return to.pointee instanceof IndefiniteArrayType && from.pointee instanceof DefiniteArrayType && to.pointee.elem === from.pointee.elem;
}

/** Whether two indices surely differ (distinct literals), surely agree (the same def), or may be either. */
function compareIndex(a: Def, b: Def): 'same' | 'different' | 'unknown' {
  if (a === b) return 'same';
  if (isLit(a) && isLit(b)) return litValue(a) === litValue(b) ? 'same' : 'different';
  return 'unknown';
}

/**
 * Whether the slot's address is used only to address memory that is read or
 * written (loads, stores, element addresses, array views): then no pointer of
 * unknown origin can point into it.
 */
function confined(slot: PrimOp): boolean {
  const work: Def[] = [slot];
  const seen = new Set<Def>();
  while (work.length) {
    const d = work.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    for (const use of d.uses.values()) {
      const u = use.user;
      if (!(u instanceof PrimOp)) return false;
      if ((u.tag === 'load' || u.tag === 'store') && use.index === 1) continue;
      if ((u.tag === 'lea' && use.index === 0) || (u.tag === 'bitcast' && isArrayView(u))) work.push(u);
      else return false;
    }
  }
  return true;
}

/** The value `load` reads, when the memory chain before it shows it; null otherwise. */
export function forwardedValue(world: World, load: PrimOp): Def | null {
  const at = addressOf(load.op(1));
  if (!at) return null;
  let isConfined: boolean | undefined;
  let mem = load.op(0);
  for (let step = 0; step < MAX_STEPS; step++) {
    if (!(mem instanceof PrimOp)) return null;
    if (mem.tag === 'extract' && mem.op(0) instanceof PrimOp && (mem.op(0) as PrimOp).tag === 'load') {
      mem = mem.op(0).op(0);
      continue;
    }
    if (mem.tag !== 'store') return null;
    const to = addressOf(mem.op(1));
    if (!to) {
      isConfined ??= confined(at.slot);
      if (!isConfined) return null;
    } else if (to.slot === at.slot) {
      const n = Math.min(to.path.length, at.path.length);
      let relation: 'same' | 'different' | 'unknown' = 'same';
      for (let i = 0; i < n && relation === 'same'; i++) relation = compareIndex(to.path[i]!, at.path[i]!);
      if (relation === 'unknown') return null;
      if (relation === 'same') {
        // The store wrote only part of what is loaded: the load stays.
        if (to.path.length > at.path.length) return null;
        let value = mem.op(2);
        for (const index of at.path.slice(to.path.length)) value = world.extract(value, index);
        return value;
      }
    }
    mem = mem.op(0);
  }
  return null;
}

/** Forwards every load the bodies of `conts` use whose value the memory chain shows; true when one was. */
export function forwardLoads(world: World, conts: Iterable<Continuation>): boolean {
  const subst = new Map<Def, Def>();
  const seen = new Set<Def>();
  for (const c of conts) {
    const work: Def[] = [...c.ops];
    while (work.length) {
      const d = work.pop()!;
      if (!(d instanceof PrimOp) || seen.has(d)) continue;
      seen.add(d);
      for (const o of d.ops) work.push(o);
      if (d.tag !== 'load') continue;
      const value = forwardedValue(world, d);
      if (value) subst.set(d, world.tuple([d.op(0), value]));
    }
  }
  world.replaceAll(subst);
  return subst.size > 0;
}
