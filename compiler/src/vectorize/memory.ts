// Loads and stores of a vectorised body. A uniform address is accessed once (a
// store of a varying value keeps the last active lane's, as the iterations would
// in order). A varying address whose index is uniform + lane (stride 1) is one
// contiguous access of W elements. One whose index is uniform + s·lane with a
// small literal stride s (a channel of an interleaved image) is strided: one
// contiguous access of s·W elements and a shuffle, which LLVM turns into
// whole-register loads or masked stores and permutes, where a gather or scatter
// costs an access per lane. Any other varying
// address is a gather or a scatter. Accesses under a mask that is not known to
// be full use LLVM's masked intrinsics, or skip a scalar access when no lane is
// active, so inactive lanes touch no memory. Vector accesses always go through
// the masked intrinsics, which carry the element's alignment (a plain vector
// load would assume the vector's). Varying accesses to aggregates go element by
// element. A local variable of the body lives in lane storage (a vector per
// variable), read whole and blended under the mask when written.
import { type Def, isLit, PrimOp, type StoreHint } from '../ir/defs.ts';
import { cpuLayout } from '../ir/layout.ts';
import {
  DefiniteArrayType, IndefiniteArrayType, type IRType, PrimType, PtrType, PtrVectorType, StructType, TupleType,
} from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import type { WideIndex } from './addressing.ts';
import type { Builder } from './builder.ts';
import { unsupported } from './error.ts';
import { llvmSuffix } from './lanes.ts';
import type { Simd } from './simd.ts';

/**
 * The strides other than 1 accessed as a whole span: the channels of 2- to 4-channel
 * images, and 8. Measured on AMD Zen 4 (AVX-512) over 64K lanes of f32 (16 lanes
 * wide) and u8 (32 lanes wide), against gathers and scatters: at stride 3 loads run
 * 5 (f32) to 10 (u8) times and stores 1.5 to 6 times as fast, at stride 8 loads
 * 2 to 9 times and stores 2 to 3.5 times.
 */
const STRIDES: readonly number[] = [2, 3, 4, 8];

/** The lanes of a varying address in an array: lane l's element at `first` + `stride`·l. */
interface Run {
  first: Def;
  stride: number;
}

export class Memory {
  /** `wide`: in the full iterations, the 64-bit form of contiguous and strided addresses (addressing.ts). */
  constructor(private readonly simd: Simd, private readonly wide: WideIndex | null = null) {}

  /**
   * The value of type `loaded` at `ptr` (scalar or varying) in the lanes of
   * `mask`; `live` says that some lane is known to be active.
   */
  load(b: Builder, ptr: Def, loaded: IRType, mask: Def, live: boolean): Def {
    const { simd } = this;
    const w = simd.world;
    if (ptr.type instanceof PtrType) {
      const read = (): Def[] => {
        const l = w.load(b.mem, ptr);
        b.mem = w.extract(l, 0);
        return [w.extract(l, 1)];
      };
      return live || simd.isAll(mask) ? read()[0]! : b.when(simd.any(mask), read, [w.bottom(loaded)], 'load')[0]!;
    }
    const parts = partsOf(loaded);
    if (parts) return simd.aggregate(loaded, parts.map((t, k) => this.load(b, w.lea(ptr, k), t, mask, live)));
    const elem = this.element(loaded);
    const vt = simd.vectorType(elem);
    const passthru = elem instanceof PrimType ? w.lit(vt as PrimType, elem.isFloat ? 0 : 0n) : w.bottom(vt);
    const run = this.run(ptr, elem, true);
    let value: Def;
    if (!run) value = b.call(this.intrinsic('gather', elem, ptr), [ptr, this.align(elem), mask, passthru], vt)!;
    else if (run.stride === 1) value = b.call(this.intrinsic('load', elem, run.first), [run.first, this.align(elem), mask, passthru], vt)!;
    else value = this.loadStrided(b, run, elem as PrimType, mask);
    return elem === loaded ? value : w.cmp('ne', value, w.lit(vt as PrimType, 0n));
  }

  /**
   * The lanes of a strided load: the span from lane 0's element to the last
   * lane's, then every stride-th element of it (one shufflevector to LLVM). With
   * all lanes active the whole span is read (the elements between lanes lie
   * between two that are read), so that LLVM loads whole registers; otherwise
   * only the active lanes' elements.
   */
  private loadStrided(b: Builder, { first, stride }: Run, elem: PrimType, mask: Def): Def {
    const w = this.simd.world;
    const width = this.simd.width;
    const n = stride * width;
    const enabled = this.simd.isAll(mask)
      ? w.vector(Array.from({ length: n }, (_, k) => w.litBool(k <= stride * (width - 1))))
      : spread(w, mask, stride, w.litBool(false));
    const span = w.prim(elem.prim, n);
    const all = b.call(this.intrinsic('load', elem, first, n), [first, this.align(elem), enabled, w.lit(span, elem.isFloat ? 0 : 0n)], span)!;
    return w.vector(Array.from({ length: width }, (_, l) => w.extract(all, stride * l)));
  }

