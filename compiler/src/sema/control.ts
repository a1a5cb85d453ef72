// Blocks, `let`, branches, loops, closures and the first-class continuations
// `return`, `break`, `continue`.
import type { Block, Expr, ExprOf, Filter, FnDecl, Param, Stmt } from '../syntax/ast.ts';
import type { Span } from '../syntax/diagnostics.ts';
import { checkNestedFnBody } from './bodies.ts';
import type { Checker } from './checker.ts';
import { collectItems } from './collect.ts';
import { checkArgs } from './calls.ts';
import { checkCoerced, checkExpr } from './expr.ts';
import { showType } from './infer.ts';
import { lowerType } from './lower.ts';
import { checkExhaustive } from './exhaustive.ts';
import { bindPattern } from './patterns.ts';
import { Frame, Lets } from './scope.ts';
import { contParams, contType, cpsForm, directForm, isUnit, lastParamReturn } from './type-ops.ts';
import { boolT, prune, unit, type Type } from './types.ts';

const errorT: Type = { tag: 'error' };
const neverT: Type = { tag: 'never' };

/** Checks a block in a new scope; its items are visible throughout, lets from their statement on. */
export function checkBlock(ck: Checker, b: Block, exp?: Type): Type {
  return ck.inFrame(ck.frame, () => {
    const items = b.stmts.flatMap((s) => (s.kind === 'item' ? [s.item] : []));
    if (items.length) {
      ck.frame = new Frame(ck.frame);
      for (const i of items) if (i.kind === 'fn' && i.body) ck.nestedFns.add(i);
      collectItems(items, ck.frame, { sink: ck.sink, declared: (i, f) => ck.declared(i, f) });
    }
    const lets = new Lets(ck.frame);
    let diverges = false;
    let lastRun = b.stmts.length - 1;
    while (lastRun >= 0 && b.stmts[lastRun]!.kind === 'item') lastRun--;
    b.stmts.forEach((s, i) => {
      if (!checkStmt(ck, s, lets)) return;
      diverges = true;
      // Code after an expression that never returns could never run: the original compiler rejects it.
      if (s.kind === 'expr' && (i < lastRun || b.expr)) ck.error(s.expr.span, 'expression does not return; subsequent statements are unreachable');
    });
    if (b.expr) return checkExpr(ck, b.expr, exp);
    return diverges ? neverT : unit;
  });
}

export function checkBlockExpr(ck: Checker, e: ExprOf<'block'>, exp: Type | undefined): Type {
  return checkBlock(ck, e.block, exp);
}

/** Returns whether the statement never completes. */
function checkStmt(ck: Checker, s: Stmt, lets: Lets): boolean {
  switch (s.kind) {
    case 'item':
      if (ck.nestedFns.has(s.item as FnDecl)) checkNestedFnBody(ck, s.item as FnDecl);
      return false;
    case 'expr':
      return prune(checkExpr(ck, s.expr)).tag === 'never';
    case 'let': {
      const declared = s.type ? lowerType(ck, s.type) : undefined;
      let t: Type = declared ?? ck.u.fresh();
      let diverges = false;
      if (s.init) {
        const it = declared ? checkCoerced(ck, s.init, declared) : checkExpr(ck, s.init);
        if (!declared) t = it;
        diverges = prune(s.init.type ?? it).tag === 'never';
        if (diverges) ck.error(s.init.span, 'expression does not return: it has no value to bind');
      }
      // An indefinite array is only ever behind a pointer; as a variable it would need a size.
      const init = s.init;
      ck.u.finalCheck(() => {
        if (unsizedByValue(t)) ck.error((init ?? s.pattern).span, `a value of type '${showType(prune(t))}' has no size known at compile time: bind a pointer to it instead`);
      });
      // Collects the pattern's bindings, to catch a name bound twice in it.
      const bound = new Frame(null);
      bindPattern(ck, s.pattern, t, bound, false);
      ck.frame = lets.bind(bound.values);
      return diverges;
    }
  }
}

