// The reference semantics of the IR. Control is CPS: every step takes a jump
// (callee value + argument values), binds the callee's params in a new
// activation (Frame) and evaluates its body to the next jump, in a plain loop,
// so deep recursion in the program never grows the JS stack.
//
// A continuation used as a value becomes a Closure capturing the innermost
// activation it needs (see ir/nesting.ts); an activation's parent is the activation
// its closure captured, so a param is found by walking that (short, lexical) chain.
// An activation computes the primops its body needs in the order of a lazy
// left-to-right evaluation (plan.ts). Effects happen once per activation of the
// continuations they depend on: a load used by several blocks of a function reads
// memory once, when the function's body evaluates it, not when a block uses it.
import { Continuation, type Def, Param, PrimOp, type ArithOpTag, type AsmInfo, type CmpOpTag } from '../ir/defs.ts';
import { cpuLayout } from '../ir/layout.ts';
import { Nesting } from '../ir/nesting.ts';
import type { World } from '../ir/world.ts';
import {
  type DefiniteArrayType, type FnType, IndefiniteArrayType, type IRType, PrimType, PtrType, PtrVectorType, type TupleType, type TypeTable,
} from '../ir/types.ts';
import { Addresses } from './addresses.ts';
import { findExtern } from './externs.ts';
import { GpuEmulator } from './gpu.ts';
import { callIntrinsic, type IntrinsicContext } from './intrinsics.ts';
import { elementPointer, load, newBlock, readCString, retype, store, stringArray } from './memory.ts';
import { arith, bitcastPrim, compare, convert, wrapInt } from './numeric.ts';
import { makePlan, type Operand, type Plan } from './plan.ts';
import {
  Closure, copyValue, defaultValue, Frame, InterpError, type Jump, MEM, NativeFn, Pointer, sameValue, showValue, Token,
  type Value, VariantValue,
} from './values.ts';

export interface InterpOptions {
  /** Maximum number of jumps before giving up (default 10 million). */
  stepLimit?: number;
  /** Receives the program's output as it is printed. */
  stdout?: (s: string) => void;
}

export interface InterpResult {
  /** What the entry returned: its single value, `[]` for `()`, an array for several values. */
  result: Value;
  stdout: string;
  /** Jumps executed. */
  steps: number;
}

/**
 * Runs `entry` (a continuation `fn(mem, args…, fn(mem, R))`) on `args` (the values
 * between mem and the return continuation) and returns what it returns.
 * Failures of the program throw an InterpError whose `stdout` holds the output so far.
 */
export function interpret(world: World, entry: Continuation, args: readonly Value[], opts: InterpOptions = {}): InterpResult {
  return new Machine(world, entry, opts).run(args);
}

/**
 * The arguments of a C `main`: none when it takes none, else `argc` and an `argv`
 * built from `argv` (by convention argv[0] is the program's name).
 */
export function mainArguments(main: Continuation, argv: readonly string[]): Value[] {
  const [, argc, argvParam] = main.fnType.params;
  if (main.params.length <= 2) return [];
  if (!(argc instanceof PrimType) || !(argvParam instanceof PtrType)) throw new InterpError(`main has an unexpected type ${main.type}`);
  return [wrapInt(argc, BigInt(argv.length)), stringArray(argvParam, argv)];
}

const ARITH = new Set<string>(['add', 'sub', 'mul', 'div', 'rem', 'and', 'or', 'xor', 'shl', 'shr']);
const CMP = new Set<string>(['eq', 'ne', 'lt', 'le', 'gt', 'ge']);

class Machine implements IntrinsicContext {
  readonly types: TypeTable;
  nextTask = 0n;
  readonly gpu = new GpuEmulator();
  private readonly addresses = new Addresses();
  private readonly nesting: Nesting;
  /** Values of primops that depend on no activation (literals, globals, closed aggregates). */
  private readonly constants = new Map<PrimOp, Value>();
  private readonly closedClosures = new Map<Continuation, Closure>();
  private readonly plans = new Map<Continuation, Plan>();
  /** Per primop: null for constants, else the continuation(s) whose activation holds its value. */
  private readonly homes = new Map<PrimOp, Continuation | ReadonlySet<Continuation> | null>();
  private readonly out: number[] = [];
  private readonly decoder = new TextDecoder();
  /** Decodes output for the `stdout` callback, keeping incomplete UTF-8 sequences for the next chunk. */
  private readonly streamDecoder = new TextDecoder();
  private steps = 0;

