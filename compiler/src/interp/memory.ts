// Typed memory. A block holds one value of its type (an array of cells for array
// memory); a pointer is the block plus a path of element indices. Reading memory
// through a pointer of another type than what is stored there (type punning) is
// reported as unsupported instead of producing bytes the interpreter does not model.
import { cpuLayout } from '../ir/layout.ts';
import {
  DefiniteArrayType, IndefiniteArrayType, type IRType, PrimType, PtrType, StructType, TupleType, type TypeTable,
} from '../ir/types.ts';
import { copyValue, defaultValue, InterpError, MemBlock, Pointer, type Value } from './values.ts';

/** The type of the element a path leads to inside a value of type `t`. */
export function typeAt(t: IRType, path: readonly number[]): IRType | null {
  let cur: IRType = t;
  for (const i of path) {
    if (cur instanceof DefiniteArrayType || cur instanceof IndefiniteArrayType) cur = cur.elem;
    else if (cur instanceof TupleType && i < cur.elems.length) cur = cur.elems[i]!;
    else if (cur instanceof StructType && i < cur.fields.length) cur = cur.fields[i]!;
    else if (cur instanceof PrimType && cur.length > 1) cur = cur.scalar;
    else return null;
  }
  return cur;
}

function isByte(t: IRType): boolean {
  return t instanceof PrimType && t.length === 1 && t.bits === 8 && t.isInt;
}

/** Gives untyped memory (from `anydsl_alloc`) the type of an access: `path` is [] or [index]. */
function typeBlock(types: TypeTable, block: MemBlock, path: readonly number[], accessed: IRType): void {
  const bytes = block.bytes ?? 0;
  if (path.length === 0) {
    block.type = accessed;
    block.root = accessed instanceof IndefiniteArrayType ? cells(accessed.elem, bytes) : defaultValue(accessed);
  } else if (path.length === 1) {
    block.type = types.indefiniteArray(accessed);
    block.root = cells(accessed, bytes);
  } else {
    throw new InterpError('unsupported in interpreter: nested access into untyped memory');
  }
}

function cells(elem: IRType, bytes: number): Value[] {
  const n = Math.floor(bytes / Math.max(1, cpuLayout.size(elem)));
  return Array.from({ length: n }, () => defaultValue(elem));
}

function live(ptr: Pointer, what: string): MemBlock {
  const b = ptr.block;
  if (!b) throw new InterpError(`${what} through a null pointer`);
  if (b.freed) throw new InterpError(`${what} of ${b.what} after it was released`);
  return b;
}

/** Checks the access type and returns the container of the addressed cell (null for the root). */
function locate(
  types: TypeTable, ptr: Pointer, accessed: IRType, what: string,
): { block: MemBlock; parent: Value[] | null; index: number } {
  const block = live(ptr, what);
  if (block.type === null) typeBlock(types, block, ptr.path, accessed);
  const stored = typeAt(block.type!, ptr.path);
  if (stored !== accessed && !bothPointers(stored, accessed)) {
    throw new InterpError(
      `unsupported in interpreter: ${what} of ${accessed} from ${block.what} whose cell there holds ${stored ?? 'nothing'}`,
    );
  }
  let parent: Value[] | null = null;
  let index = 0;
  let cur = block.root;
  for (const i of ptr.path) {
    if (!Array.isArray(cur) || i < 0 || i >= cur.length) {
      throw new InterpError(`out-of-bounds ${what}: index ${i} in ${block.what}`);
    }
    parent = cur;
    index = i;
    cur = cur[i]!;
  }
  return { block, parent, index };
}

/**
 * A pointer is the same value whatever it points to, as natively: a cell holding a
 * `&[i32 * 3]` may be read as a `&[i32]` (`&&[i32 * 3]` coerced to `&&[i32]` is a bitcast).
 */
function bothPointers(stored: IRType | null, accessed: IRType): boolean {
  return stored instanceof PtrType && accessed instanceof PtrType && stored.addrSpace === accessed.addrSpace;
}

