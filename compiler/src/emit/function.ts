// Function-like continuations: fn instances, closures and `for` bodies. Each is
// `fn(mem, params…, ret)` with its own frame; closures and bodies are nested in
// the emission of their enclosing fn and simply reference its values (free
// variables are fine in a CPS graph; closure conversion deals with them later).
import type { Continuation, Def } from '../ir/index.ts';
import type { Param as AstParam, ExprOf, Filter, FnDecl } from '../syntax/ast.ts';
import type { Span } from '../syntax/diagnostics.ts';
import { lastParamReturn, paramMap } from '../sema/type-ops.ts';
import { prune, type Type } from '../sema/types.ts';
import { blockValue } from './control.ts';
import type { Emitter } from './emitter.ts';
import { expr } from './expr.ts';
import { Body, FnEmitter } from './fn.ts';
import { declareLocal } from './pattern.ts';
import { evalPure } from './pure.ts';

/** Emits the body of the instance `cont` of `decl`. */
export function emitFnBody(em: Emitter, decl: FnDecl, typeArgs: readonly Type[], cont: Continuation): void {
  const body = new Body(em.world);
  const fx = new FnEmitter(em, body, cont, paramMap(decl.typeParams, typeArgs), null, {
    frame: true, pure: false,
  });
  const sig = em.program.signature(decl);
  const ret = sig.ret && fx.type(sig.ret);
  const retParam = returnParam(cont, ret, lastParamReturns(sig.params, ret));
  if (retParam) body.targets.set(decl, { kind: 'ret', def: retParam });
  emitParamsAndBody(fx, decl.params, retParam, ret !== null, decl.filter, (f) => blockValue(f, decl.body!), decl.span);
  body.finalize();
}

export interface FunctionLike {
  name: string;
  params: readonly AstParam[];
  paramTypes: readonly Type[];
  ret: Type | null;
  /** A `-> !` fn in continuation form returns through its last parameter (sema's `lastParamReturn`). */
  returnsThroughLastParam?: boolean;
  /** The continuation, when its uses were emitted before it (a nested fn item). */
  cont?: Continuation;
  filter: Filter | null;
  span: Span;
  /** Called with the new continuation and its return param before the body is emitted. */
  onCont: (cont: Continuation, ret: Def | null) => void;
  body: (child: FnEmitter) => Def;
}

/** A continuation nested in the fn `fx` is emitting. */
export function emitFunctionLike(fx: FnEmitter, f: FunctionLike): Continuation {
  const ret = f.ret && fx.type(f.ret);
  const cont = f.cont ?? functionLikeHead(fx, f.name, f.params, f.paramTypes, ret);
  cont.span = f.span;
  const child = new FnEmitter(fx.em, fx.body, cont, fx.tmap, fx, { frame: true, pure: false });
  const retParam = returnParam(cont, ret, f.returnsThroughLastParam === true);
  f.onCont(cont, retParam);
  emitParamsAndBody(child, f.params, retParam, ret !== null, f.filter, f.body, f.span);
  return cont;
}

function functionLikeHead(fx: FnEmitter, name: string, params: readonly AstParam[], paramTypes: readonly Type[], ret: Type | null): Continuation {
  const type = fx.em.types.fnType(paramTypes.map((t) => fx.type(t)), ret);
  return fx.world.continuation(type, name, ['mem', ...params.map((p) => p.name?.name ?? '_'), 'return']);
}

export function closureExpr(fx: FnEmitter, e: ExprOf<'closure'>): Def {
  const t = prune(fx.type(e.type!));
  if (t.tag !== 'fn') throw new Error('internal: closure of non-fn type');
  return emitFunctionLike(fx, {
    name: 'lambda',
    params: e.params,
    paramTypes: t.params,
    ret: t.ret,
    returnsThroughLastParam: lastParamReturns(t.params, t.ret),
    filter: e.filter,
    span: e.span,
    onCont: (_, ret) => {
      if (ret) fx.body.targets.set(e, { kind: 'ret', def: ret });
    },
    body: (child) => expr(child, e.body),
  });
}

/**
 * A fn item nested in the body `fx` emits that uses the body's locals or continuations
 * (sema's `capturingFns`): one continuation per body, referencing the body's values like
 * a closure. Uses may come before the declaration; `emitNestedFn` gives it its body.
 */
