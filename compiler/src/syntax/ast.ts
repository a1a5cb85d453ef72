// The Impala abstract syntax tree. The parser builds it; sema annotates it in
// place (the optional `type`/`res` fields); emit reads it. Every node has a
// unique `id` and a `span`.
import type { Span } from './diagnostics.ts';

/**
 * The types of what sema writes into the tree (`type` of an expression, `res`
 * of a path), declared by sema/types.ts through declaration merging: sema is the
 * layer above, so the tree names the slots and sema says what goes in them.
 */
export interface SemaAnnotations {}

/** The type sema declares for annotation `K`; `unknown` where no sema is part of the program. */
type Annotation<K extends string> = K extends keyof SemaAnnotations ? SemaAnnotations[K] : unknown;
type Type = Annotation<'type'>;
type Resolution = Annotation<'res'>;

export interface Node {
  id: number;
  span: Span;
}

export interface Ident extends Node {
  name: string;
}

// ---------------------------------------------------------------- filters

/** `@` (always), `@(expr)`, or `@?` (on a parameter: "specialise when known"). */
export type Filter =
  | { kind: 'always'; span: Span }
  | { kind: 'expr'; expr: Expr; span: Span }
  | { kind: 'known'; span: Span };

// ---------------------------------------------------------------- types

export type PrimName =
  | 'bool' | 'i8' | 'i16' | 'i32' | 'i64' | 'u8' | 'u16' | 'u32' | 'u64' | 'f16' | 'f32' | 'f64';

export type TypeExpr =
  | (Node & { kind: 'prim'; name: PrimName })
  /** `()` is a tuple with no elements. */
  | (Node & { kind: 'tuple'; elems: TypeExpr[] })
  /** `[T * N]` when size is a number, `[T]` when null. */
  | (Node & { kind: 'array'; elem: TypeExpr; size: number | null })
  | (Node & { kind: 'simd'; elem: TypeExpr; size: number })
  /** `&T`, `&mut T`, `&[1]T`, `&mut[3][f32]`; addrSpace 0 is generic. */
  | (Node & { kind: 'ptr'; pointee: TypeExpr; mutable: boolean; addrSpace: number })
  /** `~T` */
  | (Node & { kind: 'owned'; pointee: TypeExpr })
  /** `fn(A, B) -> R`; ret null means `-> !` (a continuation); an omitted return is `()`. */
  | (Node & { kind: 'fn'; params: TypeExpr[]; ret: TypeExpr | null })
  /** Nominal type, alias or type parameter: `S`, `S[i32]`, `m::T`. */
  | (Node & { kind: 'path'; path: Path; res?: Resolution })
  | (Node & { kind: 'typeof'; expr: Expr })
  /** `_`: leave it to inference. */
  | (Node & { kind: 'infer' });

// ---------------------------------------------------------------- paths

export interface PathSegment extends Node {
  name: string;
  /** `f[T, U]` */
  typeArgs: TypeExpr[];
}

export interface Path extends Node {
  segments: PathSegment[];
}

// ---------------------------------------------------------------- items

export interface TypeParam extends Node {
  name: string;
}

export interface Param extends Node {
  /** null for a type-only parameter in a declaration such as `fn f(i32) -> ()`. */
  name: Ident | null;
  mutable: boolean;
  /** null when omitted (closure parameters, for/with parameters). */
  type: TypeExpr | null;
  filter: Filter | null;
}

export type Abi = 'C' | 'device' | 'thorin';

export interface FnDecl extends Node {
  kind: 'fn';
  name: Ident;
  /** Explicit symbol for extern declarations: `fn "llvm.sqrt.f32" sqrt(f32) -> f32;` */
  linkName: string | null;
  typeParams: TypeParam[];
  params: Param[];
  /** Declared return type; null when omitted (means `()`), unless `diverges`. */
  retType: TypeExpr | null;
  /** `-> !` */
  diverges: boolean;
  filter: Filter | null;
  /** null for declarations inside `extern "…" { }` blocks. */
  body: Block | null;
  /** `extern fn name(...) { }`: exported with the C ABI. */
  exported: boolean;
  /** Set for declarations inside an `extern "ABI" { }` block. */
  abi: Abi | null;
  isPub: boolean;
}

