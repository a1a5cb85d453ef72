// Expression emission: the dispatcher, and the expressions that need neither
// control flow nor places (literals, paths, aggregates, PE annotations).
// Every expression is emitted into the current block of `fx`; once a block is
// ended by a diverging jump, the rest of the code is unreachable and is dropped.
import { type Def, FnType, litValue, PrimOp, PtrType, StructType, VariantType } from '../ir/index.ts';
import { adaptValue } from './adapt.ts';
import { isAutoBorrow } from './captures.ts';
import { cpuLayout } from '../ir/layout.ts';
import type { Expr, ExprOf } from '../syntax/ast.ts';
import type { Span } from '../syntax/diagnostics.ts';
import { prune, type Type } from '../sema/types.ts';
import { callExpr } from './call.ts';
import { blockValue, ifExpr, logicExpr, matchExpr } from './control.ts';
import type { FnEmitter } from './fn.ts';
import { closureExpr, nestedFnValue } from './function.ts';
import { jumpTargetValue } from './jumps.ts';
import { literalDef, stringBytes } from './literals.ts';
import { forExpr, whileExpr } from './loops.ts';
import { assignExpr, binaryExpr, castExpr, unaryExpr } from './ops.ts';
import { addressOf, place, readLocal, readPlace, writePlace } from './place.ts';

export function expr(fx: FnEmitter, e: Expr): Def {
  if (!fx.reachable) return dead(fx, e);
  const to = fx.em.program.coercions.get(e);
  if (to && e.kind === 'lit' && e.lit.kind === 'str') return finishExpr(fx, e, stringAddress(fx, e.lit.value, to));
  // An auto-borrow takes the address of what `e` designates, as `&e` does (captures.ts).
  if (isAutoBorrow(fx.em.program, e)) {
    // Not `expr` for a temporary: that would borrow again.
    const p = place(fx, e, exprOf);
    return finishExpr(fx, e, fx.reachable ? addressOf(fx, p, false) : dead(fx, e));
  }
  return finishExpr(fx, e, exprOf(fx, e));
}

/** `d`, the value just emitted for `e`, with the coercion sema put on `e` and `e`'s span. */
export function finishExpr(fx: FnEmitter, e: Expr, d: Def): Def {
  if (!fx.reachable) return dead(fx, e);
  const to = fx.em.program.coercions.get(e);
  if (to) d = coerce(fx, d, to);
  setSpan(d, e.span);
  return d;
}

/**
 * A chain of left-associative operators (`a + b + c …`, thousands of terms in generated
 * code) is emitted from its innermost operand out, without a recursion per operator.
 */
function binaryChain(fx: FnEmitter, e: ExprOf<'binary'>): Def {
  const chain: ExprOf<'binary'>[] = [e];
  for (let x = e.lhs; x.kind === 'binary'; x = x.lhs) chain.push(x);
  const operator = (b: ExprOf<'binary'>, l: Def): Def =>
    b.op === '&&' || b.op === '||' ? logicExpr(fx, b, l) : binaryExpr(fx, b, l);
  let l = expr(fx, chain[chain.length - 1]!.lhs);
  for (let i = chain.length - 1; i > 0; i--) {
    const b = chain[i]!;
    l = fx.reachable ? finishExpr(fx, b, operator(b, l)) : dead(fx, b);
  }
  return operator(e, l);
}

/** The value of an expression in unreachable code: never used, but typed. */
export function dead(fx: FnEmitter, e: Expr): Def {
  return fx.bottom(fx.ir(e.type!));
}

/** Primops made for user code carry its span (the first one wins: primops are shared). */
export function setSpan(d: Def, span: Span): void {
  if (d instanceof PrimOp && d.span === null && d.tag !== 'lit') d.span = span;
}

function exprOf(fx: FnEmitter, e: Expr): Def {
  const w = fx.world;
  switch (e.kind) {
    case 'lit':
      return literalDef(w, e.lit, fx.ir(e.type!));
    case 'path':
      return pathValue(fx, e);
    case 'call':
      return callExpr(fx, e, false);
    case 'field':
      return readPlace(fx, place(fx, e));
    case 'tuple':
      return w.tuple(e.elems.map((x) => expr(fx, x)));
    case 'array': {
      const elem = fx.ir(arrayElem(fx, e.type!));
      return w.definiteArray(elem, e.elems.map((x) => expr(fx, x)));
    }
    case 'repeat':
      return repeatArray(fx, e);
    case 'heaparray': {
      const n = expr(fx, e.size);
      const t = fx.ir(e.type!) as PtrType;
      return fx.reachable ? fx.alloc(t.pointee, n) : dead(fx, e);
    }
    case 'simd':
      return w.vector(e.elems.map((x) => expr(fx, x)));
    case 'struct':
      return structLit(fx, e);
    case 'unary':
      return unaryExpr(fx, e);
    case 'binary':
      return binaryChain(fx, e);
    case 'assign':
      return assignExpr(fx, e);
    case 'cast':
      return castExpr(fx, e);
    case 'if':
      return ifExpr(fx, e);
    case 'match':
      return matchExpr(fx, e);
    case 'while':
      return whileExpr(fx, e);
    case 'for':
      return forExpr(fx, e);
    case 'block':
      return blockValue(fx, e.block);
    case 'closure':
      return closureExpr(fx, e);
    case 'return':
    case 'break':
    case 'continue':
      return jumpTargetValue(fx, e);
    case 'run':
      if (e.call.kind === 'call') return callExpr(fx, e.call, true);
      return expr(fx, e.call);
    case 'hlt':
      return w.hlt(expr(fx, e.expr));
    case 'known':
      return w.known(expr(fx, e.expr));
    case 'asm':
      return inlineAsm(fx, e);
  }
}

