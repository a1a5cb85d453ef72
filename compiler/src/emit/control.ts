// Blocks, `if`, `match`, `&&` and `||`. Each branch gets a fresh block with the
// branching block as its single predecessor; the arms meet in a join block whose
// params are the memory token and the value. A constant condition (or scrutinee)
// emits only the arm it selects, so no dead block ever reaches a join.
import { type Def, type IRType, isLit, litValue } from '../ir/index.ts';
import type { Block as AstBlock, Expr, ExprOf, MatchArm } from '../syntax/ast.ts';
import { prune, type Type } from '../sema/types.ts';
import { dead, expr, finishExpr } from './expr.ts';
import { emitNestedFn } from './function.ts';
import type { FnEmitter } from './fn.ts';
import { bindPattern, isIrrefutable, patternKey, patternTest } from './pattern.ts';
import type { Block } from './ssa.ts';
import { carriesNoValue } from './types.ts';

/** Emits the statements of `b`; returns its value (meaningless once unreachable). */
export function blockValue(fx: FnEmitter, b: AstBlock): Def {
  const capturing = fx.em.program.capturingFns;
  for (const s of b.stmts) {
    if (s.kind === 'item' && s.item.kind === 'fn' && capturing.has(s.item)) {
      // Where it is declared, the locals it captures exist; it may have been used before.
      emitNestedFn(fx, s.item);
      continue;
    }
    // Nested items that do not capture are emitted when used.
    if (!fx.reachable) continue;
    if (s.kind === 'let') {
      const v = s.init ? expr(fx, s.init) : null;
      if (fx.reachable) bindPattern(fx, s.pattern, v);
    } else if (s.kind === 'expr') {
      expr(fx, s.expr);
    }
  }
  if (!fx.reachable) return fx.world.unitValue();
  return b.expr ? expr(fx, b.expr) : fx.world.unitValue();
}

/** The value params of a join for a result of type `t`: none for `()` and `!`. */
function valueTypes(fx: FnEmitter, t: Type): IRType[] {
  return carriesNoValue(fx.type(t)) ? [] : [fx.ir(t)];
}

/** Ends the current block with a jump to `join` passing `v` when the join takes a value. */
function jumpWith(fx: FnEmitter, join: Block, types: readonly IRType[], v: Def): void {
  fx.jumpTo(join, types.length ? [v] : []);
}

/** Continues after a join: its value param, or the unit value. */
function joinValue(fx: FnEmitter, join: Block, e: Expr, types: readonly IRType[]): Def {
  if (!fx.continueAt(join)) return dead(fx, e);
  return types.length ? join.cont.param(1) : fx.world.unitValue();
}

/** How an `if` link that did not end its chain waits for the value of its `else`. */
type PendingElse =
  | { kind: 'join'; link: ExprOf<'if'>; join: Block; types: IRType[] }
  | { kind: 'select'; link: ExprOf<'if'>; cond: Def; then: Def }
  /** A link whose condition was the constant false: its value is its `else`'s. */
  | { kind: 'else'; link: ExprOf<'if'> };

/**
 * An `else if` chain (the parser builds thousands of links without nesting) is emitted
 * link by link; each link's value then meets the links around it from the innermost out.
 */
export function ifExpr(fx: FnEmitter, e: ExprOf<'if'>): Def {
  const w = fx.world;
  const pending: PendingElse[] = [];
  let link = e;
  let value: Def;
  // The link `value` is the value of, before its coercion; null when it is an `else`'s, already complete.
  let valueOf: ExprOf<'if'> | null = link;
  for (;;) {
    const c = expr(fx, link.cond);
    if (!fx.reachable) {
      value = dead(fx, link);
      break;
    }
    const known = litValue(c);
    if (known) {
      value = blockValue(fx, link.then);
      break;
    }
    if (known === undefined && fx.pure) {
      pending.push({ kind: 'select', link, cond: c, then: blockValue(fx, link.then) });
    } else if (known === undefined) {
      const types = valueTypes(fx, link.type!);
      const join = fx.join('if_join', types, link.span);
      const [yes, no] = fx.branch(c, link.span);
      fx.enter(yes);
      jumpWith(fx, join, types, blockValue(fx, link.then));
      fx.enter(no);
      pending.push({ kind: 'join', link, join, types });
    } else {
      pending.push({ kind: 'else', link });
    }
    if (link.else?.kind !== 'if') {
      value = link.else ? expr(fx, link.else) : w.unitValue();
      valueOf = null;
      break;
    }
    link = link.else;
    valueOf = link;
  }
  for (let i = pending.length - 1; i >= 0; i--) {
    const p = pending[i]!;
    if (valueOf) value = finishExpr(fx, valueOf, value);
    if (p.kind === 'select') value = w.select(p.cond, p.then, value);
    else if (p.kind === 'join') {
      jumpWith(fx, p.join, p.types, value);
      value = joinValue(fx, p.join, p.link, p.types);
    }
    valueOf = p.link;
  }
  return value;
}