export interface ExternBlock extends Node {
  kind: 'extern';
  abi: Abi;
  fns: FnDecl[];
}

export interface StaticDecl extends Node {
  kind: 'static';
  name: Ident;
  mutable: boolean;
  type: TypeExpr | null;
  /** Null for `static mut x: T;`, which starts zeroed. */
  init: Expr | null;
  isPub: boolean;
}

export interface FieldDecl extends Node {
  name: Ident;
  type: TypeExpr;
  isPub: boolean;
}

export interface StructDecl extends Node {
  kind: 'struct';
  name: Ident;
  typeParams: TypeParam[];
  fields: FieldDecl[];
  isPub: boolean;
}

export interface VariantDecl extends Node {
  name: Ident;
  /** Tuple-like payload `A(T, U)`; empty for a unit variant. */
  fields: TypeExpr[];
}

export interface EnumDecl extends Node {
  kind: 'enum';
  name: Ident;
  typeParams: TypeParam[];
  variants: VariantDecl[];
  isPub: boolean;
}

export interface TypeAliasDecl extends Node {
  kind: 'typealias';
  name: Ident;
  typeParams: TypeParam[];
  type: TypeExpr;
  isPub: boolean;
}

export interface ModDecl extends Node {
  kind: 'mod';
  name: Ident;
  items: Item[];
  isPub: boolean;
}

/** Traits and impls are parsed and kept; later issues give them meaning. */
export interface TraitDecl extends Node {
  kind: 'trait';
  name: Ident;
  typeParams: TypeParam[];
  items: Item[];
}

export interface ImplDecl extends Node {
  kind: 'impl';
  typeParams: TypeParam[];
  trait: TypeExpr | null;
  forType: TypeExpr;
  items: Item[];
}

export type Item = FnDecl | ExternBlock | StaticDecl | StructDecl | EnumDecl | TypeAliasDecl | ModDecl | TraitDecl | ImplDecl;

export interface Module extends Node {
  file: string;
  items: Item[];
}

// ---------------------------------------------------------------- patterns

export type Pattern =
  | (Node & { kind: 'bind'; name: Ident; mutable: boolean })
  | (Node & { kind: 'wild' })
  | (Node & { kind: 'lit'; lit: Literal })
  | (Node & { kind: 'tuple'; elems: Pattern[] })
  /** `E::A`, `E::B(x, _)`; `res` is filled by sema. */
  | (Node & { kind: 'variant'; path: Path; args: Pattern[] | null; res?: Resolution });

// ---------------------------------------------------------------- expressions

export type IntSuffix = 'i' | 'u' | 'i8' | 'i16' | 'i32' | 'i64' | 'u8' | 'u16' | 'u32' | 'u64';
export type FloatSuffix = 'h' | 'f' | 'f16' | 'f32' | 'f64';

export type Literal =
  /** An integer literal with a float suffix (`1024f`) is kept as int with that suffix. */
  | { kind: 'int'; value: bigint; suffix: IntSuffix | FloatSuffix | null }
  | { kind: 'float'; value: number; suffix: FloatSuffix | null }
  | { kind: 'bool'; value: boolean }
  /** `'a'`: a u8. */
  | { kind: 'char'; value: number }
  /** Bytes without the terminating NUL (adjacent strings already joined). */
  | { kind: 'str'; value: Uint8Array };

export type UnaryOp = '-' | '+' | '!' | '*' | '&' | '&mut' | '~' | '++' | '--';
export type BinaryOp =
  | '||' | '&&' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '|' | '^' | '&' | '<<' | '>>' | '+' | '-' | '*' | '/' | '%';
export type AssignOp = '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=';

interface ExprBase extends Node {
  /** Filled by sema. */
  type?: Type;
}

