// Imported functions the interpreter emulates: the C runtime (runtime/print.c and
// friends), a little libc, and the LLVM math intrinsics reached through `extern "device"`.
import type { Continuation } from '../ir/defs.ts';
import { FnType, PrimType, PtrVectorType, type TypeTable } from '../ir/types.ts';
import { formatFixed, formatG } from './format.ts';
import { copyBytes, elementPointer, fillBytes, load, readCString, store, untypedBlock } from './memory.ts';
import { fusedMultiplyAdd, lanes, roundFloat, wrapInt } from './numeric.ts';
import { InterpError, Pointer, type Value } from './values.ts';

export interface ExternContext {
  readonly types: TypeTable;
  /** Appends bytes to the program's stdout. */
  write(bytes: readonly number[]): void;
}

/** Gets the Impala-level arguments (no mem, no return continuation); returns the result, if any. */
type ExternFn = (ctx: ExternContext, args: readonly Value[], callee: Continuation) => Value | undefined;

const ascii = (s: string): number[] => [...s].map((ch) => ch.charCodeAt(0));

function print(show: (v: Value) => string): ExternFn {
  return (ctx, [v]) => {
    ctx.write(ascii(show(v!)));
    return undefined;
  };
}

function pointer(v: Value | undefined, what: string): Pointer {
  if (!(v instanceof Pointer)) throw new InterpError(`${what} expects a pointer`);
  return v;
}

const start = performance.now();

const runtime: Record<string, ExternFn> = {
  anydsl_print_i16: print(String),
  anydsl_print_i32: print(String),
  anydsl_print_i64: print(String),
  anydsl_print_u16: print(String),
  anydsl_print_u32: print(String),
  anydsl_print_u64: print(String),
  anydsl_print_f32: print((v) => formatG(v as number)),
  anydsl_print_f64: print((v) => formatG(v as number)),
  anydsl_print_f64_fixed: (ctx, [v, digits]) => {
    ctx.write(ascii(formatFixed(v as number, Number(digits))));
    return undefined;
  },
  anydsl_print_char: (ctx, [c]) => {
    ctx.write([Number(BigInt.asUintN(8, c as bigint))]);
    return undefined;
  },
  anydsl_print_string: (ctx, [s]) => {
    ctx.write(readCString(pointer(s, 'anydsl_print_string')));
    return undefined;
  },
  anydsl_print_flush: () => undefined,
  anydsl_alloc: (_ctx, [, size]) => {
    const bytes = Number(size);
    if (bytes < 0) throw new InterpError(`anydsl_alloc of ${bytes} bytes`);
    return new Pointer(untypedBlock(bytes, `anydsl_alloc(${bytes})`), []);
  },
  // Host-visible and unified memory are host memory to the interpreter, like every device buffer.
  anydsl_alloc_host: (ctx, args, callee) => runtime.anydsl_alloc!(ctx, args, callee),
  anydsl_alloc_unified: (ctx, args, callee) => runtime.anydsl_alloc!(ctx, args, callee),
  // Launches run to completion in the interpreter (interpreter.ts launchKernel).
  anydsl_synchronize: () => undefined,
  anydsl_release: (_ctx, [, p]) => {
    const ptr = pointer(p, 'anydsl_release');
    if (ptr.block) {
      if (ptr.block.freed) throw new InterpError(`double release of ${ptr.block.what}`);
      ptr.block.freed = true;
    }
    return undefined;
  },
  anydsl_copy: (ctx, [, src, srcOff, , dst, dstOff, size]) => {
    copyBytes(ctx.types, pointer(src, 'anydsl_copy'), Number(srcOff), pointer(dst, 'anydsl_copy'), Number(dstOff), Number(size));
    return undefined;
  },
  anydsl_release_host: (ctx, args, callee) => runtime.anydsl_release!(ctx, args, callee),
  // Every buffer is host memory to the interpreter: kernels see the host's pointers.
  anydsl_get_device_ptr: (_ctx, [, p]) => p,
  anydsl_info: (ctx) => {
    ctx.write(ascii('Available platforms:\n    * host: the CPU\n'));
    return undefined;
  },
  anydsl_random_seed: (ctx, [seed]) => {
    randomStates.set(ctx, BigInt.asUintN(32, seed as bigint));
    return undefined;
  },
  anydsl_random_val_u64: (ctx) => nextRandom(ctx),
  anydsl_random_val_f32: (ctx) => Number(nextRandom(ctx) >> 40n) * 2 ** -24,
  anydsl_isinff: (_ctx, [x]) => isInf(x as number),
  anydsl_isinf: (_ctx, [x]) => isInf(x as number),
  anydsl_isnanf: (_ctx, [x]) => (Number.isNaN(x) ? 1n : 0n),
  anydsl_isnan: (_ctx, [x]) => (Number.isNaN(x) ? 1n : 0n),
  anydsl_isfinitef: (_ctx, [x]) => (Number.isFinite(x) ? 1n : 0n),
  anydsl_isfinite: (_ctx, [x]) => (Number.isFinite(x) ? 1n : 0n),
  // Launches finish inside the call that makes them: no kernel time is measured.
  anydsl_get_kernel_time: () => 0n,
  anydsl_get_micro_time: () => BigInt(Math.round((performance.now() - start) * 1e3)),
  anydsl_get_nano_time: () => BigInt(Math.round((performance.now() - start) * 1e6)),
  abs: intAbs,
  labs: intAbs,
  llabs: intAbs,
  putchar: (ctx, [c]) => {
    ctx.write([Number(BigInt.asUintN(8, c as bigint))]);
    return c;
  },
  strlen: (_ctx, [s], callee) => wrapInt(resultType(callee), BigInt(readCString(pointer(s, 'strlen')).length)),
  atoi: (_ctx, [s], callee) => {
    const text = String.fromCharCode(...readCString(pointer(s, 'atoi')));
    const m = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(text);
    return wrapInt(resultType(callee), m ? BigInt(m[1]!) : 0n);
  },
  toupper: (_ctx, [c]) => mapChar(c as bigint, /[a-z]/, (ch) => ch.toUpperCase()),
  tolower: (_ctx, [c]) => mapChar(c as bigint, /[A-Z]/, (ch) => ch.toLowerCase()),
  memset: (_ctx, [dst, c, n]) => {
    fillBytes(pointer(dst, 'memset'), Number(BigInt.asUintN(8, c as bigint)), Number(n));
    return dst;
  },
  memcpy: (ctx, [dst, src, n]) => {
    copyBytes(ctx.types, pointer(src, 'memcpy'), 0, pointer(dst, 'memcpy'), 0, Number(n));
    return dst;
  },
};

