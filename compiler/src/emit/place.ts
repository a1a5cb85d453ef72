// Places: what an expression designates when it is assigned, incremented,
// borrowed or projected (fields, indexing). An SSA variable is updated as a whole
// value with `insert` along the projection path; memory (slots, pointees,
// mutable statics) through `lea`, `load` and `store`; anything else is an rvalue.
import { type Def, isLit, isStatic } from '../ir/index.ts';
import type { Expr, StaticDecl } from '../syntax/ast.ts';
import { prune, type LocalBinding, type Type } from '../sema/types.ts';
import { dead, expr } from './expr.ts';
import type { FnEmitter, Local } from './fn.ts';
import type { SsaVar } from './ssa.ts';

export type Place =
  | { kind: 'var'; v: SsaVar; path: readonly Def[] }
  | { kind: 'mem'; ptr: Def }
  /** An rvalue; `addr` points to immutable memory holding it (the global of a static). */
  | { kind: 'value'; def: Def; addr: Def | null };

/**
 * What `e` designates. When part of it never returns (`*k(2)`, `k(2).f` with `k: fn(i32) -> !`:
 * sema lets `!` stand for any type, as it does for every operand), the rest is unreachable and
 * the place is a dead value of `e`'s type. `rvalue` emits `e` when it is no place.
 */
export function place(fx: FnEmitter, e: Expr, rvalue: (fx: FnEmitter, e: Expr) => Def = expr): Place {
  const p = placeOf(fx, e, rvalue);
  return fx.reachable ? p : { kind: 'value', def: dead(fx, e), addr: null };
}

function placeOf(fx: FnEmitter, e: Expr, rvalue: (fx: FnEmitter, e: Expr) => Def): Place {
  switch (e.kind) {
    case 'path':
      if (e.res?.kind === 'local') return localPlace(fx, e.res.binding);
      if (e.res?.kind === 'static') return staticPlace(fx, e.res.decl, e.type!);
      break;
    case 'unary':
      if (e.op === '*') return { kind: 'mem', ptr: expr(fx, e.operand) };
      break;
    case 'field':
      return project(fx, e.object, (t) => fx.world.litI32(fieldIndex(t, e.field.name)));
    case 'call':
      if (prune(fx.type(e.callee.type!)).tag !== 'fn') return project(fx, e.callee, () => expr(fx, e.args[0]!));
      break;
    default:
      break;
  }
  return { kind: 'value', def: rvalue(fx, e), addr: null };
}

function localPlace(fx: FnEmitter, b: LocalBinding): Place {
  const l = lookup(fx, b);
  switch (l.kind) {
    case 'value':
      return { kind: 'value', def: l.def, addr: null };
    case 'var':
      return { kind: 'var', v: l.v, path: [] };
    case 'slot':
      return { kind: 'mem', ptr: l.ptr };
  }
}

function staticPlace(fx: FnEmitter, decl: StaticDecl, type: Type): Place {
  const s = fx.em.staticRef(decl);
  if (!s) return { kind: 'value', def: fx.bottom(fx.ir(type)), addr: null };
  if (s.mutable && s.global) return { kind: 'mem', ptr: s.global };
  // An immutable static is its constant value, so that it folds; its global serves dynamic indexing.
  return { kind: 'value', def: s.init, addr: s.global };
}

function lookup(fx: FnEmitter, b: LocalBinding): Local {
  const l = fx.body.env.get(b);
  if (!l) throw new Error(`internal: local '${b.name?.name ?? '_'}' used before its declaration was emitted`);
  return l;
}

export function readLocal(fx: FnEmitter, b: LocalBinding): Def {
  return readPlace(fx, localPlace(fx, b));
}

/**
 * Field or element `index` of `base`. Pointers are followed (any number of them),
 * so `p.f` and `p(i)` address the pointee.
 */
function project(fx: FnEmitter, base: Expr, index: (aggregate: Type) => Def): Place {
  const w = fx.world;
  const t = prune(fx.type(base.type!));
  if (t.tag === 'ptr' || t.tag === 'owned') {
    let ptr = expr(fx, base);
    let pointee = prune(t.pointee);
    while (pointee.tag === 'ptr' || pointee.tag === 'owned') {
      ptr = fx.load(ptr);
      pointee = prune(pointee.pointee);
    }
    return { kind: 'mem', ptr: w.lea(ptr, index(pointee)) };
  }
  const p = place(fx, base);
  if (!fx.reachable) return p;
  const idx = index(t);
  switch (p.kind) {
    case 'var':
      return { kind: 'var', v: p.v, path: [...p.path, idx] };
    case 'mem':
      return { kind: 'mem', ptr: w.lea(p.ptr, idx) };
    case 'value':
      // A dynamic index into a constant aggregate reads its global instead of materialising it.
      if (p.addr && !isLit(idx)) return { kind: 'mem', ptr: w.lea(p.addr, idx) };
      return { kind: 'value', def: w.extract(p.def, idx), addr: p.addr && w.lea(p.addr, idx) };
  }
}

export function fieldIndex(t: Type, name: string): number {
  const p = prune(t);
  if (p.tag === 'struct') return p.decl.fields.findIndex((f) => f.name.name === name);
  if (p.tag === 'tuple') return Number(name);
  throw new Error(`internal: field '${name}' of a non-struct`);
}

export function readPlace(fx: FnEmitter, p: Place): Def {
  switch (p.kind) {
    case 'var':
      return p.path.reduce((agg, i) => fx.world.extract(agg, i), fx.read(p.v));
    case 'mem':
      return fx.load(p.ptr);
    case 'value':
      return p.def;
  }
}

export function writePlace(fx: FnEmitter, p: Place, v: Def): void {
  if (!fx.reachable) return;
  switch (p.kind) {
    case 'var':
      fx.write(p.v, insertPath(fx, fx.read(p.v), p.path, v));
      return;
    case 'mem':
      fx.store(p.ptr, v);
      return;
    case 'value':
      throw new Error('internal: assignment to an rvalue');
  }
}

function insertPath(fx: FnEmitter, agg: Def, path: readonly Def[], v: Def): Def {
  if (path.length === 0) return v;
  const [i, ...rest] = path;
  const w = fx.world;
  return w.insert(agg, i!, insertPath(fx, w.extract(agg, i!), rest, v));
}

/**
 * The address of a place. Memory has one; a constant rvalue gets an immutable
 * global unless it is borrowed mutably; anything else is copied into a fresh slot.
 */
export function addressOf(fx: FnEmitter, p: Place, mutable: boolean): Def {
  if (p.kind === 'mem') return p.ptr;
  if (p.kind === 'value' && p.addr && !mutable) return p.addr;
  const v = readPlace(fx, p);
  if (!mutable && isStatic(v)) return fx.world.global(v, false);
  const s = fx.slot(v.type);
  fx.store(s, v);
  return s;
}
