// Uniform control flow keeps its shape. Where no branch is varying (the whole
// body, or a loop inside divergent code), the active lanes all take the same
// paths, so every block runs with the same mask and its branches stay branches on
// scalar conditions: the blocks are copied with their values vectorised. A copied
// loop runs only when some lane enters it, and all its lanes leave it together
// through one exit.
import type { Continuation, Def } from '../ir/defs.ts';
import { EXIT, type Target } from './cfg.ts';
import { VectorizeError } from './error.ts';
import type { Incoming, Iteration } from './iteration.ts';
import type { Loop } from './loops.ts';
import { isVectorType } from './simd.ts';

/** How an edge that leaves the copied region continues (it ends the current block). */
type Leave = (from: Continuation, target: Target, args: readonly Def[]) => void;

/** The whole body for the lanes of `mask` (not empty); the builder ends up after it. */
export function copyBody(it: Iteration, mask: Def): void {
  const end = it.b.block('iteration_end');
  copyRegion(it, null, mask, (_from, target) => {
    if (target !== EXIT) throw new VectorizeError('internal: an edge out of the whole body');
    it.b.jump(end, []);
  });
  it.b.enter(end);
}

/** A loop without varying branches, entered by the lanes waiting at its header. */
export function copyLoop(it: Iteration, loop: Loop): void {
  const { simd, forest, cfg } = it.info;
  const { b } = it;
  const w = simd.world;
  const entry = it.pending.get(loop.header);
  if (!entry) return;
  it.pending.delete(loop.header);
  const mask = entry.mask;
  const exits = forest.exitTargets(loop);
  const live = it.info.liveOut.get(loop) ?? [];
  const prior = exits.map((t) => it.pending.get(t) ?? it.nothingTo(t));
  const liveTypes = live.map((r) => it.liveOutType(r, loop));
  const done = b.block('loop_done', [
    ...exits.flatMap((t) => [simd.maskType, ...t.params.slice(1).map((p) => it.paramType(p))]),
    ...liveTypes,
  ]);
  const pass = (accs: readonly Incoming[], values: readonly Def[]): void =>
    b.jump(done, [...accs.flatMap((a) => [a.mask, ...a.args]), ...values]);

  const enter = b.block('loop_enter');
  const skip = b.block('loop_skip');
  w.branch(b.cur, b.mem, simd.any(mask), enter, skip);
  b.enter(skip);
  pass(prior, liveTypes.map((t) => w.bottom(t)));

  b.enter(enter);
  it.pushScope();
  copyRegion(it, { loop, args: entry.args }, mask, (from, target, args) => {
    const accs = exits.map((t, k) => (t === target ? it.merge(t, prior[k]!, mask, args) : prior[k]!));
    const values = live.map((r, j) => {
      const v = forest.dominates(cfg.home.get(r)!, from) ? it.lookup(r) : undefined;
      if (v === undefined) return w.bottom(liveTypes[j]!);
      if (isVectorType(liveTypes[j]!)) return simd.splat(v);
      if (simd.isVarying(v)) throw new VectorizeError(`internal: varying value for the uniform live-out ${r.label}`);
      return v;
    });
    pass(accs, values);
  });
  it.popScope();

  b.enter(done);
  const params = done.params.slice(1);
  let at = 0;
  for (const t of exits) {
    const [m, ...args] = params.slice(at, (at += t.params.length));
    it.pending.set(t, { mask: m!, args });
  }
  live.forEach((r, j) => it.bind(r, params[at + j]!));
}

/**
 * Copies the blocks of a loop, entered from the current block with `args` for
 * its header, or of the whole body (`null`) from its entry in the current block;
 * all run for the lanes of `mask`.
 */
function copyRegion(it: Iteration, region: { loop: Loop; args: readonly Def[] } | null, mask: Def, leave: Leave): void {
  const { cfg, simd } = it.info;
  const { b } = it;
  const w = simd.world;
  const loop = region?.loop;
  const clones = new Map<Continuation, Continuation>();
  if (region) b.jump(clone(it, clones, region.loop.header), it.coerceAll(region.loop.header, region.args));
  const inside = (t: Target): t is Continuation => t !== EXIT && (!loop || loop.blocks.has(t));
  const go = (from: Continuation, target: Target, args: readonly Def[]): void => {
    if (inside(target)) b.jump(clone(it, clones, target), it.coerceAll(target, args));
    else leave(from, target, args);
  };
  /** A branch target: the copy, or a block that leaves the region. */
  const targetOf = (from: Continuation, target: Continuation): Continuation => {
    if (inside(target)) return clone(it, clones, target);
    const out = b.block('leave');
    b.enter(out);
    leave(from, target, []);
    return out;
  };
  const uniform = (d: Def): Def => {
    if (simd.isVarying(d)) throw new VectorizeError(`internal: a varying condition in uniform control flow`);
    return d;
  };
  for (const blk of cfg.blocks) {
    if (loop && !loop.blocks.has(blk)) continue;
    if (blk !== cfg.entry) {
      const k = clones.get(blk);
      if (!k) continue;
      b.enter(k);
      it.bindParams(blk, k.params.slice(1));
    }
    it.effects(blk, mask, true);
    const t = cfg.term(blk);
    const from = b.cur;
    const mem = b.mem;
    switch (t.kind) {
      case 'jump':
        go(blk, t.target, t.args.map((a) => it.value(a)));
        break;
      case 'branch': {
        const c = uniform(it.value(t.cond));
        const yes = targetOf(blk, t.then);
        const no = targetOf(blk, t.otherwise);
        w.branch(from, mem, c, yes, no);
        break;
      }
      case 'match': {
        const v = uniform(it.value(t.value));
        const otherwise = targetOf(blk, t.otherwise);
        const cases = t.cases.map(([lit, target]) => [lit, targetOf(blk, target)] as const);
        w.match(from, mem, v, otherwise, cases);
        break;
      }
      case 'call': {
        const r = it.call(t, mask);
        go(blk, t.ret, r ? [r] : []);
        break;
      }
    }
  }
}

/** The copy of block `blk`, made on first use, with its params vectorised. */
function clone(it: Iteration, clones: Map<Continuation, Continuation>, blk: Continuation): Continuation {
  let k = clones.get(blk);
  if (!k) {
    k = it.b.block(blk.name, blk.params.slice(1).map((p) => it.paramType(p)));
    clones.set(blk, k);
  }
  return k;
}
