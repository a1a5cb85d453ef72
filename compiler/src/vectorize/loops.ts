// Loops of a vectorize body and the order in which the linearised code visits
// its blocks. Loops are the natural loops of back edges (an edge to a block that
// dominates its source); a retreating edge that is no back edge makes the graph
// irreducible, which lanes cannot share. The linear order is a topological order
// of the graph without back edges in which every loop's blocks are contiguous,
// header first, so that all lanes that reach a block arrive before it runs.
import { Continuation } from '../ir/defs.ts';
import { reversePostOrder } from '../ir/order.ts';
import { type BodyCfg, EXIT, type Target } from './cfg.ts';
import { unsupported } from './error.ts';

export interface Loop {
  readonly header: Continuation;
  readonly blocks: Set<Continuation>;
  parent: Loop | null;
}

export type Item =
  | { readonly kind: 'block'; readonly block: Continuation }
  | { readonly kind: 'loop'; readonly loop: Loop; readonly items: readonly Item[] };

export class LoopForest {
  readonly loops: Loop[] = [];
  /** The linear order of the whole body. */
  readonly order: readonly Item[];
  private readonly innermost = new Map<Continuation, Loop>();
  private readonly idom = new Map<Continuation, Continuation>();
  private readonly rpoIndex = new Map<Continuation, number>();

  constructor(private readonly cfg: BodyCfg) {
    cfg.blocks.forEach((b, i) => this.rpoIndex.set(b, i));
    this.dominators();
    this.findLoops();
    this.order = this.linearise(cfg.blocks, cfg.entry, null);
  }

  /** The innermost loop containing `b`. */
  loopOf(b: Continuation): Loop | null {
    return this.innermost.get(b) ?? null;
  }

  /** The loop whose header `b` is. */
  headedBy(b: Continuation): Loop | null {
    const l = this.innermost.get(b);
    return l && l.header === b ? l : null;
  }

  /** `inner` is `outer` or nested in it. */
  static within(inner: Loop | null, outer: Loop): boolean {
    for (let l = inner; l; l = l.parent) if (l === outer) return true;
    return false;
  }

  /** Whether the edge `from -> to` returns to the header of a loop containing `from`. */
  isBackEdge(from: Continuation, to: Target): boolean {
    return to !== EXIT && this.dominates(to, from);
  }

  /** Targets of edges from `loop` to blocks outside it (EXIT left out), in linear order. */
  exitTargets(loop: Loop): Continuation[] {
    const out = new Set<Continuation>();
    for (const b of loop.blocks) for (const s of this.cfg.blockSuccs(b)) if (!loop.blocks.has(s)) out.add(s);
    return [...out].sort((a, b) => this.rpoIndex.get(a)! - this.rpoIndex.get(b)!);
  }

  dominates(a: Continuation, b: Continuation): boolean {
    for (let x: Continuation | undefined = b; x; x = x === this.cfg.entry ? undefined : this.idom.get(x)) {
      if (x === a) return true;
    }
    return false;
  }

  /** Cooper, Harvey and Kennedy's iterative algorithm over the reverse post-order. */
  private dominators(): void {
    const { entry, blocks, preds } = this.cfg;
    this.idom.set(entry, entry);
    const intersect = (a: Continuation, b: Continuation): Continuation => {
      while (a !== b) {
        while (this.rpoIndex.get(a)! > this.rpoIndex.get(b)!) a = this.idom.get(a)!;
        while (this.rpoIndex.get(b)! > this.rpoIndex.get(a)!) b = this.idom.get(b)!;
      }
      return a;
    };
    for (let changed = true; changed; ) {
      changed = false;
      for (const b of blocks) {
        if (b === entry) continue;
        let d: Continuation | undefined;
        for (const p of preds.get(b)!) if (this.idom.has(p)) d = d ? intersect(p, d) : p;
        if (d && this.idom.get(b) !== d) {
          this.idom.set(b, d);
          changed = true;
        }
      }
    }
  }

  private findLoops(): void {
    const byHeader = new Map<Continuation, Loop>();
    for (const b of this.cfg.blocks) {
      for (const s of this.cfg.blockSuccs(b)) {
        if (this.rpoIndex.get(s)! > this.rpoIndex.get(b)!) continue;
        if (!this.dominates(s, b)) unsupported('irreducible control flow');
        let loop = byHeader.get(s);
        if (!loop) byHeader.set(s, (loop = { header: s, blocks: new Set([s]), parent: null }));
        const work = [b];
        while (work.length) {
          const x = work.pop()!;
          if (loop.blocks.has(x)) continue;
          loop.blocks.add(x);
          work.push(...this.cfg.preds.get(x)!);
        }
      }
    }
    // Largest first, so the last loop that contains a block is its innermost one.
    this.loops.push(...[...byHeader.values()].sort((a, b) => b.blocks.size - a.blocks.size));
    for (const l of this.loops) {
      l.parent = this.innermost.get(l.header) ?? null;
      for (const b of l.blocks) this.innermost.set(b, l);
    }
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
