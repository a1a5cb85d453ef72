// Inference variables and unification (union-find through `prune`), plus the
// per-body inference session that defaults literals and resolves every recorded
// type once the body is checked.
import type { Span } from '../syntax/diagnostics.ts';
import { isFloat, isInt, prune, typeToString, type Type } from './types.ts';
import { contParams, cpsForm, someType } from './type-ops.ts';

type Var = Extract<Type, { tag: 'var' }>;
type Resolver = (t: Type, span: Span) => Type;

/** One inference scope: a fn body with its closures, a static initialiser. */
class Session {
  readonly litVars: Var[] = [];
  /** Run at the end with a resolver that returns var-free types. */
  readonly sites: ((resolve: Resolver) => void)[] = [];
  /** Run after `sites`, when every type is final (literal range checks). */
  readonly finalChecks: (() => void)[] = [];
}

export class Unifier {
  private nextId = 0;
  /** null entries suspend inference (item signatures are lowered outside any body). */
  private sessions: (Session | null)[] = [];

  get active(): Session | null {
    return this.sessions[this.sessions.length - 1] ?? null;
  }

  outside<T>(body: () => T): T {
    this.sessions.push(null);
    try {
      return body();
    } finally {
      this.sessions.pop();
    }
  }

  fresh(lit: 'int' | 'float' | null = null): Type {
    const v: Var = { tag: 'var', id: this.nextId++, ref: null, lit };
    if (lit) this.active?.litVars.push(v);
    return v;
  }

  /** Records work for the end of the current session (or runs it now outside one). */
  site(f: (resolve: Resolver) => void): void {
    const s = this.active;
    if (s) s.sites.push(f);
    else f((t) => resolveDeep(t, () => ({ tag: 'error' })));
  }

  finalCheck(f: () => void): void {
    const s = this.active;
    if (s) s.finalChecks.push(f);
    else f();
  }

  /**
   * Runs `body` in a fresh session; at its end unsuffixed literals take their default
   * types and every recorded site is resolved. `unresolved` reports a var nothing fixed.
   */
  session<T>(body: () => T, unresolved: (span: Span) => void): T {
    const s = new Session();
    this.sessions.push(s);
    try {
      const result = body();
      for (const v of s.litVars) {
        const p = prune(v);
        if (p.tag === 'var') p.ref = { tag: 'prim', name: p.lit === 'float' ? 'f64' : 'i32' };
      }
      const resolve: Resolver = (t, span) =>
        resolveDeep(t, (v) => {
          unresolved(span);
          v.ref = { tag: 'error' };
          return v.ref;
        });
      for (const f of s.sites) f(resolve);
      for (const f of s.finalChecks) f();
      return result;
    } finally {
      this.sessions.pop();
    }
  }

  /**
   * Makes `a` and `b` equal. `never` and `error` are compatible with everything;
   * `never` binds nothing. Returns false on a mismatch (partial bindings may remain).
   */
  unify(a: Type, b: Type): boolean {
    a = prune(a);
    b = prune(b);
    if (a === b) return true;
    if (a.tag === 'error' || b.tag === 'error') {
      // Whatever was open takes the error too, so it is not reported again as uninferable.
      if (a.tag === 'var') a.ref = b;
      if (b.tag === 'var') b.ref = a;
      return true;
    }
    if (a.tag === 'var') return this.bind(a, b);
    if (b.tag === 'var') return this.bind(b, a);
    if (a.tag === 'never' || b.tag === 'never') return true;
    switch (a.tag) {
      case 'prim':
        return b.tag === 'prim' && a.name === b.name;
      case 'tuple':
        return b.tag === 'tuple' && a.elems.length === b.elems.length && a.elems.every((e, i) => this.unify(e, b.elems[i]!));
      case 'array':
        return b.tag === 'array' && a.size === b.size && this.unify(a.elem, b.elem);
      case 'indefarray':
        return b.tag === 'indefarray' && this.unify(a.elem, b.elem);
      case 'simd':
        return b.tag === 'simd' && a.size === b.size && this.unify(a.elem, b.elem);
      case 'ptr':
        return b.tag === 'ptr' && a.mutable === b.mutable && a.addrSpace === b.addrSpace && this.unify(a.pointee, b.pointee);
      case 'owned':
        return b.tag === 'owned' && this.unify(a.pointee, b.pointee);
      case 'fn':
        if (b.tag !== 'fn') return false;
        // `fn(A) -> R` abbreviates `fn(A, fn(R) -> !) -> !`: either spelling matches the other.
        if ((a.ret === null) !== (b.ret === null)) return this.unify(cpsForm(a), cpsForm(b));
        if (a.ret === null && a.params.length !== b.params.length) {
          // The continuation of a tuple takes its elements (`contParams`).
          const [ap, bp] = [contParams(a), contParams(b)];
          return ap.length === bp.length && ap.every((p, i) => this.unify(p, bp[i]!));
        }
        return (
          a.params.length === b.params.length &&
          (a.ret === null) === (b.ret === null) &&
          a.params.every((p, i) => this.unify(p, b.params[i]!)) &&
          (a.ret === null || this.unify(a.ret, b.ret!))
        );
      case 'struct':
      case 'enum':
        return b.tag === a.tag && b.decl === a.decl && a.args.every((x, i) => this.unify(x, b.args[i]!));
      case 'param':
        return b.tag === 'param' && a.decl === b.decl;
    }
  }

  private bind(v: Var, t: Type): boolean {
    if (t.tag === 'never') return true;
    if (t.tag === 'var') {
      if (v.lit && t.lit && v.lit !== t.lit) return false;
      if (v.lit && !t.lit) t.ref = v;
      else v.ref = t;
      return true;
    }
    if (v.lit === 'int' && !(t.tag === 'prim' && isInt(t.name))) return false;
    if (v.lit === 'float' && !(t.tag === 'prim' && isFloat(t.name))) return false;
    if (someType(t, (x) => x === v)) return false;
    v.ref = t;
    return true;
  }
}

/** A copy of `t` without bound inference variables; `onVar` replaces an unbound one. */
export function resolveDeep(t: Type, onVar: (v: Var) => Type): Type {
  t = prune(t);
  switch (t.tag) {
    case 'var':
      return t.lit ? { tag: 'prim', name: t.lit === 'float' ? 'f64' : 'i32' } : onVar(t);
    case 'tuple':
      return { tag: 'tuple', elems: t.elems.map((e) => resolveDeep(e, onVar)) };
    case 'array':
      return { tag: 'array', elem: resolveDeep(t.elem, onVar), size: t.size };
    case 'indefarray':
      return { tag: 'indefarray', elem: resolveDeep(t.elem, onVar) };
    case 'simd':
      return { tag: 'simd', elem: resolveDeep(t.elem, onVar), size: t.size };
    case 'ptr':
      return { tag: 'ptr', pointee: resolveDeep(t.pointee, onVar), mutable: t.mutable, addrSpace: t.addrSpace };
    case 'owned':
      return { tag: 'owned', pointee: resolveDeep(t.pointee, onVar) };
    case 'fn':
      return { tag: 'fn', params: t.params.map((p) => resolveDeep(p, onVar)), ret: t.ret && resolveDeep(t.ret, onVar) };
    case 'struct':
    case 'enum':
      return { ...t, args: t.args.map((a) => resolveDeep(a, onVar)) } as Type;
    default:
      return t;
  }
}

/**
 * The spelling of a type in a diagnostic: an undecided literal shows as the type it
 * would default to (`i32`, `f64`), other undecided parts as `_`.
 */
export function showType(t: Type): string {
  return typeToString(resolveDeep(t, (v) => v));
}
