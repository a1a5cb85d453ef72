// `a(b)` is a call when `a` is a fn, and indexing when `a` is (a pointer to) an
// array, a tuple or a simd vector.
import type { Expr, ExprOf } from '../syntax/ast.ts';
import type { Span } from '../syntax/diagnostics.ts';
import type { Checker } from './checker.ts';
import { autoDeref, checkCoerced, checkExpr, checkIndex } from './expr.ts';
import { showType } from './infer.ts';
import { bitcastProblem, contParams, contType, directForm, someType } from './type-ops.ts';
import { i32T, prune, unit, type Type } from './types.ts';

type FnType = Extract<Type, { tag: 'fn' }>;

const errorT: Type = { tag: 'error' };
const neverT: Type = { tag: 'never' };

export function checkCall(ck: Checker, e: ExprOf<'call'>): Type {
  const calleeT = checkExpr(ck, e.callee);
  let t = prune(calleeT);
  if (t.tag === 'var' && !t.lit) {
    // Nothing is known about the callee yet: take it to be a direct-style fn.
    const fnT: Type = { tag: 'fn', params: e.args.map(() => ck.u.fresh()), ret: ck.u.fresh() };
    ck.u.unify(t, fnT);
    t = fnT;
  }
  if (t.tag === 'fn') {
    // A continuation-passing fn called without its return continuation is a direct call;
    // a direct-style fn called with one (`f(x, return)`) is a jump that never returns.
    if (t.ret !== null && e.args.length === t.params.length + 1) return explicitReturn(ck, e, t);
    const f = directForm(t, e.args.length) ?? t;
    const elems = f.ret === null && e.args.length > 1 ? contParams(f) : f.params;
    if (elems !== f.params && elems.length === e.args.length) {
      // `return(a, b)`, `k(a, b)`: the continuation of a tuple takes its elements.
      checkArgs(ck, e.args, elems, e.span, isJump(e.callee));
      return neverT;
    }
    checkArgs(ck, e.args, f.params, e.span, isJump(e.callee));
    if (isCompilerKnown(e.callee, 'bitcast') && f.params.length === 1 && f.ret) checkBitcastLater(ck, e, f.params[0]!, f.ret);
    if (isCompilerKnown(e.callee, 'select') && f.params.length === 3 && e.args.length === 3) checkSelectLater(ck, e.args[0]!, f.params[0]!, f.params[1]!);
    return f.ret ?? neverT;
  }
  const inner = autoDeref(t);
  switch (inner.tag) {
    case 'array':
    case 'indefarray':
    case 'simd':
      if (oneIndex(ck, e)) checkIndex(ck, e.args[0]!);
      return inner.elem;
    case 'tuple':
      return tupleIndex(ck, e, inner.elems, calleeT);
    case 'error':
    case 'never':
      for (const a of e.args) checkExpr(ck, a);
      return errorT;
    default:
      ck.error(e.callee.span, `expression of type '${showType(calleeT)}' is not callable`);
      for (const a of e.args) checkExpr(ck, a);
      return errorT;
  }
}

/**
 * A direct-style fn given one argument more than it takes: when that argument is a
 * continuation, it is the return continuation (`f(x, return)`), and the call is a jump.
 */
function explicitReturn(ck: Checker, e: ExprOf<'call'>, t: FnType): Type {
  const last = e.args[e.args.length - 1]!;
  // A closure there is written as the continuation (`|r| k(r)`): it takes the result.
  const lastT = prune(checkExpr(ck, last, last.kind === 'closure' ? contType(t.ret!) : undefined));
  const rest = e.args.slice(0, -1);
  if (lastT.tag === 'fn' && lastT.ret === null) {
    checkArgs(ck, rest, t.params, e.span);
    ck.coerce(last, last.span, lastT, contType(t.ret!), ' as argument type');
  } else {
    ck.error(e.span, `wrong number of arguments: expected ${t.params.length} but found ${e.args.length}`);
    checkArgs(ck, rest, t.params, e.span);
    return t.ret!;
  }
  return neverT;
}