/**
 * `a && b` is `if a { b } else { false }`; `a || b` is `if a { true } else { b }`. `l` is
 * the value of `a` (expr.ts emits operator chains from the inside out).
 */
export function logicExpr(fx: FnEmitter, e: ExprOf<'binary'>, l: Def): Def {
  const w = fx.world;
  const isAnd = e.op === '&&';
  if (!fx.reachable) return dead(fx, e);
  const known = litValue(l);
  if (known !== undefined) return known === isAnd ? expr(fx, e.rhs) : l;
  if (fx.pure) return w.arith(isAnd ? 'and' : 'or', l, expr(fx, e.rhs));
  const boolT = w.prim('bool');
  const join = fx.join(isAnd ? 'and' : 'or', [boolT], e.span);
  const [yes, no] = fx.branch(l, e.span);
  fx.enter(isAnd ? yes : no);
  fx.jumpTo(join, [expr(fx, e.rhs)]);
  fx.enter(isAnd ? no : yes);
  fx.jumpTo(join, [w.litBool(!isAnd)]);
  return joinValue(fx, join, e, [boolT]);
}

export function matchExpr(fx: FnEmitter, e: ExprOf<'match'>): Def {
  const v = expr(fx, e.scrutinee);
  if (!fx.reachable || e.arms.length === 0) return dead(fx, e);
  const types = valueTypes(fx, e.type!);
  const join = fx.join('match_join', types, e.span);
  const st = prune(fx.type(e.scrutinee.type!));
  const key = st.tag === 'enum' ? fx.world.variantIndex(v) : v;
  const switchable = (st.tag === 'enum' || (st.tag === 'prim' && st.name[0] !== 'f')) && e.arms.every(isCase);
  if (switchable && !isLit(key)) switchArms(fx, e.arms, v, key, join, types);
  else chainArms(fx, e.arms, v, join, types);
  return joinValue(fx, join, e, types);
}

/** An arm a switch can dispatch on: a literal or a variant with irrefutable payload patterns, or a catch-all. */
function isCase(a: MatchArm): boolean {
  const p = a.pattern;
  if (p.kind === 'lit') return true;
  if (p.kind === 'variant') return (p.args ?? []).every(isIrrefutable);
  return isIrrefutable(p);
}

function emitArm(fx: FnEmitter, a: MatchArm, v: Def, join: Block, types: readonly IRType[]): void {
  bindPattern(fx, a.pattern, v);
  jumpWith(fx, join, types, expr(fx, a.body));
}

/**
 * Tests the arms in order, branching on each test. The last arm needs no test:
 * sema checks that a match is exhaustive.
 */
function chainArms(fx: FnEmitter, arms: readonly MatchArm[], v: Def, join: Block, types: readonly IRType[]): void {
  for (const [i, a] of arms.entries()) {
    if (!fx.reachable) return;
    const test = i === arms.length - 1 ? fx.world.litBool(true) : patternTest(fx, a.pattern, v);
    const known = litValue(test);
    if (known === false) continue;
    if (known === true) {
      emitArm(fx, a, v, join, types);
      return;
    }
    const [yes, no] = fx.branch(test, a.span);
    fx.enter(yes);
    emitArm(fx, a, v, join, types);
    fx.enter(no);
  }
}

/** One multi-way `match` jump on the literal or variant tag `key`. */
function switchArms(fx: FnEmitter, arms: readonly MatchArm[], v: Def, key: Def, join: Block, types: readonly IRType[]): void {
  const from = fx.cur!;
  const cases: [Def, MatchArm][] = [];
  const seen = new Set<Def>();
  let otherwise: MatchArm | null = null;
  for (const a of arms) {
    if (isIrrefutable(a.pattern)) {
      otherwise = a;
      break;
    }
    const lit = patternKey(fx, a.pattern);
    // A repeated case never matches: the earlier arm takes it.
    if (seen.has(lit)) continue;
    seen.add(lit);
    cases.push([lit, a]);
  }
  // Without a catch-all the arms are exhaustive, so the last case can be the default.
  if (!otherwise) otherwise = cases.pop()![1];
  const block = (a: MatchArm) => fx.single('case', [], from, a.span);
  const targets = cases.map(([lit, a]) => [lit, a, block(a)] as const);
  const other = block(otherwise);
  fx.world.match(from.cont, fx.mem, key, other.cont, targets.map(([lit, , b]) => [lit, b.cont] as const));
  fx.cur = null;
  for (const [, a, b] of targets) {
    fx.enter(b);
    emitArm(fx, a, v, join, types);
  }
  fx.enter(other);
  emitArm(fx, otherwise, v, join, types);
}
