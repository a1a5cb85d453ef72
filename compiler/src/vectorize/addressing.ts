// 64-bit addresses for the contiguous and strided accesses of the full iterations.
//
// A body indexes arrays with i32 arithmetic that wraps, and a GEP sign-extends
// its index, so an access at `X + c·x` (X the same in every iteration, x the
// lane's index, c the stride: 1, or a few elements apart) costs an add and a
// sign extension per iteration and access: LLVM cannot turn `sext(X + c·i)`
// into a pointer that advances by c·W elements, because X + c·i might wrap
// between two iterations. The full iterations count with an i64 `j` instead
// (i = j, which fits in an i32), and such an access becomes
// `sext(x) + k + c·j`, where X = x + k with k a literal; that equals
// `sext(X + c·i)` whenever x + k + c·i stays in the i32 range. Whether it does
// is known before the loop: the lanes' x + k + c·i lie between x + k + c·lower
// and x + k + c·(upper - 1). The vector loop runs its full iterations only when
// every x passes that check for each of its strides and their least and
// greatest k (vloop.ts); otherwise all lanes go through the masked iterations,
// which keep the i32 arithmetic. So no address changes, in any program, and the
// full iterations no longer rely on the lanes of an access not wrapping either.
// The same streams of loads get software prefetches (`prefetch`), and the first
// streaming store an alignment peel (`peel`).
import { Continuation, type Def, isLit, Param, PrimOp } from '../ir/defs.ts';
import { cpuLayout } from '../ir/layout.ts';
import { type DefiniteArrayType, type IndefiniteArrayType, type IRType, PrimType, type PtrType } from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import type { Builder } from './builder.ts';

/** An i32 index as x + k + c·i (mod 2^32): x the same in every iteration (0 for none), k and c literals. */
interface Linear {
  x: Def;
  k: bigint;
  c: bigint;
}

/** The accesses `sext(x) + k + c·j` of one x and stride c: their least and greatest k. */
interface Offsets {
  x: Def;
  c: bigint;
  min: bigint;
  max: bigint;
}

export class WideIndex {
  /** Per x and c, the range of k of the accesses made `sext(x) + k + c·j`, which the check must cover. */
  readonly offsets = new Map<string, Offsets>();
  /** Per array of invariant address, per x and c, the greatest k of its loads. */
  private readonly streams = new Map<Def, Map<string, Offsets>>();
  private readonly invariants = new Map<Def, boolean>();
  /** The first contiguous streaming store of an invariant array: the one `peel` aligns. */
  private streamed: { base: Def; x: Def; k: bigint } | null = null;
  private readonly i64: PrimType;
  private readonly i32: PrimType;

  /** `j`: the i64 count of the full iterations; `i` = `j` as i32, the index the body sees. */
  constructor(private readonly world: World, private readonly vloop: Continuation, private readonly i: Def, private readonly j: Def) {
    this.i64 = world.prim('i64');
    this.i32 = world.prim('i32');
  }

