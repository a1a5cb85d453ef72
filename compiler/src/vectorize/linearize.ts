// Divergent control flow, linearised: the body's blocks in linear order (see
// loops.ts), each run once for all lanes under its mask, the lanes that reach it.
//
// Control flow becomes data. A block's mask is the union of the masks of the
// edges into it, an edge's mask is its source's mask restricted to the lanes that
// take it, and a block param becomes a blend of the edges' arguments. Effects are
// masked, so both sides of a divergent branch run without touching memory for the
// other side's lanes. Lanes that jump to the body's return are simply in no mask
// any more.
//
// A divergent loop runs while some lane is in it: its header receives the loop's
// params, the mask of the lanes still iterating, the edges already taken out of
// the loop (their masks and arguments accumulate across iterations), and the
// values that code after the loop reads, kept per lane from the iteration in which
// the lane left. Lanes that take a back edge iterate again, the others wait
// outside. A loop whose branches are all uniform keeps its control flow instead
// (uniform.ts).
import type { Continuation, Def } from '../ir/defs.ts';
import type { IRType } from '../ir/types.ts';
import type { Iteration } from './iteration.ts';
import type { Item, Loop } from './loops.ts';
import { isVectorType } from './simd.ts';
import { copyLoop } from './uniform.ts';
import { VectorizeError } from './error.ts';

export function linearize(it: Iteration, items: readonly Item[]): void {
  for (const item of items) {
    if (item.kind === 'block') block(it, item.block);
    else if (it.info.div.loopDivergent(item.loop)) divergentLoop(it, item.loop, item.items);
    else copyLoop(it, item.loop);
  }
}

function block(it: Iteration, blk: Continuation): void {
  const incoming = it.pending.get(blk);
  if (!incoming) return;
  it.pending.delete(blk);
  const { cfg, simd } = it.info;
  const mask = incoming.mask;
  if (blk !== cfg.entry) it.bindParams(blk, incoming.args);
  it.effects(blk, mask, simd.isAll(mask));
  const t = cfg.term(blk);
  switch (t.kind) {
    case 'jump':
      it.arrive(t.target, mask, t.args.map((a) => it.value(a)));
      break;
    case 'branch': {
      const c = it.value(t.cond);
      it.arrive(t.then, simd.restrict(mask, c), []);
      it.arrive(t.otherwise, simd.restrictNot(mask, c), []);
      break;
    }
    case 'match': {
      const v = it.value(t.value);
      let rest = mask;
      for (const [lit, target] of t.cases) {
        const hit = simd.world.cmp('eq', v, simd.isVarying(v) ? simd.splat(lit) : lit);
        it.arrive(target, simd.restrict(rest, hit), []);
        rest = simd.restrictNot(rest, hit);
      }
      it.arrive(t.otherwise, rest, []);
      break;
    }
    case 'call': {
      const r = it.call(t, mask);
      it.arrive(t.ret, mask, r ? [r] : []);
      break;
    }
  }
}

function divergentLoop(it: Iteration, loop: Loop, items: readonly Item[]): void {
  const { simd, forest } = it.info;
  const { b } = it;
  const w = simd.world;
  const header = loop.header;
  const entry = it.pending.get(header);
  if (!entry) return;
  it.pending.delete(header);
  const exits = forest.exitTargets(loop);
  const live = it.info.liveOut.get(loop) ?? [];
  const exitAccs = exits.map((t) => it.pending.get(t) ?? it.nothingTo(t));
  const liveTypes = live.map((r) => it.liveOutType(r, loop));

  // loop(mem, header params…, lanes still iterating, (exit mask, exit args…)…, live-out values…)
  const layout: IRType[] = [
    ...header.params.slice(1).map((p) => it.paramType(p)),
    simd.maskType,
    ...exits.flatMap((t) => [simd.maskType, ...t.params.slice(1).map((p) => it.paramType(p))]),
    ...liveTypes,
  ];
  const test = b.block('loop', layout);
  b.jump(test, [
    ...entry.args,
    entry.mask,
    ...exitAccs.flatMap((a) => [a.mask, ...a.args]),
    ...liveTypes.map((t) => w.bottom(t)),
  ]);
  const params = test.params.slice(1);
  let at = 0;
  const take = (n: number): Def[] => params.slice(at, (at += n));
  const headerVals = take(header.params.length - 1);
  const iterating = take(1)[0]!;
  const exitVals = exits.map((t) => {
    const [m, ...args] = take(t.params.length);
    return { mask: m!, args };
  });
  const liveVals = take(live.length);

  const body = b.block('loop_body');
  const after = b.block('loop_exit');
  w.branch(test, test.param(0), simd.any(iterating), body, after);

  b.enter(body);
  it.pushScope();
  exits.forEach((t, j) => it.pending.set(t, exitVals[j]!));
  it.pending.set(header, { mask: iterating, args: headerVals });
  linearize(it, items);
  const back = it.pending.get(header);
  it.pending.delete(header);
  const again = back?.mask ?? simd.none;
  const leaving = simd.andNot(iterating, again);
  const kept = live.map((r, j) => keep(it, r, liveTypes[j]!, leaving, liveVals[j]!));
  b.jump(test, [
    ...(back?.args ?? headerVals),
    again,
    ...exits.flatMap((t) => {
      const a = it.pending.get(t)!;
      return [a.mask, ...a.args];
    }),
    ...kept,
  ]);
  it.popScope();

  b.enter(after);
  exits.forEach((t, j) => it.pending.set(t, exitVals[j]!));
  live.forEach((r, j) => it.bind(r, liveVals[j]!));
}

/** The live-out value `root` after this iteration: its current value in the lanes `leaving`, else `before`. */
function keep(it: Iteration, root: Def, type: IRType, leaving: Def, before: Def): Def {
  const { simd } = it.info;
  const now = it.lookup(root) ?? simd.world.bottom(type);
  if (isVectorType(type)) return simd.blend(leaving, now, before);
  if (simd.isVarying(now)) throw new VectorizeError(`internal: varying value for the uniform live-out ${root.label}`);
  return simd.world.select(simd.any(leaving), now, before);
}