export function load(types: TypeTable, ptr: Pointer, type: IRType): Value {
  const { block, parent, index } = locate(types, ptr, type, 'load');
  return copyValue(parent ? parent[index]! : block.root);
}

export function store(types: TypeTable, ptr: Pointer, type: IRType, value: Value): void {
  const { block, parent, index } = locate(types, ptr, type, 'store');
  if (!block.mutable) throw new InterpError(`store to immutable ${block.what}`);
  if (parent) parent[index] = copyValue(value);
  else block.root = copyValue(value);
}

/** A pointer cast: untyped memory viewed as something other than bytes takes that type now. */
export function retype(types: TypeTable, ptr: Pointer, to: PtrType): Pointer {
  const b = ptr.block;
  if (b && b.type === null && ptr.path.length === 0) {
    const p = to.pointee;
    const bytes = p instanceof IndefiniteArrayType && isByte(p.elem);
    if (!bytes) typeBlock(types, b, [], p);
  }
  return ptr;
}

/** The array a pointer addresses (itself an array, or an element of one) and the first index. */
function arrayAt(ptr: Pointer, what: string): { block: MemBlock; array: Value[] | null; start: number; elem: IRType | null } {
  const block = live(ptr, what);
  if (block.type === null) return { block, array: null, start: 0, elem: null };
  const t = typeAt(block.type, ptr.path);
  const follow = (path: readonly number[]): Value => path.reduce<Value>((v, i) => (v as Value[])[i]!, block.root);
  if (t instanceof DefiniteArrayType || t instanceof IndefiniteArrayType) {
    return { block, array: follow(ptr.path) as Value[], start: 0, elem: t.elem };
  }
  if (ptr.path.length > 0) {
    const parentPath = ptr.path.slice(0, -1);
    const pt = typeAt(block.type, parentPath);
    if (pt instanceof DefiniteArrayType || pt instanceof IndefiniteArrayType) {
      return { block, array: follow(parentPath) as Value[], start: ptr.path[ptr.path.length - 1]!, elem: pt.elem };
    }
  }
  throw new InterpError(`unsupported in interpreter: ${what} of ${block.what}, which is not array memory`);
}

/** The bytes of a NUL-terminated string. */
export function readCString(ptr: Pointer): number[] {
  const { array, start, elem, block } = arrayAt(ptr, 'string read');
  if (!array || !elem || !isByte(elem)) throw new InterpError(`string read of ${block.what}, which holds no bytes`);
  const out: number[] = [];
  for (let i = start; ; i++) {
    if (i >= array.length) throw new InterpError(`string in ${block.what} is not NUL-terminated`);
    const c = Number(BigInt.asUintN(8, array[i] as bigint));
    if (c === 0) return out;
    out.push(c);
  }
}

/** `memset`: `n` byte cells from `ptr` on become `byte`. */
export function fillBytes(ptr: Pointer, byte: number, n: number): void {
  const { array, start, elem, block } = arrayAt(ptr, 'memset');
  if (!array || !elem) {
    // Fresh memory reads as zero already; any other pattern would need a byte-level model.
    if (byte === 0) return;
    throw new InterpError(`unsupported in interpreter: memset of untyped ${block.what}`);
  }
  if (!(elem instanceof PrimType) || !isByte(elem)) throw new InterpError(`unsupported in interpreter: memset of ${elem} memory`);
  if (start + n > array.length) throw new InterpError(`out-of-bounds memset of ${n} bytes in ${block.what}`);
  const value = elem.isSigned ? BigInt.asIntN(8, BigInt(byte)) : BigInt(byte);
  for (let i = 0; i < n; i++) array[start + i] = value;
}

