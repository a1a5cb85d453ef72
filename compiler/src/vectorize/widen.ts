// Widening of pure primops: with only uniform operands a primop stays scalar; with
// a varying one, its uniform operands are splatted and it is rebuilt on vectors
// (`<W x T>` arithmetic, comparisons, selects and casts, vectors of addresses,
// aggregates of vectors, arrays read and updated at a per-lane index).
// Integer division runs in every lane, active or not, so a divisor that would trap
// (zero, or -1 under the most negative dividend) is replaced by 1: in an active
// lane that division was undefined anyway.
import { type Def, PrimOp } from '../ir/defs.ts';
import { type DefiniteArrayType, PrimType, PtrType, PtrVectorType } from '../ir/types.ts';
import { unsupported } from './error.ts';
import type { Simd } from './simd.ts';

export function widen(simd: Simd, p: PrimOp, ops: readonly Def[]): Def {
  const w = simd.world;
  if (!ops.some((o) => simd.isVarying(o))) return w.rebuild(p, ops);
  const [a, b, c] = ops;
  switch (p.tag) {
    case 'add': case 'sub': case 'mul': case 'and': case 'or': case 'xor': case 'shl': case 'shr':
      return w.arith(p.tag, simd.splat(a!), simd.splat(b!));
    case 'div': case 'rem':
      return w.arith(p.tag, simd.splat(a!), safeDivisor(simd, simd.splat(a!), simd.splat(b!)));
    case 'eq': case 'ne': case 'lt': case 'le': case 'gt': case 'ge': {
      const [x, y] = [simd.splat(a!), simd.splat(b!)];
      const tag = p.tag;
      if (!(x.type instanceof PtrVectorType)) return w.cmp(tag, x, y);
      // Addresses (of a local's per-lane copies, say) are compared lane by lane, as scalars.
      const lane = x.type.lane;
      return simd.fromLanes(Array.from({ length: simd.width }, (_, l) => w.cmp(tag, simd.lane(x, l, lane), simd.lane(y, l, lane))), p.type);
    }
    case 'cast':
      if (!(p.type instanceof PrimType)) return unsupported(`a conversion of a varying value to ${p.type}`);
      return w.cast(simd.vectorType(p.type), a!);
    case 'bitcast':
      if (!(p.type instanceof PrimType) && !(p.type instanceof PtrType)) return unsupported(`a bitcast of a varying value to ${p.type}`);
      return w.bitcast(simd.vectorType(p.type), a!);
    case 'select':
      // A varying condition picks per lane; LLVM's select takes a vector condition for vectors only.
      return simd.isVarying(a!) ? simd.blend(a!, b!, c!) : w.select(a!, simd.splat(b!), simd.splat(c!));
    case 'lea':
      return w.lea(a!, b!);
    case 'tuple':
    case 'struct_agg':
      return w.tuple(ops.map((o) => simd.splat(o)));
    case 'definite_array':
      return w.definiteArray(simd.vectorType((p.type as DefiniteArrayType).elem), ops.map((o) => simd.splat(o)));
    case 'repeat_array':
      return w.repeatArray(simd.splat(a!), (p.type as DefiniteArrayType).dim);
    case 'extract': {
      if (!simd.isVarying(b!)) return w.extract(a!, b!);
      // A varying index: each lane takes its element (of its own lane, when the aggregate is varying too).
      const lanes = Array.from({ length: simd.width }, (_, l) => simd.lane(w.extract(a!, w.extract(b!, l)), l, p.type));
      return simd.fromLanes(lanes, p.type);
    }
    case 'insert': {
      if (!simd.isVarying(b!)) return w.insert(simd.splat(a!), b!, simd.splat(c!));
      // A varying index (only arrays have one): each element takes the value in the lanes whose index names it.
      const t = p.type as DefiniteArrayType;
      const it = b!.type as PrimType;
      const arr = simd.splat(a!);
      const elems = Array.from({ length: t.dim }, (_, k) => simd.blend(w.cmp('eq', b!, w.lit(it, BigInt(k))), c!, w.extract(arr, k)));
      return w.definiteArray(simd.vectorType(t.elem), elems);
    }
    default:
      return unsupported(`a varying '${p.tag}' (of type ${p.type})`);
  }
}

function safeDivisor(simd: Simd, dividend: Def, divisor: Def): Def {
  const w = simd.world;
  const t = divisor.type as PrimType;
  if (!t.isInt) return divisor;
  const lit = (v: bigint): Def => w.lit(t, v);
  let bad = w.cmp('eq', divisor, lit(0n));
  if (t.isSigned) {
    const min = w.cmp('eq', dividend, lit(-(1n << BigInt(t.bits - 1))));
    bad = w.arith('or', bad, w.arith('and', min, w.cmp('eq', divisor, lit(-1n))));
  }
  return w.select(bad, lit(1n), divisor);
}
