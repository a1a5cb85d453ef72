// The control-flow graph of one function: its basic blocks and how each ends.
// A block's body is one jump; we classify it once here so the scheduler and the
// LLVM emitter agree on what is an edge, a call, a return or an error.
import { type Graph, graphFrom } from '../ir/cfg.ts';
import { Continuation, type Def } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import { FnType } from '../ir/types.ts';
import { describe, fail } from './errors.ts';
import { describeParams, type Program } from './program.ts';

/** Where a branch or match goes: a block, or an edge that leaves the function (return, no-return call). */
export type Target = { kind: 'block'; block: Continuation } | { kind: 'exit'; term: Terminator };

/** Where a call continues: a block of this function (the result is its value param), the caller's own return, or nowhere. */
export type CallCont = { kind: 'block'; block: Continuation } | { kind: 'tail' } | { kind: 'none' };

export type Terminator =
  | { kind: 'jump'; block: Continuation; args: readonly Def[] }
  | { kind: 'branch'; cond: Def; then: Target; else: Target }
  | { kind: 'match'; value: Def; otherwise: Target; cases: readonly { lit: Def; target: Target }[] }
  /** A jump to the function's own return continuation; `args` starts with mem. */
  | { kind: 'return'; args: readonly Def[] }
  /** `args` are the call's arguments without the return continuation (mem included). */
  | { kind: 'call'; callee: Def; calleeType: FnType; args: readonly Def[]; cont: CallCont }
  /** Compiler-known operations the backend implements directly (they return like calls). */
  | { kind: 'intrinsic'; intrinsic: 'atomic' | 'cmpxchg' | 'reserve_shared'; args: readonly Def[]; cont: CallCont };

/** The blocks of one function and how each ends; dominators and loops of its `graph` come from ir/cfg.ts. */
export class CFG {
  readonly terminators = new Map<Continuation, Terminator>();
  /** Edges of branches, matches, jumps and the blocks calls return to. */
  readonly graph: Graph<Continuation>;

  constructor(readonly entry: Continuation, program: Program) {
    // A closed block outside the entry's scope (a loop that never exits does not use the
    // function's return param) brings the blocks nested in it along.
    const scopes = [new Scope(entry)];
    const asBlock = (d: Def): Continuation | null => blockOf(entry, scopes, program, d);
    this.graph = graphFrom(entry, (b) => {
      const term = classifyJump(entry, b.callee, b.args, asBlock);
      this.terminators.set(b, term);
      return successors(term);
    });
  }

  /** Reachable blocks in reverse post-order; the function's own continuation first. */
  get blocks(): readonly Continuation[] {
    return this.graph.nodes;
  }

  isBlock(d: Def): d is Continuation {
    return d instanceof Continuation && this.terminators.has(d);
  }

  terminator(b: Continuation): Terminator {
    return this.terminators.get(b)!;
  }
}

/** `d` as a basic block of `fn`, or null when jumping to it is not a local jump. */
function blockOf(fn: Continuation, scopes: Scope[], program: Program, d: Def): Continuation | null {
  if (!(d instanceof Continuation) || d === fn) return null;
  if (d.isIntrinsic || d.isImported || program.isFunction(d)) return null;
  if (!d.hasBody) fail(fn, `jumps to '${describe(d)}', which has no body and is neither imported nor an intrinsic`);
  if (scopes.some((s) => s.contains(d))) return d;
  if (program.isClosed(d)) scopes.push(new Scope(d));
  else {
    if (d.retParam) {
      fail(fn, `calls '${describe(d)}', which uses parameters outside its scope (${describeParams(program.freeParams(d))}): a closure that transform/ did not convert`);
    }
    fail(fn, `non-local jump to '${describe(d)}', a block of another function`);
  }
  return d;
}

function classifyJump(
  fn: Continuation,
  callee: Def,
  args: readonly Def[],
  asBlock: (d: Def) => Continuation | null,
): Terminator {
  const target = (d: Def): Target => {
    const b = asBlock(d);
    return b ? { kind: 'block', block: b } : { kind: 'exit', term: classifyJump(fn, d, [args[0]!], asBlock) };
  };
  if (callee instanceof Continuation && callee.intrinsic === 'branch') {
    return { kind: 'branch', cond: args[1]!, then: target(args[2]!), else: target(args[3]!) };
  }
  if (callee instanceof Continuation && callee.intrinsic === 'match') {
    const cases: { lit: Def; target: Target }[] = [];
    for (let i = 3; i + 1 < args.length; i += 2) cases.push({ lit: args[i]!, target: target(args[i + 1]!) });
    return { kind: 'match', value: args[1]!, otherwise: target(args[2]!), cases };
  }
  const block = asBlock(callee);
  if (block) {
    if (block.params.length !== args.length) fail(fn, `jumps to '${describe(block)}' with ${args.length} arguments`);
    // A block may receive function pointers, but a block that receives a continuation
    // of this function (a label, or the return continuation) is a nested function.
    for (const a of args) {
      if (a === fn.retParam || (a instanceof Continuation && asBlock(a))) {
        fail(fn, `'${describe(block)}' is a function nested in this function (it receives the continuation '${describe(a)}'): transform/ must lower it to control-flow form`);
      }
    }
    return { kind: 'jump', block, args };
  }
  if (callee === fn.retParam) return { kind: 'return', args };
  if (!(callee.type instanceof FnType)) fail(fn, `jumps to '${describe(callee)}', which is not a continuation`);
  const calleeType = callee.type;
  const returns = calleeType.params[calleeType.params.length - 1] instanceof FnType;
  const cont = returns ? callCont(fn, args[args.length - 1]!, asBlock) : ({ kind: 'none' } as const);
  const callArgs = returns ? args.slice(0, -1) : args;
  if (callee instanceof Continuation && callee.isIntrinsic) {
    if (callee.intrinsic === 'atomic' || callee.intrinsic === 'cmpxchg' || callee.intrinsic === 'reserve_shared') {
      return { kind: 'intrinsic', intrinsic: callee.intrinsic, args: callArgs, cont };
    }
    fail(fn, `calls the intrinsic '${callee.intrinsic}', which transform/ must lower before code generation`);
  }
  return { kind: 'call', callee, calleeType, args: callArgs, cont };
}

function callCont(fn: Continuation, k: Def, asBlock: (d: Def) => Continuation | null): CallCont {
  if (k === fn.retParam) return { kind: 'tail' };
  const b = asBlock(k);
  if (b) return { kind: 'block', block: b };
  return fail(fn, `a call returns to '${describe(k)}', which is neither a block of this function nor its return continuation`);
}

function successors(term: Terminator): Continuation[] {
  const out: Continuation[] = [];
  const add = (t: Target): void => {
    if (t.kind === 'block' && !out.includes(t.block)) out.push(t.block);
  };
  switch (term.kind) {
    case 'jump':
      out.push(term.block);
      break;
    case 'branch':
      add(term.then);
      add(term.else);
      break;
    case 'match':
      add(term.otherwise);
      for (const c of term.cases) add(c.target);
      break;
    case 'call':
    case 'intrinsic':
      if (term.cont.kind === 'block') out.push(term.cont.block);
      break;
    case 'return':
      break;
  }
  return out;
}