  /** GPU kernels by name (after kernel extraction): exported `device` continuations, which launches call by name. */
  private readonly kernels = new Map<string, Continuation>();

  constructor(world: World, private readonly entry: Continuation, private readonly opts: InterpOptions) {
    this.types = world.types;
    for (const c of world.continuations) if (c.external && c.hasBody && c.cc === 'device') this.kernels.set(c.linkName ?? c.name, c);
    this.nesting = new Nesting([entry, ...this.kernels.values()]);
  }

  run(args: readonly Value[]): InterpResult {
    const entry = this.entry;
    const ret = entry.retParam;
    const expected = entry.params.length - (ret ? 2 : 1);
    if (!entry.hasBody) throw new InterpError(`entry ${entry.label} has no body`);
    if (args.length !== expected) throw new InterpError(`entry ${entry.label} takes ${expected} arguments, got ${args.length}`);
    if (this.nesting.needs(entry).size) throw new InterpError(`entry ${entry.label} has free variables`);
    let result: Value = [];
    const halt = new NativeFn('return', (a) => {
      result = a.length === 2 ? a[1]! : a.slice(1);
      return null;
    });
    const limit = this.opts.stepLimit ?? 10_000_000;
    let jump: Jump | null = { callee: this.closed(entry), args: [MEM, ...args, ...(ret ? [halt] : [])] };
    let where: Continuation | string = entry;
    try {
      while (jump) {
        if (++this.steps > limit) throw new InterpError(`step limit of ${limit} jumps exceeded`);
        const callee: Value = jump.callee;
        const values = jump.args;
        if (callee instanceof NativeFn) {
          where = callee.name;
          jump = callee.call(values);
        } else if (callee instanceof Closure) {
          where = callee.continuation;
          jump = this.enter(callee, values);
        } else {
          throw new InterpError(`jump to ${showValue(callee)}, which is not a function`);
        }
      }
    } catch (e) {
      if (e instanceof InterpError) {
        e.message += ` (in ${describe(where)}, after ${this.steps} jumps)`;
        e.stdout = this.decoder.decode(Uint8Array.from(this.out));
      }
      throw e;
    }
    return { result, stdout: this.decoder.decode(Uint8Array.from(this.out)), steps: this.steps };
  }

  private enter(closure: Closure, args: readonly Value[]): Jump {
    const c = closure.continuation;
    if (c.intrinsic !== 'none') return callIntrinsic(this, c, args);
    if (!c.hasBody) return this.callExtern(c, args);
    if (args.length !== c.params.length) {
      throw new InterpError(`${c.label} takes ${c.params.length} arguments, got ${args.length}`);
    }
    let plan = this.plans.get(c);
    if (!plan) this.plans.set(c, (plan = makePlan(c, this.nesting, (k) => this.closed(k))));
    const steps = plan.steps;
    const frame = new Frame(c, args, closure.env, plan.slots, steps.length);
    const local = frame.local;
    for (let i = 0; i < steps.length; i++) {
      const { op, operands } = steps[i]!;
      if (operands) {
        const x = new Array<Value>(operands.length);
        for (let k = 0; k < operands.length; k++) x[k] = this.read(operands[k]!, frame);
        local[i] = this.compute(op, x);
      } else {
        local[i] = this.evalPrimOp(op, frame);
      }
    }
    const values = new Array<Value>(plan.args.length);
    for (let i = 0; i < values.length; i++) values[i] = this.read(plan.args[i]!, frame);
    return { callee: this.read(plan.callee, frame), args: values };
  }

  private read(o: Operand, frame: Frame): Value {
    switch (o.kind) {
      case 'value':
        return o.value;
      case 'own':
        return frame.args[o.index]!;
      case 'local':
        return frame.local[o.index]!;
      case 'param':
        return this.lookup(o.param, frame);
      case 'closure':
        return this.capture(o.continuation, o.needs, frame);
      case 'constant':
        return this.evalPrimOp(o.op, frame);
    }
  }

