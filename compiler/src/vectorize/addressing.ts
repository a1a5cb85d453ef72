// 64-bit addresses for the contiguous accesses of the full iterations.
//
// A body indexes arrays with i32 arithmetic that wraps, and a GEP sign-extends
// its index, so an access at `X + x` (X the same in every iteration, x the
// lane's index) costs an add and a sign extension per iteration and access:
// LLVM cannot turn `sext(X + i)` into a pointer that advances by W elements,
// because X + i might wrap between two iterations. The full iterations count
// with an i64 `j` instead (i = j, which fits in an i32), and such an access
// becomes `sext(x) + k + j`, where X = x + k with k a literal; that equals
// `sext(X + i)` whenever x + k + i stays in the i32 range. Whether it does is
// known before the loop: the lanes' x + k + i lie between x + k + lower and
// x + k + upper - 1. The vector loop runs its full iterations only when every
// x passes that check for its least and greatest k (vloop.ts); otherwise all
// lanes go through the masked iterations, which keep the i32 arithmetic. So
// no address changes, in any program, and the full iterations no longer rely
// on the lanes of a contiguous access not wrapping either. The same streams of
// loads get software prefetches (`prefetch`).
import { Continuation, type Def, isLit, Param, PrimOp } from '../ir/defs.ts';
import { type DefiniteArrayType, type IndefiniteArrayType, type IRType, PrimType, type PtrType } from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import type { Builder } from './builder.ts';

/** An i32 index as x + k + c·i (mod 2^32): x the same in every iteration (0 for none), k and c literals. */
interface Linear {
  x: Def;
  k: bigint;
  c: bigint;
}

export class WideIndex {
  /** Per x, the least and greatest k of the accesses made `sext(x) + k + j`, which the check must cover. */
  readonly offsets = new Map<Def, { min: bigint; max: bigint }>();
  /** Per array of invariant address, the greatest k of its loads per x. */
  private readonly streams = new Map<Def, Map<Def, bigint>>();
  private readonly invariants = new Map<Def, boolean>();
  private readonly i64: PrimType;
  private readonly i32: PrimType;

  /** `j`: the i64 count of the full iterations; `i` = `j` as i32, the index the body sees. */
  constructor(private readonly world: World, private readonly vloop: Continuation, private readonly i: Def, private readonly j: Def) {
    this.i64 = world.prim('i64');
    this.i32 = world.prim('i32');
  }

  /**
   * The address of what `index` (i32 or a sign-extended i32, lane 0's) addresses
   * in the array at `base`, as `sext(x) + k + j`; null if the index is not X + i.
   * `read`: a load, whose stream `prefetch` covers.
   */
  address(base: Def, index: Def, read: boolean): Def | null {
    const w = this.world;
    const narrow = index.type === this.i64 && index instanceof PrimOp && index.tag === 'cast' ? index.op(0) : index;
    if (narrow.type !== this.i32) return null;
    const lin = this.linear(narrow);
    // Only the i32 values of k and c matter to the wrapped index.
    if (!lin || BigInt.asIntN(32, lin.c) !== 1n) return null;
    const k = BigInt.asIntN(32, lin.k);
    const range = this.offsets.get(lin.x);
    this.offsets.set(lin.x, range ? { min: range.min < k ? range.min : k, max: range.max > k ? range.max : k } : { min: k, max: k });
    if (read && this.invariant(base)) {
      const streams = this.streams.get(base) ?? new Map<Def, bigint>();
      const max = streams.get(lin.x);
      this.streams.set(base, streams.set(lin.x, max !== undefined && max > k ? max : k));
    }
    return w.lea(base, this.index(lin.x, k));
  }