/** Whether `t` holds an indefinite array by value (not behind a pointer). */
export function unsizedByValue(t: Type): boolean {
  const u = prune(t);
  if (u.tag === 'indefarray') return true;
  if (u.tag === 'tuple') return u.elems.some(unsizedByValue);
  if (u.tag === 'array') return unsizedByValue(u.elem);
  return false;
}

/**
 * Coerces the value of a block (its trailing expression, or `()`) to `exp`.
 * `body`: the block is a fn or closure body, where a missing value reads better.
 */
export function coerceBlockValue(ck: Checker, b: Block, t: Type, exp: Type, body = false): void {
  if (b.expr) {
    // A fn's or closure's result leaves its frame: no auto-borrow (checker.ts, `coerce`).
    ck.coerce(b.expr, b.expr.span, t, exp, '', !body);
    return;
  }
  const x = prune(exp);
  if (body && isUnit(t) && !isUnit(x) && x.tag !== 'var' && x.tag !== 'error' && x.tag !== 'never') {
    ck.error(b.span, `mismatched types: expected '${showType(exp)}' but found '()' (missing return value)`);
    return;
  }
  ck.coerce(null, b.span, t, exp);
}

/** One branch of an `if` or `match`: its value expression (null for a block without one). */
interface Branch {
  type: Type;
  value: Expr | null;
  span: Span;
}

function blockBranch(b: Block, t: Type): Branch {
  return { type: t, value: b.expr, span: b.expr?.span ?? b.span };
}

/** A branch expression; a block reports (and coerces) at its value. */
function exprBranch(e: Expr, t: Type): Branch {
  return e.kind === 'block' ? blockBranch(e.block, t) : { type: t, value: e, span: e.span };
}

/**
 * The type of a conditional: the expected type when the context fixes one, else the
 * branches' common type (`&mut T` and `&T` meet at `&T`; `never` joins anything).
 */
function join(ck: Checker, branches: Branch[], exp: Type | undefined): Type {
  const coerceTo = (t: Type) => {
    for (const b of branches) ck.coerce(b.value, b.span, b.type, t);
  };
  const live = branches.filter((b) => prune(b.type).tag !== 'never');
  // No branch returns: neither does the whole, whatever type the context expects.
  if (live.length === 0) return neverT;
  if (exp && prune(exp).tag !== 'var') {
    coerceTo(exp);
    return exp;
  }
  let r = live[0]!.type;
  for (const b of live.slice(1)) {
    if (ck.u.unify(r, b.type)) continue;
    const lub = pointerJoin(ck, r, b.type);
    if (lub) r = lub;
    else {
      ck.mismatch(b.span, r, b.type);
      return errorT;
    }
  }
  coerceTo(r);
  return r;
}

/** `&mut T` and `&T` meet at `&T`; `~T` and `&T` at `&T`, `~T` and `&mut T` at `&mut T`. */
function pointerJoin(ck: Checker, a: Type, b: Type): Type | null {
  const x = prune(a);
  const y = prune(b);
  if ((x.tag !== 'ptr' && x.tag !== 'owned') || (y.tag !== 'ptr' && y.tag !== 'owned')) return null;
  const space = (t: typeof x) => (t.tag === 'ptr' ? t.addrSpace : 0);
  const mutable = (t: typeof x) => t.tag === 'owned' || t.mutable;
  if (space(x) !== space(y) || !ck.u.unify(x.pointee, y.pointee)) return null;
  return { tag: 'ptr', pointee: x.pointee, mutable: mutable(x) && mutable(y), addrSpace: space(x) };
}

/**
 * An `else if` chain (the parser builds thousands of links without nesting) is checked
 * link by link, then joined from the innermost link out, as the recursion would.
 */
export function checkIf(ck: Checker, e: ExprOf<'if'>, exp: Type | undefined): Type {
  const links: ExprOf<'if'>[] = [e];
  for (let x = e.else; x?.kind === 'if'; x = x.else) links.push(x);
  const thenTypes = links.slice(0, -1).map((link) => {
    checkCoerced(ck, link.cond, boolT, ' as condition');
    return checkBlock(ck, link.then, exp);
  });
  let t = checkIfLink(ck, links[links.length - 1]!, exp);
  for (let i = links.length - 2; i >= 0; i--) {
    const inner = links[i + 1]!;
    ck.annotate(inner, t);
    t = join(ck, [blockBranch(links[i]!.then, thenTypes[i]!), exprBranch(inner, t)], exp);
  }
  return t;
}

