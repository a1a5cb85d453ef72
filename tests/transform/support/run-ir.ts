// A small reference interpreter of the CPS graph for the transform tests, so each
// pass can be checked by running a hand-built program before and after it.
// Continuations used as values capture the current parameter bindings (closures);
// effectful primops are evaluated once per memory token, so a load used in
// several blocks reads the memory of its own program point.
import { Continuation, type Def, Param, PrimOp } from '../../../compiler/src/ir/defs.ts';
import { PrimType } from '../../../compiler/src/ir/types.ts';
import { normaliseLit } from '../../../compiler/src/ir/world.ts';

export type Value = bigint | number | boolean | Value[] | Closure | Ptr | Mem | Halt | Frame | undefined;

class Closure {
  constructor(readonly cont: Continuation, readonly env: Map<Param, Value>) {}
}
export class Mem {}
class Frame {}
class Halt {}
class Ptr {
  constructor(readonly cell: { v: Value }, readonly path: readonly number[]) {}
}

export type Host = Record<string, (args: Value[]) => Value>;

export interface RunResult {
  /** Arguments passed to the entry's return continuation, without the memory token. */
  result: Value[];
  steps: number;
}

/** Runs `entry(mem, args…, halt)`: the result is what reaches the return continuation. */
export function runIR(entry: Continuation, args: Value[], host: Host = {}, maxSteps = 1_000_000): RunResult {
  return runWith(entry, (halt) => [new Mem(), ...args, halt], host, maxSteps);
}

/** Runs `entry` with arguments placed by `argv`, for entries whose return param is not last (lifted ones). */
export function runWith(entry: Continuation, argvOf: (halt: Value) => Value[], host: Host = {}, maxSteps = 1_000_000): RunResult {
  const effects = new Map<Mem, Map<PrimOp, Value>>();
  const slots = new Map<Frame, Map<PrimOp, Ptr>>();
  const halt = new Halt();
  let callee: Value = new Closure(entry, new Map());
  let argv: Value[] = argvOf(halt);
  for (let steps = 0; steps < maxSteps; steps++) {
    if (callee instanceof Halt) return { result: argv.slice(1), steps };
    if (!(callee instanceof Closure)) throw new Error(`jump to a non-continuation ${String(callee)}`);
    const c = callee.cont;
    if (c.isImported) {
      const fn = host[c.name];
      if (!fn) throw new Error(`no host function ${c.name}`);
      const ret = argv[argv.length - 1];
      const r = fn(argv.slice(1, -1));
      callee = ret;
      argv = r === undefined ? [new Mem()] : [new Mem(), r];
      continue;
    }
    if (!c.hasBody) throw new Error(`jump to ${c.label}, which has no body`);
    if (argv.length !== c.params.length) throw new Error(`${c.label} takes ${c.params.length} args, got ${argv.length}`);
    const env = new Map(callee.env);
    c.params.forEach((p, i) => env.set(p, argv[i]));
    const memo = new Map<Def, Value>();
    const ev = (d: Def): Value => evaluate(d, env, memo, effects, slots);
    const target = c.callee;
    if (target instanceof Continuation && target.intrinsic === 'branch') {
      const [mem, cond, t, e] = c.args.map(ev);
      callee = cond ? t : e;
      argv = [mem];
    } else if (target instanceof Continuation && target.intrinsic === 'match') {
      const vals = c.args.map(ev);
      let next = vals[2];
      for (let i = 3; i + 1 < vals.length; i += 2) if (vals[i] === vals[1]) next = vals[i + 1];
      callee = next;
      argv = [vals[0]];
    } else {
      callee = ev(target);
      argv = c.args.map(ev);
    }
  }
  throw new Error('step limit');
}

function evaluate(
  d: Def,
  env: Map<Param, Value>,
  memo: Map<Def, Value>,
  effects: Map<Mem, Map<PrimOp, Value>>,
  slots: Map<Frame, Map<PrimOp, Ptr>>,
): Value {
  if (memo.has(d)) return memo.get(d);
  let v: Value;
  if (d instanceof Param) {
    if (!env.has(d)) throw new Error(`unbound param ${d.label} of ${d.continuation.label}`);
    v = env.get(d);
  } else if (d instanceof Continuation) {
    v = new Closure(d, env);
  } else {
    const p = d as PrimOp;
    const ops = p.ops.map((o) => evaluate(o, env, memo, effects, slots));
    v = primop(p, ops, effects, slots);
  }
  memo.set(d, v);
  return v;
}

