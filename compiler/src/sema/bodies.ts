// Item bodies: each fn body and each static initialiser is one inference session.
import type { FnDecl, StaticDecl } from '../syntax/ast.ts';
import type { Checker } from './checker.ts';
import { bindParam, checkBlock, checkParamFilters, coerceBlockValue, unsizedByValue } from './control.ts';
import { checkExpr } from './expr.ts';
import { resolveDeep, showType } from './infer.ts';
import { fnSig, itemFrame, staticType } from './items.ts';
import { Frame } from './scope.ts';
import { lastParamReturn } from './type-ops.ts';
import type { Type } from './types.ts';

/** Checks a fn body once, with abstract type parameters when the fn is generic. */
export function checkFnBody(ck: Checker, decl: FnDecl): void {
  if (decl.body) ck.inSession(() => checkBodyIn(ck, decl, itemFrame(ck, decl)));
}

/**
 * A fn item declared in a block is checked where it is declared, in the session of the
 * body around it: like a closure it sees the locals declared before it and the
 * enclosing continuations (lexical scoping). Its own type parameters are in the
 * boundary frame, which names it so lookups can record what it captures.
 */
export function checkNestedFnBody(ck: Checker, decl: FnDecl): void {
  const boundary = new Frame(ck.frame, true, decl);
  for (const [name, entry] of itemFrame(ck, decl).types) boundary.types.set(name, entry);
  checkBodyIn(ck, decl, boundary);
}

function checkBodyIn(ck: Checker, decl: FnDecl, outer: Frame): void {
  const body = decl.body!;
  const sig = fnSig(ck, decl);
  if (sig.ret && decl.retType && unsizedByValue(sig.ret)) {
    ck.error(decl.retType.span, `a return type '${showType(sig.ret)}' has no size known at compile time: return a pointer instead`);
  }
  // A fn in continuation form returns through its last parameter.
  const ret = sig.ret ?? lastParamReturn({ tag: 'fn', params: sig.params, ret: null });
  const frame = new Frame(outer);
  const enclosing = ck.fnFrame;
  ck.fnFrame = frame;
  ck.inFrame(frame, () => {
    decl.params.forEach((p, i) => bindParam(ck, p, sig.params[i] ?? { tag: 'error' }, frame));
    ck.withJump({ kind: 'fn', target: { kind: 'fn', decl }, ret }, () => {
      checkParamFilters(ck, decl.filter, decl.params);
      ck.markLeaving(body.expr);
      const t = checkBlock(ck, body, ret ?? undefined);
      if (ret) coerceBlockValue(ck, body, t, ret, true);
      else ck.expectDiverges(body.expr?.span ?? body.span, t);
    });
  });
  ck.fnFrame = enclosing;
}

/** Checks a static's initialiser once; returns its type (the declared one, if any). */
export function checkStaticInit(ck: Checker, decl: StaticDecl): Type {
  const declared = decl.type ? staticType(ck, decl) : undefined;
  if (ck.checkedStatics.has(decl)) return declared ?? ck.staticTypes.get(decl) ?? { tag: 'error' };
  ck.checkedStatics.add(decl);
  const init = decl.init;
  if (!init) {
    // The parser gives a static without initialiser a type; only a mutable one can ever hold a value.
    if (!decl.mutable) ck.error(decl.name.span, `static '${decl.name.name}' needs an initialiser (only a 'static mut' starts zeroed)`);
    return declared ?? { tag: 'error' };
  }
  const t = ck.inSession(() =>
    ck.inFrame(itemFrame(ck, decl), () => {
      const found = checkExpr(ck, init, declared);
      if (declared) ck.coerce(init, init.span, found, declared);
      return found;
    }),
  );
  return declared ?? resolveDeep(t, () => ({ tag: 'error' }));
}
