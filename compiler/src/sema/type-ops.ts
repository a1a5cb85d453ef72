// Structural operations on source-level types that both sema and emit need:
// substituting type parameters (instantiation, monomorphisation), equality and
// a canonical key (for memoising instantiations), and which types `bitcast` relates.
import type { TypeParam } from '../syntax/ast.ts';
import { primBits, prune, typeToString, type Type } from './types.ts';

/** Replaces `param` types by the types `map` assigns them; other parts are kept (pruned). */
export function substType(t: Type, map: ReadonlyMap<TypeParam, Type>): Type {
  t = prune(t);
  if (map.size === 0) return t;
  switch (t.tag) {
    case 'param':
      return map.get(t.decl) ?? t;
    case 'tuple':
      return { tag: 'tuple', elems: t.elems.map((e) => substType(e, map)) };
    case 'array':
      return { tag: 'array', elem: substType(t.elem, map), size: t.size };
    case 'indefarray':
      return { tag: 'indefarray', elem: substType(t.elem, map) };
    case 'simd':
      return { tag: 'simd', elem: substType(t.elem, map), size: t.size };
    case 'ptr':
      return { tag: 'ptr', pointee: substType(t.pointee, map), mutable: t.mutable, addrSpace: t.addrSpace };
    case 'owned':
      return { tag: 'owned', pointee: substType(t.pointee, map) };
    case 'fn':
      return { tag: 'fn', params: t.params.map((p) => substType(p, map)), ret: t.ret && substType(t.ret, map) };
    case 'struct':
    case 'enum':
      return { ...t, args: t.args.map((a) => substType(a, map)) } as Type;
    default:
      return t;
  }
}

/** The map from a generic item's type parameters to the arguments of one instantiation. */
export function paramMap(params: readonly TypeParam[], args: readonly Type[]): Map<TypeParam, Type> {
  const map = new Map<TypeParam, Type>();
  params.forEach((p, i) => {
    const a = args[i];
    if (a) map.set(p, a);
  });
  return map;
}

/** Structural equality after pruning; nominal types compare by declaration. */
export function typeEquals(a: Type, b: Type): boolean {
  return typeKey(a) === typeKey(b);
}

const ids = new WeakMap<object, number>();
let nextId = 0;
function objId(o: object): number {
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = nextId++));
  return id;
}

/**
 * A string that identifies a type up to structure: equal keys mean equal types.
 * Nominal types and type parameters are keyed by their declaration's identity.
 */
export function typeKey(t: Type): string {
  t = prune(t);
  switch (t.tag) {
    case 'prim':
      return t.name;
    case 'tuple':
      return `(${t.elems.map(typeKey).join(',')})`;
    case 'array':
      return `[${typeKey(t.elem)}*${t.size}]`;
    case 'indefarray':
      return `[${typeKey(t.elem)}]`;
    case 'simd':
      return `simd[${typeKey(t.elem)}*${t.size}]`;
    case 'ptr':
      return `&${t.mutable ? 'mut' : ''}[${t.addrSpace}]${typeKey(t.pointee)}`;
    case 'owned':
      return `~${typeKey(t.pointee)}`;
    case 'fn':
      return `fn(${t.params.map(typeKey).join(',')})->${t.ret ? typeKey(t.ret) : '!'}`;
    case 'struct':
    case 'enum':
      return `${t.tag}#${objId(t.decl)}:${t.decl.name.name}[${t.args.map(typeKey).join(',')}]`;
    case 'param':
      return `param#${objId(t.decl)}:${t.decl.name}`;
    case 'var':
      return `?${t.id}`;
    case 'never':
      return '!';
    case 'error':
      return '<error>';
  }
}

/** Whether `f` holds for `t` or for some type nested in it (after pruning). */
export function someType(t: Type, f: (t: Type) => boolean): boolean {
  t = prune(t);
  if (f(t)) return true;
  switch (t.tag) {
    case 'tuple':
      return t.elems.some((e) => someType(e, f));
    case 'array':
    case 'indefarray':
    case 'simd':
      return someType(t.elem, f);
    case 'ptr':
    case 'owned':
      return someType(t.pointee, f);
    case 'fn':
      return t.params.some((p) => someType(p, f)) || (t.ret !== null && someType(t.ret, f));
    case 'struct':
    case 'enum':
      return t.args.some((a) => someType(a, f));
    default:
      return false;
  }
}