function primop(p: PrimOp, ops: Value[], effects: Map<Mem, Map<PrimOp, Value>>, slots: Map<Frame, Map<PrimOp, Ptr>>): Value {
  const [a, b, c] = ops;
  const t = p.type;
  const once = (mem: Value, make: () => Value): Value => {
    const m = mem as Mem;
    let table = effects.get(m);
    if (!table) effects.set(m, (table = new Map()));
    if (!table.has(p)) table.set(p, make());
    return table.get(p);
  };
  switch (p.tag) {
    case 'lit':
      return p.payload as Value;
    case 'bottom':
      return undefined;
    case 'add': case 'sub': case 'mul': case 'div': case 'rem':
    case 'and': case 'or': case 'xor': case 'shl': case 'shr':
      return arith(p.tag, t as PrimType, a, b);
    case 'eq': return a === b;
    case 'ne': return a !== b;
    case 'lt': return (a as number) < (b as number);
    case 'le': return (a as number) <= (b as number);
    case 'gt': return (a as number) > (b as number);
    case 'ge': return (a as number) >= (b as number);
    case 'select': return a ? b : c;
    case 'cast':
      return t instanceof PrimType ? normaliseLit(t, a as bigint) : a;
    case 'bitcast':
      return a;
    case 'tuple': case 'struct_agg': case 'definite_array': case 'vector':
      return ops;
    case 'extract':
      return (a as Value[])[Number(b)];
    case 'insert': {
      const copy = [...(a as Value[])];
      copy[Number(b)] = c;
      return copy;
    }
    case 'lea': {
      const ptr = a as Ptr;
      return new Ptr(ptr.cell, [...ptr.path, Number(b)]);
    }
    case 'load':
      return once(a, () => [new Mem(), clone(read(b as Ptr))]);
    case 'store':
      return once(a, () => {
        write(b as Ptr, clone(c));
        return new Mem();
      });
    case 'alloc':
      return once(a, () => [new Mem(), new Ptr({ v: undefined }, [])]);
    case 'enter':
      return once(a, () => [new Mem(), new Frame()]);
    case 'slot': {
      const f = a as Frame;
      let table = slots.get(f);
      if (!table) slots.set(f, (table = new Map()));
      if (!table.has(p)) table.set(p, new Ptr({ v: undefined }, []));
      return table.get(p);
    }
    case 'global':
      return new Ptr({ v: clone(a) }, []);
    case 'run': case 'hlt':
      return a;
    case 'known':
      return false;
    default:
      throw new Error(`run-ir: unsupported primop ${p.tag}`);
  }
}

function arith(tag: string, t: PrimType, a: Value, b: Value): Value {
  if (t.isBool) {
    const x = a as boolean;
    const y = b as boolean;
    return tag === 'and' ? x && y : tag === 'or' ? x || y : x !== y;
  }
  if (t.isFloat) {
    const x = a as number;
    const y = b as number;
    const r = tag === 'add' ? x + y : tag === 'sub' ? x - y : tag === 'mul' ? x * y : tag === 'div' ? x / y : x % y;
    return normaliseLit(t, r);
  }
  const x = a as bigint;
  const y = b as bigint;
  const ops: Record<string, () => bigint> = {
    add: () => x + y, sub: () => x - y, mul: () => x * y, div: () => x / y, rem: () => x % y,
    and: () => x & y, or: () => x | y, xor: () => x ^ y, shl: () => x << y, shr: () => x >> y,
  };
  return normaliseLit(t, ops[tag]!());
}

function read(p: Ptr): Value {
  let v = p.cell.v;
  for (const i of p.path) v = (v as Value[])[i];
  return v;
}

function write(p: Ptr, value: Value): void {
  if (p.path.length === 0) {
    p.cell.v = value;
    return;
  }
  if (p.cell.v === undefined) p.cell.v = [];
  let v = p.cell.v as Value[];
  for (const i of p.path.slice(0, -1)) {
    if (v[i] === undefined) v[i] = [];
    v = v[i] as Value[];
  }
  v[p.path[p.path.length - 1]!] = value;
}

function clone(v: Value): Value {
  return Array.isArray(v) ? v.map(clone) : v;
}
