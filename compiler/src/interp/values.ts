// Run-time values of the IR interpreter. Scalars are plain JS values so tests can
// compare them directly; everything with identity (pointers, closures, tokens) is
// a class so it can be told apart with `instanceof`.
import type { Continuation, PrimOp } from '../ir/defs.ts';
import {
  DefiniteArrayType, FnType, IndefiniteArrayType, type IRType, MemType, PrimType, PtrType, StructType, TupleType,
  VariantType,
} from '../ir/types.ts';

/** A failure of the interpreted program (or of the interpreter's model of it), never a JS bug. */
export class InterpError extends Error {
  override readonly name = 'InterpError';
  /** What the program printed before it failed. */
  stdout = '';
}

/** The memory token and the stack-frame token of `enter`: they carry no data, only ordering. */
export class Token {
  constructor(readonly kind: 'mem' | 'frame') {}
}

export const MEM = new Token('mem');

/** A value of an Impala enum. */
export class VariantValue {
  constructor(readonly tag: number, readonly value: Value) {}
}

/**
 * A heap, stack or global object. `type` is the type of `root`; memory from
 * `anydsl_alloc` starts untyped (only a byte size) and takes the type of its first typed use.
 */
export class MemBlock {
  freed = false;
  constructor(
    public type: IRType | null,
    public root: Value,
    /** Byte size of an untyped block; null once typed or when created typed. */
    readonly bytes: number | null,
    readonly what: string,
    readonly mutable = true,
  ) {}
}

/** An address: a block and the path of element indices from its root (`lea` appends one). */
export class Pointer {
  constructor(readonly block: MemBlock | null, readonly path: readonly number[]) {}
}

/** A continuation together with the activation its free params are read from. */
export class Closure {
  constructor(readonly continuation: Continuation, readonly env: Frame | null) {}
}

/** What a jump evaluates to: where control goes next and with which arguments. */
export interface Jump {
  readonly callee: Value;
  readonly args: readonly Value[];
}

/**
 * A continuation implemented in JS: the final return of `interpret`, the loop of
 * `parallel`, … It returns the next jump, or null when the program has finished.
 */
export class NativeFn {
  constructor(readonly name: string, readonly call: (args: readonly Value[]) => Jump | null) {}
}

export type Value =
  | boolean
  | bigint
  | number
  | Value[]
  | VariantValue
  | Pointer
  | Closure
  | NativeFn
  | Token;

/**
 * One activation of a continuation: the values its params were bound to when it was
 * jumped to, the activation its free params come from (`parent`), and the values of
 * the primops that depend on this activation, each computed at most once: those of
 * the continuation's body in `local` (at the positions `slots` gives), any others
 * (used only by nested continuations) in `memo`.
 */
export class Frame {
  readonly local: Value[];
  private table: Map<PrimOp, Value> | null = null;
  constructor(
    readonly continuation: Continuation,
    readonly args: readonly Value[],
    readonly parent: Frame | null,
    readonly slots: ReadonlyMap<PrimOp, number>,
    size: number,
  ) {
    this.local = new Array<Value>(size);
  }

  /** Created on first use: most activations compute nothing for nested continuations. */
  get memo(): Map<PrimOp, Value> {
    return (this.table ??= new Map());
  }
}

/** The value uninitialised memory and `undef` read as: zero of the type. */
export function defaultValue(t: IRType): Value {
  if (t instanceof PrimType) {
    const zero: Value = t.isBool ? false : t.isFloat ? 0 : 0n;
    return t.length === 1 ? zero : new Array<Value>(t.length).fill(zero);
  }
  if (t instanceof PtrType) return new Pointer(null, []);
  if (t instanceof TupleType) return t.elems.map(defaultValue);
  if (t instanceof StructType) return t.fields.map(defaultValue);
  if (t instanceof DefiniteArrayType) return Array.from({ length: t.dim }, () => defaultValue(t.elem));
  if (t instanceof IndefiniteArrayType) return [];
  if (t instanceof VariantType) return new VariantValue(0, defaultValue(t.variants[0] ?? new TupleType([])));
  if (t instanceof FnType) return undefinedFunction;
  return t instanceof MemType ? MEM : new Token('frame');
}

const undefinedFunction = new NativeFn('undef', () => {
  throw new InterpError('call of an undefined function value');
});

/** Aggregates are JS arrays; values are immutable, so copy before memory or `insert` could share them. */
export function copyValue(v: Value): Value {
  if (Array.isArray(v)) return v.map(copyValue);
  if (v instanceof VariantValue) return new VariantValue(v.tag, copyValue(v.value));
  return v;
}

/** Structural equality of first-order values (match cases, cmpxchg). */
export function sameValue(a: Value, b: Value): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]!));
  if (a instanceof Pointer && b instanceof Pointer) {
    return a.block === b.block && a.path.length === b.path.length && a.path.every((x, i) => x === b.path[i]);
  }
  if (a instanceof VariantValue && b instanceof VariantValue) return a.tag === b.tag && sameValue(a.value, b.value);
  return a === b;
}

/** Short rendering for error messages. */
export function showValue(v: Value): string {
  if (typeof v === 'bigint') return `${v}`;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(showValue).join(', ')}]`;
  if (v instanceof VariantValue) return `variant ${v.tag}(${showValue(v.value)})`;
  if (v instanceof Pointer) return v.block ? `&${v.block.what}${v.path.map((i) => `[${i}]`).join('')}` : 'null';
  if (v instanceof Closure) return `closure ${v.continuation.label}`;
  if (v instanceof NativeFn) return `native ${v.name}`;
  return v.kind;
}