  /**
   * Stores `value` (scalar or varying) at `ptr` (scalar or varying) in the lanes of `mask`
   * (`live`: see `load`). A `nontemporal` hint stays on scalar stores and makes a contiguous
   * one `anydsl.masked.store_nontemporal` (the backend's, see llvm-primops.ts); strided
   * stores and scatters drop it.
   */
  store(b: Builder, ptr: Def, value: Def, mask: Def, live: boolean, hint?: StoreHint): void {
    const { simd } = this;
    const w = simd.world;
    const parts = partsOf(value.type);
    if (parts && (simd.isVarying(ptr) || simd.isVarying(value))) {
      // Element by element: each part is an access of its own kind.
      parts.forEach((_, k) => this.store(b, w.lea(ptr, k), w.extract(value, k), mask, live, hint));
      return;
    }
    if (ptr.type instanceof PtrType && !simd.isVarying(value)) {
      const write = (): Def[] => {
        b.mem = w.store(b.mem, ptr, value, hint);
        return [];
      };
      if (live || simd.isAll(mask)) write();
      else b.when(simd.any(mask), write, [], 'store');
      return;
    }
    if (ptr.type instanceof PtrType && simd.isAll(mask)) {
      b.mem = w.store(b.mem, ptr, w.extract(value, simd.width - 1), hint);
      return;
    }
    // A uniform address written by several lanes is a scatter to one place: the highest lane wins.
    const lanes = simd.splat(ptr);
    const stored = (ptr.type instanceof PtrType ? ptr.type : (lanes.type as PtrVectorType).lane).pointee;
    const elem = this.element(stored);
    let v = simd.splat(value);
    if (elem !== stored) v = w.cast(simd.vectorType(elem), v);
    const streamed = hint === 'nontemporal';
    const run = ptr.type instanceof PtrType ? null : this.run(lanes, elem, false, streamed);
    if (!run) b.call(this.intrinsic('scatter', elem, lanes), [v, lanes, this.align(elem), mask], null);
    else if (run.stride === 1) b.call(this.intrinsic(streamed ? 'store_nontemporal' : 'store', elem, run.first), [v, run.first, this.align(elem), mask], null);
    else {
      // The lanes spread over the span, written only where the active lanes' elements are: the elements between keep their values.
      const { first, stride } = run;
      const args = [spread(w, v, stride, w.bottom(elem)), first, this.align(elem), spread(w, mask, stride, w.litBool(false))];
      b.call(this.intrinsic('store', elem, first, stride * simd.width), args, null);
    }
  }

  /** The value of a local variable in all lanes, from its lane storage. */
  loadLanes(b: Builder, storage: Def): Def {
    const l = this.simd.world.load(b.mem, storage);
    b.mem = this.simd.world.extract(l, 0);
    return this.simd.world.extract(l, 1);
  }

  /** Sets a local variable in the lanes of `mask`, keeping the others. */
  storeLanes(b: Builder, storage: Def, value: Def, mask: Def): void {
    const { simd } = this;
    const v = simd.isAll(mask) ? simd.splat(value) : simd.blend(mask, value, this.loadLanes(b, storage));
    b.mem = simd.world.store(b.mem, storage, v);
  }

  /**
   * How the lanes of `ptr` lie in an array of `elem` when they are consecutive
   * elements, or STRIDES apart (numbers only: arrays of pointers keep their
   * gathers); null for other addresses. `read`: to be loaded; `streamed`: a streaming store.
   */
  private run(ptr: Def, elem: IRType, read: boolean, streamed = false): Run | null {
    if (!(ptr instanceof PrimOp) || ptr.tag !== 'lea') return null;
    const [base, index] = ptr.ops as [Def, Def];
    if (!(base.type instanceof PtrType)) return null;
    const arr = base.type.pointee;
    if (!(arr instanceof IndefiniteArrayType || arr instanceof DefiniteArrayType)) return null;
    const a = this.affine(index);
    const stride = a ? Number(a.stride) : 0;
    if (!a || !(stride === 1 || (elem instanceof PrimType && STRIDES.includes(stride)))) return null;
    return { first: this.wide?.address(base, a.base, stride, read, streamed) ?? this.simd.world.lea(base, a.base), stride };
  }

