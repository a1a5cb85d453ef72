// The reference semantics of the IR. Control is CPS: every step takes a jump
// (callee value + argument values), binds the callee's params in a new
// activation (Frame) and evaluates its body to the next jump, in a plain loop,
// so deep recursion in the program never grows the JS stack.
//
// A continuation used as a value becomes a Closure capturing the innermost
// activation it needs (see ir/nesting.ts); an activation's parent is the activation
// its closure captured, so a param is found by walking that (short, lexical) chain.
// Primops are evaluated on demand, once per activation of the continuations they
// depend on: a load used by several blocks of a function reads memory once, at the
// point where its mem operand is evaluated.
import { Continuation, type Def, Param, PrimOp, type ArithOpTag, type CmpOpTag } from '../ir/defs.ts';
import { Nesting } from '../ir/nesting.ts';
import type { World } from '../ir/world.ts';
import {
  type FnType, IndefiniteArrayType, type IRType, PrimType, PtrType, type TupleType, type TypeTable,
} from '../ir/types.ts';
import { findExtern } from './externs.ts';
import { callIntrinsic, type IntrinsicContext } from './intrinsics.ts';
import { alignOf, sizeOf } from './layout.ts';
import { load, newBlock, retype, store } from './memory.ts';
import { arith, bitcastPrim, compare, convert } from './numeric.ts';
import {
  Closure, copyValue, defaultValue, Frame, InterpError, type Jump, MEM, NativeFn, Pointer, sameValue, Token, type Value,
  VariantValue,
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

const ARITH = new Set<string>(['add', 'sub', 'mul', 'div', 'rem', 'and', 'or', 'xor', 'shl', 'shr']);
const CMP = new Set<string>(['eq', 'ne', 'lt', 'le', 'gt', 'ge']);

class Machine implements IntrinsicContext {
  readonly types: TypeTable;
  nextTask = 0n;
  private readonly nesting: Nesting;
  /** Values of primops that depend on no activation (literals, globals, closed aggregates). */
  private readonly constants = new Map<PrimOp, Value>();
  private readonly closed = new Map<Continuation, Closure>();
  /** Per primop: null for constants, else the continuation(s) whose activation holds its value. */
  private readonly homes = new Map<PrimOp, Continuation | ReadonlySet<Continuation> | null>();
  private readonly out: number[] = [];
  private readonly decoder = new TextDecoder();
  /** Decodes output for the `stdout` callback, keeping incomplete UTF-8 sequences for the next chunk. */
  private readonly streamDecoder = new TextDecoder();
  private steps = 0;

  constructor(world: World, private readonly entry: Continuation, private readonly opts: InterpOptions) {
    this.types = world.types;
    this.nesting = new Nesting([entry]);
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
    let jump: Jump | null = { callee: this.closure(entry, null), args: [MEM, ...args, ...(ret ? [halt] : [])] };
    let where = entry.label;
    try {
      while (jump) {
        if (++this.steps > limit) throw new InterpError(`step limit of ${limit} jumps exceeded`);
        const callee: Value = jump.callee;
        const values = jump.args;
        if (callee instanceof NativeFn) {
          where = callee.name;
          jump = callee.call(values);
        } else if (callee instanceof Closure) {
          where = callee.continuation.label;
          jump = this.enter(callee, values);
        } else {
          throw new InterpError(`jump to a value that is not a function`);
        }
      }
    } catch (e) {
      if (e instanceof InterpError) {
        e.message += ` (in ${where}, after ${this.steps} jumps)`;
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
    const frame = new Frame(c, args, closure.env);
    const ops = c.ops;
    const callee = this.value(ops[0]!, frame);
    const values = new Array<Value>(ops.length - 1);
    for (let i = 1; i < ops.length; i++) values[i - 1] = this.value(ops[i]!, frame);
    return { callee, args: values };
  }

  private callExtern(c: Continuation, args: readonly Value[]): Jump {
    const name = c.linkName ?? c.name;
    const f = c.external ? findExtern(c) : undefined;
    if (!f) throw new InterpError(`${c.external ? `extern '${name}' is not emulated by the interpreter` : `${c.label} has no body`}`);
    const retType = c.retParam?.type as FnType | undefined;
    if (!retType) throw new InterpError(`extern '${name}' has no return continuation`);
    const result = f(this, args.slice(1, -1), c);
    const ret = args[args.length - 1]!;
    return { callee: ret, args: retType.params.length > 1 ? [args[0]!, result ?? []] : [args[0]!] };
  }

  write(bytes: readonly number[]): void {
    for (const b of bytes) this.out.push(b);
    if (this.opts.stdout) {
      const s = this.streamDecoder.decode(Uint8Array.from(bytes), { stream: true });
      if (s) this.opts.stdout(s);
    }
  }

  // ------------------------------------------------------------ evaluation

  private value(d: Def, frame: Frame): Value {
    if (d instanceof Param) return this.lookup(d, frame);
    if (d instanceof Continuation) return this.closure(d, frame);
    return this.evalPrimOp(d as PrimOp, frame);
  }

  private lookup(p: Param, frame: Frame): Value {
    for (let f: Frame | null = frame; f; f = f.parent) if (f.continuation === p.continuation) return f.args[p.index]!;
    throw new InterpError(`${p.label} (a param of ${p.continuation.label}) is not bound here`);
  }

  private closure(c: Continuation, frame: Frame | null): Closure {
    const needs = this.nesting.needs(c);
    if (needs.size === 0) {
      let k = this.closed.get(c);
      if (!k) this.closed.set(c, (k = new Closure(c, null)));
      return k;
    }
    for (let f = frame; f; f = f.parent) if (needs.has(f.continuation)) return new Closure(c, f);
    throw new InterpError(`closure ${c.label} built where the params it uses are not bound`);
  }

  /** The memo table of the activation `p`'s value belongs to. */
  private memoFor(p: PrimOp, frame: Frame): Map<PrimOp, Value> {
    let home = this.homes.get(p);
    if (home === undefined) {
      const owners = this.nesting.owners(p);
      home = owners.size === 0 ? null : owners.size === 1 ? owners.values().next().value! : owners;
      this.homes.set(p, home);
    }
    if (home === null) return this.constants;
    if (home instanceof Continuation) {
      for (let f: Frame | null = frame; f; f = f.parent) if (f.continuation === home) return f.memo;
    } else {
      for (let f: Frame | null = frame; f; f = f.parent) if (home.has(f.continuation)) return f.memo;
    }
    throw new InterpError(`${p.label} uses params that are not bound here`);
  }

  /** Evaluates the primop DAG under `root` operands first (left to right), with an explicit stack. */
  private evalPrimOp(root: PrimOp, frame: Frame): Value {
    const rootMemo = this.memoFor(root, frame);
    const known = rootMemo.get(root);
    if (known !== undefined) return known;
    const stack: PrimOp[] = [root];
    while (stack.length) {
      const p = stack[stack.length - 1]!;
      const memo = this.memoFor(p, frame);
      if (memo.has(p)) {
        stack.pop();
        continue;
      }
      let pending = false;
      for (let i = p.ops.length - 1; i >= 0; i--) {
        const o = p.ops[i]!;
        if (o instanceof PrimOp && !this.memoFor(o, frame).has(o)) {
          stack.push(o);
          pending = true;
        }
      }
      if (pending) continue;
      memo.set(p, this.compute(p, frame));
      stack.pop();
    }
    return rootMemo.get(root)!;
  }

  /** One primop, its operands already evaluated. */
  private compute(p: PrimOp, frame: Frame): Value {
    const tag = p.tag;
    if (tag === 'lit') {
      const t = p.type as PrimType;
      return t.length === 1 ? (p.payload as Value) : new Array<Value>(t.length).fill(p.payload as Value);
    }
    const ops = p.ops;
    const x = new Array<Value>(ops.length);
    for (let i = 0; i < ops.length; i++) x[i] = this.value(ops[i]!, frame);
    if (ARITH.has(tag)) return arith(tag as ArithOpTag, p.type as PrimType, x[0]!, x[1]!);
    if (CMP.has(tag)) return this.compare(tag as CmpOpTag, ops[0]!.type, x[0]!, x[1]!);
    switch (tag) {
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
        const ptr = x[0] as Pointer;
        return new Pointer(ptr.block, [...ptr.path, index(x[1]!)]);
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
      case 'global': {
        const g = p.payload as { mutable: boolean; name: string };
        return new Pointer(newBlock(ops[0]!.type, `global ${g.name || p.label}`, copyValue(x[0]!), g.mutable), []);
      }
      case 'sizeof':
        return BigInt(sizeOf(p.payload as IRType));
      case 'alignof':
        return BigInt(alignOf(p.payload as IRType));
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
    if (from instanceof PrimType && to instanceof PrimType) {
      return what === 'cast' ? convert(from, to, x) : bitcastPrim(from, to, x);
    }
    throw new InterpError(`unsupported in interpreter: ${what} from ${from} to ${to}`);
  }
}

function index(i: Value): number {
  return typeof i === 'bigint' ? Number(i) : Number(i as number);
}

/** The array and index an `extract`/`insert` addresses, bounds-checked. */
function element(agg: Value, i: Value): [Value[], number] {
  const n = index(i);
  if (!Array.isArray(agg)) throw new InterpError('extract/insert on a value that is not an aggregate');
  if (n < 0 || n >= agg.length) throw new InterpError(`index ${n} out of bounds for an aggregate of ${agg.length}`);
  return [agg, n];
}
