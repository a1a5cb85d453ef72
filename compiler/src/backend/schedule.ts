// Places the primops of one function into its basic blocks.
//
// Primops float in the graph; only their operands and uses constrain them. We use
// Click's global code motion: the earliest legal block is the deepest block of an
// operand; the latest is the common dominator of all uses (a jump uses its
// arguments in the jumping block, so phi inputs need no special case). Between
// the two we pick the block with the shallowest loop nesting, preferring the later
// one on ties: loop-invariant code leaves loops, everything else sinks to where it
// is needed. Effects (load, store, alloc, enter, asm) are pinned to the block whose
// mem they consume, and within a block mem order is kept: operands come first,
// and reads of a mem value precede the writes that consume the same mem.
import { Continuation, type Def, Param, PrimOp } from '../ir/defs.ts';
import { type IRType, PrimType, TupleType } from '../ir/types.ts';
import { dominatorTree, type DomTree, LoopTree } from '../ir/cfg.ts';
import { postOrder } from '../ir/order.ts';
import { CFG } from './cfg.ts';
import { describe, fail } from './errors.ts';
import type { Program } from './program.ts';

export interface Schedule {
  readonly cfg: CFG;
  readonly dom: DomTree<Continuation>;
  readonly loops: LoopTree<Continuation>;
  /** The primops of each block, in an order that respects operands and memory. */
  readonly placed: ReadonlyMap<Continuation, readonly PrimOp[]>;
  readonly blockOf: ReadonlyMap<PrimOp, Continuation>;
}

const pinned = new Set(['load', 'store', 'alloc', 'enter', 'asm']);
/** Integer division traps on zero, so it must not run on paths that did not ask for it. */
const mayTrap = new Set(['div', 'rem']);

export function scheduleFunction(entry: Continuation, program: Program): Schedule {
  const cfg = new CFG(entry, program);
  const dom = dominatorTree(cfg.graph);
  // Irreducible cycles have no natural loop: their blocks count as in fewer loops, which only makes the scheduler hoist less.
  const loops = new LoopTree(cfg.graph, dom);
  const fewerLoops = fewerLoopsAbove(cfg, dom, loops);
  const order = topologicalOrder(cfg);

  const blockOfParam = (p: Param): Continuation => {
    const c = p.continuation;
    if (c !== entry && !cfg.isBlock(c)) fail(entry, `uses '${describe(p)}', a parameter of '${describe(c)}' outside this function: a closure that transform/ did not convert`);
    return c;
  };
  const deeper = (p: PrimOp, a: Continuation, b: Continuation): Continuation => {
    if (dom.dominates(a, b)) return b;
    if (dom.dominates(b, a)) return a;
    return fail(entry, `the operands of '${describe(p)}' come from '${describe(a)}' and '${describe(b)}', neither of which dominates the other`);
  };

  const early = new Map<PrimOp, Continuation>();
  for (const p of order) {
    let e = entry;
    for (const o of placementOperands(p)) {
      if (o instanceof Param) e = deeper(p, e, blockOfParam(o));
      else if (o instanceof PrimOp && early.has(o)) e = deeper(p, e, early.get(o)!);
    }
    early.set(p, e);
  }

  const users = new Map<PrimOp, (PrimOp | Continuation)[]>(order.map((p) => [p, []]));
  for (const p of order) for (const o of placementOperands(p)) if (o instanceof PrimOp && users.has(o)) users.get(o)!.push(p);
  for (const b of cfg.blocks) for (const o of b.ops) if (o instanceof PrimOp && users.has(o)) users.get(o)!.push(b);

  const blockOf = new Map<PrimOp, Continuation>();
  for (let i = order.length - 1; i >= 0; i--) {
    const p = order[i]!;
    const e = early.get(p)!;
    let late: Continuation | null = null;
    for (const u of users.get(p)!) {
      const ub = u instanceof PrimOp ? blockOf.get(u)! : u;
      late = late ? dom.lca(late, ub) : ub;
    }
    late ??= e;
    if (!dom.dominates(e, late)) {
      fail(entry, `'${describe(p)}' is used in '${describe(late)}', which its operands' block '${describe(e)}' does not dominate`);
    }
    if (pinned.has(p.tag) || p.tag === 'slot') {
      blockOf.set(p, e);
      continue;
    }
    const traps = mayTrap.has(p.tag) && p.type instanceof PrimType && !p.type.isFloat;
    blockOf.set(p, traps ? late : shallowest(late, e, dom, fewerLoops));
  }

  for (const b of cfg.blocks) {
    for (const o of b.ops) {
      if (o instanceof Param && !dom.dominates(blockOfParam(o), b)) {
        fail(entry, `'${describe(b)}' uses '${describe(o)}', whose block does not dominate it`);
      }
    }
  }

  const placed = new Map<Continuation, PrimOp[]>(cfg.blocks.map((b) => [b, []]));
  for (const p of order) placed.get(blockOf.get(p)!)!.push(p);
  for (const [b, ps] of placed) placed.set(b, orderWithinBlock(ps));
  return { cfg, dom, loops, placed, blockOf };
}

