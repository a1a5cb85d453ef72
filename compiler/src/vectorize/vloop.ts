// One `vectorize(width, lower, upper, body)` call becomes a call of a new
// top-level function, the vector loop:
//
//   vectorized(mem, lower, upper, env…, ret):
//     if the wide addresses are exact (addressing.ts) { peel; head(lower + n) } else { tail(lower) }
//   peel: with a streaming store, one iteration for the n lanes before its first aligned
//         address (addressing.ts `peel`), masked; without one, n = 0 and no code
//   head(j: i64):  if j + W <= upper { iteration for lanes j … j + W - 1, all active; head(j + W) } else tail(j)
//   tail(i: i32):  if i < upper { iteration with the lanes below upper active; if i + W < upper { tail(i + W) } } ; ret
//
// The masked iterations are generated separately so that the full iterations
// carry no masks; after the full ones there is at most one. The environment is
// what the body reads from the function around it (its free params, and the
// free primops over them), passed as parameters: uniform values. The body's
// local variables whose address is taken live in the vector loop's frame, with
// room for every lane. Width 1 is a plain loop around a copy of the body.
import { Continuation, type Def, Param, PrimOp, isLit } from '../ir/defs.ts';
import { postOrder } from '../ir/order.ts';
import { freeDefs, Scope } from '../ir/scope.ts';
import type { PtrType } from '../ir/types.ts';
import type { World } from '../ir/world.ts';
import { Cloner } from '../transform/mangle.ts';
import { WideIndex } from './addressing.ts';
import { Builder } from './builder.ts';
import { Calls } from './calls.ts';
import { BodyCfg } from './cfg.ts';
import { Divergence } from './divergence.ts';
import { unsupported, VectorizeError } from './error.ts';
import { inlineCalls } from './inline.ts';
import { type BodyInfo, Iteration } from './iteration.ts';
import { linearize } from './linearize.ts';
import { type Loop, LoopForest } from './loops.ts';
import { Memory } from './memory.ts';
import { Simd } from './simd.ts';
import { copyBody } from './uniform.ts';

/** Replaces the `vectorize` call that ends `call` by a call of its vector loop. */
export function vectorizeCall(world: World, call: Continuation): void {
  const [mem, width, lower, upper, body, ret] = call.args as [Def, Def, Def, Def, Def, Def];
  const lanes = isLit(width) ? Number(width.payload) : NaN;
  if (![1, 2, 4, 8, 16, 32, 64].includes(lanes)) {
    throw new VectorizeError('vectorize: the vector length must be a power of two from 1 to 64 known at compile time');
  }
  if (!(body instanceof Continuation) || !body.hasBody) unsupported('a body that is not a known function');
  inlineCalls(world, body);
  const cfg = new BodyCfg(body);
  const { env, slots } = bodyEnvironment(cfg);
  const i32 = world.prim('i32');
  const names = ['mem', 'lower', 'upper', ...env.map((d) => (d instanceof Param ? d.name : '')), 'return'];
  const vloop = world.continuation(world.fnType([world.mem, i32, i32, ...env.map((d) => d.type), world.fnType([world.mem])]), 'vectorized', names);
  vloop.span = call.span ?? body.span;
  const outer = new Map<Def, Def>(env.map((d, k) => [d, vloop.param(3 + k)]));

  if (lanes === 1) scalarLoop(world, vloop, cfg, outer);
  else vectorLoop(world, vloop, cfg, outer, slots, lanes, isLit(lower) && isLit(upper) && BigInt(upper.payload) - BigInt(lower.payload) <= BigInt(lanes));
  call.jump(vloop, [mem, lower, upper, ...env, ret]);
}

/** Width 1: each iteration is a copy of the body. */
function scalarLoop(world: World, vloop: Continuation, cfg: BodyCfg, outer: ReadonlyMap<Def, Def>): void {
  const head = world.continuation(world.fnType([world.mem, world.prim('i32')]), 'vector_head', ['mem', 'i']);
  vloop.jump(head, [vloop.param(0), vloop.param(1)]);
  const i = head.param(1);
  const step = world.continuation(world.fnType([world.mem]), 'scalar_iteration');
  const next = world.continuation(world.fnType([world.mem]), 'vector_next');
  const done = world.continuation(world.fnType([world.mem]), 'vector_done');
  world.branch(head, head.param(0), world.cmp('lt', i, vloop.param(2)), step, done);
  next.jump(head, [next.param(0), world.arith('add', i, world.litI32(1))]);
  done.jump(vloop.retParam!, [done.param(0)]);
  const cloner = new Cloner(world, cfg.scope);
  for (const [from, to] of outer) cloner.map.set(from, to);
  cloner.map.set(cfg.entry.param(0), step.param(0));
  cloner.map.set(cfg.entry.param(1), i);
  cloner.map.set(cfg.exitParam, next);
  cloner.cloneBody(cfg.entry, step);
  cloner.run();
}

/**
 * Full iterations of `lanes` lanes, then masked ones for the rest. `oneIteration`: the call's
 * bounds are known and at most `lanes` apart (the children of a BVH node, a block of
 * triangles), so there is no next iteration to prefetch for or to advance addresses to: the
 * iteration keeps the i32 addresses, with no check before the loop and no prefetches.
 */
