// Item bodies: each fn body and each static initialiser is one inference session.
import type { FnDecl, StaticDecl } from '../syntax/ast.ts';
import type { Checker } from './checker.ts';
import { bindParam, checkBlock, checkParamFilters, coerceBlockValue, unsizedByValue } from './control.ts';
import { checkExpr } from './expr.ts';
import { resolveDeep, showType } from './infer.ts';
import { fnSig, itemFrame, staticType } from './items.ts';
import { Frame } from './scope.ts';
import type { Type } from './types.ts';

/** Checks a fn body once, with abstract type parameters when the fn is generic. */
export function checkFnBody(ck: Checker, decl: FnDecl): void {
  const body = decl.body;
  if (!body) return;
  const sig = fnSig(ck, decl);
  if (sig.ret && decl.retType && unsizedByValue(sig.ret)) {
    ck.error(decl.retType.span, `a return type '${showType(sig.ret)}' has no size known at compile time: return a pointer instead`);
  }
  const frame = new Frame(itemFrame(ck, decl));
  ck.inSession(() =>
    ck.inFrame(frame, () => {
      decl.params.forEach((p, i) => bindParam(ck, p, sig.params[i] ?? { tag: 'error' }, frame));
      ck.withJump({ kind: 'fn', target: { kind: 'fn', decl }, ret: sig.ret }, () => {
        checkParamFilters(ck, decl.filter, decl.params);
        const t = checkBlock(ck, body, sig.ret ?? undefined);
        if (sig.ret) coerceBlockValue(ck, body, t, sig.ret, true);
        else ck.expectDiverges(body.expr?.span ?? body.span, t);
      });
    }),
  );
}

/** Checks a static's initialiser once; returns its type (the declared one, if any). */
export function checkStaticInit(ck: Checker, decl: StaticDecl): Type {
  const declared = decl.type ? staticType(ck, decl) : undefined;
  if (ck.checkedStatics.has(decl)) return declared ?? ck.staticTypes.get(decl) ?? { tag: 'error' };
  ck.checkedStatics.add(decl);
  const t = ck.inSession(() =>
    ck.inFrame(itemFrame(ck, decl), () => {
      const found = checkExpr(ck, decl.init, declared);
      if (declared) ck.coerce(decl.init, decl.init.span, found, declared);
      return found;
    }),
  );
  return declared ?? resolveDeep(t, () => ({ tag: 'error' }));
}
