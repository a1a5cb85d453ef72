// IR types as LLVM 19 types (opaque pointers), and the x86-64 data layout that
// `sizeof`/`alignof` and variant payloads are computed from.
import {
  DefiniteArrayType, FnType, FrameType, IndefiniteArrayType, type IRType, MemType, PrimType, PtrType, PtrVectorType,
  StructType, TupleType, VariantType,
} from '../ir/types.ts';
import { BackendError } from './errors.ts';

/** Types without run-time content: the mem token, the frame and `()`. They vanish from signatures and phis. */
export function isErased(t: IRType): boolean {
  return t instanceof MemType || t instanceof FrameType || (t instanceof TupleType && t.elems.length === 0);
}

const primNames: Record<string, string> = {
  bool: 'i1', i8: 'i8', u8: 'i8', i16: 'i16', u16: 'i16', i32: 'i32', u32: 'i32', i64: 'i64', u64: 'i64',
  f16: 'half', f32: 'float', f64: 'double',
};

export function llvmType(t: IRType): string {
  if (t instanceof PrimType) {
    const s = primNames[t.prim]!;
    return t.length === 1 ? s : `<${t.length} x ${s}>`;
  }
  if (t instanceof PtrType) return t.addrSpace ? `ptr addrspace(${t.addrSpace})` : 'ptr';
  if (t instanceof PtrVectorType) return `<${t.length} x ${llvmType(t.lane)}>`;
  // A function value is a function pointer (closures were converted into records of one).
  if (t instanceof FnType) return 'ptr';
  if (t instanceof TupleType) return structOf(t.elems);
  if (t instanceof StructType) return structOf(t.fields);
  if (t instanceof DefiniteArrayType) return `[${t.dim} x ${llvmType(t.elem)}]`;
  if (t instanceof VariantType) return `{ i32, [${variantPayloadWords(t)} x i64] }`;
  if (t instanceof IndefiniteArrayType) throw new BackendError(`the indefinite array type ${t} exists only behind pointers`);
  throw new BackendError(`the type ${t} has no run-time representation (a ${t} value escaped into data)`);
}

function structOf(elems: readonly IRType[]): string {
  return elems.length === 0 ? '{}' : `{ ${elems.map(llvmType).join(', ')} }`;
}

/** Variants are `{ i32 tag, [k x i64] payload }`: k words hold the largest alternative. */
export function variantPayloadWords(t: VariantType): number {
  return Math.ceil(Math.max(0, ...t.variants.map((v) => layout(v).size)) / 8);
}

export interface Layout {
  size: number;
  align: number;
}

/** Allocation size and ABI alignment, as LLVM's default x86-64 data layout computes them. */
export function layout(t: IRType): Layout {
  if (t instanceof PrimType) {
    const bytes = Math.ceil((t.bits * t.length) / 8);
    if (t.length === 1) return { size: bytes, align: bytes };
    // Vectors are aligned to their size rounded up to a power of two.
    const align = 2 ** Math.ceil(Math.log2(bytes));
    return { size: roundUp(bytes, align), align };
  }
  if (t instanceof PtrType || t instanceof FnType) return { size: 8, align: 8 };
  if (t instanceof TupleType || t instanceof StructType) {
    let size = 0;
    let align = 1;
    for (const e of t instanceof TupleType ? t.elems : t.fields) {
      const l = layout(e);
      size = roundUp(size, l.align) + l.size;
      align = Math.max(align, l.align);
    }
    return { size: roundUp(size, align), align };
  }
  if (t instanceof DefiniteArrayType) {
    const l = layout(t.elem);
    return { size: l.size * t.dim, align: l.align };
  }
  if (t instanceof VariantType) return { size: 8 + 8 * variantPayloadWords(t), align: 8 };
  throw new BackendError(`the type ${t} has no size`);
}

function roundUp(n: number, align: number): number {
  return Math.ceil(n / align) * align;
}

/** The value a function returns through its return continuation `fn(mem, R)`; null for void. */
export function returnValueType(fnType: FnType): IRType | null {
  const ret = fnType.params[fnType.params.length - 1];
  if (!(ret instanceof FnType)) return null;
  const values = ret.params.filter((p) => !isErased(p));
  if (values.length > 1) throw new BackendError(`the return continuation ${ret} passes more than one value`);
  return values[0] ?? null;
}

/** The run-time parameters of a function of type `fnType`: no mem, no units, no return continuation. */
export function valueParamTypes(fnType: FnType): IRType[] {
  const ps = fnType.params[fnType.params.length - 1] instanceof FnType ? fnType.params.slice(0, -1) : fnType.params;
  return ps.filter((p) => !isErased(p));
}

/** The C ABI extends small integers at calls (clang relies on it); we say so on every signature. */
export function extAttr(t: IRType): string {
  if (!(t instanceof PrimType) || t.length !== 1) return '';
  if (t.isBool || t.prim === 'u8' || t.prim === 'u16') return ' zeroext';
  if (t.prim === 'i8' || t.prim === 'i16') return ' signext';
  return '';
}