/** The last link of an `if` chain: its `else` is a block or absent. */
function checkIfLink(ck: Checker, e: ExprOf<'if'>, exp: Type | undefined): Type {
  checkCoerced(ck, e.cond, boolT, ' as condition');
  if (!e.else) {
    const t = checkBlock(ck, e.then, unit);
    const x = exp && prune(exp);
    if (x && x.tag !== 'var' && x.tag !== 'error' && !isUnit(x)) {
      ck.error(e.span, `mismatched types: expected '${showType(x)}' but found '()' ('if' without 'else' used as a non-unit value)`);
      return errorT;
    }
    const p = prune(t);
    if (!(p.tag === 'never' || p.tag === 'error' || ck.u.unify(p, unit))) {
      ck.error(e.then.expr?.span ?? e.then.span, `mismatched types: expected '()' but found '${showType(t)}' ('if' without 'else' has no value)`);
    }
    return unit;
  }
  const thenT = checkBlock(ck, e.then, exp);
  const elseT = checkExpr(ck, e.else, exp);
  return join(ck, [blockBranch(e.then, thenT), exprBranch(e.else, elseT)], exp);
}

export function checkMatch(ck: Checker, e: ExprOf<'match'>, exp: Type | undefined): Type {
  const st = checkExpr(ck, e.scrutinee);
  const branches = e.arms.map((arm) =>
    ck.inFrame(new Frame(ck.frame), () => {
      bindPattern(ck, arm.pattern, st, ck.frame, true);
      return exprBranch(arm.body, checkExpr(ck, arm.body, exp));
    }),
  );
  ck.u.finalCheck(() => checkExhaustive(ck, e));
  return join(ck, branches, exp);
}

export function checkWhile(ck: Checker, e: ExprOf<'while'>): Type {
  checkCoerced(ck, e.cond, boolT, ' as condition');
  const k = contType(unit);
  ck.withJump({ kind: 'loop', target: { kind: 'while', expr: e }, breakT: k, continueT: k }, () => {
    coerceBlockValue(ck, e.body, checkBlock(ck, e.body, unit), unit);
  });
  return unit;
}

type FnType = Extract<Type, { tag: 'fn' }>;

/**
 * `for params in gen(args) { body }` is `gen(args..., |params| body)`: the body is a
 * fn whose return is `continue`; `break` is the return of the call.
 */
export function checkFor(ck: Checker, e: ExprOf<'for'>): Type {
  const { body, call } = generator(ck, e);
  if (body && body.params.length !== e.params.length) {
    ck.error(e.span, `wrong number of ${e.isWith ? 'with' : 'for'} parameters: expected ${body.params.length} but found ${e.params.length}`);
  }
  const frame = new Frame(ck.frame);
  const params = e.params.map((p, i) => bindParam(ck, p, paramType(ck, p, body?.params[i] ?? errorT), frame));
  const bodyRet = body ? body.ret : errorT;
  const forBody: Type = body ?? { tag: 'fn', params, ret: bodyRet };
  ck.forBodies.set(e, forBody);
  ck.u.site((resolve) => ck.forBodies.set(e, resolve(forBody, e.span)));
  const scope = {
    kind: 'loop',
    target: { kind: 'for', expr: e },
    breakT: call && contType(call),
    continueT: e.isWith || !bodyRet ? null : contType(bodyRet),
  } as const;
  ck.inFrame(frame, () =>
    ck.withJump(scope, () => {
      checkFilter(ck, e.filter);
      const t = checkBlock(ck, e.body, bodyRet ?? undefined);
      if (bodyRet) coerceBlockValue(ck, e.body, t, bodyRet);
      else ck.expectDiverges(e.body.span, t);
    }),
  );
  const result = call ?? neverT;
  ck.annotate(e.generator, result);
  return result;
}

/**
 * Checks the generator call without its body argument. Returns the fn type the body
 * must have (null after an error) and the call's result type (null for `-> !`).
 */
