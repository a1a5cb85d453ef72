// The data layout: size, alignment and field offsets of every IR type in memory. It is
// the one computation behind `sizeof`/`alignof`, the LLVM types the backend emits for
// variants, allocation sizes, and the addresses the interpreter gives pointers, so the
// interpreter (the oracle) and native code agree byte for byte. LLVM is the truth: for
// the types the backend emits, these numbers are what LLVM's data layout for the target
// computes (tests/ir/layout.test.ts and tests/backend/consts.test.ts compare them).
//
// Rules (LLVM's, for every target we emit): a scalar is aligned to its size (bool is a
// byte); a struct or tuple places each field at its alignment and pads its size to the
// largest one; a definite array is its elements back to back; a SIMD vector occupies its
// lanes' bits rounded up to bytes and is aligned (and padded) to that rounded up to a
// power of two, so `simd[bool * 8]` is one byte and `simd[f32 * 3]` sixteen; an
// indefinite array is sized 0 like LLVM's `[0 x T]` (it exists only behind pointers);
// a variant is a u32 tag followed by a payload area as large as the largest alternative
// and as aligned as the most aligned one (a C struct of a tag and a union). A function value is a
// pointer: after closure conversion only code pointers remain.
import {
  DefiniteArrayType, FnType, IndefiniteArrayType, type IRType, PrimType, PtrType, PtrVectorType, StructType, TupleType,
  VariantType,
} from './types.ts';

/** What a target decides about layout. Everything else follows LLVM's default rules above. */
export interface Target {
  /** Size and alignment of a pointer in bytes, in every address space not in `pointerIn`. */
  readonly pointer: number;
  /** Address spaces whose pointers have another size (NVPTX with short pointers: shared, const, local are 4). */
  readonly pointerIn?: Readonly<Record<number, number>>;
}

/** x86-64 Linux, what clang-19 lays out for the CPU backend. */
export const X86_64: Target = { pointer: 8 };

export interface Layout {
  readonly size: number;
  readonly align: number;
}

/** A tuple or struct: its fields' byte offsets, in order. */
export interface RecordLayout extends Layout {
  readonly offsets: readonly number[];
}

/** A variant: the u32 tag at offset 0, then the payload area. */
export interface VariantLayout extends Layout {
  readonly payloadOffset: number;
  /** Bytes of the payload area: the largest alternative rounded up to `payloadAlign`. */
  readonly payloadSize: number;
  /** The largest alignment of an alternative (at least 1). */
  readonly payloadAlign: number;
}

/** Variant tags are u32 (the backend's `i32`). */
const TAG_BYTES = 4;

export class DataLayout {
  private readonly cache = new WeakMap<IRType, Layout>();

  constructor(readonly target: Target) {}

  /** Allocation size (a multiple of the alignment) and ABI alignment of `t`. */
  of(t: IRType): Layout {
    let l = this.cache.get(t);
    if (!l) this.cache.set(t, (l = this.compute(t)));
    return l;
  }

  size(t: IRType): number {
    return this.of(t).size;
  }

  align(t: IRType): number {
    return this.of(t).align;
  }

  record(t: TupleType | StructType): RecordLayout {
    return this.of(t) as RecordLayout;
  }

  variant(t: VariantType): VariantLayout {
    return this.of(t) as VariantLayout;
  }

  /** Bytes from the start of a `t` to its element `index`: a field, an array element or a vector lane. */
  offset(t: IRType, index: number): number {
    if (t instanceof TupleType || t instanceof StructType) {
      const o = this.record(t).offsets[index];
      if (o === undefined) throw new Error(`${t} has no field ${index}`);
      return o;
    }
    if (t instanceof DefiniteArrayType || t instanceof IndefiniteArrayType) return index * this.size(t.elem);
    if (t instanceof PrimType && t.length > 1) return index * this.size(t.scalar);
    if (t instanceof PtrVectorType) return index * this.size(t.lane);
    throw new Error(`${t} has no elements`);
  }

  pointerSize(addrSpace: number): number {
    return this.target.pointerIn?.[addrSpace] ?? this.target.pointer;
  }

  private compute(t: IRType): Layout {
    if (t instanceof PrimType) {
      if (t.length === 1) {
        const bytes = t.isBool ? 1 : t.bits / 8;
        return { size: bytes, align: bytes };
      }
      return vector(Math.ceil((t.bits * t.length) / 8));
    }
    if (t instanceof PtrType) return scalar(this.pointerSize(t.addrSpace));
    if (t instanceof PtrVectorType) return vector(this.pointerSize(t.lane.addrSpace) * t.length);
    if (t instanceof FnType) return scalar(this.target.pointer);
    if (t instanceof TupleType) return this.fields(t.elems);
    if (t instanceof StructType) return this.fields(t.fields);
    if (t instanceof DefiniteArrayType) {
      const e = this.of(t.elem);
      return { size: e.size * t.dim, align: e.align };
    }
    if (t instanceof IndefiniteArrayType) return { size: 0, align: this.align(t.elem) };
    if (t instanceof VariantType) {
      let largest = 0;
      let payloadAlign = 1;
      for (const v of t.variants) {
        const l = this.of(v);
        largest = Math.max(largest, l.size);
        payloadAlign = Math.max(payloadAlign, l.align);
      }
      const align = Math.max(TAG_BYTES, payloadAlign);
      const payloadOffset = roundUp(TAG_BYTES, payloadAlign);
      const payloadSize = roundUp(largest, payloadAlign);
      const v: VariantLayout = { size: roundUp(payloadOffset + payloadSize, align), align, payloadOffset, payloadSize, payloadAlign };
      return v;
    }
    throw new Error(`the type ${t} has no representation in memory`);
  }

  private fields(elems: readonly IRType[]): RecordLayout {
    const offsets: number[] = [];
    let size = 0;
    let align = 1;
    for (const e of elems) {
      const l = this.of(e);
      size = roundUp(size, l.align);
      offsets.push(size);
      size += l.size;
      align = Math.max(align, l.align);
    }
    return { size: roundUp(size, align), align, offsets };
  }
}

function scalar(bytes: number): Layout {
  return { size: bytes, align: bytes };
}

/** LLVM's natural vector alignment: the store size rounded up to a power of two. */
function vector(storeBytes: number): Layout {
  const align = 2 ** Math.ceil(Math.log2(storeBytes));
  return { size: roundUp(storeBytes, align), align };
}

function roundUp(n: number, align: number): number {
  return Math.ceil(n / align) * align;
}

/** The CPU's layout (the LLVM backend and the interpreter). */
export const cpuLayout = new DataLayout(X86_64);
