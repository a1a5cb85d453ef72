// Sizes and alignments as the x86-64 LLVM data layout gives them, for `sizeof`,
// `alignof` and for turning the byte sizes and offsets of the C runtime API into
// element counts of the interpreter's typed memory.
import {
  DefiniteArrayType, FnType, IndefiniteArrayType, type IRType, PrimType, PtrType, StructType, TupleType,
  VariantType,
} from '../ir/types.ts';

interface Layout {
  size: number;
  align: number;
}

const cache = new WeakMap<IRType, Layout>();

function layoutOf(t: IRType): Layout {
  let l = cache.get(t);
  if (!l) cache.set(t, (l = compute(t)));
  return l;
}

export function sizeOf(t: IRType): number {
  return layoutOf(t).size;
}

export function alignOf(t: IRType): number {
  return layoutOf(t).align;
}

function roundUp(n: number, align: number): number {
  return Math.ceil(n / align) * align;
}

/** C struct layout: each field at its alignment, the size padded to the largest one. */
function record(fields: readonly IRType[]): Layout {
  let size = 0;
  let align = 1;
  for (const f of fields) {
    const l = layoutOf(f);
    size = roundUp(size, l.align) + l.size;
    align = Math.max(align, l.align);
  }
  return { size: roundUp(size, align), align };
}

function compute(t: IRType): Layout {
  if (t instanceof PrimType) {
    const lane = t.isBool ? 1 : t.bits / 8;
    if (t.length === 1) return { size: lane, align: lane };
    // LLVM vectors are aligned (and padded) to the next power of two of their size.
    const size = 2 ** Math.ceil(Math.log2(lane * t.length));
    return { size, align: size };
  }
  if (t instanceof PtrType || t instanceof FnType) return { size: 8, align: 8 };
  if (t instanceof TupleType) return record(t.elems);
  if (t instanceof StructType) return record(t.fields);
  if (t instanceof DefiniteArrayType) {
    const e = layoutOf(t.elem);
    return { size: e.size * t.dim, align: e.align };
  }
  if (t instanceof IndefiniteArrayType) return { size: 0, align: layoutOf(t.elem).align };
  if (t instanceof VariantType) {
    // A u32 tag followed by the largest payload.
    let size = 0;
    let align = 4;
    for (const v of t.variants) {
      const l = layoutOf(v);
      size = Math.max(size, l.size);
      align = Math.max(align, l.align);
    }
    return { size: roundUp(roundUp(4, align) + size, align), align };
  }
  return { size: 0, align: 1 };
}
