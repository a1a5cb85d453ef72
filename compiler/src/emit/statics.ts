// `static` and `static mut`: a global initialised with the value of the
// initialiser, which must fold to a constant at compile time.
import { type Def, isStatic } from '../ir/index.ts';
import type { StaticDecl } from '../syntax/ast.ts';
import type { Emitter } from './emitter.ts';
import { Body } from './fn.ts';
import { evalPure } from './pure.ts';

export interface StaticRef {
  /** Pointer to the static's memory. */
  global: Def;
  /** The constant it starts with. */
  init: Def;
  mutable: boolean;
}

export function emitStatic(em: Emitter, decl: StaticDecl): StaticRef | null {
  const v = evalPure(em, new Body(em.world), new Map(), null, decl.init);
  if (!v || !isStatic(v)) {
    em.sink.error(decl.init.span, `the initialiser of static '${decl.name.name}' is not a compile-time constant`);
    return null;
  }
  const global = em.world.global(v, decl.mutable, decl.name.name);
  global.span = decl.span;
  return { global, init: v, mutable: decl.mutable };
}
