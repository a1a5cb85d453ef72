// Operators, assignment, casts and inline assembly, and the place/mutability rules they share.
import type { BinaryOp, Expr, ExprOf } from '../syntax/ast.ts';
import type { Checker } from './checker.ts';
import { checkCoerced, checkExpr } from './expr.ts';
import { showType } from './infer.ts';
import { lowerType } from './lower.ts';
import { boolT, isInt, primBits, prune, unit, type LocalBinding, type Type } from './types.ts';

const errorT: Type = { tag: 'error' };

/** What an operator accepts, by operand class. */
type OperandClass = 'numeric' | 'int' | 'intOrBool' | 'bool' | 'eq' | 'ord';

function opClass(op: BinaryOp): OperandClass {
  switch (op) {
    case '+': case '-': case '*': case '/': case '%':
      return 'numeric';
    case '<<': case '>>':
      return 'int';
    case '&': case '|': case '^':
      return 'intOrBool';
    case '&&': case '||':
      return 'bool';
    case '==': case '!=':
      return 'eq';
    case '<': case '<=': case '>': case '>=':
      return 'ord';
  }
}

/** Whether operands of type `t` suit the class; undecided literals count as their kind. */
function accepts(cls: OperandClass, t: Type): boolean {
  const p = prune(t);
  if (p.tag === 'error' || p.tag === 'never') return true;
  if (p.tag === 'simd') return accepts(cls, p.elem);
  if (p.tag === 'var') {
    if (!p.lit) return true;
    return cls === 'numeric' || cls === 'eq' || cls === 'ord' || (p.lit === 'int' && (cls === 'int' || cls === 'intOrBool'));
  }
  if (p.tag === 'ptr' || p.tag === 'owned') return cls === 'eq';
  if (p.tag !== 'prim') return false;
  const n = p.name;
  switch (cls) {
    case 'numeric':
    case 'ord':
      return n !== 'bool';
    case 'int':
      return isInt(n);
    case 'intOrBool':
      return isInt(n) || n === 'bool';
    case 'bool':
      return n === 'bool';
    case 'eq':
      return true;
  }
}

/** `bool`, or `simd[bool * N]` for comparisons of simd vectors. */
function comparisonResult(t: Type): Type {
  const p = prune(t);
  return p.tag === 'simd' ? { tag: 'simd', elem: boolT, size: p.size } : boolT;
}

/**
 * Checks a chain of left-associative operators (`a + b + c …`, thousands of terms in
 * generated code) from its innermost operand out, without a recursion per operator.
 */
export function checkBinary(ck: Checker, e: ExprOf<'binary'>): Type {
  const chain: ExprOf<'binary'>[] = [e];
  for (let x = e.lhs; x.kind === 'binary'; x = x.lhs) chain.push(x);
  const first = chain[chain.length - 1]!;
  let l = checkExpr(ck, first.lhs, opClass(first.op) === 'bool' ? boolT : undefined);
  for (let i = chain.length - 1; i > 0; i--) l = ck.annotate(chain[i]!, checkOperator(ck, chain[i]!, l));
  return checkOperator(ck, e, l);
}

/** The type of `e` given the type `l` of its left operand. */
function checkOperator(ck: Checker, e: ExprOf<'binary'>, l: Type): Type {
  const cls = opClass(e.op);
  const r = checkExpr(ck, e.rhs, l);
  if (!ck.u.unify(l, r)) {
    ck.mismatch(e.rhs.span, l, r);
    return errorT;
  }
  operandCheck(ck, e, cls, l);
  constantOperandCheck(ck, e.op, e.rhs, l);
  return cls === 'eq' || cls === 'ord' ? comparisonResult(l) : l;
}

/** An integer literal's value, negated under a unary minus; undefined for anything else. */
function intLiteralValue(e: Expr): bigint | undefined {
  if (e.kind === 'unary' && e.op === '-') {
    const v = intLiteralValue(e.operand);
    return v === undefined ? undefined : -v;
  }
  if (e.kind !== 'lit' || e.lit.kind !== 'int' || (e.lit.suffix !== null && isFloatSuffix(e.lit.suffix))) return undefined;
  return e.lit.value;
}

function isFloatSuffix(s: string): boolean {
  return s[0] === 'f' || s === 'h';
}

/**
 * Written-out operands with no defined result are errors (docs/language.md, "Defined
 * semantics of arithmetic"): an integer division or remainder by a literal 0, and a
 * shift by a literal amount outside 0 .. width-1. Computed ones are defined at run time.
 */
function constantOperandCheck(ck: Checker, op: BinaryOp, rhs: Expr, t: Type): void {
  if (op !== '/' && op !== '%' && op !== '<<' && op !== '>>') return;
  const v = intLiteralValue(rhs);
  if (v === undefined) return;
  if (op === '/' || op === '%') {
    if (v === 0n) ck.error(rhs.span, `${op === '/' ? 'division' : 'remainder'} by zero`);
    return;
  }
  ck.u.finalCheck(() => {
    const p = prune(t);
    const elem = p.tag === 'simd' ? prune(p.elem) : p;
    if (elem.tag !== 'prim' || !isInt(elem.name)) return;
    const bits = BigInt(primBits(elem.name));
    if (v < 0n || v >= bits) ck.error(rhs.span, `shift by ${v} is out of range for type '${elem.name}': the amount must be between 0 and ${bits - 1n}`);
  });
}

