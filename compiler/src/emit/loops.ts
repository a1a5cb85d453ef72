// `while` and `for`. A `while` is a header block (a join: its phis are the loop
// variables) that tests the condition, a body jumping back, and an exit join made
// when the first `break` needs it. A `for` is a call of the generator with a body
// closure whose return continuation is `continue`; `break` is the call's return block.
import { type Continuation, type Def, type FnType, litValue } from '../ir/index.ts';
import type { ExprOf } from '../syntax/ast.ts';
import { prune } from '../sema/types.ts';
import { blockValue } from './control.ts';
import { dead, expr } from './expr.ts';
import { type FnEmitter, type Loop, type Target } from './fn.ts';
import { emitFunctionLike } from './function.ts';
import { adaptArgs } from './jumps.ts';
import type { Block } from './ssa.ts';
import { carriesNoValue } from './types.ts';

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
  const w = fx.world;
  const gen = e.generator.kind === 'run' ? e.generator.call : e.generator;
  if (gen.kind !== 'call') {
    fx.em.sink.error(e.generator.span, "the generator of a 'for' must be a call");
    return dead(fx, e);
  }
  let callee = expr(fx, gen.callee);
  if (e.generator.kind === 'run') callee = w.run(callee);
  const args = gen.args.map((a) => expr(fx, a));
  if (!fx.reachable) return dead(fx, e);
  const snapshot = fx.em.locals.leavesOuterLoop.has(e) ? fx.split(e.span) : null;
  const genT = prune(fx.type(gen.callee.type!));
  const ret = genT.tag === 'fn' ? genT.ret : null;
  const from = fx.cur!;
  const brk = ret === null ? null : fx.single('break', carriesNoValue(ret) ? [] : [fx.ir(ret)], from, e.span);
  const target: Target = { kind: 'for', brk: brk?.cont ?? null, cont: null };
  fx.body.targets.set(e, target);
  const body = forBody(fx, e, snapshot, target);
  const vals = adaptArgs(fx.world, callee.type as FnType, [...args, body], brk !== null);
  if (!brk) {
    fx.jumpValue(callee, vals);
    return dead(fx, e);
  }
  from.cont.jump(callee, [fx.mem, ...vals, brk.cont]);
  fx.enter(brk);
  return brk.cont.params.length > 1 ? brk.cont.param(1) : w.unitValue();
}

/** The body closure `fn(mem, params…, continue)`. */
function forBody(fx: FnEmitter, e: ExprOf<'for'>, snapshot: Block | null, target: Target & { kind: 'for' }): Continuation {
  const bodyT = prune(fx.type(fx.em.program.forBodies.get(e)!));
  if (bodyT.tag !== 'fn') throw new Error("internal: a 'for' body of non-fn type");
  return emitFunctionLike(fx, {
    name: e.isWith ? 'with_body' : 'for_body',
    params: e.params,
    paramTypes: bodyT.params,
    ret: bodyT.ret,
    filter: e.filter,
    span: e.span,
    snapshot,
    onCont: (_, ret) => {
      target.cont = ret;
    },
    body: (child) => blockValue(child, e.body),
  });
}