/** Objects larger than this get an error (LLVM and the C runtime index them with 32-bit offsets in places). */
const maxObjectBytes = 2 ** 31 - 1;
/** Repeats of a value other than zero are spelled out element by element in LLVM IR, so they are bounded more tightly. */
const maxSpelledElements = 2 ** 22;

/**
 * `[v, .. n]`: one node however long (ir/world.ts `repeatArray`). One too large to exist is
 * reported, and still built (one node) so that a static holding it raises no follow-up error.
 */
function repeatArray(fx: FnEmitter, e: ExprOf<'repeat'>): Def {
  const v = expr(fx, e.value);
  if (!fx.reachable) return dead(fx, e);
  const bytes = cpuLayout.size(fx.ir(e.type!));
  const described = `array of ${e.count} elements of type '${v.type}'`;
  const zero = litValue(v);
  if (bytes > maxObjectBytes) {
    fx.em.sink.error(e.span, `${described} is too large (${bytes} bytes; at most ${maxObjectBytes} are allowed)`);
  } else if (e.count > maxSpelledElements && !(zero === 0n || zero === false || Object.is(zero, 0))) {
    fx.em.sink.error(e.span, `${described} is too large to repeat a value other than zero (at most ${maxSpelledElements} elements)`);
  }
  return fx.world.repeatArray(v, e.count);
}

function arrayElem(fx: FnEmitter, t: Type): Type {
  const p = prune(fx.type(t));
  if (p.tag !== 'array') throw new Error('internal: array literal of non-array type');
  return p.elem;
}

function pathValue(fx: FnEmitter, e: ExprOf<'path'>): Def {
  const res = e.res!;
  switch (res.kind) {
    case 'local':
      return readLocal(fx, res.binding);
    case 'fn':
      if (fx.em.program.capturingFns.has(res.decl)) return nestedFnValue(fx, res.decl);
      return fx.em.fnValue(res.decl, res.typeArgs.map((t) => fx.type(t)), e.span);
    case 'static':
      return readPlace(fx, place(fx, e));
    case 'variant': {
      const t = prune(fx.type(e.type!));
      if (t.tag === 'fn') {
        const enumT = prune(t.ret!) as Extract<Type, { tag: 'enum' }>;
        return fx.em.variantCtor(enumT, res.index, res.decl);
      }
      return fx.world.variant(fx.ir(t) as VariantType, res.index, fx.world.unitValue());
    }
    default:
      throw new Error(`internal: path resolving to ${res.kind} used as a value`);
  }
}

function structLit(fx: FnEmitter, e: ExprOf<'struct'>): Def {
  const t = fx.ir(e.type!) as StructType;
  // Field initialisers run in source order; the aggregate lists them in declaration order.
  const byName = new Map<string, Def>();
  for (const f of e.fields) byName.set(f.name.name, expr(fx, f.value));
  if (!fx.reachable) return dead(fx, e);
  return fx.world.structAgg(t, t.fieldNames.map((n) => byName.get(n)!));
}

/**
 * Applies one of sema's implicit coercions. Pointers share one IR type up to the
 * pointee, so `&mut T` to `&T` and `~T` to `&T` change nothing, and `&[T * N]` to
 * `&[T]` (also deeper, `&&[T * N]` to `&&[T]`) is a bitcast. A value coerced to a
 * pointer is borrowed: the address of an immutable copy (a global when constant).
 */
function coerce(fx: FnEmitter, d: Def, to: Type): Def {
  const target = fx.ir(to);
  if (d.type === target) return d;
  if (!(d.type instanceof PtrType) && target instanceof PtrType) d = addressOf(fx, { kind: 'value', def: d, addr: null }, false);
  if (d.type === target) return d;
  if (d.type instanceof PtrType && target instanceof PtrType) return fx.world.bitcast(target, d);
  if (d.type instanceof FnType && target instanceof FnType) return adaptValue(fx.world, d, target);
  throw new Error(`internal: cannot coerce ${d.type} to ${target}`);
}

/**
 * `asm(…)`: the inputs are evaluated in order, the assembly runs on the memory token
 * (so it stays where it is written), then its results are assigned to the outputs.
 */
function inlineAsm(fx: FnEmitter, e: ExprOf<'asm'>): Def {
  const w = fx.world;
  const outputs = e.outputs.map((o) => place(fx, o.expr));
  const inputs = e.inputs.map((i) => expr(fx, i.expr));
  if (!fx.reachable) return dead(fx, e);
  const a = w.asm(fx.mem, inputs, e.outputs.map((o) => fx.ir(o.expr.type!)), {
    template: e.template,
    outputs: e.outputs.map((o) => o.constraint),
    inputs: e.inputs.map((i) => i.constraint),
    clobbers: e.clobbers,
    options: e.options,
  });
  fx.mem = w.extract(a, 0);
  const result = w.extract(a, 1);
  outputs.forEach((p, i) => writePlace(fx, p, outputs.length === 1 ? result : w.extract(result, i)));
  return w.unitValue();
}

/** A string literal used as a pointer: the address of its global. */
function stringAddress(fx: FnEmitter, bytes: Uint8Array, to: Type): Def {
  const g = fx.em.stringGlobal(stringBytes(fx.world, bytes));
  return fx.world.bitcast(fx.ir(to), g);
}