const isInf = (x: number): bigint => (x === Infinity || x === -Infinity ? 1n : 0n);

/** The state of runtime/compat.c's splitmix64, per run of the interpreter; its initial value is compat.c's. */
const randomStates = new WeakMap<ExternContext, bigint>();

function nextRandom(ctx: ExternContext): bigint {
  const state = BigInt.asUintN(64, (randomStates.get(ctx) ?? 0x853c49e6748fea9bn) + 0x9e3779b97f4a7c15n);
  randomStates.set(ctx, state);
  let z = state;
  z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
  z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
  return z ^ (z >> 31n);
}

function intAbs(_ctx: ExternContext, [x]: readonly Value[], callee: Continuation): Value {
  const v = x as bigint;
  return wrapInt(resultType(callee), v < 0n ? -v : v);
}

function mapChar(c: bigint, test: RegExp, f: (ch: string) => string): bigint {
  const ch = String.fromCharCode(Number(c));
  return c >= 0n && c < 128n && test.test(ch) ? BigInt(f(ch).charCodeAt(0)) : c;
}

/** C's pow special cases where JS's Math.pow answers NaN. */
function pow(x: number, y: number): number {
  if (x === 1 || y === 0) return 1;
  if (x === -1 && !Number.isFinite(y) && !Number.isNaN(y)) return 1;
  return Math.pow(x, y);
}

/** llvm.minnum/maxnum: a NaN operand loses. */
function minnum(x: number, y: number): number {
  return Number.isNaN(x) ? y : Number.isNaN(y) ? x : Math.min(x, y);
}
function maxnum(x: number, y: number): number {
  return Number.isNaN(x) ? y : Number.isNaN(y) ? x : Math.max(x, y);
}

/** Rounds half away from zero, as llvm.round does. */
function roundHalfAway(x: number): number {
  const r = Math.round(Math.abs(x));
  return x < 0 || Object.is(x, -0) ? -r : r;
}

const math: Record<string, (...xs: number[]) => number> = {
  sqrt: Math.sqrt,
  fabs: Math.abs,
  floor: Math.floor,
  ceil: Math.ceil,
  trunc: Math.trunc,
  round: roundHalfAway,
  exp: Math.exp,
  exp2: (x) => 2 ** x,
  log: Math.log,
  log2: Math.log2,
  log10: Math.log10,
  sin: Math.sin,
  cos: Math.cos,
  pow,
  minnum,
  maxnum,
  copysign: (x, y) => (y < 0 || Object.is(y, -0) ? -Math.abs(x) : Math.abs(x)),
};

function resultType(callee: Continuation): PrimType {
  const ret = callee.fnType.params[callee.fnType.params.length - 1];
  const t = ret instanceof FnType ? ret.params[1] : undefined;
  if (!(t instanceof PrimType)) throw new InterpError(`${callee.name}: expected a numeric result type`);
  return t;
}

