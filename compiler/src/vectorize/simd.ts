// Values of a vectorised body: a uniform value stays a scalar, a varying one is a
// SIMD vector with one lane per iteration (`<W x T>`, or `<W x T*>` for
// addresses); a varying aggregate is the aggregate of its varying elements, a
// struct becoming a tuple (`(f32, i32)` → `(<W x f32>, <W x i32>)`). Masks are
// `<W x bool>` vectors of the active lanes; their operations fold the all-true
// and all-false masks (the World folds no vector algebra) and are built from
// `select` rather than `and`/`or`, so that a poison lane in an inactive lane's
// condition cannot poison the mask.
import { type Def, isLit } from '../ir/defs.ts';
import { DefiniteArrayType, type IRType, PrimType, PtrType, PtrVectorType, StructType, TupleType } from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import { unsupported } from './error.ts';

export class Simd {
  readonly all: Def;
  readonly none: Def;
  readonly maskType: PrimType;

  constructor(readonly world: World, readonly width: number) {
    this.maskType = world.prim('bool', width);
    this.all = world.lit(this.maskType, true);
    this.none = world.lit(this.maskType, false);
  }

  isVarying(d: Def): boolean {
    return isVectorType(d.type);
  }

  /** The varying version of a uniform type. */
  vectorType(t: IRType): IRType {
    const w = this.world;
    if (t instanceof PrimType && t.length === 1) return w.prim(t.prim, this.width);
    if (t instanceof PtrType) return w.types.ptrVector(t, this.width);
    if (t instanceof TupleType || t instanceof StructType) return w.types.tuple(elementsOf(t).map((e) => this.vectorType(e)));
    if (t instanceof DefiniteArrayType) return w.types.definiteArray(this.vectorType(t.elem), t.dim);
    return unsupported(`a varying value of type ${t}`);
  }

  /** `d` in every lane. */
  splat(d: Def): Def {
    if (this.isVarying(d)) return d;
    const t = d.type;
    const w = this.world;
    if (t instanceof PtrType) {
      // The same element of an array at `d`, once per lane: a vector of equal pointers.
      const arr = w.bitcast(w.types.ptr(w.types.indefiniteArray(t.pointee), t.addrSpace), d);
      return w.lea(arr, w.lit(w.prim('i32', this.width), 0n));
    }
    if (t instanceof TupleType || t instanceof StructType) return w.tuple(elementsOf(t).map((_, k) => this.splat(w.extract(d, k))));
    if (t instanceof DefiniteArrayType) {
      return w.definiteArray(this.vectorType(t.elem), Array.from({ length: t.dim }, (_, k) => this.splat(w.extract(d, k))));
    }
    if (!(t instanceof PrimType) || t.length !== 1) return unsupported(`a varying value of type ${t}`);
    if (isLit(d)) return w.lit(w.prim(t.prim, this.width), d.payload);
    return w.vector(Array.from({ length: this.width }, () => d));
  }

  /** Lane `lane` of the varying `v`, as a value of its uniform type `t`. */
  lane(v: Def, lane: Def | number, t: IRType): Def {
    const w = this.world;
    if (!this.isVarying(v)) return v;
    if (t instanceof StructType) return w.structAgg(t, t.fields.map((f, k) => this.lane(w.extract(v, k), lane, f)));
    if (t instanceof TupleType) return w.tuple(t.elems.map((e, k) => this.lane(w.extract(v, k), lane, e)));
    if (t instanceof DefiniteArrayType) return w.definiteArray(t.elem, Array.from({ length: t.dim }, (_, k) => this.lane(w.extract(v, k), lane, t.elem)));
    return w.extract(v, lane);
  }

  /** The varying aggregate of uniform type `t` made of the varying `parts`. */
  aggregate(t: IRType, parts: readonly Def[]): Def {
    const w = this.world;
    if (t instanceof DefiniteArrayType) return w.definiteArray(this.vectorType(t.elem), parts.map((p) => this.splat(p)));
    return w.tuple(parts.map((p) => this.splat(p)));
  }

  /** The varying value whose lane l is `lanes[l]`, values of the uniform type `t`. */
  fromLanes(lanes: readonly Def[], t: IRType): Def {
    const w = this.world;
    if (t instanceof PrimType) return w.vector(lanes);
    if (t instanceof TupleType || t instanceof StructType) {
      return w.tuple(elementsOf(t).map((e, k) => this.fromLanes(lanes.map((l) => w.extract(l, k)), e)));
    }
    if (t instanceof DefiniteArrayType) {
      return w.definiteArray(this.vectorType(t.elem), Array.from({ length: t.dim }, (_, k) => this.fromLanes(lanes.map((l) => w.extract(l, k)), t.elem)));
    }
    let v: Def = w.bottom(this.vectorType(t));
    lanes.forEach((l, k) => (v = w.insert(v, k, l)));
    return v;
  }