export type Expr =
  | (ExprBase & { kind: 'lit'; lit: Literal })
  | (ExprBase & { kind: 'path'; path: Path; res?: Resolution })
  /** Calls and indexing share syntax: `f(x)`, `a(i)`, `t(0)`. */
  | (ExprBase & { kind: 'call'; callee: Expr; args: Expr[] })
  | (ExprBase & { kind: 'field'; object: Expr; field: Ident })
  | (ExprBase & { kind: 'tuple'; elems: Expr[] })
  | (ExprBase & { kind: 'array'; elems: Expr[] })
  /** `[e, .. N]` */
  | (ExprBase & { kind: 'repeat'; value: Expr; count: number })
  /** `~[n: T]`: uninitialised heap array of dynamic size. */
  | (ExprBase & { kind: 'heaparray'; size: Expr; elemType: TypeExpr })
  | (ExprBase & { kind: 'simd'; elems: Expr[] })
  | (ExprBase & { kind: 'struct'; path: Path; fields: { name: Ident; value: Expr }[]; res?: Resolution })
  /** Prefix operators, and postfix `++`/`--` when `postfix`. */
  | (ExprBase & { kind: 'unary'; op: UnaryOp; operand: Expr; postfix: boolean })
  | (ExprBase & { kind: 'binary'; op: BinaryOp; lhs: Expr; rhs: Expr })
  | (ExprBase & { kind: 'assign'; op: AssignOp; lhs: Expr; rhs: Expr })
  | (ExprBase & { kind: 'cast'; expr: Expr; target: TypeExpr })
  | (ExprBase & { kind: 'if'; cond: Expr; then: Block; else: Expr | null })
  | (ExprBase & { kind: 'match'; scrutinee: Expr; arms: MatchArm[] })
  | (ExprBase & { kind: 'while'; cond: Expr; body: Block })
  /**
   * `for params in gen(args) [filter] { body }`: sugar for `gen(args, |params, continue| body)`
   * with `break` bound to the return continuation of that call. `isWith` for `with` (no continue).
   */
  | (ExprBase & { kind: 'for'; params: Param[]; generator: Expr; filter: Filter | null; body: Block; isWith: boolean })
  | (ExprBase & { kind: 'block'; block: Block })
  | (ExprBase & {
      kind: 'closure';
      params: Param[];
      retType: TypeExpr | null;
      diverges: boolean;
      filter: Filter | null;
      body: Expr;
    })
  /** `return`, `break`, `continue` as first-class continuations. `res` points at what they leave. */
  | (ExprBase & { kind: 'return' })
  | (ExprBase & { kind: 'break' })
  | (ExprBase & { kind: 'continue' })
  /** `@@f(args)` */
  | (ExprBase & { kind: 'run'; call: Expr })
  /** `$e` */
  | (ExprBase & { kind: 'hlt'; expr: Expr })
  /** `?e` */
  | (ExprBase & { kind: 'known'; expr: Expr })
  | (ExprBase & {
      kind: 'asm';
      template: string;
      outputs: { constraint: string; expr: Expr }[];
      inputs: { constraint: string; expr: Expr }[];
      clobbers: string[];
      options: string[];
    });

export interface MatchArm extends Node {
  pattern: Pattern;
  body: Expr;
}

export type Stmt =
  /** `let pat [: T] [= init];` */
  | (Node & { kind: 'let'; pattern: Pattern; type: TypeExpr | null; init: Expr | null })
  | (Node & { kind: 'item'; item: Item })
  /** `semi` is false for a block-like expression statement without `;` (if, while, for, match, block). */
  | (Node & { kind: 'expr'; expr: Expr; semi: boolean });

export interface Block extends Node {
  stmts: Stmt[];
  /** The trailing expression without `;`, the block's value; null means `()`. */
  expr: Expr | null;
}

export type ExprKind = Expr['kind'];
export type ExprOf<K extends ExprKind> = Extract<Expr, { kind: K }>;