function vectorLoop(world: World, vloop: Continuation, cfg: BodyCfg, outer: ReadonlyMap<Def, Def>, slots: readonly PrimOp[], lanes: number, oneIteration: boolean): void {
  const simd = new Simd(world, lanes);
  const seeds = new Map(outer);
  const forest = new LoopForest(cfg);
  const div = new Divergence(cfg, forest);
  let mem: Def = vloop.param(0);
  const privates = new Set<Def>();
  if (slots.length) {
    // The body's local variables get one slot per vector loop, with room for every lane:
    // lane storage where they fit it, else a copy per lane, each lane addressing its own.
    const frame = world.enter(mem);
    mem = world.extract(frame, 0);
    for (const s of slots) {
      const t = (s.type as PtrType).pointee;
      if (fitsLaneStorage(cfg, div, s)) {
        const storage = world.slot(world.extract(frame, 1), simd.vectorType(t));
        seeds.set(s, storage);
        privates.add(storage);
      } else {
        seeds.set(s, world.lea(world.slot(world.extract(frame, 1), world.types.definiteArray(t, lanes)), simd.iota()));
      }
    }
  }
  const [lower, upper] = [vloop.param(1), vloop.param(2)];
  const i32 = world.prim('i32');
  const i64 = world.prim('i64');
  const u32 = world.prim('u32');
  const shared = { cfg, forest, simd, div, calls: new Calls(simd), liveOut: liveOuts(cfg, forest) };
  const info = (memory: Memory): BodyInfo => ({ ...shared, memory });
  const block = (name: string): Continuation => world.continuation(world.fnType([world.mem]), name);
  const laneIndex = (i: Def): Map<Def, Def> => new Map(seeds).set(cfg.entry.param(1), world.arith('add', simd.splat(i), simd.iota()));

  // Full iterations, counted in i64 (addressing.ts): j + W <= upper, so no lane's index wraps.
  const head = world.continuation(world.fnType([world.mem, i64]), 'vector_head', ['mem', 'j']);
  const j = head.param(1);
  const i = world.cast(i32, j);
  const prefetch = block('vector_prefetch');
  const leave = block('vector_leave');
  world.branch(head, head.param(0), world.cmp('le', j, world.arith('sub', world.cast(i64, upper), world.lit(i64, BigInt(lanes)))), prefetch, leave);
  const wide = oneIteration ? null : new WideIndex(world, vloop, i, j);
  const full = block('vector_iteration');
  const next = block('vector_next');
  iteration(info(new Memory(simd, wide)), full, laneIndex(i), privates, simd.all).jump(next, []);
  next.jump(head, [next.param(0), world.arith('add', j, world.lit(i64, BigInt(lanes)))]);
  // The streams to prefetch are known once the iteration is.
  const prologue = new Builder(world, prefetch);
  wide?.prefetch(prologue);
  prologue.jump(full, []);

  // Masked iterations from `i` on while lanes are left: at most one after the full
  // iterations, all of them when the wide addresses could be wrong. `upper - i` is
  // exact as a u32 where i < upper, unlike the lanes' indices above upper.
  const tail = world.continuation(world.fnType([world.mem, i32]), 'vector_tail', ['mem', 'i']);
  leave.jump(tail, [leave.param(0), i]);
  const t = tail.param(1);
  const left = world.cast(u32, world.arith('sub', upper, t));
  const some = block('vector_remainder');
  const done = block('vector_done');
  world.branch(tail, tail.param(0), world.cmp('lt', t, upper), some, done);
  done.jump(vloop.retParam!, [done.param(0)]);
  const lane = world.vector(Array.from({ length: lanes }, (_, k) => world.lit(u32, BigInt(k))));
  const b = iteration(info(new Memory(simd)), some, laneIndex(t), privates, world.cmp('lt', lane, simd.splat(left)));
  const more = block('vector_more');
  world.branch(b.cur, b.mem, world.cmp('gt', left, world.lit(u32, BigInt(lanes))), more, done);
  more.jump(tail, [more.param(0), world.arith('add', t, world.litI32(lanes))]);

  if (!wide?.offsets.size) {
    vloop.jump(head, [mem, world.cast(i64, lower)]);
    return;
  }
  const fast = block('vector_wide');
  const slow = block('vector_narrow');
  world.branch(vloop, mem, wide.check(lower, upper), fast, slow);
  slow.jump(tail, [slow.param(0), lower]);
  const entry = new Builder(world, fast);
  const aligning = wide.peel(entry, lower, lanes);
  if (!aligning) {
    entry.jump(head, [world.cast(i64, lower)]);
    return;
  }
  // The first `n` lanes in a masked iteration (no more than there are), then the full
  // iterations from there, where the streaming store's lanes start aligned.
  const span = world.cast(u32, world.arith('sub', upper, lower));
  const fits = world.cmp('lt', world.cast(u32, aligning), span);
  const n = world.select(world.cmp('lt', lower, upper), world.select(fits, aligning, world.cast(i32, span)), world.litI32(0));
  const peel = block('vector_peel');
  const unpeeled = block('vector_unpeeled');
  world.branch(entry.cur, entry.mem, world.cmp('gt', n, world.litI32(0)), peel, unpeeled);
  unpeeled.jump(head, [unpeeled.param(0), world.cast(i64, lower)]);
  const peeled = iteration(info(new Memory(simd)), peel, laneIndex(lower), privates, world.cmp('lt', lane, simd.splat(world.cast(u32, n))));
  peeled.jump(head, [world.cast(i64, world.arith('add', lower, n))]);
}