  private callExtern(c: Continuation, args: readonly Value[]): Jump {
    if (this.gpu.handles(c)) return this.gpu.call(c, args);
    const name = c.linkName ?? c.name;
    if (name === 'anydsl_launch_kernel' && c.cc === 'C') return this.launchKernel(args);
    const f = c.external ? findExtern(c) : undefined;
    if (!f) throw new InterpError(`${c.external ? `extern '${name}' is not emulated by the interpreter` : `${c.label} has no body`}`);
    const retType = c.retParam?.type as FnType | undefined;
    if (!retType) throw new InterpError(`extern '${name}' has no return continuation`);
    const result = f(this, args.slice(1, -1), c);
    const ret = args[args.length - 1]!;
    return { callee: ret, args: retType.params.length > 1 ? [args[0]!, result ?? []] : [args[0]!] };
  }

  /**
   * `anydsl_launch_kernel(dev, key, program, name, grid, block, args, sizes, kinds, n)` as the
   * host code after kernel extraction calls it: the named kernel runs as a launch of the
   * emulator, its arguments read from the records `args` points at, as the runtime reads them.
   */
  private launchKernel(args: readonly Value[]): Jump {
    const [mem, dev, , , name, grid, block, argv, , , n] = args;
    const kernelName = String.fromCharCode(...readCString(name as Pointer));
    const kernel = this.kernels.get(kernelName);
    if (!kernel) throw new InterpError(`anydsl_launch_kernel: no kernel named '${kernelName}'`);
    const i32 = this.types.prim('i32');
    const dims = this.types.tuple([i32, i32, i32]);
    const dim3 = (p: Value): Value => load(this.types, retype(this.types, p as Pointer, this.types.ptr(dims)), dims);
    const count = Number(n as bigint);
    const bytePtr = this.types.ptr(this.types.indefiniteArray(this.types.prim('u8')));
    const params = kernel.params.slice(1, -1);
    if (params.length !== count) throw new InterpError(`anydsl_launch_kernel: ${kernelName} takes ${params.length} arguments, got ${count}`);
    const values = params.map((p, i) => {
      const at = load(this.types, elementPointer(argv as Pointer, this.types.indefiniteArray(bytePtr), i), bytePtr);
      return load(this.types, retype(this.types, at as Pointer, this.types.ptr(p.type)), p.type);
    });
    const body = new NativeFn(kernelName, ([m, ret]) => ({ callee: this.closed(kernel), args: [m!, ...values, ret!] }));
    const kind = (Number(dev as bigint) & 15) === 2 ? 'opencl' : 'nvvm';
    return this.gpu.launch(kind, [mem!, dev!, dim3(grid!), dim3(block!), body, args[args.length - 1]!]);
  }

  write(bytes: readonly number[]): void {
    for (const b of bytes) this.out.push(b);
    if (this.opts.stdout) {
      const s = this.streamDecoder.decode(Uint8Array.from(bytes), { stream: true });
      if (s) this.opts.stdout(s);
    }
  }

  // ------------------------------------------------------------ evaluation

  /** Any def, evaluated lazily: for primops and params of enclosing activations. */
  private value(d: Def, frame: Frame): Value {
    if (d instanceof Param) return this.lookup(d, frame);
    if (d instanceof Continuation) return this.capture(d, this.nesting.needs(d), frame);
    return this.evalPrimOp(d as PrimOp, frame);
  }

  private lookup(p: Param, frame: Frame): Value {
    for (let f: Frame | null = frame; f; f = f.parent) if (f.continuation === p.continuation) return f.args[p.index]!;
    throw new InterpError(`${p.label} (a param of ${p.continuation.label}) is not bound here`);
  }

  private closed(c: Continuation): Closure {
    let k = this.closedClosures.get(c);
    if (!k) this.closedClosures.set(c, (k = new Closure(c, null)));
    return k;
  }

  /** The closure of `c` over the innermost activation it needs. */
  private capture(c: Continuation, needs: ReadonlySet<Continuation>, frame: Frame | null): Closure {
    if (needs.size === 0) return this.closed(c);
    for (let f = frame; f; f = f.parent) if (needs.has(f.continuation)) return new Closure(c, f);
    throw new InterpError(`closure ${c.label} built where the params it uses are not bound`);
  }

