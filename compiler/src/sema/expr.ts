// The expression checker: every Expr gets its type here. `exp` is the type the
// context expects; it guides closures, literals of aggregates and branches, but
// the caller still coerces the result to it.
import type { Expr, ExprOf, Literal } from '../syntax/ast.ts';
import type { Checker } from './checker.ts';
import { checkBlockExpr, checkClosure, checkFor, checkIf, checkJump, checkMatch, checkWhile } from './control.ts';
import { showType } from './infer.ts';
import { checkIntLiteral, checkFloatLiteral } from './literals.ts';
import { checkSimdElem, lowerType, resolveTypePath, entryResolution, pathText } from './lower.ts';
import { checkAsm, checkAssign, checkBinary, checkCast, checkUnary } from './ops.ts';
import { resolveValuePath, resolveArgsLater } from './paths.ts';
import { aliasType, structFieldTypes } from './items.ts';
import { paramMap, substType } from './type-ops.ts';
import { boolT, i32T, isInt, prune, unit, type Type } from './types.ts';
import { checkCall } from './calls.ts';

const errorT: Type = { tag: 'error' };

export function checkExpr(ck: Checker, e: Expr, exp?: Type): Type {
  return ck.annotate(e, infer(ck, e, exp));
}

/** Checks `e` and coerces it to `exp`. */
export function checkCoerced(ck: Checker, e: Expr, exp: Type, context = '', borrow = true): Type {
  const t = checkExpr(ck, e, exp);
  ck.coerce(e, e.span, t, exp, context, borrow);
  return t;
}

function infer(ck: Checker, e: Expr, exp: Type | undefined): Type {
  switch (e.kind) {
    case 'lit':
      return literal(ck, e, e.lit);
    case 'path': {
      const r = resolveValuePath(ck, e.path);
      if (!r) return errorT;
      e.res = r.res;
      return r.type;
    }
    case 'call':
      return checkCall(ck, e);
    case 'field':
      return checkField(ck, e);
    case 'tuple': {
      const x = exp && prune(exp);
      return {
        tag: 'tuple',
        elems: e.elems.map((el, i) => checkExpr(ck, el, x?.tag === 'tuple' ? x.elems[i] : undefined)),
      };
    }
    case 'array':
      return checkArray(ck, e, exp);
    case 'repeat': {
      const x = exp && prune(exp);
      const elem = checkExpr(ck, e.value, x?.tag === 'array' ? x.elem : undefined);
      return { tag: 'array', elem, size: e.count };
    }
    case 'heaparray': {
      checkIndex(ck, e.size);
      return { tag: 'owned', pointee: { tag: 'indefarray', elem: lowerType(ck, e.elemType) } };
    }
    case 'simd':
      return checkSimd(ck, e);
    case 'struct':
      return checkStructLit(ck, e);
    case 'unary':
      return checkUnary(ck, e, exp);
    case 'binary':
      return checkBinary(ck, e);
    case 'assign':
      return checkAssign(ck, e);
    case 'cast':
      return checkCast(ck, e);
    case 'if':
      return checkIf(ck, e, exp);
    case 'match':
      return checkMatch(ck, e, exp);
    case 'while':
      return checkWhile(ck, e);
    case 'for':
      return checkFor(ck, e);
    case 'block':
      return checkBlockExpr(ck, e, exp);
    case 'closure':
      return checkClosure(ck, e, exp);
    case 'return':
    case 'break':
    case 'continue':
      return checkJump(ck, e);
    case 'run':
      if (e.call.kind !== 'call') ck.error(e.span, "'@@' must be applied to a call");
      return checkExpr(ck, e.call, exp);
    case 'hlt':
      return checkExpr(ck, e.expr, exp);
    case 'known':
      checkExpr(ck, e.expr);
      return boolT;
    case 'asm':
      return checkAsm(ck, e);
  }
}

function literal(ck: Checker, e: Expr, lit: Literal): Type {
  switch (lit.kind) {
    case 'int':
      return checkIntLiteral(ck, e, lit);
    case 'float':
      return checkFloatLiteral(ck, e, lit);
    case 'bool':
      return boolT;
    case 'char':
      return { tag: 'prim', name: 'u8' };
    case 'str':
      return { tag: 'array', elem: { tag: 'prim', name: 'u8' }, size: lit.value.length + 1 };
  }
}

/** An index (array, simd lane, heap array size): any integer type. */
export function checkIndex(ck: Checker, e: Expr): void {
  const t = prune(checkExpr(ck, e));
  if (t.tag === 'var' && t.lit !== 'float') {
    if (!t.lit) ck.u.unify(t, i32T);
    return;
  }
  if ((t.tag === 'prim' && isInt(t.name)) || t.tag === 'error' || t.tag === 'never') return;
  ck.error(e.span, `mismatched types: expected an integer but found '${showType(t)}'`);
}