/**
 * Between `late` and its dominator `early`, the block in the fewest loops, the latest
 * on ties: up the chain of blocks each in fewer loops than the one below, which is
 * at most as long as the loop nesting, where walking every dominator in between
 * would make a value defined early and used at the end of a long chain of blocks
 * cost the length of the chain.
 */
function shallowest(late: Continuation, early: Continuation, dom: DomTree<Continuation>, fewerLoops: ReadonlyMap<Continuation, Continuation>): Continuation {
  let best = late;
  for (let b = fewerLoops.get(best); b && dom.depth(b) >= dom.depth(early); b = fewerLoops.get(best)) best = b;
  return best;
}

/** For each block, the nearest dominator in fewer loops (none for the blocks in the fewest). */
function fewerLoopsAbove(cfg: CFG, dom: DomTree<Continuation>, loops: LoopTree<Continuation>): Map<Continuation, Continuation> {
  const above = new Map<Continuation, Continuation>();
  // Reverse post-order: dominators first. The candidates skipped are in no fewer loops than the one they were skipped for.
  for (const b of cfg.blocks) {
    const depth = loops.depth(b);
    let c = dom.idom(b) ?? undefined;
    while (c && loops.depth(c) >= depth) c = above.get(c);
    if (c) above.set(b, c);
  }
  return above;
}

/**
 * Primops that need a place in this function, operands before users: everything the
 * block bodies reach through primop operands, except constants (emitted inline).
 */
function topologicalOrder(cfg: CFG): PrimOp[] {
  const seen = new Set<PrimOp>();
  const roots: PrimOp[] = [];
  for (const b of cfg.blocks) for (const o of b.ops) if (o instanceof PrimOp) roots.push(o);
  return postOrder(roots, (p) => placementOperands(p).filter((o): o is PrimOp => o instanceof PrimOp && !isConstant(o)), seen)
    .filter((p) => !isConstant(p));
}

/**
 * The operands that constrain where `p` goes. A slot is an alloca in the entry block
 * whatever its frame, which only names the activation it belongs to.
 */
function placementOperands(p: PrimOp): readonly Def[] {
  return p.tag === 'slot' ? [] : p.ops;
}

/** Block order: operands first, and the loads of a mem value before other consumers of it. */
function orderWithinBlock(ps: readonly PrimOp[]): PrimOp[] {
  const here = new Set(ps);
  const loadsOf = new Map<Def, PrimOp[]>();
  for (const p of ps) {
    if (p.tag !== 'load') continue;
    const loads = loadsOf.get(p.op(0));
    if (loads) loads.push(p);
    else loadsOf.set(p.op(0), [p]);
  }
  const deps = (p: PrimOp): PrimOp[] => {
    const d = p.ops.filter((o): o is PrimOp => o instanceof PrimOp && here.has(o));
    if (pinned.has(p.tag) && p.tag !== 'load') d.push(...(loadsOf.get(p.op(0)) ?? []));
    return d;
  };
  return postOrder([...ps].sort((a, b) => a.gid - b.gid), deps, new Set());
}

const constantCache = new WeakMap<PrimOp, boolean>();

/**
 * Values LLVM can write as constants: literals, undef, layout queries, globals,
 * function addresses and aggregates of constants. They need no block.
 */
export function isConstant(d: Def): boolean {
  if (d instanceof Continuation) return true;
  if (!(d instanceof PrimOp)) return false;
  let r = constantCache.get(d);
  if (r !== undefined) return r;
  switch (d.tag) {
    case 'lit': case 'bottom': case 'sizeof': case 'alignof': case 'global': case 'known':
      r = true;
      break;
    case 'tuple': case 'struct_agg': case 'definite_array': case 'repeat_array': case 'vector': case 'run': case 'hlt':
      r = d.ops.every(isConstant);
      break;
    case 'variant':
      // Only payload-free variants (`None`) are constants; the others are built through memory.
      r = isUnitType(d.op(0).type);
      break;
    default:
      r = false;
  }
  constantCache.set(d, r);
  return r;
}

function isUnitType(t: IRType): boolean {
  return t instanceof TupleType && t.elems.length === 0;
}