/** The compiler-known fn `name` (the prelude's, or a user declaration standing for it). */
function isCompilerKnown(callee: Expr, name: string): boolean {
  const r = callee.kind === 'path' ? callee.res : undefined;
  return r?.kind === 'fn' && r.decl.abi === 'thorin' && r.decl.name.name === name;
}

/**
 * `select(c, a, b)` picks whole values with a `bool` and lane by lane with a simd of bools
 * as long as the operands (LLVM's `select`); the prelude's generic signature admits any
 * condition, so the shape is checked once the types are known.
 */
function checkSelectLater(ck: Checker, cond: Expr, condT: Type, valueT: Type): void {
  ck.u.finalCheck(() => {
    const c = prune(condT);
    const v = prune(valueT);
    const open = (t: Type) => someType(t, (x) => x.tag === 'param' || x.tag === 'var' || x.tag === 'error' || x.tag === 'never');
    if (open(c) || open(v)) return;
    const isBool = (t: Type) => t.tag === 'prim' && t.name === 'bool';
    if (isBool(c)) return;
    if (c.tag === 'simd' && isBool(prune(c.elem)) && v.tag === 'simd' && v.size === c.size) return;
    const lanes = v.tag === 'simd' ? ` or 'simd[bool * ${v.size}]'` : '';
    ck.error(cond.span, `select's condition must be 'bool'${lanes}, not '${showType(c)}'`);
  });
}

/**
 * `bitcast[D](x)` needs D and x's type of the same size (type-ops.ts), known once literals
 * have their types. Types holding a type parameter are left to emit, which checks each
 * instance; unreachable and erroneous operands are skipped.
 */
function checkBitcastLater(ck: Checker, e: ExprOf<'call'>, from: Type, to: Type): void {
  ck.u.finalCheck(() => {
    const open = (t: Type) => someType(t, (x) => x.tag === 'param' || x.tag === 'var' || x.tag === 'error' || x.tag === 'never');
    if (open(from) || open(to)) return;
    const problem = bitcastProblem(from, to);
    if (problem) ck.error(e.span, problem);
  });
}

function isJump(e: Expr): boolean {
  return e.kind === 'return' || e.kind === 'break' || e.kind === 'continue';
}

/**
 * Checks arguments against parameter types. `unitless`: the callee is a return
 * continuation whose value type may still be open; calling it without arguments
 * passes `()`.
 */
export function checkArgs(ck: Checker, args: readonly Expr[], params: readonly Type[], span: Span, unitless = false): void {
  if (unitless && args.length === 0 && params.length === 1 && ck.u.unify(params[0]!, unit)) return;
  if (args.length !== params.length) {
    ck.error(span, `wrong number of arguments: expected ${params.length} but found ${args.length}`);
  }
  args.forEach((a, i) => {
    const p = params[i];
    if (unitless) ck.markLeaving(a);
    // A jump's argument leaves the function: no auto-borrow (checker.ts, `coerce`).
    if (p) checkCoerced(ck, a, p, ' as argument type', !unitless);
    else checkExpr(ck, a);
  });
}

function oneIndex(ck: Checker, e: ExprOf<'call'>): boolean {
  if (e.args.length === 1) return true;
  ck.error(e.span, `wrong number of indices: expected 1 but found ${e.args.length}`);
  for (const a of e.args) checkExpr(ck, a);
  return false;
}

function tupleIndex(ck: Checker, e: ExprOf<'call'>, elems: readonly Type[], tupleT: Type): Type {
  if (!oneIndex(ck, e)) return errorT;
  const a = e.args[0]!;
  const t = checkExpr(ck, a);
  if (a.kind !== 'lit' || a.lit.kind !== 'int') {
    ck.error(a.span, 'tuple index must be an integer literal');
    return errorT;
  }
  ck.u.unify(t, i32T);
  const el = elems[Number(a.lit.value)];
  if (!el) {
    ck.error(a.span, `tuple index ${a.lit.value} out of range for '${showType(tupleT)}'`);
    return errorT;
  }
  return el;
}
