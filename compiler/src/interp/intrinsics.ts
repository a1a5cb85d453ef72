// Compiler-known continuations. `branch` and `match` pick a target; the
// higher-order ones (`parallel`, `vectorize`, `spawn`) run their body
// sequentially, which is their meaning for a program without data races: each
// iteration is a call of the body whose return continuation is a JS continuation
// that starts the next one, so there is no JS recursion here either. GPU launches
// work the same way, with barriers (gpu.ts).
import type { Continuation } from '../ir/defs.ts';
import { PrimType, type PrimTypeName, PtrType, type TypeTable } from '../ir/types.ts';
import type { GpuEmulator } from './gpu.ts';
import { load, store } from './memory.ts';
import { arith, compare } from './numeric.ts';
import { InterpError, type Jump, NativeFn, Pointer, sameValue, type Value } from './values.ts';

export interface IntrinsicContext {
  readonly types: TypeTable;
  /** Ids handed out by `spawn`. */
  nextTask: bigint;
  readonly gpu: GpuEmulator;
}

export function callIntrinsic(ctx: IntrinsicContext, callee: Continuation, args: readonly Value[]): Jump {
  const [mem] = args;
  const ret = args[args.length - 1]!;
  switch (callee.intrinsic) {
    case 'branch':
      return { callee: args[1] ? args[2]! : args[3]!, args: [mem!] };
    case 'match': {
      for (let i = 3; i + 1 < args.length; i += 2) {
        if (sameValue(args[1]!, args[i]!)) return { callee: args[i + 1]!, args: [mem!] };
      }
      return { callee: args[2]!, args: [mem!] };
    }
    case 'parallel':
    case 'vectorize':
      return loop(args[2] as bigint, args[3] as bigint, args[4]!, ret, mem!);
    case 'spawn': {
      const id = ctx.nextTask++;
      const done = new NativeFn('spawn.done', ([m]) => ({ callee: ret, args: [m!, id] }));
      return { callee: args[1]!, args: [mem!, done] };
    }
    case 'sync':
    case 'pe_info':
      return { callee: ret, args: [mem!] };
    case 'atomic':
      return { callee: ret, args: [mem!, atomic(ctx, callee, args)] };
    case 'cmpxchg': {
      const t = callee.fnType.params[2]!;
      const ptr = args[1] as Pointer;
      const old = load(ctx.types, ptr, t);
      const swapped = sameValue(old, args[2]!);
      if (swapped) store(ctx.types, ptr, t, args[3]!);
      return { callee: ret, args: [mem!, [old, swapped]] };
    }
    // The interpreter runs `vectorize` one iteration at a time: every lane is alone in its group.
    case 'lane_id':
      return { callee: ret, args: [mem!, 0n] };
    case 'num_lanes':
      return { callee: ret, args: [mem!, 1n] };
    case 'any':
    case 'all':
    case 'extract':
    case 'broadcast':
      return { callee: ret, args: [mem!, args[1]!] };
    case 'ballot':
      return { callee: ret, args: [mem!, args[1] ? 1n : 0n] };
    case 'cuda':
    case 'nvvm':
    case 'opencl':
      return ctx.gpu.launch(callee.intrinsic, args);
    case 'reserve_shared':
      return ctx.gpu.reserveShared(callee, args);
    case 'none':
      throw new InterpError(`internal: ${callee.label} is not an intrinsic`);
  }
}

/** Calls `body(i)` for i in [lower, upper), then returns to `ret`. */
function loop(lower: bigint, upper: bigint, body: Value, ret: Value, mem: Value): Jump {
  let i = lower;
  const next = new NativeFn('loop.next', ([m]) => step(m!));
  const step = (m: Value): Jump => (i < upper ? { callee: body, args: [m, i++, next] } : { callee: ret, args: [m] });
  return step(mem);
}

/** LLVM's atomicrmw operations, numbered as `AtomicRMWInst::BinOp` (what Impala's `atomic` takes). */
function atomic(ctx: IntrinsicContext, callee: Continuation, args: readonly Value[]): Value {
  const [, op, ptr, val] = args;
  const ptrType = callee.fnType.params[2];
  const t = callee.fnType.params[3];
  if (!(ptrType instanceof PtrType) || !(t instanceof PrimType) || !(ptr instanceof Pointer)) {
    throw new InterpError(`atomic: unexpected signature ${callee.type}`);
  }
  const old = load(ctx.types, ptr, t);
  const pick = (cond: Value): Value => (cond ? old : val!);
  // atomicrmw max/min compare as signed and umax/umin as unsigned, whatever the Impala type.
  const signed = ctx.types.prim(t.isInt ? (`i${t.bits}` as PrimTypeName) : t.prim);
  const unsigned = ctx.types.prim(t.isInt ? (`u${t.bits}` as PrimTypeName) : t.prim);
  const asSigned = (x: Value): Value => (t.isInt ? BigInt.asIntN(t.bits, x as bigint) : x);
  const asUnsigned = (x: Value): Value => (t.isInt ? BigInt.asUintN(t.bits, x as bigint) : x);
  const ops: Record<number, () => Value> = {
    0: () => val!,
    1: () => arith('add', t, old, val!),
    2: () => arith('sub', t, old, val!),
    3: () => arith('and', t, old, val!),
    4: () => arith('xor', t, arith('and', t, old, val!), t.isBool ? true : -1n),
    5: () => arith('or', t, old, val!),
    6: () => arith('xor', t, old, val!),
    7: () => pick(compare('gt', signed, asSigned(old), asSigned(val!))),
    8: () => pick(compare('lt', signed, asSigned(old), asSigned(val!))),
    9: () => pick(compare('gt', unsigned, asUnsigned(old), asUnsigned(val!))),
    10: () => pick(compare('lt', unsigned, asUnsigned(old), asUnsigned(val!))),
    11: () => arith('add', t, old, val!),
    12: () => arith('sub', t, old, val!),
  };
  const f = ops[Number(op)];
  if (!f) throw new InterpError(`atomic: unknown operation ${op}`);
  store(ctx.types, ptr, t, f());
  return old;
}
