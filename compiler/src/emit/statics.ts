// `static` and `static mut`: a global initialised with the value of the
// initialiser, which must fold to a constant at compile time. An immutable static
// may hold functions (fn items, closures, structs of them: the 2018 runtime's
// `static math = cpu_intrinsics;`); it is used as its value, so `math.sqrtf(x)` is a
// direct call, and it has no global. A `static mut` holding functions is a global
// like any other (closure conversion turns the functions in it into records).
// `static mut x: T;` starts zeroed.
import { type Def, isStatic } from '../ir/index.ts';
import { freeDefs } from '../ir/scope.ts';
import type { StaticDecl } from '../syntax/ast.ts';
import type { Emitter } from './emitter.ts';
import { Body } from './fn.ts';
import { evalPure } from './pure.ts';

export interface StaticRef {
  /** Pointer to the static's memory; null for an immutable static holding functions. */
  global: Def | null;
  /** The constant it starts with (`bottom` for a static without initialiser, which the backends zero). */
  init: Def;
  mutable: boolean;
}

export function emitStatic(em: Emitter, decl: StaticDecl): StaticRef | null {
  const w = em.world;
  if (!decl.init) {
    const init = w.bottom(em.types.lower(em.program.staticType(decl)));
    const global = w.global(init, decl.mutable, decl.name.name);
    global.span = decl.span;
    return { global, init, mutable: decl.mutable };
  }
  const v = evalPure(em, new Body(w), new Map(), null, decl.init, true);
  if (!v || !isStatic(v)) {
    em.sink.error(decl.init.span, `the initialiser of static '${decl.name.name}' is not a compile-time constant`);
    return null;
  }
  const holdsFunctions = freeDefs([v], () => false).continuations.size > 0;
  if (holdsFunctions && !decl.mutable) return { global: null, init: v, mutable: false };
  const global = w.global(v, decl.mutable, decl.name.name);
  global.span = decl.span;
  return { global, init: v, mutable: decl.mutable };
}