/** `anydsl_copy`: byte offsets and size, converted to cells of the (common) element type. */
export function copyBytes(
  types: TypeTable, src: Pointer, srcOffset: number, dst: Pointer, dstOffset: number, size: number,
): void {
  const s = arrayAt(src, 'copy');
  if (!s.array || !s.elem) return; // nothing was ever written to the source
  const es = cpuLayout.size(s.elem);
  let d = arrayAt(dst, 'copy');
  if (!d.array) {
    typeBlock(types, d.block, dst.path.length ? [0] : [], dst.path.length ? s.elem : types.indefiniteArray(s.elem));
    d = arrayAt(dst, 'copy');
  }
  if (d.elem !== s.elem) {
    throw new InterpError(`unsupported in interpreter: copy from ${s.elem} memory to ${d.elem} memory`);
  }
  if (srcOffset % es || dstOffset % es || size % es) {
    throw new InterpError(`unsupported in interpreter: copy of a partial ${s.elem} (offsets/size not multiples of ${es})`);
  }
  const n = size / es;
  const from = s.start + srcOffset / es;
  const to = d.start + dstOffset / es;
  if (from + n > s.array.length || to + n > d.array!.length) throw new InterpError(`out-of-bounds copy of ${n} cells`);
  const moved = s.array.slice(from, from + n).map(copyValue);
  moved.forEach((v, i) => (d.array![to + i] = v));
}

/**
 * `lea`: the address of element `index` of what `ptr` addresses, whose static type is `pointee`.
 * A pointer to an array element viewed as a pointer to an array (a C-style slice,
 * `&a(i) as &[T]`) indexes the enclosing array from that element on.
 */
export function elementPointer(ptr: Pointer, pointee: IRType, index: number): Pointer {
  const block = ptr.block;
  const isArray = (t: IRType | null): boolean => t instanceof DefiniteArrayType || t instanceof IndefiniteArrayType;
  if (block?.type && ptr.path.length && isArray(pointee) && !isArray(typeAt(block.type, ptr.path))) {
    const parent = ptr.path.slice(0, -1);
    if (isArray(typeAt(block.type, parent))) return new Pointer(block, [...parent, ptr.path[ptr.path.length - 1]! + index]);
  }
  return new Pointer(block, [...ptr.path, index]);
}

/** Host data for an argument of type `&[T]`: a pointer to a new array block holding copies of `cells`. */
export function arrayPointer(types: TypeTable, elem: IRType, cells: readonly Value[], what = 'host array'): Pointer {
  return new Pointer(newBlock(types.indefiniteArray(elem), what, cells.map(copyValue)), []);
}

/** Copies of the cells of the array `ptr` addresses, from the addressed element on (to read results back). */
export function arrayCells(ptr: Pointer): Value[] {
  const { array, start } = arrayAt(ptr, 'read');
  return (array ?? []).slice(start).map(copyValue);
}

/** An `argv`: a pointer to an array of pointers to NUL-terminated UTF-8 strings, typed after `argvType` (`&[&[u8]]`). */
export function stringArray(argvType: PtrType, strings: readonly string[]): Pointer {
  const outer = argvType.pointee;
  const strPtr = outer instanceof IndefiniteArrayType || outer instanceof DefiniteArrayType ? outer.elem : null;
  const inner = strPtr instanceof PtrType ? strPtr.pointee : null;
  const byte = inner instanceof IndefiniteArrayType || inner instanceof DefiniteArrayType ? inner.elem : null;
  if (!strPtr || !inner || !byte || !isByte(byte)) throw new InterpError(`an argv must have type &[&[u8]], not ${argvType}`);
  const cells = strings.map((s, i) => {
    const bytes = [...new TextEncoder().encode(s), 0].map((b) => ((byte as PrimType).isSigned ? BigInt.asIntN(8, BigInt(b)) : BigInt(b)));
    return new Pointer(newBlock(inner, `argv[${i}]`, bytes), []);
  });
  return new Pointer(newBlock(outer, 'argv', cells), []);
}

export function newBlock(type: IRType, what: string, root: Value = defaultValue(type), mutable = true): MemBlock {
  return new MemBlock(type, root, null, what, mutable);
}

/** Memory from `anydsl_alloc`: only a byte size until its first typed use. */
export function untypedBlock(bytes: number, what: string): MemBlock {
  return new MemBlock(null, [], bytes, what);
}
