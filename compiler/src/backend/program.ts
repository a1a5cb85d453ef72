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
import { Closedness } from '../ir/closedness.ts';
import type { Continuation, Param } from '../ir/defs.ts';
import { hasValueUse } from '../ir/jumps.ts';
import { reachableFrom } from '../ir/reachable.ts';
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
  const reached = reachableFrom(roots).continuations;
  const closedness = new Closedness(reached);
  const isClosed = (c: Continuation): boolean => closedness.isClosed(c);
  // Only for messages: which params make a continuation not closed.
  const freeParams = (c: Continuation): Set<Param> => new Scope(c).freeParams();
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

export function describeParams(ps: Iterable<Param>): string {
  return [...ps].map((p) => `'${p.label}' of '${describe(p.continuation)}'`).join(', ');
}
