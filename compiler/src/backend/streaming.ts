// Streaming stores: the LLVM side of a store's `nontemporal` hint (ir/defs.ts StoreHint).
//
// Scalar stores stay plain: a row's edges are written by scalar and masked stores around
// the streaming ones, and a line written both ways leaves the write-combining buffer early
// (box3 on 1448² i32 ran 5% slower with streamed scalars). A contiguous vector store
// reaches here as the vectoriser's `anydsl.masked.store_nontemporal.<lanes>.<where>`, with
// `llvm.masked.store`'s operands, which this backend defines instead of declaring: x86 only
// streams a register to an address aligned to its size (an under-aligned `!nontemporal`
// vector store becomes eight-byte pieces), and the address of a lane group is known only at
// run time. So the definition checks: every lane on and the address aligned to the
// register → one streaming store; to 16 bytes → 16-byte streaming stores; otherwise the
// masked store. The check is a test and a branch the predictor learns per loop; LLVM
// folds the lane test away for the vector body's all-true mask. GPU code (NVPTX) gets the
// masked store: its memory has no such store. The vectoriser also peels lanes so that one
// streaming store runs aligned, with the count of `anydsl.elements_to_align`, defined here
// too.
import { cpuLayout } from '../ir/layout.ts';
import { type FnType, type IRType, PrimType, type PtrVectorType } from '../ir/types.ts';
import { llvmType } from './llvm-types.ts';

const STREAMING_PREFIX = 'anydsl.masked.store_nontemporal.';

/** LLVM's attachment for a streaming store, inline so that no module-level node needs a number. */
const NONTEMPORAL = '!nontemporal !{i32 1}';

const ALIGN_PREFIX = 'anydsl.elements_to_align.';

/** Whether an import is one of the vectoriser's that this file defines (`streamingDefinition`). */
export function isStreamingImport(name: string): boolean {
  return name.startsWith(STREAMING_PREFIX) || name.startsWith(ALIGN_PREFIX);
}

/** The definition of the import `name` of type `t` as private `ref` (see `isStreamingImport`). */
export function streamingDefinition(ref: string, name: string, t: FnType, device: boolean, requireMasked: (name: string, params: readonly string[]) => string): string[] {
  return name.startsWith(ALIGN_PREFIX) ? elementsToAlignDefinition(ref, t) : streamingStoreDefinition(ref, name, t, device, requireMasked);
}

/**
 * `anydsl.elements_to_align.p<N>(ptr p, i32 size, i32 align)`: how many elements of `size`
 * bytes lie between `p` and the next address aligned to `align` bytes (a power of two): the
 * lanes the vectoriser runs masked before its full iterations so that a streaming store
 * starts aligned (vectorize/addressing.ts `peel`). Always inlined, with constant sizes.
 */
function elementsToAlignDefinition(ref: string, t: FnType): string[] {
  const pt = llvmType(t.params[1]!);
  return [
    `define private i32 ${ref}(${pt} %p, i32 %size, i32 %align) alwaysinline {`,
    'entry:',
    `  %at = ptrtoint ${pt} %p to i64`,
    '  %up = sub i64 0, %at',
    '  %align64 = zext i32 %align to i64',
    '  %mask = sub i64 %align64, 1',
    '  %gap = and i64 %up, %mask',
    '  %size64 = zext i32 %size to i64',
    '  %count = udiv i64 %gap, %size64',
    '  %n = trunc i64 %count to i32',
    '  ret i32 %n',
    '}',
  ];
}

/** The widest store x86 streams in one instruction, in bytes (a 512-bit register), and the narrowest vector one (movntdq). */
const WIDEST_STREAM = 64;
const NARROWEST_STREAM = 16;

/**
 * The definition of `anydsl.masked.store_nontemporal.<suffix>` as private `ref`, of type `t`
 * (value, address, alignment, mask): the streaming store or `llvm.masked.store.<suffix>`
 * (declared through `requireMasked`), whose alignment operand must be a constant: the
 * element's, what the vectoriser passes.
 */
function streamingStoreDefinition(ref: string, name: string, t: FnType, device: boolean, requireMasked: (name: string, params: readonly string[]) => string): string[] {
  const [value, address] = t.params.slice(1) as [IRType, IRType];
  const vt = llvmType(value);
  const pt = llvmType(address);
  const lanes = value instanceof PrimType ? value.length : (value as PtrVectorType).length;
  const elem = value instanceof PrimType ? value.scalar : (value as PtrVectorType).lane;
  const mt = `<${lanes} x i1>`;
  const masked = requireMasked(`llvm.masked.store.${name.slice(STREAMING_PREFIX.length)}`, [vt, pt, 'i32', mt]);
  const head = [`define private void ${ref}(${vt} %v, ${pt} %p, i32 %align, ${mt} %m) alwaysinline {`, 'entry:'];
  const store = [`  call void ${masked}(${vt} %v, ${pt} %p, i32 ${cpuLayout.align(elem)}, ${mt} %m)`, '  ret void', '}'];
  if (device) return [...head, ...store];
  const bytes = Math.min(WIDEST_STREAM, lanes * cpuLayout.size(elem));
  // A register aligned to its size streams in one store; one aligned to 16 bytes, as large
  // heap blocks are (glibc puts a 16-byte header before a page), in 16-byte pieces.
  const pieces = Math.min(NARROWEST_STREAM, bytes);
  return [
    ...head,
    `  %on = bitcast ${mt} %m to i${lanes}`,
    `  %all = icmp eq i${lanes} %on, -1`,
    `  %at = ptrtoint ${pt} %p to i64`,
    // A register of 16 bytes or fewer has no narrower pieces to try.
    ...(pieces < bytes
      ? [...streamWhenAligned('whole', bytes, vt, pt, 'unaligned'), ...streamWhenAligned('pieces', pieces, vt, pt, 'masked')]
      : streamWhenAligned('whole', bytes, vt, pt, 'masked')),
    ...store,
  ];
}

/**
 * One test of `streamingStoreDefinition`: every lane on (`%all`) and the address (`%at`)
 * aligned to `bytes` → the streaming store of that alignment in block `label`; otherwise on
 * to the block `otherwise`, whose label ends the lines.
 */
function streamWhenAligned(label: string, bytes: number, vt: string, pt: string, otherwise: string): string[] {
  return [
    `  %${label}.low = and i64 %at, ${bytes - 1}`,
    `  %${label}.aligned = icmp eq i64 %${label}.low, 0`,
    `  %${label}.streams = and i1 %all, %${label}.aligned`,
    `  br i1 %${label}.streams, label %${label}, label %${otherwise}`,
    `${label}:`,
    `  store ${vt} %v, ${pt} %p, align ${bytes}, ${NONTEMPORAL}`,
    '  ret void',
    `${otherwise}:`,
  ];
}