  /** The activation `p`'s value belongs to; null for a constant of the program. */
  private home(p: PrimOp, frame: Frame): Frame | null {
    let home = this.homes.get(p);
    if (home === undefined) {
      const owners = this.nesting.owners(p);
      home = owners.size === 0 ? null : owners.size === 1 ? owners.values().next().value! : owners;
      this.homes.set(p, home);
    }
    if (home === null) return null;
    if (home instanceof Continuation) {
      for (let f: Frame | null = frame; f; f = f.parent) if (f.continuation === home) return f;
    } else {
      for (let f: Frame | null = frame; f; f = f.parent) if (home.has(f.continuation)) return f;
    }
    throw new InterpError(`${p.label} uses params that are not bound here`);
  }

  private memoized(p: PrimOp, frame: Frame): Value | undefined {
    const f = this.home(p, frame);
    if (!f) return this.constants.get(p);
    const slot = f.slots.get(p);
    return slot === undefined ? f.memo.get(p) : f.local[slot];
  }

  /**
   * Evaluates a primop of an enclosing activation (or a constant) and what it depends
   * on, operands first and left to right, memoised where each value belongs.
   */
  private evalPrimOp(root: PrimOp, frame: Frame): Value {
    if (root.tag === 'lit') return this.compute(root, []);
    const known = this.memoized(root, frame);
    if (known !== undefined) return known;
    const stack: PrimOp[] = [root];
    while (stack.length) {
      const p = stack[stack.length - 1]!;
      if (this.memoized(p, frame) !== undefined) {
        stack.pop();
        continue;
      }
      let pending = false;
      for (let i = p.ops.length - 1; i >= 0; i--) {
        const o = p.ops[i]!;
        if (o instanceof PrimOp && o.tag !== 'lit' && this.memoized(o, frame) === undefined) {
          stack.push(o);
          pending = true;
        }
      }
      if (pending) continue;
      const x = p.ops.map((o) => this.value(o, frame));
      const value = this.compute(p, x);
      const f = this.home(p, frame);
      if (f) f.memo.set(p, value);
      else this.constants.set(p, value);
      stack.pop();
    }
    return this.memoized(root, frame)!;
  }