function checkArray(ck: Checker, e: ExprOf<'array'>, exp: Type | undefined): Type {
  const x = exp && prune(exp);
  const elem: Type = x?.tag === 'array' || x?.tag === 'indefarray' ? x.elem : ck.u.fresh();
  for (const el of e.elems) checkCoerced(ck, el, elem, ' as array element');
  return { tag: 'array', elem, size: e.elems.length };
}

function checkSimd(ck: Checker, e: ExprOf<'simd'>): Type {
  // A vector of no lanes has neither an element type nor an LLVM type; the IR's one-lane vector is its scalar.
  if (e.elems.length < 2) {
    ck.error(e.span, 'a simd literal needs at least two elements');
    return errorT;
  }
  const elem = ck.u.fresh();
  for (const el of e.elems) ck.expect(el.span, checkExpr(ck, el, elem), elem, ' as simd element');
  checkSimdElem(ck, elem, e.span);
  return { tag: 'simd', elem, size: e.elems.length };
}

function checkStructLit(ck: Checker, e: ExprOf<'struct'>): Type {
  const checkValues = () => {
    for (const f of e.fields) checkExpr(ck, f.value);
    return errorT;
  };
  const r = resolveTypePath(ck, e.path);
  if (!r) return checkValues();
  const last = e.path.segments[e.path.segments.length - 1]!;
  const notStruct = () => {
    ck.error(e.path.span, `'${pathText(e.path)}' is not a struct`);
    return checkValues();
  };
  if ('prim' in r || (r.entry.kind !== 'struct' && r.entry.kind !== 'alias')) return notStruct();
  let res = entryResolution(ck, r.entry, last, e.path.span);
  // A literal through an alias of a struct (`type T = S; T { … }`) builds the struct.
  if (res?.kind === 'alias') {
    resolveArgsLater(ck, res, e.path.span);
    const t = prune(substType(aliasType(ck, res.decl), paramMap(res.decl.typeParams, res.typeArgs)));
    if (t.tag !== 'struct') return notStruct();
    res = { kind: 'struct', decl: t.decl, typeArgs: t.args };
  }
  if (!res || res.kind !== 'struct') return checkValues();
  e.res = res;
  resolveArgsLater(ck, res, e.path.span);
  const decl = res.decl;
  const map = paramMap(decl.typeParams, res.typeArgs);
  const fieldTs = structFieldTypes(ck, decl);
  const seen = new Set<string>();
  for (const f of e.fields) {
    const i = decl.fields.findIndex((d) => d.name.name === f.name.name);
    if (i < 0) {
      ck.error(f.name.span, `no field '${f.name.name}' in '${decl.name.name}'`);
      checkExpr(ck, f.value);
      continue;
    }
    if (seen.has(f.name.name)) ck.error(f.name.span, `field '${f.name.name}' specified more than once`);
    seen.add(f.name.name);
    checkCoerced(ck, f.value, substType(fieldTs[i]!, map), ' as field type');
  }
  const missing = decl.fields.filter((d) => !seen.has(d.name.name)).map((d) => `'${d.name.name}'`);
  if (missing.length) ck.error(e.span, `missing field${missing.length > 1 ? 's' : ''} ${missing.join(', ')} in '${decl.name.name}'`);
  return { tag: 'struct', decl, args: res.typeArgs };
}

/** Follows pointers: fields and indexing look through any number of them. */
export function autoDeref(t: Type): Type {
  let p = prune(t);
  while (p.tag === 'ptr' || p.tag === 'owned') p = prune(p.pointee);
  return p;
}

function checkField(ck: Checker, e: ExprOf<'field'>): Type {
  const objT = checkExpr(ck, e.object);
  const t = autoDeref(objT);
  const name = e.field.name;
  if (t.tag === 'struct') {
    const i = t.decl.fields.findIndex((f) => f.name.name === name);
    if (i >= 0) return substType(structFieldTypes(ck, t.decl)[i]!, paramMap(t.decl.typeParams, t.args));
  } else if (t.tag === 'tuple' && /^\d+$/.test(name)) {
    const el = t.elems[Number(name)];
    if (el) return el;
  } else if (t.tag === 'error' || t.tag === 'never') {
    return errorT;
  } else if (t.tag === 'var') {
    ck.error(e.object.span, `cannot infer the type of this expression before accessing field '${name}'; add a type annotation`);
    return errorT;
  }
  ck.error(e.field.span, `no field '${name}' in '${showType(objT)}'`);
  return errorT;
}

