// Loops of a vectorize body and the order in which the linearised code visits
// its blocks. Loops are the natural loops of back edges (an edge to a block that
// dominates its source); a retreating edge that is no back edge makes the graph
// irreducible, which lanes cannot share. The linear order is a topological order
// of the graph without back edges in which every loop's blocks are contiguous,
// header first, so that all lanes that reach a block arrive before it runs.
import { dominatorTree, type DomTree, type Loop as NaturalLoop, LoopTree } from '../ir/cfg.ts';
import { Continuation } from '../ir/defs.ts';
import { reversePostOrder } from '../ir/order.ts';
import { type BodyCfg, EXIT, type Target } from './cfg.ts';
import { unsupported } from './error.ts';

export type Loop = NaturalLoop<Continuation>;

export type Item =
  | { readonly kind: 'block'; readonly block: Continuation }
  | { readonly kind: 'loop'; readonly loop: Loop; readonly items: readonly Item[] };

export class LoopForest {
  /** Outermost first. */
  readonly loops: readonly Loop[];
  /** The linear order of the whole body. */
  readonly order: readonly Item[];
  private readonly dom: DomTree<Continuation>;
  private readonly tree: LoopTree<Continuation>;
  private readonly rpoIndex = new Map<Continuation, number>();

  constructor(private readonly cfg: BodyCfg) {
    cfg.blocks.forEach((b, i) => this.rpoIndex.set(b, i));
    this.dom = dominatorTree(cfg.graph);
    this.tree = new LoopTree(cfg.graph, this.dom);
    if (!this.tree.reducible) unsupported('irreducible control flow');
    this.loops = this.tree.loops;
    this.order = this.linearise(cfg.blocks, cfg.entry, null);
  }

  /** The innermost loop containing `b`. */
  loopOf(b: Continuation): Loop | null {
    return this.tree.loopOf(b);
  }

  /** The loop whose header `b` is. */
  headedBy(b: Continuation): Loop | null {
    return this.tree.headedBy(b);
  }

  /** `inner` is `outer` or nested in it. */
  static within(inner: Loop | null, outer: Loop): boolean {
    return LoopTree.within(inner, outer);
  }

  /** Whether the edge `from -> to` returns to the header of a loop containing `from`. */
  isBackEdge(from: Continuation, to: Target): boolean {
    return to !== EXIT && this.dom.dominates(to, from);
  }

  /** Targets of edges from `loop` to blocks outside it (EXIT left out), in linear order. */
  exitTargets(loop: Loop): Continuation[] {
    const out = new Set<Continuation>();
    for (const b of loop.blocks) for (const s of this.cfg.blockSuccs(b)) if (!loop.blocks.has(s)) out.add(s);
    return [...out].sort((a, b) => this.rpoIndex.get(a)! - this.rpoIndex.get(b)!);
  }

  dominates(a: Continuation, b: Continuation): boolean {
    return this.dom.dominates(a, b);
  }

  /** Topological order of `nodes` (a loop's blocks or the whole body) with nested loops kept together. */
  private linearise(nodes: readonly Continuation[], entry: Continuation, region: Loop | null): Item[] {
    const inRegion = (b: Continuation): boolean => (region ? region.blocks.has(b) : true);
    const rep = (b: Continuation): Continuation | Loop => {
      let child: Loop | null = null;
      for (let l = this.loopOf(b); l && l !== region; l = l.parent) child = l;
      return child ?? b;
    };
    const succs = new Map<Continuation | Loop, (Continuation | Loop)[]>();
    for (const b of nodes) {
      const from = rep(b);
      if (!succs.has(from)) succs.set(from, []);
      for (const s of this.cfg.blockSuccs(b)) {
        if (!inRegion(s) || (region && s === region.header)) continue;
        const to = rep(s);
        const list = succs.get(from)!;
        if (to !== from && !list.includes(to)) list.push(to);
      }
    }
    // Successors are visited last to first, so the first successor comes first in the order.
    return reversePostOrder<Continuation | Loop>(rep(entry), (n) => succs.get(n)!).map((n): Item => {
      if (n instanceof Continuation) return { kind: 'block', block: n };
      const blocks = this.cfg.blocks.filter((b) => n.blocks.has(b));
      return { kind: 'loop', loop: n, items: this.linearise(blocks, n.header, n) };
    });
  }
}