/**
 * Fills `start` with the code of one iteration for the lanes of `mask` (at least
 * one); returns the builder, positioned after it.
 */
function iteration(info: BodyInfo, start: Continuation, seeds: ReadonlyMap<Def, Def>, privates: ReadonlySet<Def>, mask: Def): Builder {
  const b = new Builder(info.simd.world, start);
  const it = new Iteration(info, b, seeds, privates);
  if (info.div.branchesDiverge) {
    it.pending.set(info.cfg.entry, { mask, args: [] });
    linearize(it, info.forest.order);
  } else {
    copyBody(it, mask);
  }
  return b;
}

/**
 * What the reachable code of the body reads from outside it and is not a
 * constant (params of the enclosing function and primops over them), and the
 * stack slots of its local variables.
 */
function bodyEnvironment(cfg: BodyCfg): { env: Def[]; slots: PrimOp[] } {
  const roots = cfg.blocks.flatMap((b) => b.ops);
  const inside = (d: Def): boolean => cfg.scope.contains(d);
  const used = freeDefs(roots, inside);
  for (const c of used.continuations) {
    if (!closed(c)) unsupported(`a body that uses the local function ${c.name || c.label} of the code around it`);
  }
  const primopsInside = postOrder(roots, (d) => (d instanceof PrimOp && inside(d) ? d.ops : []));
  const slots = primopsInside.filter((d): d is PrimOp => d instanceof PrimOp && d.tag === 'slot' && inside(d));
  const byGid = (a: Def, b: Def): number => a.gid - b.gid;
  return { env: [...used.defs].sort(byGid), slots: slots.sort(byGid) };
}

/**
 * Whether a local variable of the body fits lane storage (a vector per element, read
 * and written a whole vector at a time): its address reaches only loads and stores,
 * through element addresses whose indices are the same in every lane. One indexed per
 * lane, or whose address escapes (into a call, a stored value, a cast), gets a copy per
 * lane instead, which each lane addresses as ordinary memory (gathers, scatters, and its
 * own pointer in calls made once per lane).
 */
function fitsLaneStorage(cfg: BodyCfg, div: Divergence, slot: PrimOp): boolean {
  const work: [Def, Def[]][] = [[slot, []]];
  while (work.length) {
    const [d, indices] = work.pop()!;
    for (const { user, index } of d.uses.values()) {
      if (user instanceof PrimOp && !cfg.scope.contains(user)) continue;
      if (user instanceof PrimOp && user.tag === 'lea' && index === 0) {
        work.push([user, [...indices, user.op(1)]]);
        continue;
      }
      const home = cfg.home.get(user);
      if (!(user instanceof PrimOp && (user.tag === 'load' || user.tag === 'store') && index === 1 && home)) {
        // A primop no block uses (left over by earlier rewriting) is no use.
        if (user instanceof PrimOp && user.numUses === 0) continue;
        return false;
      }
      if (indices.some((i) => div.varyingAt(i, home))) return false;
    }
  }
  return true;
}

/** Functions, imports and intrinsics: continuations any code may call. */
function closed(c: Continuation): boolean {
  return c.isIntrinsic || !c.hasBody || new Scope(c).freeParams().size === 0;
}

/** The roots (block params, effects) defined in each loop that blocks outside the loop read. */
function liveOuts(cfg: BodyCfg, forest: LoopForest): Map<Loop, Def[]> {
  const out = new Map<Loop, Set<Def>>();
  for (const c of cfg.blocks) {
    for (const r of rootsRead(cfg, c)) {
      for (let l = forest.loopOf(cfg.home.get(r)!); l; l = l.parent) {
        if (l.blocks.has(c)) continue;
        let set = out.get(l);
        if (!set) out.set(l, (set = new Set()));
        set.add(r);
      }
    }
  }
  return new Map([...out].map(([l, s]) => [l, [...s].sort((a, b) => a.gid - b.gid)]));
}

/** Block params and effects that block `c` reads, its own effects' operands included. */
function rootsRead(cfg: BodyCfg, c: Continuation): Set<Def> {
  const roots = new Set<Def>();
  const seen = new Set<Def>();
  const work: Def[] = [...c.ops];
  while (work.length) {
    const d = work.pop()!;
    if (seen.has(d) || !cfg.scope.contains(d)) continue;
    seen.add(d);
    const home = cfg.home.get(d);
    if (home) roots.add(d);
    if (d instanceof PrimOp && (!home || home === c)) work.push(...d.ops);
  }
  return roots;
}