  /** `v` as base + stride × lane, when its structure shows it (integer vectors only). */
  private affine(v: Def): { base: Def; stride: bigint } | null {
    const w = this.simd.world;
    const t = v.type;
    if (!(t instanceof PrimType) || !t.isInt) return null;
    if (isLit(v)) return { base: w.lit(t.scalar, v.payload), stride: 0n };
    if (!(v instanceof PrimOp)) return null;
    const [a, b] = v.ops;
    switch (v.tag) {
      case 'vector': {
        if (v.ops.every((o) => o === a)) return { base: a!, stride: 0n };
        if (!v.ops.every(isLit)) return null;
        const lanes = v.ops.map((o) => o.payload as bigint);
        const stride = lanes[1]! - lanes[0]!;
        return lanes.every((x, i) => x === lanes[0]! + BigInt(i) * stride) ? { base: a!, stride } : null;
      }
      case 'add':
      case 'sub': {
        const x = this.affine(a!);
        const y = this.affine(b!);
        if (!x || !y) return null;
        return { base: w.arith(v.tag, x.base, y.base), stride: v.tag === 'add' ? x.stride + y.stride : x.stride - y.stride };
      }
      case 'mul': {
        const x = this.affine(a!);
        const y = this.affine(b!);
        if (!x || !y) return null;
        const k = y.stride === 0n ? litOf(y.base) : x.stride === 0n ? litOf(x.base) : undefined;
        if (k === undefined) return x.stride === 0n && y.stride === 0n ? { base: w.arith('mul', x.base, y.base), stride: 0n } : null;
        return { base: w.arith('mul', x.base, y.base), stride: (y.stride === 0n ? x.stride : y.stride) * k };
      }
      case 'shl': {
        const x = this.affine(a!);
        const y = this.affine(b!);
        const k = y && y.stride === 0n ? litOf(y.base) : undefined;
        if (!x || k === undefined) return null;
        return { base: w.arith('shl', x.base, y!.base), stride: x.stride << k };
      }
      case 'cast': {
        // Widening a signed index keeps its lanes consecutive (the scalar index would not wrap either).
        const from = a!.type;
        if (!(from instanceof PrimType) || !from.isInt || !from.isSigned || from.bits > t.bits) return null;
        const x = this.affine(a!);
        return x && { base: w.cast(t.scalar, x.base), stride: x.stride };
      }
      default:
        return null;
    }
  }

  /** The type of the elements in memory: bools are bytes there (a vector of i1 would be packed bits). */
  private element(t: IRType): IRType {
    if (t instanceof PrimType && t.length === 1) return t.isBool ? this.simd.world.prim('u8') : t;
    if (t instanceof PtrType) return t;
    return unsupported(`a varying access to a ${t} in memory (access its fields or elements instead)`);
  }

  private align(elem: IRType): Def {
    return this.simd.world.litI32(cpuLayout.align(elem));
  }

  /**
   * `llvm.masked.<op>` for `n` elements (W by default) of type `elem`, addressed by `ptr` (a
   * pointer or a vector of them); `store_nontemporal` is the backend's `anydsl.masked.` one,
   * a masked store that streams when every lane is on and the address allows.
   */
  private intrinsic(op: 'load' | 'store' | 'store_nontemporal' | 'gather' | 'scatter', elem: IRType, ptr: Def, n = this.simd.width): Def {
    const { simd } = this;
    const w = simd.world;
    const vt = elem instanceof PtrType ? w.types.ptrVector(elem, n) : w.prim((elem as PrimType).prim, n);
    const maskType = w.prim('bool', n);
    const addrSpace = ptr.type instanceof PtrType ? ptr.type.addrSpace : (ptr.type as PtrVectorType).lane.addrSpace;
    const lanes = elem instanceof PtrType ? `v${n}p${elem.addrSpace}` : `v${n}${llvmSuffix(elem as PrimType)}`;
    const where = ptr.type instanceof PtrType ? `p${addrSpace}` : `v${n}p${addrSpace}`;
    const align = w.prim('i32');
    const params: IRType[] = {
      load: [ptr.type, align, maskType, vt],
      gather: [ptr.type, align, maskType, vt],
      store: [vt, ptr.type, align, maskType],
      store_nontemporal: [vt, ptr.type, align, maskType],
      scatter: [vt, ptr.type, align, maskType],
    }[op];
    const reads = op === 'load' || op === 'gather';
    const name = `${op === 'store_nontemporal' ? 'anydsl' : 'llvm'}.masked.${op}.${lanes}.${where}`;
    const type = w.fnType([w.mem, ...params, w.fnType(reads ? [w.mem, vt] : [w.mem])]);
    return w.imported(type, name, 'device', name);
  }
}


/** The element types of an aggregate in memory, which varying accesses handle one by one; null for others. */
function partsOf(t: IRType): readonly IRType[] | null {
  if (t instanceof TupleType) return t.elems;
  if (t instanceof StructType) return t.fields;
  if (t instanceof DefiniteArrayType) return Array.from({ length: t.dim }, () => t.elem);
  return null;
}

/**
 * The lanes of the vector `v` at every `stride`-th element of a vector `stride`
 * times as long, `fill` between them. LLVM makes one shufflevector of the
 * element-wise vector.
 */
function spread(w: World, v: Def, stride: number, fill: Def): Def {
  const width = (v.type as PrimType).length;
  const lane = (l: number): Def => (isLit(v) ? w.lit((v.type as PrimType).scalar, v.payload) : w.extract(v, l));
  return w.vector(Array.from({ length: stride * width }, (_, k) => (k % stride === 0 ? lane(k / stride) : fill)));
}

function litOf(d: Def): bigint | undefined {
  return isLit(d) && typeof d.payload === 'bigint' ? d.payload : undefined;
}