function generator(ck: Checker, e: ExprOf<'for'>): { body: FnType | null; call: Type | null } {
  const gen = e.generator;
  const callee = gen.kind === 'call' ? gen.callee : gen;
  const args = gen.kind === 'call' ? gen.args : [];
  let ft = prune(checkExpr(ck, callee));
  if (ft.tag === 'var' && !ft.lit) {
    const fresh: Type = { tag: 'fn', params: [...args, null].map(() => ck.u.fresh()), ret: ck.u.fresh() };
    ck.u.unify(ft, fresh);
    ft = fresh;
  }
  const direct = ft.tag === 'fn' ? directForm(ft, args.length + 1) : null;
  if (!direct) {
    if (ft.tag !== 'error') {
      ck.error(callee.span, `'${showType(ft)}' cannot be used as a ${e.isWith ? 'with' : 'for'} generator: it must be a fn taking ${args.length + 1} arguments, the body last`);
    }
    for (const a of args) checkExpr(ck, a);
    return { body: null, call: errorT };
  }
  checkArgs(ck, args, direct.params.slice(0, -1), gen.span);
  let body = prune(direct.params[args.length]!);
  if (body.tag === 'var' && !body.lit) {
    const fresh: Type = { tag: 'fn', params: e.params.map(() => ck.u.fresh()), ret: ck.u.fresh() };
    ck.u.unify(body, fresh);
    body = fresh;
  }
  if (body.tag !== 'fn') {
    if (body.tag !== 'error') ck.error(gen.span, `the generator's last parameter must be a fn to take the body, found '${showType(body)}'`);
    return { body: null, call: direct.ret };
  }
  return { body: directForm(body, e.params.length) ?? body, call: direct.ret };
}

/** A parameter's declared type, unified with the type the context provides. */
function paramType(ck: Checker, p: Param, hint: Type | undefined): Type {
  if (!p.type) return hint ?? ck.u.fresh();
  const t = lowerType(ck, p.type);
  if (hint && !ck.u.unify(hint, t)) ck.mismatch(p.type.span, hint, t, ' as parameter type');
  return t;
}

/** Enters a parameter into `frame` and records its type. */
export function bindParam(ck: Checker, p: Param, t: Type, frame: Frame): Type {
  ck.bindingTypes.set(p, t);
  // Arguments are passed by value, so like a variable a parameter needs a size.
  ck.u.finalCheck(() => {
    if (unsizedByValue(t)) ck.error(p.type?.span ?? p.span, `a parameter of type '${showType(prune(t))}' has no size known at compile time: take a pointer to it instead`);
  });
  ck.u.site((resolve) => ck.bindingTypes.set(p, resolve(t, p.span)));
  // `_` names nothing: several parameters may be called so.
  if (p.name && p.name.name !== '_') {
    if (frame.values.has(p.name.name)) ck.error(p.name.span, `duplicate definition of '${p.name.name}'`);
    else frame.values.set(p.name.name, { kind: 'local', binding: p, type: t, mutable: p.mutable });
    ck.localFn.set(p, ck.fnFrame);
  }
  return t;
}

/** Filters are bool expressions over the parameters in scope. */
function checkFilter(ck: Checker, f: Filter | null): void {
  if (f?.kind === 'expr') checkCoerced(ck, f.expr, boolT, ' in filter');
}

export function checkParamFilters(ck: Checker, fnFilter: Filter | null, params: readonly Param[]): void {
  checkFilter(ck, fnFilter);
  for (const p of params) checkFilter(ck, p.filter);
}

