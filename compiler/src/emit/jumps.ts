// `return`, `break` and `continue` are continuation values. Calling one ends the
// block: a `while`'s own `break()`/`continue()` is a direct jump to its exit or
// header (a recorded predecessor, so loop phis get their operands); everything
// else is a jump to the continuation value.
//
// A `while`'s `break` or `continue` used as a value, or from inside a closure, is
// a block `fn(mem)` jumping to the loop. It may be entered from anywhere, so it
// has no predecessor to read variables from; captures.ts keeps the mutable locals
// of such a loop's fn in memory, which leaves the loop without phis.
import type { Continuation, Def, FnType } from '../ir/index.ts';
import { adaptArgs } from './adapt.ts';
import type { Expr } from '../syntax/ast.ts';
import type { FnEmitter, Loop } from './fn.ts';
import { loopExit } from './loops.ts';
import { readLocal } from './place.ts';
import type { Block } from './ssa.ts';

type JumpExpr = Extract<Expr, { kind: 'return' | 'break' | 'continue' }>;

export function isJumpExpr(e: Expr): e is JumpExpr {
  return e.kind === 'return' || e.kind === 'break' || e.kind === 'continue';
}

/** The continuation `e` denotes. */
export function jumpTargetValue(fx: FnEmitter, e: JumpExpr): Def {
  const jt = fx.em.program.jumps.get(e);
  if (!jt) throw new Error(`internal: '${e.kind}' without a target`);
  switch (jt.kind) {
    case 'local':
      return readLocal(fx, jt.binding);
    case 'fn':
    case 'closure': {
      const t = fx.body.targets.get(jt.kind === 'fn' ? jt.decl : jt.expr);
      if (t?.kind !== 'ret') throw new Error(`internal: 'return' outside its function`);
      return t.def;
    }
    case 'for': {
      const t = fx.body.targets.get(jt.expr);
      const k = t?.kind === 'for' ? (e.kind === 'break' ? t.brk : t.cont) : null;
      if (!k) throw new Error(`internal: '${e.kind}' of a 'for' without a continuation`);
      return k;
    }
    case 'while': {
      const loop = whileLoop(fx, jt.expr);
      return wrapper(loop, e.kind === 'break' ? loopExit(loop) : loop.header, e);
    }
  }
}

/** Emits `e(args)` for a jump expression `e`; the current block ends. */
export function emitJumpCall(fx: FnEmitter, e: JumpExpr, args: readonly Def[]): void {
  const jt = fx.em.program.jumps.get(e);
  if (jt?.kind === 'while') {
    const loop = whileLoop(fx, jt.expr);
    if (loop.owner === fx) {
      fx.jumpTo(e.kind === 'break' ? loopExit(loop) : loop.header, []);
      return;
    }
  }
  const k = jumpTargetValue(fx, e);
  fx.jumpValue(k, adaptArgs(fx.world, k.type as FnType, args, false));
}

function whileLoop(fx: FnEmitter, key: Parameters<FnEmitter['body']['targets']['get']>[0]): Loop {
  const t = fx.body.targets.get(key);
  if (t?.kind !== 'while') throw new Error("internal: 'break' or 'continue' outside its loop");
  return t.loop;
}

function wrapper(loop: Loop, target: Block, e: JumpExpr): Continuation {
  const k = loop.owner.single(e.kind, [], null, e.span);
  k.cont.jump(target.cont, [k.mem]);
  loop.owner.body.graph.addPred(target, k);
  return k.cont;
}