function operandCheck(ck: Checker, e: Expr & { op: string }, cls: OperandClass, t: Type): void {
  const report = () => {
    if (!accepts(cls, t)) ck.error(e.span, `operator '${e.op}' cannot be applied to type '${showType(t)}'`);
  };
  // An operand whose type is still open may be fixed later in the body.
  if (prune(t).tag === 'var' && !(prune(t) as { lit: unknown }).lit) ck.u.finalCheck(report);
  else report();
}

export function checkAssign(ck: Checker, e: ExprOf<'assign'>): Type {
  const l = checkExpr(ck, e.lhs);
  requireMutablePlace(ck, e.lhs);
  if (e.op === '=') {
    checkCoerced(ck, e.rhs, l, ' in assignment');
    return unit;
  }
  const r = checkExpr(ck, e.rhs, l);
  if (!ck.u.unify(l, r)) ck.mismatch(e.rhs.span, l, r);
  else {
    operandCheck(ck, e, opClass(e.op.slice(0, -1) as BinaryOp), l);
    constantOperandCheck(ck, e.op.slice(0, -1) as BinaryOp, e.rhs, l);
  }
  return unit;
}

export function checkUnary(ck: Checker, e: ExprOf<'unary'>, exp: Type | undefined): Type {
  const x = exp && prune(exp);
  switch (e.op) {
    case '-':
    case '+': {
      if (e.op === '-' && e.operand.kind === 'lit') ck.negated.add(e.operand);
      const t = checkExpr(ck, e.operand, exp);
      operandCheck(ck, e, 'numeric', t);
      return t;
    }
    case '!': {
      const t = checkExpr(ck, e.operand, exp);
      operandCheck(ck, e, 'intOrBool', t);
      return t;
    }
    case '*': {
      // `*k(2)` with `k: fn(i32) -> !` is accepted, as every operation on a '!' operand is here
      // (fields, indexing, operators): what follows the call is unreachable and emit drops it
      // (emit/place.ts). rustc rejects it (E0614) as it rejects those others; one rule for every
      // operand keeps '!' a subtype of everything.
      const t = prune(checkExpr(ck, e.operand));
      if (t.tag === 'ptr' || t.tag === 'owned') return t.pointee;
      if (t.tag !== 'error' && t.tag !== 'never') ck.error(e.span, `type '${showType(t)}' cannot be dereferenced`);
      return errorT;
    }
    case '&':
    case '&mut': {
      const t = checkExpr(ck, e.operand, x?.tag === 'ptr' ? x.pointee : undefined);
      if (e.op === '&mut') requireMutablePlace(ck, e.operand, true);
      // The direct form of the rule that keeps borrows of locals from leaving (checker.ts, `markLeaving`).
      const fn = ck.leaving.get(e);
      const local = fn ? localRoot(e.operand) : null;
      if (local && ck.localFn.get(local) === fn) ck.error(e.span, `a reference to local '${local.name?.name ?? '_'}' cannot leave the function: its frame is gone`);
      return { tag: 'ptr', pointee: t, mutable: e.op === '&mut', addrSpace: 0 };
    }
    case '~': {
      const t = checkExpr(ck, e.operand, x?.tag === 'owned' ? x.pointee : undefined);
      return { tag: 'owned', pointee: t };
    }
    case '++':
    case '--': {
      const t = checkExpr(ck, e.operand);
      requireMutablePlace(ck, e.operand);
      operandCheck(ck, e, 'numeric', t);
      return t;
    }
  }
}

/** The local whose storage `e` designates part of, if any (not through a pointer). */
export function localRoot(e: Expr): LocalBinding | null {
  for (;;) {
    switch (e.kind) {
      case 'path':
        return e.res?.kind === 'local' ? e.res.binding : null;
      case 'field': {
        const t = e.object.type && prune(e.object.type);
        if (!t || t.tag === 'ptr' || t.tag === 'owned') return null;
        e = e.object;
        break;
      }
      case 'call': {
        const t = e.callee.type && prune(e.callee.type);
        if (!t || t.tag === 'fn' || t.tag === 'ptr' || t.tag === 'owned') return null;
        e = e.callee;
        break;
      }
      default:
        return null;
    }
  }
}

/** A place's mutability, or why it is not one; `undefined` when it is not a place. */
type PlaceInfo = { mutable: true } | { mutable: false; why: string } | undefined;

