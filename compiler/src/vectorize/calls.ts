// Calls in a vectorised body. Lane queries become operations on the mask and the
// lane numbers; an element-wise LLVM intrinsic with a varying argument is called
// once on whole vectors (`llvm.sqrt.f32` → `llvm.sqrt.v8f32`), and with uniform
// arguments once on scalars. Anything else may have effects, so it is called once
// per active lane, in lane order, as the iterations would call it.
import { Continuation, type Def } from '../ir/defs.ts';
import { FnType, type IRType, PrimType } from '../ir/types.ts';
import type { Builder } from './builder.ts';
import { unsupported } from './error.ts';
import { isLaneQuery, llvmSuffix, mathIntrinsic } from './lanes.ts';
import type { Simd } from './simd.ts';

/** Intrinsics that are ordinary calls for each lane. */
const perLaneIntrinsics = new Set(['atomic', 'cmpxchg']);

export class Calls {
  constructor(private readonly simd: Simd) {}

  /** Calls `callee` with the (vectorised) `args` in the lanes of `mask`; returns its result, or null for none. */
  call(b: Builder, callee: Def, args: readonly Def[], mask: Def): Def | null {
    const result = resultType(callee);
    if (isLaneQuery(callee)) return this.laneQuery(callee.intrinsic, args, mask, result!);
    const math = mathIntrinsic(callee);
    if (math && args.some((a) => this.simd.isVarying(a))) return this.wholeVector(b, callee as Continuation, math.prefix, math.overloaded, args);
    if (math) return b.call(callee, args, result);
    if (callee instanceof Continuation && callee.isIntrinsic && !perLaneIntrinsics.has(callee.intrinsic)) {
      unsupported(`'${callee.intrinsic}' inside a vectorised body`);
    }
    return this.perLane(b, callee, args, result, mask);
  }

  /** `type` is the query's result type: the type of the value for extract and broadcast. */
  private laneQuery(query: string, args: readonly Def[], mask: Def, type: IRType): Def {
    const { simd } = this;
    const w = simd.world;
    const [x, lane] = args;
    switch (query) {
      case 'lane_id':
        return simd.iota();
      case 'num_lanes':
        return w.litI32(simd.width);
      case 'any':
        return simd.isVarying(x!) ? simd.any(simd.and(mask, x!)) : x!;
      case 'all':
        return simd.isVarying(x!) ? simd.every(simd.or(simd.not(mask), x!)) : x!;
      case 'ballot':
        return simd.ballot(simd.restrict(mask, x!));
      default: {
        // extract / broadcast: the value of `x` in lane `lane`.
        if (!simd.isVarying(x!)) return x!;
        if (!simd.isVarying(lane!)) return simd.lane(x!, lane!, type);
        return simd.fromLanes(Array.from({ length: simd.width }, (_, l) => simd.lane(x!, w.extract(lane!, l), type)), type);
      }
    }
  }

  /** `llvm.<op>.v<W><type>` on whole vectors; i1 flags stay scalar. */
  private wholeVector(b: Builder, callee: Continuation, prefix: string, overloaded: PrimType, args: readonly Def[]): Def {
    const { simd } = this;
    const w = simd.world;
    const params = callee.fnType.params.slice(1, -1);
    const vt = simd.vectorType(overloaded);
    const wide = args.map((a, i) => {
      if (params[i] === overloaded) return simd.splat(a);
      if (simd.isVarying(a)) unsupported(`a varying flag of ${callee.linkName}`);
      return a;
    });
    const name = `${prefix}v${simd.width}${llvmSuffix(overloaded)}`;
    const type = w.fnType([w.mem, ...params.map((p) => (p === overloaded ? vt : p)), w.fnType([w.mem, vt])]);
    return b.call(w.imported(type, name, 'device', name), wide, vt)!;
  }

  /** One call per active lane, in lane order; the results are gathered into a vector. */
  private perLane(b: Builder, callee: Def, args: readonly Def[], result: IRType | null, mask: Def): Def | null {
    const { simd } = this;
    const w = simd.world;
    const params = (callee.type as FnType).params.slice(1, -1);
    const results: Def[] = [];
    for (let l = 0; l < simd.width; l++) {
      const laneArgs = args.map((a, k) => simd.lane(a, l, params[k]!));
      const once = (): Def[] => {
        const r = b.call(callee, laneArgs, result);
        return r ? [r] : [];
      };
      const r = simd.isAll(mask) ? once() : b.when(w.extract(mask, l), once, result ? [w.bottom(result)] : [], 'call');
      if (result) results.push(r[0]!);
    }
    return result && simd.fromLanes(results, result);
  }
}

/** The value a call of `callee` returns (null for none). */
function resultType(callee: Def): IRType | null {
  const t = callee.type as FnType;
  const ret = t.params[t.params.length - 1];
  return ret instanceof FnType && ret.params.length > 1 ? ret.params[1]! : null;
}
