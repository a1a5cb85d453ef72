// What sema hands to emit: the checked modules plus the side tables that the AST
// has no field for.
import type {
  EnumDecl, Expr, ExprOf, FnDecl, Module, Pattern, StaticDecl, StructDecl,
} from '../syntax/ast.ts';
import type { LocalBinding, Type } from './types.ts';

/** A fn's signature; generic fns mention their own type parameters as `param` types. */
export interface FnSig {
  params: Type[];
  /** null for `-> !`. */
  ret: Type | null;
}

/** The continuation a `return`, `break` or `continue` expression denotes. */
export type JumpTarget =
  /** `return` of a fn item. */
  | { kind: 'fn'; decl: FnDecl }
  /** `return` of a closure. */
  | { kind: 'closure'; expr: ExprOf<'closure'> }
  /** `break`: the return continuation of the generator call; `continue`: the body's own return. */
  | { kind: 'for'; expr: ExprOf<'for'> }
  | { kind: 'while'; expr: ExprOf<'while'> }
  /** A parameter the user named `return`/`break`/`continue` (explicit CPS). */
  | { kind: 'local'; binding: LocalBinding };

/**
 * The checked program. Besides these tables, emit can rely on the AST annotations:
 * every Expr has a var-free `type` (generic bodies mention `param` types); path
 * expressions, struct literals, variant patterns and path type expressions have
 * `res`, whose `typeArgs` are concrete at uses outside generic fns.
 *
 * - `a(b)` is a call when `a.type` is a fn type, otherwise indexing of an array,
 *   tuple (index: an integer literal) or simd vector behind any number of pointers
 *   (`&`, `&mut`, `~`); field access looks through pointers the same way.
 * - `fn(A) -> R` and `fn(A, fn(R) -> !) -> !` are one type (`fn() -> !` for R = `()`);
 *   sema unifies the two spellings freely. A call whose callee type has one parameter
 *   more than the call has arguments, the last a continuation, is a direct-style call
 *   of a continuation-passing fn: emit passes the return continuation.
 * - The only implicit conversions are those in `coercions`; `never` values need none.
 */
export interface Program {
  /** As given to `checkProgram`: the prelude first. */
  modules: Module[];
  /** Every fn with a body, at any nesting depth: top-level items in source order, nested ones as found. */
  fns: FnDecl[];
  /**
   * Every body-less declaration of an `extern "…" { }` block. A user declaration that
   * repeats a prelude one is not listed: its uses resolve to the prelude's decl.
   */
  externs: FnDecl[];
  /** `extern fn` definitions: exported with the C ABI. */
  exports: FnDecl[];
  statics: StaticDecl[];
  /** The `main` fn of the user's top level, if any. */
  main: FnDecl | null;
  signature(decl: FnDecl): FnSig;
  staticType(decl: StaticDecl): Type;
  /** The type of a parameter (fn, closure, for) or a binding pattern. */
  bindingType(b: LocalBinding): Type;
  /** The type every pattern (and sub-pattern) matches. */
  patternType(p: Pattern): Type;
  /** Field types of `decl` instantiated with `args`. */
  fieldTypes(decl: StructDecl, args: readonly Type[]): Type[];
  /** Payload types of variant `index` of `decl` instantiated with `args`. */
  variantTypes(decl: EnumDecl, index: number, args: readonly Type[]): Type[];
  /**
   * Implicit coercions: the value of the key expression (of type `expr.type`) is used at
   * the mapped type. Pointer coercions: `&mut T` to `&T`, `&[T * N]` to `&[T]`
   * (also combined with the former), `~T` to `&T`/`&mut T`, a string literal
   * (`[u8 * N]`) to `&[u8]`/`&[u8 * N]` (its address) and the auto-borrow of a value;
   * and fn values between the two spellings of a continuation of a tuple (`contParams`).
   */
  coercions: ReadonlyMap<Expr, Type>;
  /** For every `return`/`break`/`continue` expression. */
  jumps: ReadonlyMap<Expr, JumpTarget>;
  /** The fn type of the body closure of every `for`/`with`. */
  forBodies: ReadonlyMap<ExprOf<'for'>, Type>;
  /**
   * Fn items nested in a body that use its locals or continuations (directly or
   * through another such fn): emitted inside that body, like closures. Never generic.
   */
  capturingFns: ReadonlySet<FnDecl>;
}