function placeInfo(ck: Checker, e: Expr): PlaceInfo {
  switch (e.kind) {
    case 'path': {
      const r = e.res;
      if (!r) return { mutable: true }; // already reported
      if (r.kind === 'local') {
        return r.binding.mutable ? { mutable: true } : { mutable: false, why: `'${r.binding.name?.name ?? ''}'` };
      }
      if (r.kind === 'static') return r.decl.mutable ? { mutable: true } : { mutable: false, why: `static '${r.decl.name.name}'` };
      return undefined;
    }
    case 'unary':
      if (e.op !== '*') return undefined;
      return pointerMutability(e.operand.type!);
    case 'field':
      return projection(ck, e.object);
    case 'call': {
      const t = prune(e.callee.type!);
      if (t.tag === 'fn' || t.tag === 'var') return undefined;
      return projection(ck, e.callee);
    }
    // `$e` is e's value hidden from the evaluator, a value like any other: not a place.
    default:
      return undefined;
  }
}

/** A field or element of `base`: mutable through the last pointer it goes through, else like `base`. */
function projection(ck: Checker, base: Expr): PlaceInfo {
  let t = prune(base.type!);
  if (t.tag !== 'ptr' && t.tag !== 'owned') return placeInfo(ck, base);
  let last: Type = t;
  while (t.tag === 'ptr' || t.tag === 'owned') {
    last = t;
    t = prune(t.pointee);
  }
  return pointerMutability(last);
}

function pointerMutability(t: Type): PlaceInfo {
  const p = prune(t);
  if (p.tag === 'owned' || (p.tag === 'ptr' && p.mutable)) return { mutable: true };
  if (p.tag === 'ptr') return { mutable: false, why: `location behind '${showType(p)}'` };
  return { mutable: true };
}

/**
 * Assignment and `++`/`--` need a mutable place; `&mut` needs one unless it borrows
 * a temporary (`temporaryOk`).
 */
function requireMutablePlace(ck: Checker, e: Expr, temporaryOk = false): void {
  const info = placeInfo(ck, e);
  if (!info) {
    if (!temporaryOk) ck.error(e.span, 'cannot assign to this expression');
  }
  else if (!info.mutable) ck.error(e.span, `cannot assign to immutable ${info.why}`);
}

/** The options `asm(… : options)` takes, as the original Impala: a side effect, stack alignment, Intel syntax. */
const asmOptions: ReadonlySet<string> = new Set(['volatile', 'alignstack', 'intel']);

/**
 * `asm("template" : "=r"(out) : "r"(in) : "clobber" : "option")`: outputs are assigned
 * (mutable places), inputs are values; both must fit a register (numbers, bools,
 * pointers, simd vectors). Constraints and the template are LLVM's, passed through.
 */
export function checkAsm(ck: Checker, e: ExprOf<'asm'>): Type {
  const operand = (o: { constraint: string; expr: Expr }, output: boolean) => {
    const t = checkExpr(ck, o.expr);
    if (output) requireMutablePlace(ck, o.expr);
    const wrongConstraint = output ? !o.constraint.startsWith('=') : /^[=+~]/.test(o.constraint);
    if (wrongConstraint) {
      const rule = output ? "an output constraint must start with '='" : "an input constraint must not start with '=', '+' or '~'";
      ck.error(o.expr.span, `${rule}: found "${o.constraint}"`);
    }
    ck.u.finalCheck(() => {
      const p = prune(t);
      const elem = p.tag === 'simd' ? prune(p.elem) : p;
      if (elem.tag !== 'prim' && elem.tag !== 'ptr' && elem.tag !== 'owned' && elem.tag !== 'error') {
        ck.error(o.expr.span, `an asm operand must be a number, a bool, a pointer or a simd vector, not '${showType(t)}'`);
      }
    });
  };
  for (const o of e.outputs) operand(o, true);
  for (const i of e.inputs) operand(i, false);
  for (const opt of e.options) {
    if (!asmOptions.has(opt)) ck.error(e.span, `unknown asm option "${opt}": expected "volatile", "alignstack" or "intel"`);
  }
  return unit;
}

export function checkCast(ck: Checker, e: ExprOf<'cast'>): Type {
  const from = checkExpr(ck, e.expr);
  const to = lowerType(ck, e.target);
  ck.u.finalCheck(() => {
    if (!castable(prune(from), prune(to))) ck.error(e.span, `cannot cast '${showType(from)}' to '${showType(to)}'`);
  });
  return to;
}

function castable(a: Type, b: Type): boolean {
  if (a.tag === 'error' || b.tag === 'error' || a.tag === 'never') return true;
  const scalar = (t: Type) => t.tag === 'prim';
  const pointer = (t: Type) => t.tag === 'ptr' || t.tag === 'owned';
  if (scalar(a) && scalar(b)) return true;
  if (pointer(a) && pointer(b)) return true;
  if (pointer(a) && b.tag === 'prim' && isInt(b.name)) return true;
  if (a.tag === 'prim' && isInt(a.name) && pointer(b)) return true;
  if (a.tag === 'simd' && b.tag === 'simd') return a.size === b.size;
  return a.tag === b.tag && showType(a) === showType(b);
}