  /**
   * The address of what `index` (i32 or a sign-extended i32, lane 0's) addresses
   * in the array at `base`, as `sext(x) + k + stride·j`; null if the index is not
   * X + stride·i. `read`: a load, whose stream `prefetch` covers; `streamed`: a
   * streaming store, which `peel` may align.
   */
  address(base: Def, index: Def, stride: number, read: boolean, streamed = false): Def | null {
    const w = this.world;
    const narrow = index.type === this.i64 && index instanceof PrimOp && index.tag === 'cast' ? index.op(0) : index;
    if (narrow.type !== this.i32) return null;
    const lin = this.linear(narrow);
    // Only the i32 values of k and c matter to the wrapped index.
    const c = BigInt(stride);
    if (!lin || BigInt.asIntN(32, lin.c) !== c) return null;
    const k = BigInt.asIntN(32, lin.k);
    const key = `${lin.x.gid}:${c}`;
    cover(this.offsets, key, lin.x, c, k);
    if (read && this.invariant(base)) {
      const streams = this.streams.get(base) ?? new Map<string, Offsets>();
      this.streams.set(base, streams);
      cover(streams, key, lin.x, c, k);
    }
    if (streamed && c === 1n && !this.streamed && this.invariant(base)) this.streamed = { base, x: lin.x, k };
    return w.lea(base, this.index(lin.x, k, c));
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
   * array in the last iterations. A strided stream advances by more than a line
   * per iteration, so its one prefetch skips some lines; one per line measured no
   * faster (3-channel u8 images, streamed from DRAM): the hardware prefetchers
   * follow such streams.
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
      for (const { x, c, max } of streams.values()) {
        const ahead = w.lea(base, w.arith('add', this.index(x, max, c), w.lit(this.i64, BigInt(PREFETCH_BYTES / bytes))));
        // Read, keep in all caches, data.
        b.call(prefetch, [w.bitcast(byte, ahead), w.litI32(0), w.litI32(3), w.litI32(1)], null);
      }
    }
  }

  /**
   * How many lanes from `lower` on to run masked before the full iterations (fewer than
   * W), so that the first streaming store's lanes then start at an address aligned to
   * the vector, or to 64 bytes for a wider one: x86 streams only aligned registers
   * (backend/streaming.ts), and a row starts wherever its image and the region's first x
   * put it. null when no store streams. The count comes from the backend's
   * `anydsl.elements_to_align` (the IR has no integer view of an address).
   */
  peel(b: Builder, lower: Def, lanes: number): Def | null {
    if (!this.streamed) return null;
    const w = this.world;
    const { base, x, k } = this.streamed;
    const array = base.type as PtrType;
    const bytes = elementBytes(array.pointee);
    const byte = w.types.ptr(w.prim('u8'), array.addrSpace);
    const name = `anydsl.elements_to_align.p${array.addrSpace}`;
    const i32 = this.i32;
    const count = w.imported(w.fnType([w.mem, byte, i32, i32, w.fnType([w.mem, i32])]), name, 'device', name);
    const first = w.lea(base, w.arith('add', w.arith('add', w.cast(this.i64, x), w.cast(this.i64, lower)), w.lit(this.i64, k)));
    const align = Math.min(64, bytes * lanes);
    return b.call(count, [w.bitcast(byte, first), w.litI32(bytes), w.litI32(align)], i32)!;
  }

  private index(x: Def, k: bigint, c: bigint): Def {
    const w = this.world;
    return w.arith('add', w.arith('add', w.cast(this.i64, x), w.arith('mul', this.j, w.lit(this.i64, c))), w.lit(this.i64, k));
  }

  /** True when no X + c·i of the loop from `lower` to `upper` wraps (see the top of the file). */
  check(lower: Def, upper: Def): Def {
    const w = this.world;
    const lo = w.cast(this.i64, lower);
    const hi = w.cast(this.i64, upper);
    let ok: Def = w.litBool(true);
    // x + k + c·lower >= -2^31 and x + k + c·(upper - 1) < 2^31, exact in i64 for the i32 x, lower, upper.
    for (const { x, c, min, max } of this.offsets.values()) {
      const x64 = w.cast(this.i64, x);
      const plus = (d: Def): Def => w.arith('add', x64, w.arith('mul', d, w.lit(this.i64, c)));
      ok = w.arith('and', ok, w.cmp('ge', plus(lo), w.lit(this.i64, -(2n ** 31n) - min)));
      ok = w.arith('and', ok, w.cmp('le', plus(hi), w.lit(this.i64, 2n ** 31n - 1n + c - max)));
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

/** Adds the access `sext(x) + k + c·j` to the ranges of `byTerm`. */
function cover(byTerm: Map<string, Offsets>, key: string, x: Def, c: bigint, k: bigint): void {
  const o = byTerm.get(key);
  if (!o) byTerm.set(key, { x, c, min: k, max: k });
  else if (k < o.min) o.min = k;
  else if (k > o.max) o.max = k;
}

/** 8 cache lines: on the blur, 256 to 512 bytes ahead work best, 768 no longer help. */
const PREFETCH_BYTES = 512;

function elementBytes(array: IRType): number {
  return Math.max(1, cpuLayout.size((array as IndefiniteArrayType | DefiniteArrayType).elem));
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
