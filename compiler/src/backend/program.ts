// Which continuations of the World become LLVM functions. We start from the
// exported continuations and follow every reference, so leftovers of earlier
// passes that nothing reaches (an unspecialised higher-order original, say) are
// never looked at. Each reached continuation is one of:
//   - a function: closed (no free params) and exported, returning, or used as a
//     value (a function pointer);
//   - an import: a C function or device builtin, declared by name;
//   - an intrinsic (branch, match, atomic, …), handled where it is called;
//   - a block: everything else with a body; the CFG of the function that jumps
//     to it checks that it really is one.
import { Continuation, type Def, type Param, PrimOp } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import { describe, fail } from './errors.ts';

export interface Program {
  /** Functions to define, exported ones first, in a stable order. */
  readonly functions: readonly Continuation[];
  readonly imports: readonly Continuation[];
  isFunction(c: Continuation): boolean;
  /** True when `c` has no free params (so it may serve as a block of any function that jumps to it). */
  isClosed(c: Continuation): boolean;
  /** The params `c`'s scope uses without owning them. */
  freeParams(c: Continuation): ReadonlySet<Param>;
}

export function collectProgram(roots: Iterable<Continuation>): Program {
  const reached = reachableContinuations(roots);
  const freeCache = new Map<Continuation, Set<Param>>();
  const freeParams = (c: Continuation): Set<Param> => {
    let r = freeCache.get(c);
    if (r === undefined) freeCache.set(c, (r = new Scope(c).freeParams()));
    return r;
  };
  const isClosed = (c: Continuation): boolean => freeParams(c).size === 0;
  const functions: Continuation[] = [];
  const imports: Continuation[] = [];
  for (const c of reached) {
    if (c.isIntrinsic) continue;
    if (c.isImported) {
      imports.push(c);
      continue;
    }
    if (!c.hasBody) continue;
    const wantsFunction = c.external || c.retParam !== null || hasValueUse(c);
    if (!wantsFunction) continue;
    if (!isClosed(c)) {
      if (c.external) fail(c, `an exported function uses parameters outside its scope: ${describeParams(freeParams(c))}`);
      // A nested function or a closure that transform/ did not eliminate or convert:
      // the CFG of its enclosing function reports it with more context.
      continue;
    }
    functions.push(c);
  }
  functions.sort((a, b) => Number(b.external) - Number(a.external) || a.gid - b.gid);
  imports.sort((a, b) => a.gid - b.gid);
  const functionSet = new Set(functions);
  return { functions, imports, isFunction: (c) => functionSet.has(c), isClosed, freeParams };
}

/** Continuations reachable from `roots` through bodies and primop operands. */
function reachableContinuations(roots: Iterable<Continuation>): Continuation[] {
  const seen = new Set<Def>();
  const result: Continuation[] = [];
  const stack: Def[] = [...roots];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    if (d instanceof Continuation) result.push(d);
    if (d instanceof Continuation || d instanceof PrimOp) for (const o of d.ops) stack.push(o);
  }
  return result;
}

/**
 * True when `c` is used other than as a jump target: as a primop operand or as a
 * plain call argument. Branch/match targets and return continuations of calls
 * (the last argument) are control flow, not values.
 */
export function hasValueUse(c: Continuation): boolean {
  for (const { user, index } of c.uses.values()) {
    if (!(user instanceof Continuation)) return true;
    if (!isControlOperand(user, index)) return true;
  }
  return false;
}

/** Whether operand `index` of `user`'s body (0 = callee) is a control-flow position. */
export function isControlOperand(user: Continuation, index: number): boolean {
  if (index === 0) return true;
  const callee = user.callee;
  const argIndex = index - 1;
  if (callee instanceof Continuation && callee.intrinsic === 'branch') return argIndex === 2 || argIndex === 3;
  if (callee instanceof Continuation && callee.intrinsic === 'match') return argIndex === 2 || (argIndex >= 4 && argIndex % 2 === 0);
  return argIndex === user.ops.length - 2;
}

export function describeParams(ps: Iterable<Param>): string {
  return [...ps].map((p) => `'${p.label}' of '${describe(p.continuation)}'`).join(', ');
}