/** Integer intrinsics on the two's complement bits; `bits` is the operand width. */
const integer: Record<string, (bits: number, ...xs: bigint[]) => bigint> = {
  ctpop: (bits, x) => BigInt([...BigInt.asUintN(bits, x!).toString(2)].filter((d) => d === '1').length),
  ctlz: (bits, x) => BigInt(bits - (x === 0n ? 0 : BigInt.asUintN(bits, x!).toString(2).length)),
  cttz: (bits, x) => {
    const digits = BigInt.asUintN(bits, x!).toString(2);
    return BigInt(x === 0n ? bits : digits.length - 1 - digits.lastIndexOf('1'));
  },
  bswap: (bits, x) => {
    const hex = BigInt.asUintN(bits, x!).toString(16).padStart(bits / 4, '0');
    return BigInt(`0x${hex.match(/../g)!.reverse().join('')}`);
  },
  bitreverse: (bits, x) => BigInt(`0b${[...BigInt.asUintN(bits, x!).toString(2).padStart(bits, '0')].reverse().join('')}`),
  abs: (bits, x) => (BigInt.asIntN(bits, x!) < 0n ? -BigInt.asIntN(bits, x!) : x!),
  smax: (bits, x, y) => (BigInt.asIntN(bits, x!) > BigInt.asIntN(bits, y!) ? x! : y!),
  smin: (bits, x, y) => (BigInt.asIntN(bits, x!) < BigInt.asIntN(bits, y!) ? x! : y!),
  umax: (bits, x, y) => (BigInt.asUintN(bits, x!) > BigInt.asUintN(bits, y!) ? x! : y!),
  umin: (bits, x, y) => (BigInt.asUintN(bits, x!) < BigInt.asUintN(bits, y!) ? x! : y!),
};

/** `llvm.<op>.<type suffix>`, applied lane by lane and rounded or wrapped to the result type. */
function llvmMath(name: string): ExternFn | undefined {
  const op = name.split('.')[1] ?? '';
  // A prefetch (the vectoriser's, ahead of streamed loads) is a hint with no effect on results.
  if (op === 'prefetch') return () => undefined;
  // The vectoriser's alignment peel for a streaming store (backend/streaming.ts): the
  // interpreter's memory has no addresses, and any count gives the same results.
  if (op === 'elements_to_align') return () => 0n;
  // The backend's streaming store (`anydsl.masked.store_nontemporal`) writes what a masked store does.
  if (op === 'masked') return maskedMemory(name.split('.')[2] === 'store_nontemporal' ? 'store' : (name.split('.')[2] ?? ''));
  const int = integer[op];
  if (int) {
    return (_ctx, args, callee) => {
      const t = resultType(callee);
      // Trailing i1 flags (is_zero_poison, is_int_min_poison) do not change defined results.
      const operands = args.filter((a) => typeof a !== 'boolean');
      return lanes(t, (...xs) => wrapInt(t.scalar, int(t.bits, ...(xs as bigint[]))), ...operands);
    };
  }
  if (op === 'fma') {
    return (_ctx, args, callee) => {
      const t = resultType(callee);
      return lanes(t, (a, b, c) => fusedMultiplyAdd(t, a as number, b as number, c as number), ...args);
    };
  }
  const f = math[op];
  if (!f) return undefined;
  return (_ctx, args, callee) => {
    const t = resultType(callee);
    return lanes(t, (...xs) => roundFloat(t, f(...(xs as number[]))), ...args);
  };
}

/**
 * `llvm.masked.load/store` (W consecutive elements from a pointer to the first) and
 * `llvm.masked.gather/scatter` (a vector of pointers), as the vectoriser emits them:
 * lanes whose mask is off are not accessed, and a load gives them the passthru lane.
 */
function maskedMemory(op: string): ExternFn | undefined {
  const reads = op === 'load' || op === 'gather';
  if (!reads && op !== 'store' && op !== 'scatter') return undefined;
  return (ctx, args, callee) => {
    const ps = callee.fnType.params;
    const vt = reads ? (ps[ps.length - 1] as FnType).params[1]! : ps[1]!;
    const elem = vt instanceof PrimType ? ctx.types.prim(vt.prim) : (vt as PtrVectorType).lane;
    const [addr, , mask, x] = reads ? args : [args[1], args[2], args[3], args[0]];
    const where = (l: number): Pointer =>
      op === 'load' || op === 'store' ? elementPointer(pointer(addr, callee.name), ctx.types.indefiniteArray(elem), l) : pointer((addr as Value[])[l], callee.name);
    const on = mask as boolean[];
    const xs = x as Value[];
    if (reads) return on.map((m, l) => (m ? load(ctx.types, where(l), elem) : xs[l]!));
    on.forEach((m, l) => {
      if (m) store(ctx.types, where(l), elem, xs[l]!);
    });
    return undefined;
  };
}

/** The emulation of an imported function, by its link name; undefined when there is none. */
export function findExtern(callee: Continuation): ExternFn | undefined {
  const name = callee.linkName ?? callee.name;
  if (callee.cc === 'device' || name.startsWith('llvm.')) return llvmMath(name);
  return Object.hasOwn(runtime, name) ? runtime[name] : undefined;
}