export function checkClosure(ck: Checker, e: ExprOf<'closure'>, exp: Type | undefined): Type {
  const x = exp && prune(exp);
  const xf = x?.tag === 'fn' ? closureForm(x, e) : undefined;
  if (xf && xf.params.length !== e.params.length) {
    ck.error(e.span, `wrong number of closure parameters: expected ${xf.params.length} but found ${e.params.length}`);
  }
  const frame = new Frame(ck.frame);
  const enclosing = ck.fnFrame;
  ck.fnFrame = frame;
  const params = e.params.map((p, i) => bindParam(ck, p, paramType(ck, p, xf ? (xf.params[i] ?? errorT) : undefined), frame));
  let ret: Type | null;
  if (e.diverges) ret = null;
  else if (e.retType) ret = lowerType(ck, e.retType);
  else if (xf) ret = xf.ret;
  else ret = ck.u.fresh();
  const fnT: Type = { tag: 'fn', params, ret };
  // A closure in continuation form returns through its last parameter.
  if (ret === null) ret = lastParamReturn(fnT);
  ck.inFrame(frame, () =>
    ck.withJump({ kind: 'fn', target: { kind: 'closure', expr: e }, ret }, () => {
      checkParamFilters(ck, e.filter, e.params);
      ck.markLeaving(e.body);
      const t = checkExpr(ck, e.body, ret ?? undefined);
      if (!ret) ck.expectDiverges(e.body.span, t);
      else if (e.body.kind === 'block') coerceBlockValue(ck, e.body.block, t, ret, true);
      else ck.coerce(e.body, e.body.span, t, ret, '', false);
    }),
  );
  ck.fnFrame = enclosing;
  return fnT;
}

/**
 * The expected fn type in the spelling the closure uses: `fn(A) -> R` and
 * `fn(A, fn(R) -> !) -> !` are one type, so a closure may be written in either form.
 */
function closureForm(x: FnType, e: ExprOf<'closure'>): FnType {
  if (x.ret !== null && e.params.length === x.params.length + 1 && !e.retType) return cpsForm(x);
  if (x.ret === null && e.params.length + 1 === x.params.length && !e.diverges) return directForm(x, e.params.length) ?? x;
  // `|a, b| -> ! …` as the continuation of a tuple (`fn((A, B)) -> !`) takes its elements.
  if (x.ret === null && e.params.length !== x.params.length && contParams(x).length === e.params.length) return { tag: 'fn', params: [...contParams(x)], ret: null };
  return x;
}

/** `return`, `break`, `continue`: the continuation of the innermost fn / loop. */
export function checkJump(ck: Checker, e: ExprOf<'return' | 'break' | 'continue'>): Type {
  const local = ck.frame.lookupValue(e.kind);
  if (local && local.entry.kind === 'local' && !local.captured) {
    ck.crossed(local.via, { binding: local.entry.binding });
    ck.jumps.set(e, { kind: 'local', binding: local.entry.binding });
    return local.entry.type;
  }
  let t: Type | null = null;
  let neverReturns = false;
  // Nested fns between the jump and its target capture the target.
  const crossed: FnDecl[] = [];
  for (let i = ck.jumpScopes.length - 1; i >= 0 && !t; i--) {
    const s = ck.jumpScopes[i]!;
    if (e.kind === 'return' && s.kind === 'fn' && s.ret) {
      ck.jumps.set(e, s.target);
      t = contType(s.ret);
    } else if (s.kind === 'fn') {
      // A `-> !` fn or closure has no return of its own: `return` is the enclosing one's.
      if (e.kind === 'return') neverReturns = true;
      if (s.target.kind === 'fn' && ck.nestedFns.has(s.target.decl)) crossed.push(s.target.decl);
    } else if (s.kind === 'loop' && e.kind !== 'return') {
      const k = e.kind === 'break' ? s.breakT : s.continueT;
      if (k) {
        ck.jumps.set(e, s.target);
        t = k;
      } else if (e.kind === 'break') {
        ck.error(e.span, "'break' is not available: the generator never returns");
        return errorT;
      }
    }
  }
  if (!t) {
    if (neverReturns) ck.error(e.span, "'return' in a function that never returns ('-> !')");
    else ck.error(e.span, e.kind === 'return' ? "'return' outside of a function" : `'${e.kind}' outside of a loop`);
    return errorT;
  }
  for (const d of crossed) ck.capturesDirectly.add(d);
  // A continuation for `()` takes no argument, also when `()` was only inferred.
  ck.u.site((resolve) => {
    const r = resolve(e.type!, e.span);
    e.type = r.tag === 'fn' && r.params.length === 1 && isUnit(r.params[0]!) ? { tag: 'fn', params: [], ret: null } : r;
  });
  return t;
}
