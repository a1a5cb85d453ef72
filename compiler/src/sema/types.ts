// Source-level types as sema computes them and emit consumes them.
// After a successful check no `var` remains reachable through `prune`.
import type {
  EnumDecl, FnDecl, Param, Pattern, PrimName, StaticDecl, StructDecl, TypeAliasDecl, TypeParam,
} from '../syntax/ast.ts';

// What sema annotates the tree with (see `SemaAnnotations` in syntax/ast.ts).
declare module '../syntax/ast.ts' {
  interface SemaAnnotations {
    type: Type;
    res: Resolution;
  }
}

export type Type =
  | { tag: 'prim'; name: PrimName }
  /** `()` is the empty tuple. */
  | { tag: 'tuple'; elems: Type[] }
  | { tag: 'array'; elem: Type; size: number }
  | { tag: 'indefarray'; elem: Type }
  | { tag: 'simd'; elem: Type; size: number }
  | { tag: 'ptr'; pointee: Type; mutable: boolean; addrSpace: number }
  | { tag: 'owned'; pointee: Type }
  /** `fn(A) -> R`; ret null is `fn(A) -> !`, a continuation. */
  | { tag: 'fn'; params: Type[]; ret: Type | null }
  | { tag: 'struct'; decl: StructDecl; args: Type[] }
  | { tag: 'enum'; decl: EnumDecl; args: Type[] }
  /** A type parameter of a generic item, before monomorphisation. */
  | { tag: 'param'; decl: TypeParam }
  /**
   * An inference variable. `lit` marks the variable of an unsuffixed literal, which
   * defaults to i32 / f64 when nothing else fixes it.
   */
  | { tag: 'var'; id: number; ref: Type | null; lit: 'int' | 'float' | null }
  /** Bottom: `return(x)`, `break()`, calls of `-> !` functions; a subtype of everything. */
  | { tag: 'never' }
  /** After an error was reported; unifies with everything silently. */
  | { tag: 'error' };

/** Local bindings are identified by the AST node that introduced them. */
export type LocalBinding = Param | Extract<Pattern, { kind: 'bind' }>;

/** What a path (in an expression, a type or a pattern) refers to. */
export type Resolution =
  | { kind: 'local'; binding: LocalBinding }
  /** typeArgs instantiate the fn's type parameters at this use (monomorphisation key). */
  | { kind: 'fn'; decl: FnDecl; typeArgs: Type[] }
  | { kind: 'static'; decl: StaticDecl }
  | { kind: 'struct'; decl: StructDecl; typeArgs: Type[] }
  | { kind: 'enum'; decl: EnumDecl; typeArgs: Type[] }
  /** An enum variant: a value for unit variants, a constructor function otherwise. */
  | { kind: 'variant'; decl: EnumDecl; index: number; typeArgs: Type[] }
  | { kind: 'typeparam'; decl: TypeParam }
  | { kind: 'alias'; decl: TypeAliasDecl; typeArgs: Type[] };

export const unit: Type = { tag: 'tuple', elems: [] };
export const boolT: Type = { tag: 'prim', name: 'bool' };
export const i32T: Type = { tag: 'prim', name: 'i32' };

/** Follows bound inference variables. */
export function prune(t: Type): Type {
  while (t.tag === 'var' && t.ref) t = t.ref;
  return t;
}

export function isInt(name: PrimName): boolean {
  return name[0] === 'i' || name[0] === 'u';
}

export function isSigned(name: PrimName): boolean {
  return name[0] === 'i';
}

export function isFloat(name: PrimName): boolean {
  return name[0] === 'f';
}

export function primBits(name: PrimName): number {
  return name === 'bool' ? 1 : Number(name.slice(1));
}

/** The spelling used in diagnostics, e.g. `&mut [f32]`, `fn(i32) -> i32`, `S[i32]`. */
export function typeToString(t: Type): string {
  t = prune(t);
  switch (t.tag) {
    case 'prim':
      return t.name;
    case 'tuple':
      return `(${t.elems.map(typeToString).join(', ')})`;
    case 'array':
      return `[${typeToString(t.elem)} * ${t.size}]`;
    case 'indefarray':
      return `[${typeToString(t.elem)}]`;
    case 'simd':
      return `simd[${typeToString(t.elem)} * ${t.size}]`;
    case 'ptr': {
      const as = t.addrSpace ? `[${t.addrSpace}]` : '';
      return `&${t.mutable ? 'mut' : ''}${as}${t.mutable || as ? ' ' : ''}${typeToString(t.pointee)}`;
    }
    case 'owned':
      return `~${typeToString(t.pointee)}`;
    case 'fn':
      return `fn(${t.params.map(typeToString).join(', ')}) -> ${t.ret ? typeToString(t.ret) : '!'}`;
    case 'struct':
    case 'enum':
      return t.args.length ? `${t.decl.name.name}[${t.args.map(typeToString).join(', ')}]` : t.decl.name.name;
    case 'param':
      return t.decl.name;
    case 'var':
      return t.lit === 'int' ? '{integer}' : t.lit === 'float' ? '{float}' : '_';
    case 'never':
      return '!';
    case 'error':
      return '<error>';
  }
}