/**
 * Why `bitcast` cannot reinterpret a `from` as a `to` (a whole message), or null when it
 * can. The rule is the IR verifier's for the `bitcast` primop: a type as itself, a number
 * or simd vector of numbers as one of the same bit size, a pointer as a pointer. `bool`
 * counts as no number: the interpreter defines no bit pattern for it. Sema checks concrete
 * types; emit checks each instance of a generic fn, whose type parameters sema cannot size.
 */
export function bitcastProblem(from: Type, to: Type): string | null {
  if (typeEquals(from, to)) return null;
  const kind = (t: Type): { bits: number } | 'pointer' | null => {
    const p = prune(t);
    if (p.tag === 'ptr' || p.tag === 'owned') return 'pointer';
    const elem = p.tag === 'simd' ? prune(p.elem) : p;
    if (elem.tag !== 'prim' || elem.name === 'bool') return null;
    return { bits: primBits(elem.name) * (p.tag === 'simd' ? p.size : 1) };
  };
  const f = kind(from);
  const t = kind(to);
  const what = `cannot bitcast '${typeToString(from)}' to '${typeToString(to)}'`;
  if (f === 'pointer' && t === 'pointer') return null;
  if (f === null || t === null || f === 'pointer' || t === 'pointer') {
    return `${what}: bitcast reinterprets a number as a number of the same size, or a pointer as a pointer`;
  }
  return f.bits === t.bits ? null : `${what}: their sizes differ (${f.bits} and ${t.bits} bits)`;
}

export function isUnit(t: Type): boolean {
  const p = prune(t);
  return p.tag === 'tuple' && p.elems.length === 0;
}

/** The type of the continuation that returns a `t`: `fn() -> !` for `()`, else `fn(t) -> !`. */
export function contType(t: Type): Type {
  return { tag: 'fn', params: isUnit(t) ? [] : [t], ret: null };
}

type FnType = Extract<Type, { tag: 'fn' }>;

/** `fn(A) -> R` as the continuation type it abbreviates: `fn(A, fn(R) -> !) -> !`. */
export function cpsForm(f: FnType): FnType {
  return f.ret === null ? f : { tag: 'fn', params: [...f.params, contType(f.ret)], ret: null };
}

/**
 * The values a continuation takes: a `-> !` fn taking one tuple takes its elements, as
 * in the original compiler, where `fn() -> (A, B)` is `fn(fn(A, B) -> !) -> !` (so
 * `fn((A, B)) -> !` and `fn(A, B) -> !` are one type; `fn(()) -> !` is `fn() -> !`).
 * Other fn types: their params.
 */
export function contParams(f: FnType): readonly Type[] {
  if (f.ret !== null || f.params.length !== 1) return f.params;
  const p = prune(f.params[0]!);
  return p.tag === 'tuple' ? p.elems : f.params;
}

/**
 * `f` seen as a direct-style fn of `arity` parameters: `f` itself when it has a
 * return type and that arity, or, for `fn(A, fn(R) -> !) -> !` with one parameter
 * more than `arity`, `fn(A) -> R` (R is `()` for `fn() -> !`, a tuple for several
 * values). Null when neither applies.
 */
export function directForm(f: FnType, arity: number): FnType | null {
  if (f.ret !== null) return f.params.length === arity ? f : null;
  if (f.params.length !== arity + 1) return null;
  const k = prune(f.params[arity]!);
  if (k.tag !== 'fn' || k.ret !== null) return null;
  const ret: Type = k.params.length === 1 ? k.params[0]! : { tag: 'tuple', elems: k.params };
  return { tag: 'fn', params: f.params.slice(0, arity), ret };
}

/**
 * The value type a `-> !` fn or closure in continuation form (`fn(A, fn(R) -> !) -> !`)
 * returns through its last parameter: its body value and `return` go there. Null for
 * any other type.
 */
export function lastParamReturn(f: FnType): Type | null {
  if (f.ret !== null || f.params.length === 0) return null;
  return directForm(f, f.params.length - 1)?.ret ?? null;
}