  /**
   * Prefetches for every stream of loads in the full iterations, PREFETCH_BYTES
   * ahead. Measured on the blur of bench/vectorize (4096² f32, from DRAM, AMD
   * Zen 4): without them, 8 lanes run 5 to 10% behind the 16-lane code LLVM
   * makes of the scalar loop (so does LLVM's own 8-lane code of it) and 16 lanes
   * level with it; with them, 8 lanes run between 5% behind and 8% ahead, as
   * busy as the memory is, and 16 lanes 5 to 10% ahead. Kernels whose lines the
   * hardware prefetchers already bring in time (saxpy) neither gain nor lose. A
   * prefetch is only a hint: it never faults, and its address may lie past the
   * array in the last iterations.
   */
  prefetch(b: Builder): void {
    const w = this.world;
    for (const [base, streams] of this.streams) {
      const array = base.type as PtrType;
      const bytes = elementBytes(array.pointee);
      // One type for every address: the intrinsic is imported once per address space.
      const byte = w.types.ptr(w.prim('u8'), array.addrSpace);
      const name = `llvm.prefetch.p${array.addrSpace}`;
      const i32 = this.i32;
      const prefetch = w.imported(w.fnType([w.mem, byte, i32, i32, i32, w.fnType([w.mem])]), name, 'device', name);
      for (const [x, max] of streams) {
        const ahead = w.lea(base, w.arith('add', this.index(x, max), w.lit(this.i64, BigInt(PREFETCH_BYTES / bytes))));
        // Read, keep in all caches, data.
        b.call(prefetch, [w.bitcast(byte, ahead), w.litI32(0), w.litI32(3), w.litI32(1)], null);
      }
    }
  }

  private index(x: Def, k: bigint): Def {
    const w = this.world;
    return w.arith('add', w.arith('add', w.cast(this.i64, x), this.j), w.lit(this.i64, k));
  }

  /** True when no X + i of the loop from `lower` to `upper` wraps (see the top of the file). */
  check(lower: Def, upper: Def): Def {
    const w = this.world;
    const lo = w.cast(this.i64, lower);
    const hi = w.cast(this.i64, upper);
    let ok: Def = w.litBool(true);
    for (const [x, { min, max }] of this.offsets) {
      const x64 = w.cast(this.i64, x);
      ok = w.arith('and', ok, w.cmp('ge', w.arith('add', x64, lo), w.lit(this.i64, -(2n ** 31n) - min)));
      ok = w.arith('and', ok, w.cmp('le', w.arith('add', x64, hi), w.lit(this.i64, 2n ** 31n - max)));
    }
    return ok;
  }

  private linear(e: Def): Linear | null {
    const w = this.world;
    const zero = w.lit(this.i32, 0n);
    if (e === this.i) return { x: zero, k: 0n, c: 1n };
    if (isLit(e)) return { x: zero, k: e.payload as bigint, c: 0n };
    if (this.invariant(e)) return { x: e, k: 0n, c: 0n };
    if (!(e instanceof PrimOp)) return null;
    const [a, b] = e.ops as [Def, Def];
    switch (e.tag) {
      case 'add':
      case 'sub': {
        const l = this.linear(a);
        const r = this.linear(b);
        if (!l || !r) return null;
        const sign = e.tag === 'add' ? 1n : -1n;
        return { x: w.arith(e.tag, l.x, r.x), k: l.k + sign * r.k, c: l.c + sign * r.c };
      }
      case 'mul': {
        // The World puts a literal operand of a commutative operation second.
        const l = this.linear(a);
        if (!l || !isLit(b)) return null;
        const m = b.payload as bigint;
        return { x: w.arith('mul', l.x, b), k: l.k * m, c: l.c * m };
      }
      default:
        return null;
    }
  }

  /**
   * Whether `d` has one value in the whole vector loop and is safe to compute
   * before it: built from literals and the loop's parameters by operations that
   * cannot trap or make poison.
   */
  private invariant(d: Def): boolean {
    let known = this.invariants.get(d);
    if (known === undefined) {
      known = isLit(d)
        || (d instanceof Param && d.continuation === this.vloop && d.index > 0 && d.index < this.vloop.params.length - 1)
        || (d instanceof PrimOp && pure(d) && d.ops.every((o) => this.invariant(o)));
      this.invariants.set(d, known);
    }
    return known;
  }
}

/** 8 cache lines: on the blur, 256 to 512 bytes ahead work best, 768 no longer help. */
const PREFETCH_BYTES = 512;

function elementBytes(array: IRType): number {
  const elem = (array as IndefiniteArrayType | DefiniteArrayType).elem;
  return elem instanceof PrimType ? Math.max(1, elem.bits / 8) : 8;
}

function pure(p: PrimOp): boolean {
  const integer = (d: Def): boolean => d.type instanceof PrimType && d.type.isInt && d.type.length === 1;
  switch (p.tag) {
    case 'add':
    case 'sub':
    case 'mul':
      return integer(p);
    case 'cast':
      return integer(p) && integer(p.op(0));
    default:
      return false;
  }
}
