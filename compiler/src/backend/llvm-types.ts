// IR types as LLVM 19 types (opaque pointers). Sizes and alignments are ir/layout.ts's;
// the one type whose shape the backend chooses, the variant, is spelled so that LLVM
// lays it out exactly as that module says.
import { cpuLayout } from '../ir/layout.ts';
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
  if (t instanceof VariantType) return `{ i32, ${variantPayloadType(t)} }`;
  if (t instanceof IndefiniteArrayType) throw new BackendError(`the indefinite array type ${t} exists only behind pointers`);
  throw new BackendError(`the type ${t} has no run-time representation (a ${t} value escaped into data)`);
}

function structOf(elems: readonly IRType[]): string {
  return elems.length === 0 ? '{}' : `{ ${elems.map(llvmType).join(', ')} }`;
}

/**
 * The payload area of a variant: `[k x U]` where U is an LLVM type whose size and alignment
 * are both the payload alignment (an integer up to 8 bytes, a vector of i64 beyond), so
 * LLVM puts it at the layout's payload offset and gives the struct the layout's size.
 */
export function variantPayloadType(t: VariantType): string {
  const { payloadSize, payloadAlign } = cpuLayout.variant(t);
  const unit = payloadAlign <= 8 ? `i${8 * payloadAlign}` : `<${payloadAlign / 8} x i64>`;
  return `[${payloadSize / payloadAlign} x ${unit}]`;
}

/**
 * The value a function returns through its return continuation `fn(mem, R)`; null for void.
 * A continuation taking several values `fn(mem, A, B)` (the continuation form of a function
 * returning a tuple) returns them as one struct `{ A, B }`, the type a function returning
 * `(A, B)` has, so both spellings have one C ABI.
 */
export function returnValueType(fnType: FnType): IRType | null {
  const ret = fnType.params[fnType.params.length - 1];
  if (!(ret instanceof FnType)) return null;
  const values = ret.params.filter((p) => !isErased(p));
  if (values.length > 1) return new TupleType(values);
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
