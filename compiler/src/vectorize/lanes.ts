// The calls a vectorised body can make, by what the vectoriser does with them:
// lane queries (compiler/lib/lanes.impala) become mask operations, element-wise
// LLVM intrinsics are called on whole vectors, everything else is called once per
// active lane.
import { Continuation, type Def, type Intrinsic } from '../ir/defs.ts';
import { FnType, PrimType } from '../ir/types.ts';
import { ELEMENT_WISE_INTRINSICS } from '../sema/intrinsics.ts';

export type LaneQuery = Extract<Intrinsic, 'lane_id' | 'num_lanes' | 'any' | 'all' | 'ballot' | 'extract' | 'broadcast'>;

const laneQueries: ReadonlySet<string> = new Set<LaneQuery>(['lane_id', 'num_lanes', 'any', 'all', 'ballot', 'extract', 'broadcast']);

export function isLaneQuery(d: Def): d is Continuation & { intrinsic: LaneQuery } {
  return d instanceof Continuation && laneQueries.has(d.intrinsic);
}

export interface MathIntrinsic {
  /** `llvm.<op>.` */
  readonly prefix: string;
  /** The overloaded scalar type: params of this type take vectors, the others (i1 flags) stay scalar. */
  readonly overloaded: PrimType;
}

/** An `extern "device"` element-wise LLVM intrinsic on one scalar type (`llvm.fma.f32`), or null. */
export function mathIntrinsic(callee: Def): MathIntrinsic | null {
  if (!(callee instanceof Continuation) || callee.cc !== 'device' || callee.hasBody) return null;
  const m = /^(llvm\.([a-z0-9]+)\.)(f16|f32|f64|i8|i16|i32|i64)$/.exec(callee.linkName ?? callee.name);
  // The families that apply lane by lane, overloaded on the vector type (`llvm.sqrt.v8f32`).
  if (!m || !ELEMENT_WISE_INTRINSICS.has(m[2]!)) return null;
  const params = callee.fnType.params;
  const ret = params[params.length - 1];
  const result = ret instanceof FnType ? ret.params[1] : undefined;
  if (!(result instanceof PrimType) || result.length !== 1) return null;
  return { prefix: m[1]!, overloaded: result };
}

/** LLVM's name for a scalar type in intrinsic suffixes; unsigned integers are integers. */
export function llvmSuffix(t: PrimType): string {
  const s = t.scalar;
  if (s.isBool) return 'i1';
  return s.isFloat ? s.prim : `i${s.bits}`;
}