  /** `<0, 1, …, W - 1>`: each lane's number. */
  iota(): Def {
    return this.world.vector(Array.from({ length: this.width }, (_, i) => this.world.litI32(i)));
  }

  // ---------------------------------------------------------------- masks

  isAll(m: Def): boolean {
    return isLit(m) && m.payload === true;
  }

  isNone(m: Def): boolean {
    return isLit(m) && m.payload === false;
  }

  and(a: Def, b: Def): Def {
    if (this.isNone(a) || this.isNone(b)) return this.none;
    if (this.isAll(a) || a === b) return b;
    if (this.isAll(b)) return a;
    return this.world.select(a, b, this.none);
  }

  or(a: Def, b: Def): Def {
    if (this.isAll(a) || this.isAll(b)) return this.all;
    if (this.isNone(a) || a === b) return b;
    if (this.isNone(b)) return a;
    return this.world.select(a, this.all, b);
  }

  not(a: Def): Def {
    if (this.isAll(a)) return this.none;
    if (this.isNone(a)) return this.all;
    return this.world.arith('xor', a, this.all);
  }

  /** Lanes of `a` where `b` does not hold. */
  andNot(a: Def, b: Def): Def {
    return this.and(a, this.not(b));
  }

  /** The lanes of `m` where `cond` holds; `cond` may be uniform. */
  restrict(m: Def, cond: Def): Def {
    return this.and(m, this.splat(cond));
  }

  /** The lanes of `m` where `cond` does not hold. */
  restrictNot(m: Def, cond: Def): Def {
    return this.andNot(m, this.splat(cond));
  }

  /** Some lane of `m` is set: a scalar bool. */
  any(m: Def): Def {
    const w = this.world;
    if (this.isAll(m)) return w.litBool(true);
    if (this.isNone(m)) return w.litBool(false);
    const bits = this.bits(m);
    return w.cmp('ne', bits, w.lit(bits.type as PrimType, 0n));
  }

  /** Every lane of `m` is set: a scalar bool. */
  every(m: Def): Def {
    const w = this.world;
    if (this.isAll(m)) return w.litBool(true);
    if (this.isNone(m)) return w.litBool(false);
    return w.cmp('eq', this.bits(m), this.bits(this.all));
  }

  /** Bit l set when lane l of `m` is (lanes from 32 on are dropped): an i32. */
  ballot(m: Def): Def {
    const w = this.world;
    const i32 = w.prim('i32');
    if (this.width >= 8) return w.cast(i32, w.bitcast(w.prim(unsignedOf(this.width)), m));
    let acc: Def = w.litI32(0);
    for (let l = 0; l < this.width; l++) acc = w.arith('or', acc, w.select(w.extract(m, l), w.litI32(1 << l), w.litI32(0)));
    return acc;
  }

  /** The mask as an unsigned integer with one bit (W ≥ 8) or one byte (W < 8) per lane. */
  private bits(m: Def): Def {
    const w = this.world;
    if (this.width >= 8) return w.bitcast(w.prim(unsignedOf(this.width)), m);
    const bytes = w.cast(w.prim('u8', this.width), m);
    return w.bitcast(w.prim(unsignedOf(8 * this.width)), bytes);
  }

  /** Per lane: `a` where `m` is set, else `b`; both are made varying. Aggregates blend element by element. */
  blend(m: Def, a: Def, b: Def): Def {
    const w = this.world;
    if (this.isAll(m)) return this.splat(a);
    if (this.isNone(m)) return this.splat(b);
    const va = this.splat(a);
    const vb = this.splat(b);
    const t = va.type;
    if (t instanceof TupleType) return w.tuple(t.elems.map((_, k) => this.blend(m, w.extract(va, k), w.extract(vb, k))));
    if (t instanceof DefiniteArrayType) {
      return w.definiteArray(t.elem, Array.from({ length: t.dim }, (_, k) => this.blend(m, w.extract(va, k), w.extract(vb, k))));
    }
    return w.select(m, va, vb);
  }
}

/** The type of a varying value: a vector, or an aggregate of them. */
export function isVectorType(t: IRType): boolean {
  if (t instanceof TupleType) return t.elems.some(isVectorType);
  if (t instanceof DefiniteArrayType) return isVectorType(t.elem);
  return (t instanceof PrimType && t.length > 1) || t instanceof PtrVectorType;
}

function elementsOf(t: TupleType | StructType): readonly IRType[] {
  return t instanceof TupleType ? t.elems : t.fields;
}

function unsignedOf(bits: number): 'u8' | 'u16' | 'u32' | 'u64' {
  switch (bits) {
    case 8: return 'u8';
    case 16: return 'u16';
    case 32: return 'u32';
    case 64: return 'u64';
    default: return unsupported(`masks of ${bits} bits`);
  }
}