  /** One primop, given the values of its operands. */
  private compute(p: PrimOp, x: Value[]): Value {
    const tag = p.tag;
    const ops = p.ops;
    if (ARITH.has(tag)) return arith(tag as ArithOpTag, p.type as PrimType, x[0]!, x[1]!);
    if (CMP.has(tag)) return this.compare(tag as CmpOpTag, ops[0]!.type, x[0]!, x[1]!);
    switch (tag) {
      case 'lit': {
        const t = p.type as PrimType;
        return t.length === 1 ? (p.payload as Value) : new Array<Value>(t.length).fill(p.payload as Value);
      }
      case 'bottom':
        return defaultValue(p.type);
      case 'cast':
        return this.cast(ops[0]!.type, p.type, x[0]!, 'cast');
      case 'bitcast':
        return this.cast(ops[0]!.type, p.type, x[0]!, 'bitcast');
      case 'select': {
        const cond = x[0]!;
        const a = x[1]!;
        const b = x[2]!;
        if (Array.isArray(cond)) return cond.map((c, i) => (c ? (a as Value[])[i]! : (b as Value[])[i]!));
        return cond ? a : b;
      }
      case 'tuple':
      case 'struct_agg':
      case 'definite_array':
      case 'vector':
        return x;
      case 'repeat_array':
        return Array.from({ length: (p.type as DefiniteArrayType).dim }, () => x[0]!);
      case 'extract': {
        const [agg, i] = element(x[0]!, x[1]!);
        return agg[i]!;
      }
      case 'insert': {
        const [agg, i] = element(x[0]!, x[1]!);
        const copy = agg.slice();
        copy[i] = x[2]!;
        return copy;
      }
      case 'lea': {
        const t = ops[0]!.type;
        const pointee = (t instanceof PtrVectorType ? t.lane : (t as PtrType)).pointee;
        const [base, i] = [x[0]!, x[1]!];
        if (!Array.isArray(base) && !Array.isArray(i)) return elementPointer(base as Pointer, pointee, index(i));
        // The vectoriser's lane addresses: a vector of pointers from a vector of bases or indices.
        const n = ((Array.isArray(base) ? base : i) as Value[]).length;
        const lane = (v: Value, l: number): Value => (Array.isArray(v) ? v[l]! : v);
        return Array.from({ length: n }, (_, l) => elementPointer(lane(base, l) as Pointer, pointee, index(lane(i, l))));
      }
      // The mem operand was evaluated first (operands go left to right), so earlier effects have happened.
      case 'load':
        return [MEM, load(this.types, x[1] as Pointer, (ops[1]!.type as PtrType).pointee)];
      case 'store':
        store(this.types, x[1] as Pointer, (ops[1]!.type as PtrType).pointee, x[2]!);
        return MEM;
      case 'enter':
        return [MEM, new Token('frame')];
      case 'slot':
        return new Pointer(newBlock((p.type as PtrType).pointee, `slot ${p.label}`), []);
      case 'alloc': {
        const t = ((p.type as TupleType).elems[1] as PtrType).pointee;
        const n = Number(x[1]!);
        const root = t instanceof IndefiniteArrayType ? Array.from({ length: n }, () => defaultValue(t.elem)) : defaultValue(t);
        return [MEM, new Pointer(newBlock(t, `alloc ${p.label}`, root), [])];
      }
      case 'asm':
        // The reference semantics is machine independent; what an assembly template does is not.
        throw new InterpError(`inline assembly cannot be interpreted ('${(p.payload as AsmInfo).template}'): run the program natively`);
      case 'global': {
        const g = p.payload as { mutable: boolean; name: string };
        return new Pointer(newBlock(ops[0]!.type, `global ${g.name || p.label}`, copyValue(x[0]!), g.mutable), []);
      }
      case 'sizeof':
        return BigInt(cpuLayout.size(p.payload as IRType));
      case 'alignof':
        return BigInt(cpuLayout.align(p.payload as IRType));
      case 'variant':
        return new VariantValue(p.payload as number, x[0]!);
      case 'variant_index':
        return BigInt((x[0] as VariantValue).tag);
      case 'variant_extract': {
        // Reading another variant's payload gives garbage natively; select evaluates both arms, so no error.
        const v = x[0] as VariantValue;
        return v.tag === p.payload ? v.value : defaultValue(p.type);
      }
      case 'run':
      case 'hlt':
        return x[0]!;
      case 'known':
        return false;
      default:
        throw new InterpError(`internal: unknown primop ${tag}`);
    }
  }

  private compare(tag: CmpOpTag, t: IRType, a: Value, b: Value): Value {
    if (t instanceof PrimType) return compare(tag, t, a, b);
    if (t instanceof PtrType && (tag === 'eq' || tag === 'ne')) return sameValue(a, b) === (tag === 'eq');
    throw new InterpError(`unsupported in interpreter: '${tag}' on ${t}`);
  }

  private cast(from: IRType, to: IRType, x: Value, what: 'cast' | 'bitcast'): Value {
    if (from === to) return x;
    if (to instanceof PtrType && x instanceof Pointer) return retype(this.types, x, to);
    if (what === 'cast' && to instanceof PrimType && to.isInt && to.length === 1 && x instanceof Pointer) {
      return convert(this.types.prim('u64'), to, this.addresses.of(x));
    }
    if (from instanceof PrimType && to instanceof PrimType) {
      return what === 'cast' ? convert(from, to, x) : bitcastPrim(from, to, x);
    }
    throw new InterpError(`unsupported in interpreter: ${what} from ${from} to ${to}`);
  }
}

function index(i: Value): number {
  return Number(i as bigint | number);
}

/** A continuation with its source position when emission recorded one. */
function describe(where: Continuation | string): string {
  if (typeof where === 'string') return where;
  const s = where.span;
  return s ? `${where.label} at ${s.file}:${s.line}:${s.col}` : where.label;
}

/** The array and index an `extract`/`insert` addresses, bounds-checked. */
function element(agg: Value, i: Value): [Value[], number] {
  const n = index(i);
  if (!Array.isArray(agg)) throw new InterpError('extract/insert on a value that is not an aggregate');
  if (n < 0 || n >= agg.length) throw new InterpError(`index ${n} out of bounds for an aggregate of ${agg.length}`);
  return [agg, n];
}
