// The control-flow graph of a `vectorize` body after lower2cff: the body
// continuation is the entry, its first-order continuations are the blocks, and a
// jump to its return parameter ends the iteration (EXIT). Every block ends in a
// jump, a branch, a match or a call that returns to another block (or to EXIT),
// and performs the effects on its memory chain in order.
import { type Graph, graphFrom } from '../ir/cfg.ts';
import { Continuation, type Def, Param, PrimOp } from '../ir/defs.ts';
import { Scope } from '../ir/scope.ts';
import { FnType } from '../ir/types.ts';
import { unsupported, VectorizeError } from './error.ts';

export const EXIT = 'exit';
export type Target = Continuation | typeof EXIT;

export type Terminator =
  /** `args` without the memory. */
  | { kind: 'jump'; target: Target; args: readonly Def[] }
  | { kind: 'branch'; cond: Def; then: Continuation; otherwise: Continuation }
  | { kind: 'match'; value: Def; otherwise: Continuation; cases: readonly (readonly [Def, Continuation])[] }
  /** `args` without the memory and the return continuation `ret`, which receives (mem, result). */
  | { kind: 'call'; callee: Def; args: readonly Def[]; ret: Target };

/** Effects a block performs; their values are read through `extract(effect, 1)`. */
const effectTags = new Set(['load', 'store', 'enter', 'alloc']);

function isEffect(d: Def): d is PrimOp {
  return d instanceof PrimOp && effectTags.has(d.tag);
}

export class BodyCfg {
  readonly scope: Scope;
  readonly exitParam: Param;
  /** The blocks and their edges, EXIT left out (dominators and loops come from ir/cfg.ts). */
  readonly graph: Graph<Continuation>;
  /** The block that defines each root: block params and effects. */
  readonly home = new Map<Def, Continuation>();
  private readonly terms = new Map<Continuation, Terminator>();
  private readonly chains = new Map<Continuation, PrimOp[]>();

  constructor(readonly entry: Continuation) {
    this.scope = new Scope(entry);
    const ret = entry.retParam;
    if (!ret || entry.params.length !== 3) throw new VectorizeError(`vectorize: the body must have the type fn(i32) -> ()`);
    this.exitParam = ret;
    // The first successor is visited first, so it comes last in the order.
    this.graph = graphFrom(entry, (b) => this.visit(b), { firstSuccessorLast: true });
    for (const b of this.blocks) {
      for (const p of b.params) this.home.set(p, b);
      for (const e of this.chains.get(b)!) this.home.set(e, b);
    }
    if (this.graph.preds(entry).length) unsupported('a body that jumps back to its own start');
  }

  /** Blocks reachable from the entry, in reverse post-order. */
  get blocks(): readonly Continuation[] {
    return this.graph.nodes;
  }

  term(b: Continuation): Terminator {
    return this.terms.get(b)!;
  }

  /** The effects of `b` in program order. */
  effects(b: Continuation): readonly PrimOp[] {
    return this.chains.get(b)!;
  }

  succs(b: Continuation): Target[] {
    const t = this.term(b);
    switch (t.kind) {
      case 'jump':
        return [t.target];
      case 'branch':
        return [t.then, t.otherwise];
      case 'match':
        return [t.otherwise, ...t.cases.map(([, c]) => c)];
      case 'call':
        return [t.ret];
    }
  }

  /** Successor blocks, EXIT left out, each once. */
  blockSuccs(b: Continuation): Continuation[] {
    return [...new Set(this.succs(b).filter((s): s is Continuation => s !== EXIT))];
  }

  isBlock(d: Def): d is Continuation {
    return d instanceof Continuation && this.terms.has(d);
  }

  /** Parses `b`'s terminator and memory chain; returns its successor blocks. */
  private visit(b: Continuation): Continuation[] {
    this.terms.set(b, this.parse(b));
    this.chains.set(b, this.chain(b));
    return this.blockSuccs(b);
  }

  private parse(b: Continuation): Terminator {
    const callee = b.callee;
    const args = b.args;
    if (callee === this.exitParam) return { kind: 'jump', target: EXIT, args: args.slice(1) };
    if (callee instanceof Continuation && callee.intrinsic === 'branch') {
      return { kind: 'branch', cond: args[1]!, then: this.block(args[2]!), otherwise: this.block(args[3]!) };
    }
    if (callee instanceof Continuation && callee.intrinsic === 'match') {
      const cases: [Def, Continuation][] = [];
      for (let i = 3; i + 1 < args.length; i += 2) cases.push([args[i]!, this.block(args[i + 1]!)]);
      return { kind: 'match', value: args[1]!, otherwise: this.block(args[2]!), cases };
    }
    if (callee instanceof Continuation && this.scope.contains(callee)) {
      const target = this.block(callee);
      if (args.length !== target.params.length) throw new VectorizeError(`internal: jump to ${target.label} with ${args.length} args`);
      return { kind: 'jump', target, args: args.slice(1) };
    }
    const t = callee.type;
    if (!(t instanceof FnType) || !(t.params[t.params.length - 1] instanceof FnType)) unsupported(`a call that does not return (in ${b.label})`);
    const ret = args[args.length - 1]!;
    return { kind: 'call', callee, args: args.slice(1, -1), ret: ret === this.exitParam ? EXIT : this.block(ret) };
  }

  /** `d` as a block of this body: a first-order continuation of the scope, other than the entry. */
  private block(d: Def): Continuation {
    if (d === this.entry) unsupported('a body that jumps back to its own start');
    if (!(d instanceof Continuation) || !this.scope.contains(d) || !d.hasBody) {
      unsupported(`control flow that leaves the body (to ${d.label})`);
    }
    if (!d.fnType.isFirstOrder) unsupported(`a local function inside the body (${d.label}) that could not be inlined`);
    return d;
  }

  /** The effects from `b`'s memory param to the memory its terminator passes on. */
  private chain(b: Continuation): PrimOp[] {
    const out: PrimOp[] = [];
    let m = b.arg(0);
    while (m !== b.param(0)) {
      if (m instanceof PrimOp && m.tag === 'store') {
        out.push(m);
        m = m.op(0);
      } else if (m instanceof PrimOp && m.tag === 'extract' && isEffect(m.op(0))) {
        const e = m.op(0) as PrimOp;
        out.push(e);
        m = e.op(0);
      } else if (m instanceof PrimOp && m.tag === 'extract' && (m.op(0) as PrimOp).tag === 'asm') {
        unsupported('inline assembly (asm): it runs on one lane\'s registers');
      } else {
        throw new VectorizeError(`internal: the memory of ${b.label} does not come from its own memory param (${m.label})`);
      }
    }
    return out.reverse();
  }
}
