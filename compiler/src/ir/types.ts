// IR types. Structural types are interned by the World (one object per type, so
// `===` is type equality); structs and variants are nominal and created fresh.

export type PrimTypeName =
  | 'bool' | 'i8' | 'i16' | 'i32' | 'i64' | 'u8' | 'u16' | 'u32' | 'u64' | 'f16' | 'f32' | 'f64';

let nextTypeGid = 0;

export abstract class IRType {
  readonly gid = nextTypeGid++;
  abstract toString(): string;
}

/** A scalar (`length` 1) or a SIMD vector of `length` lanes. */
export class PrimType extends IRType {
  /** The lane type of a vector; the type itself for a scalar. */
  readonly scalar: PrimType;
  constructor(readonly prim: PrimTypeName, readonly length: number, scalar?: PrimType) {
    super();
    this.scalar = scalar ?? this;
  }
  get isInt(): boolean {
    return this.prim[0] === 'i' || this.prim[0] === 'u';
  }
  get isSigned(): boolean {
    return this.prim[0] === 'i';
  }
  get isFloat(): boolean {
    return this.prim[0] === 'f';
  }
  get isBool(): boolean {
    return this.prim === 'bool';
  }
  get bits(): number {
    return this.prim === 'bool' ? 1 : Number(this.prim.slice(1));
  }
  toString(): string {
    return this.length === 1 ? this.prim : `<${this.length} x ${this.prim}>`;
  }
}

/** The memory token threaded through every effect. */
export class MemType extends IRType {
  toString(): string {
    return 'mem';
  }
}

/** The stack frame that `slot`s live in, produced by `enter`. */
export class FrameType extends IRType {
  toString(): string {
    return 'frame';
  }
}

export class PtrType extends IRType {
  constructor(readonly pointee: IRType, readonly addrSpace: number) {
    super();
  }
  toString(): string {
    return `${this.pointee}*${this.addrSpace ? `[${this.addrSpace}]` : ''}`;
  }
}

/**
 * A SIMD vector of `length` pointers (LLVM `<N x ptr>`): the addresses of a gather
 * or scatter. Only the vectoriser makes these, as `lea` with a vector index.
 */
export class PtrVectorType extends IRType {
  constructor(readonly lane: PtrType, readonly length: number) {
    super();
  }
  toString(): string {
    return `<${this.length} x ${this.lane}>`;
  }
}

export class TupleType extends IRType {
  constructor(readonly elems: readonly IRType[]) {
    super();
  }
  toString(): string {
    return `(${this.elems.join(', ')})`;
  }
}

export class DefiniteArrayType extends IRType {
  constructor(readonly elem: IRType, readonly dim: number) {
    super();
  }
  toString(): string {
    return `[${this.dim} x ${this.elem}]`;
  }
}

export class IndefiniteArrayType extends IRType {
  constructor(readonly elem: IRType) {
    super();
  }
  toString(): string {
    return `[${this.elem}]`;
  }
}

/** The type of a continuation: it takes these params and never returns. */
export class FnType extends IRType {
  constructor(readonly params: readonly IRType[]) {
    super();
  }
  /** A continuation whose params contain no function: a basic block candidate. */
  get isFirstOrder(): boolean {
    return this.params.every((p) => !(p instanceof FnType));
  }
  /** Counts nesting of function types: 1 for a basic block, 2 for a returning function, … */
  get order(): number {
    return typeOrder(this);
  }
  toString(): string {
    return `fn(${this.params.join(', ')})`;
  }
}

/** Nominal struct; `fields` are filled after creation so structs may be recursive through pointers. */
export class StructType extends IRType {
  fields: IRType[] = [];
  fieldNames: string[] = [];
  constructor(readonly name: string) {
    super();
  }
  toString(): string {
    return `struct ${this.name}`;
  }
}

/** Nominal tagged union (Impala enums); variant i carries a value of `variants[i]` (a tuple). */
export class VariantType extends IRType {
  variants: IRType[] = [];
  variantNames: string[] = [];
  constructor(readonly name: string) {
    super();
  }
  toString(): string {
    return `enum ${this.name}`;
  }
}

/**
 * How deeply function types nest in `t`: 0 for data, 1 for a basic block, 2 for a returning
 * function, … A struct met again inside itself (`struct S { f: fn(i32, S) -> i32 }`) adds
 * nothing its first visit does not already count, so the walk stops there.
 */
export function typeOrder(t: IRType, visiting?: Set<StructType>): number {
  if (t instanceof FnType) {
    let o = 0;
    for (const p of t.params) o = Math.max(o, typeOrder(p, visiting));
    return o + 1;
  }
  if (t instanceof StructType) {
    visiting ??= new Set();
    if (visiting.has(t)) return 0;
    visiting.add(t);
    let o = 0;
    for (const f of t.fields) o = Math.max(o, typeOrder(f, visiting));
    visiting.delete(t);
    return o;
  }
  if (t instanceof TupleType) {
    let o = 0;
    for (const e of t.elems) o = Math.max(o, typeOrder(e, visiting));
    return o;
  }
  if (t instanceof DefiniteArrayType || t instanceof IndefiniteArrayType) return typeOrder(t.elem, visiting);
  return 0;
}

/** Interns structural types so each exists once. */
export class TypeTable {
  private readonly table = new Map<string, IRType>();
  readonly mem = new MemType();
  readonly frame = new FrameType();

  private intern<T extends IRType>(key: string, make: () => T): T {
    let t = this.table.get(key);
    if (!t) this.table.set(key, (t = make()));
    return t as T;
  }

  prim(prim: PrimTypeName, length = 1): PrimType {
    const scalar = length === 1 ? undefined : this.prim(prim);
    return this.intern(`p:${prim}:${length}`, () => new PrimType(prim, length, scalar));
  }
  ptr(pointee: IRType, addrSpace = 0): PtrType {
    return this.intern(`*:${pointee.gid}:${addrSpace}`, () => new PtrType(pointee, addrSpace));
  }
  ptrVector(lane: PtrType, length: number): PtrVectorType {
    return this.intern(`*v:${lane.gid}:${length}`, () => new PtrVectorType(lane, length));
  }
  tuple(elems: readonly IRType[]): TupleType {
    return this.intern(`t:${elems.map((e) => e.gid).join(',')}`, () => new TupleType([...elems]));
  }
  unit(): TupleType {
    return this.tuple([]);
  }
  definiteArray(elem: IRType, dim: number): DefiniteArrayType {
    return this.intern(`da:${elem.gid}:${dim}`, () => new DefiniteArrayType(elem, dim));
  }
  indefiniteArray(elem: IRType): IndefiniteArrayType {
    return this.intern(`ia:${elem.gid}`, () => new IndefiniteArrayType(elem));
  }
  fn(params: readonly IRType[]): FnType {
    return this.intern(`fn:${params.map((e) => e.gid).join(',')}`, () => new FnType([...params]));
  }
  struct(name: string): StructType {
    return new StructType(name);
  }
  variant(name: string): VariantType {
    return new VariantType(name);
  }
}
