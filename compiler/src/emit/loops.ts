// `while` and `for`. A `while` is a header block (a join: its phis are the loop
// variables) that tests the condition, a body jumping back, and an exit join made
// when the first `break` needs it. A `for` is a call of the generator with a body
// closure whose return continuation is `continue`; `break` is the call's return block.
import { type Continuation, type Def, type FnType, litValue } from '../ir/index.ts';
import type { ExprOf } from '../syntax/ast.ts';
import { prune } from '../sema/types.ts';
import { callReturns } from './call.ts';
import { blockValue } from './control.ts';
import { dead, expr } from './expr.ts';
import { type FnEmitter, type Loop, type Target } from './fn.ts';
import { emitFunctionLike } from './function.ts';
import { adaptArgs } from './adapt.ts';
import type { Block } from './ssa.ts';

export function whileExpr(fx: FnEmitter, e: ExprOf<'while'>): Def {
  const header = fx.join('while_head', [], e.span);
  fx.jumpTo(header, []);
  fx.enter(header);
  const loop: Loop = { header, exit: null, owner: fx };
  fx.body.targets.set(e, { kind: 'while', loop });
  const c = expr(fx, e.cond);
  let after: Block | null = null;
  if (fx.reachable) {
    const known = litValue(c);
    if (known === false) {
      after = fx.cur;
    } else {
      if (known === undefined) {
        const [yes, no] = fx.branch(c, e.span);
        after = no;
        fx.enter(yes);
      }
      blockValue(fx, e.body);
      fx.jumpTo(header, []);
    }
  }
  fx.body.graph.seal(header);
  if (loop.exit) {
    if (after) {
      fx.enter(after);
      fx.jumpTo(loop.exit, []);
    }
    fx.continueAt(loop.exit);
  } else if (after) {
    fx.enter(after);
  } else {
    fx.cur = null;
  }
  return fx.world.unitValue();
}

/** The exit join of a loop, made on first use. */
export function loopExit(loop: Loop): Block {
  loop.exit ??= loop.owner.join('while_exit', [], loop.header.cont.span!);
  return loop.exit;
}

export function forExpr(fx: FnEmitter, e: ExprOf<'for'>): Def {
  // `for x in gen(a) { }` calls `gen(a, body)`; `for x in gen { }` calls `gen(body)`.
  const gen = e.generator;
  const [calleeExpr, argExprs] = gen.kind === 'call' ? [gen.callee, gen.args] : [gen, []];
  const callee = expr(fx, calleeExpr);
  const args = argExprs.map((a) => expr(fx, a));
  if (!fx.reachable) return dead(fx, e);
  const genT = prune(fx.type(calleeExpr.type!));
  if (genT.tag !== 'fn') throw new Error("internal: a 'for' generator of non-fn type");
  const returns = callReturns(genT, args.length + 1);
  const ft = callee.type as FnType;
  const from = fx.cur!;
  const brk = returns ? fx.single('break', (ft.params[ft.params.length - 1] as FnType).params.slice(1), from, e.span) : null;
  const target: Target = { kind: 'for', brk: brk?.cont ?? null, cont: null };
  fx.body.targets.set(e, target);
  const body = forBody(fx, e, target);
  const vals = adaptArgs(fx.world, ft, [...args, body], returns);
  if (!brk) {
    fx.jumpValue(callee, vals);
    return dead(fx, e);
  }
  from.cont.jump(callee, [fx.mem, ...vals, brk.cont]);
  fx.enter(brk);
  return fx.received(brk);
}

/** The body closure `fn(mem, params…, continue)`. */
function forBody(fx: FnEmitter, e: ExprOf<'for'>, target: Target & { kind: 'for' }): Continuation {
  const bodyT = prune(fx.type(fx.em.program.forBodies.get(e)!));
  if (bodyT.tag !== 'fn') throw new Error("internal: a 'for' body of non-fn type");
  return emitFunctionLike(fx, {
    name: e.isWith ? 'with_body' : 'for_body',
    params: e.params,
    paramTypes: bodyT.params,
    ret: bodyT.ret,
    filter: e.filter,
    span: e.span,
    onCont: (_, ret) => {
      target.cont = ret;
    },
    body: (child) => blockValue(child, e.body),
  });
}
