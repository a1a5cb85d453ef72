// Operators: unary, binary (except `&&`/`||`, which branch: control.ts),
// assignment, `++`/`--` and `as`. The IR's arithmetic and comparison tags are
// sign-agnostic: signedness is read off the operand type by every later stage.
import { type ArithOpTag, type CmpOpTag, type Def, PrimType, PtrType } from '../ir/index.ts';
import type { BinaryOp, ExprOf } from '../syntax/ast.ts';
import { dead, expr } from './expr.ts';
import type { FnEmitter } from './fn.ts';
import { allOnes, negZero, one } from './literals.ts';
import { addressOf, place, readPlace, writePlace } from './place.ts';

const arithTags: Partial<Record<BinaryOp, ArithOpTag>> = {
  '+': 'add', '-': 'sub', '*': 'mul', '/': 'div', '%': 'rem',
  '&': 'and', '|': 'or', '^': 'xor', '<<': 'shl', '>>': 'shr',
};

const cmpTags: Partial<Record<BinaryOp, CmpOpTag>> = {
  '==': 'eq', '!=': 'ne', '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge',
};

export function unaryExpr(fx: FnEmitter, e: ExprOf<'unary'>): Def {
  const w = fx.world;
  switch (e.op) {
    case '+':
      return expr(fx, e.operand);
    case '-': {
      const v = expr(fx, e.operand);
      return fx.reachable ? w.arith('sub', negZero(w, v.type as PrimType), v) : dead(fx, e);
    }
    case '!': {
      const v = expr(fx, e.operand);
      return fx.reachable ? w.arith('xor', v, allOnes(w, v.type as PrimType)) : dead(fx, e);
    }
    case '*':
      return readPlace(fx, place(fx, e));
    case '&':
    case '&mut': {
      const p = place(fx, e.operand);
      return fx.reachable ? addressOf(fx, p, e.op === '&mut') : dead(fx, e);
    }
    case '~': {
      const v = expr(fx, e.operand);
      if (!fx.reachable) return dead(fx, e);
      const ptr = fx.alloc(v.type, w.litI32(1));
      fx.store(ptr, v);
      return ptr;
    }
    case '++':
    case '--': {
      const p = place(fx, e.operand);
      if (!fx.reachable) return dead(fx, e);
      const old = readPlace(fx, p);
      const updated = w.arith(e.op === '++' ? 'add' : 'sub', old, one(w, old.type as PrimType));
      writePlace(fx, p, updated);
      return e.postfix ? old : updated;
    }
  }
}

/** `e` given the value `l` of its left operand (expr.ts emits operator chains from the inside out). */
export function binaryExpr(fx: FnEmitter, e: ExprOf<'binary'>, l: Def): Def {
  const r = expr(fx, e.rhs);
  if (!fx.reachable) return dead(fx, e);
  return binaryOp(fx, e.op, l, r);
}

function binaryOp(fx: FnEmitter, op: BinaryOp, l: Def, r: Def): Def {
  const w = fx.world;
  const cmp = cmpTags[op];
  if (cmp) return w.cmp(cmp, l, r);
  const tag = arithTags[op];
  if (!tag) throw new Error(`internal: operator '${op}' has no primop`);
  // Shift amounts may have another integer type; the IR wants both operands alike.
  if ((tag === 'shl' || tag === 'shr') && r.type !== l.type) r = w.cast(l.type, r);
  return w.arith(tag, l, r);
}

export function assignExpr(fx: FnEmitter, e: ExprOf<'assign'>): Def {
  const p = place(fx, e.lhs);
  const v = expr(fx, e.rhs);
  if (!fx.reachable) return dead(fx, e);
  if (e.op === '=') writePlace(fx, p, v);
  else writePlace(fx, p, binaryOp(fx, e.op.slice(0, -1) as BinaryOp, readPlace(fx, p), v));
  return fx.world.unitValue();
}

/**
 * `as`: a pointer to another pointer reinterprets it (bitcast); every other
 * conversion is a `cast`, including pointer to integer and back, which may change
 * the width (`p as i32`), as Rust's `as` does.
 */
export function castExpr(fx: FnEmitter, e: ExprOf<'cast'>): Def {
  const v = expr(fx, e.expr);
  if (!fx.reachable) return dead(fx, e);
  const to = fx.ir(e.type!);
  if (v.type === to) return v;
  if (v.type instanceof PtrType && to instanceof PtrType) return fx.world.bitcast(to, v);
  return fx.world.cast(to, v);
}