export function nestedFnValue(fx: FnEmitter, decl: FnDecl): Continuation {
  let n = fx.body.nestedFns.get(decl);
  if (!n) {
    const sig = fx.em.program.signature(decl);
    const cont = functionLikeHead(fx, decl.name.name, decl.params, sig.params, sig.ret);
    fx.body.nestedFns.set(decl, (n = { cont, emitted: false }));
  }
  return n.cont;
}

/** Emits the body of the capturing nested fn `decl` (once), where it is declared. */
export function emitNestedFn(fx: FnEmitter, decl: FnDecl): void {
  const cont = nestedFnValue(fx, decl);
  const n = fx.body.nestedFns.get(decl)!;
  if (n.emitted) return;
  n.emitted = true;
  const sig = fx.em.program.signature(decl);
  emitFunctionLike(fx, {
    name: decl.name.name,
    params: decl.params,
    paramTypes: sig.params,
    ret: sig.ret,
    returnsThroughLastParam: lastParamReturns(sig.params, sig.ret),
    cont,
    filter: decl.filter,
    span: decl.span,
    onCont: (_, ret) => {
      if (ret) fx.body.targets.set(decl, { kind: 'ret', def: ret });
    },
    body: (child) => blockValue(child, decl.body!),
  });
}

function lastParamReturns(params: Type[], ret: Type | null): boolean {
  return ret === null && lastParamReturn({ tag: 'fn', params, ret }) !== null;
}

/** The return continuation: the one after the params, or the last param of a fn in continuation form. */
function returnParam(cont: Continuation, ret: Type | null, lastParam: boolean): Def | null {
  return ret === null && !lastParam ? null : cont.param(cont.params.length - 1);
}

function emitParamsAndBody(
  fx: FnEmitter,
  params: readonly AstParam[],
  retParam: Def | null,
  ownRetParam: boolean,
  filter: Filter | null,
  body: (fx: FnEmitter) => Def,
  span: Span,
): void {
  const cont = fx.cont;
  // A continuation taking only `()` has no param for it (types.ts).
  const aligned = cont.params.length - 1 - (ownRetParam ? 1 : 0) === params.length;
  const defs = params.map((_, i) => (aligned ? cont.param(i + 1) : fx.world.unitValue()));
  // Filters see the params themselves, whatever storage the body gives them.
  params.forEach((p, i) => {
    if (p.name) fx.body.env.set(p, { kind: 'value', def: defs[i]! });
  });
  setFilter(fx, filter, params, defs, aligned);
  params.forEach((p, i) => {
    if (p.name) declareLocal(fx, p, defs[i]!, p.name.name);
  });
  const v = body(fx);
  if (!fx.reachable) return;
  if (retParam) fx.returnTo(retParam, v);
  else fx.em.sink.error(span, "the end of a function of type '-> !' is reachable");
}

/**
 * One bool per param of the continuation: a param's own filter ORed with the fn's;
 * `false` for mem and the return continuation.
 */
function setFilter(fx: FnEmitter, fnFilter: Filter | null, params: readonly AstParam[], defs: readonly Def[], aligned: boolean): void {
  if (!fnFilter && params.every((p) => !p.filter)) return;
  const w = fx.world;
  const no = w.litBool(false);
  const all = fnFilter ? filterValue(fx, fnFilter, null) : no;
  const filter = fx.cont.params.map((): Def => no);
  if (aligned) {
    params.forEach((p, i) => {
      filter[i + 1] = p.filter ? w.arith('or', filterValue(fx, p.filter, defs[i]!), all) : all;
    });
  }
  fx.cont.filter = filter;
}

function filterValue(fx: FnEmitter, f: Filter, param: Def | null): Def {
  const w = fx.world;
  switch (f.kind) {
    case 'always':
      return w.litBool(true);
    case 'known':
      return param ? w.known(param) : w.litBool(true);
    case 'expr': {
      const v = evalPure(fx.em, fx.body, fx.tmap, fx, f.expr);
      if (v) return v;
      fx.em.sink.error(f.span, 'a filter must be a pure expression of the parameters');
      return w.litBool(false);
    }
  }
}
