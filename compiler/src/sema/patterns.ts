// Patterns of `let` and `match`: typing, bindings, refutability.
import type { Pattern } from '../syntax/ast.ts';
import type { Checker } from './checker.ts';
import { fitsInt, isDecimalSpelling, suffixPrim } from './literals.ts';
import { resolveValuePath } from './paths.ts';
import type { Frame } from './scope.ts';
import { boolT, isFloat, prune, type Type } from './types.ts';

/**
 * Types `p` against `t` and enters its bindings into `frame`. `refutable`: in a
 * match arm, where literals and variants of multi-variant enums are allowed.
 */
export function bindPattern(ck: Checker, p: Pattern, t: Type, frame: Frame, refutable: boolean): void {
  ck.patternTypes.set(p, t);
  ck.u.site((resolve) => ck.patternTypes.set(p, resolve(t, p.span)));
  const refuted = () => {
    if (!refutable) ck.error(p.span, "refutable pattern in 'let': use 'match'");
  };
  switch (p.kind) {
    case 'bind':
      ck.bindingTypes.set(p, t);
      ck.u.site((resolve) => ck.bindingTypes.set(p, resolve(t, p.span)));
      if (frame.values.has(p.name.name)) ck.error(p.name.span, `identifier '${p.name.name}' is bound more than once in this pattern`);
      else frame.values.set(p.name.name, { kind: 'local', binding: p, type: t, mutable: p.mutable });
      ck.localFn.set(p, ck.fnFrame);
      return;
    case 'wild':
      return;
    case 'lit': {
      refuted();
      const lit = p.lit;
      let lt: Type;
      if (lit.kind === 'int') lt = lit.suffix ? { tag: 'prim', name: suffixPrim(lit.suffix) } : ck.u.fresh('int');
      else if (lit.kind === 'float') lt = lit.suffix ? { tag: 'prim', name: suffixPrim(lit.suffix) } : ck.u.fresh('float');
      else if (lit.kind === 'bool') lt = boolT;
      else if (lit.kind === 'char') lt = { tag: 'prim', name: 'u8' };
      else {
        ck.error(p.span, 'string literals cannot be matched');
        return;
      }
      if (!ck.u.unify(lt, t)) {
        ck.mismatch(p.span, t, lt, ' in pattern');
        return;
      }
      if (lit.kind === 'int') {
        ck.u.finalCheck(() => {
          const r = prune(t);
          const negative = lit.value < 0n;
          const magnitude = negative ? -lit.value : lit.value;
          const bitPattern = !isDecimalSpelling(lit, p.span, negative ? 1 : 0);
          if (r.tag === 'prim' && !isFloat(r.name) && r.name !== 'bool' && !fitsInt(magnitude, r.name, negative, bitPattern)) {
            ck.error(p.span, `literal out of range for type '${r.name}'`);
          }
        });
      }
      return;
    }
    case 'tuple': {
      const x = prune(t);
      let elems: Type[];
      if (x.tag === 'tuple' && x.elems.length === p.elems.length) elems = x.elems;
      else {
        elems = p.elems.map(() => ck.u.fresh());
        if (!ck.u.unify(t, { tag: 'tuple', elems })) ck.mismatch(p.span, t, { tag: 'tuple', elems }, ' in pattern');
      }
      p.elems.forEach((el, i) => bindPattern(ck, el, elems[i]!, frame, refutable));
      return;
    }
    case 'variant': {
      const r = resolveValuePath(ck, p.path);
      const bindRest = () => (p.args ?? []).forEach((a) => bindPattern(ck, a, { tag: 'error' }, frame, refutable));
      if (!r) return bindRest();
      if (r.res.kind !== 'variant') {
        ck.error(p.path.span, `expected an enum variant in pattern`);
        return bindRest();
      }
      p.res = r.res;
      const decl = r.res.decl;
      if (decl.variants.length > 1) refuted();
      const vt = prune(r.type);
      const enumT = vt.tag === 'fn' ? vt.ret! : vt;
      const payload = vt.tag === 'fn' ? vt.params : [];
      if (!ck.u.unify(enumT, t)) ck.mismatch(p.span, t, enumT, ' in pattern');
      const args = p.args ?? [];
      if (args.length !== payload.length) {
        const name = decl.variants[r.res.index]!.name.name;
        ck.error(p.span, `variant '${name}' has ${payload.length} field${payload.length === 1 ? '' : 's'} but the pattern has ${args.length}`);
      }
      args.forEach((a, i) => bindPattern(ck, a, payload[i] ?? { tag: 'error' }, frame, refutable));
      return;
    }
  }
}
