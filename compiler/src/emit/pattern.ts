// Patterns: binding the locals of `let` and match arms, and testing whether a
// value matches (literal, tuple, enum variant). A test is one pure bool: nested
// payload tests read the payload unconditionally, which is harmless when the
// tag test beside them fails.
import type { Def, IRType } from '../ir/index.ts';
import type { Pattern } from '../syntax/ast.ts';
import type { LocalBinding } from '../sema/types.ts';
import type { FnEmitter } from './fn.ts';
import { literalDef } from './literals.ts';

/** Declares the locals of `p`, bound to the parts of `v` (null: declared without a value). */
export function bindPattern(fx: FnEmitter, p: Pattern, v: Def | null): void {
  const w = fx.world;
  switch (p.kind) {
    case 'bind':
      declareLocal(fx, p, v, p.name.name);
      return;
    case 'tuple':
      p.elems.forEach((q, i) => bindPattern(fx, q, v && w.extract(v, i)));
      return;
    case 'variant': {
      const payload = v && w.variantExtract(v, variantIndex(p));
      (p.args ?? []).forEach((q, i) => bindPattern(fx, q, payload && w.extract(payload, i)));
      return;
    }
    case 'wild':
    case 'lit':
      return;
  }
}

/**
 * A local becomes a stack slot, an SSA variable or a plain value, as decided by
 * the analysis in captures.ts.
 */
export function declareLocal(fx: FnEmitter, b: LocalBinding, v: Def | null, name: string): void {
  const locals = fx.em.locals;
  const type: IRType = v?.type ?? fx.ir(fx.em.program.bindingType(b));
  if (locals.inMemory.has(b)) {
    const ptr = fx.slot(type);
    if (v) fx.store(ptr, v);
    fx.body.env.set(b, { kind: 'slot', ptr });
  } else if (locals.isSsaVar(b)) {
    const sv = { binding: b, type, name };
    if (v) fx.write(sv, v);
    fx.body.env.set(b, { kind: 'var', v: sv });
  } else {
    fx.body.env.set(b, { kind: 'value', def: v ?? fx.bottom(type) });
  }
}

export function isIrrefutable(p: Pattern): boolean {
  if (p.kind === 'bind' || p.kind === 'wild') return true;
  if (p.kind === 'tuple') return p.elems.every(isIrrefutable);
  return false;
}

/** A bool that is true when `v` matches `p`. */
export function patternTest(fx: FnEmitter, p: Pattern, v: Def): Def {
  const w = fx.world;
  switch (p.kind) {
    case 'bind':
    case 'wild':
      return w.litBool(true);
    case 'lit':
      return w.cmp('eq', v, patternKey(fx, p));
    case 'tuple':
      return p.elems.reduce<Def>((acc, q, i) => w.arith('and', acc, patternTest(fx, q, w.extract(v, i))), w.litBool(true));
    case 'variant': {
      const index = variantIndex(p);
      const tag = w.cmp('eq', w.variantIndex(v), patternKey(fx, p));
      const args = p.args ?? [];
      if (args.every(isIrrefutable)) return tag;
      const payload = w.variantExtract(v, index);
      return args.reduce<Def>((acc, q, i) => w.arith('and', acc, patternTest(fx, q, w.extract(payload, i))), tag);
    }
  }
}

/** The literal a `match` case compares with: the literal itself, or a variant's tag (u32). */
export function patternKey(fx: FnEmitter, p: Pattern): Def {
  const w = fx.world;
  if (p.kind === 'lit') return literalDef(w, p.lit, fx.ir(fx.em.program.patternType(p)));
  if (p.kind === 'variant') return w.lit(w.prim('u32'), BigInt(variantIndex(p)));
  throw new Error(`internal: ${p.kind} pattern has no case key`);
}

function variantIndex(p: Extract<Pattern, { kind: 'variant' }>): number {
  if (p.res?.kind !== 'variant') throw new Error('internal: unresolved variant pattern');
  return p.res.index;
}
