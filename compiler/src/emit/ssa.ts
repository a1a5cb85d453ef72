// SSA construction for mutable locals after Braun et al., "Simple and Efficient
// Construction of Static Single Assignment Form" (CC 2013), on continuations:
// a block is a continuation whose params after its explicit ones are the phis,
// and a predecessor passes a phi's operand as an extra jump argument.
//
// Two kinds of blocks keep that sound:
// - `single` blocks have at most one predecessor, fixed when they are made: branch
//   and match targets, the return block of a call (whose predecessor is the calling
//   block), and entries (none). They never get phis, so the branch or call that
//   enters them needs no extra argument.
// - `join` blocks are entered only by direct jumps that this builder records
//   (`addPred`), so every jump can be given the phi operands it owes.
import type { Continuation, Def, IRType, Param, World } from '../ir/index.ts';
import type { LocalBinding } from '../sema/types.ts';

/** A mutable local held in SSA form during one emission of its declaration. */
export interface SsaVar {
  readonly binding: LocalBinding;
  readonly type: IRType;
  readonly name: string;
}

interface Phi {
  readonly param: Param;
  readonly block: Block;
  readonly v: SsaVar;
  dead: boolean;
}

export class Block {
  readonly preds: Block[] = [];
  readonly defs = new Map<SsaVar, Def>();
  readonly incomplete: Phi[] = [];
  readonly phis: Phi[] = [];

  constructor(
    public cont: Continuation,
    readonly kind: 'single' | 'join',
    public sealed: boolean,
  ) {}

  get mem(): Def {
    return this.cont.param(0);
  }
}

export class SsaGraph {
  private readonly blocks: Block[] = [];
  /** Arg positions that rebuilt blocks no longer take. */
  private readonly deadArgs = new Map<Block, Set<number>>();

  constructor(private readonly world: World) {}

  /** A block with at most one predecessor (null for an entry); sealed from the start. */
  single(cont: Continuation, pred: Block | null): Block {
    const b = new Block(cont, 'single', true);
    if (pred) b.preds.push(pred);
    this.blocks.push(b);
    return b;
  }

  /** A block entered by recorded jumps; seal it once all of them are known. */
  join(cont: Continuation): Block {
    const b = new Block(cont, 'join', false);
    this.blocks.push(b);
    return b;
  }

  /** Records that `from` ends with a direct jump to `target` (already emitted, without phi operands). */
  addPred(target: Block, from: Block): void {
    if (target.kind !== 'join' || target.sealed) throw new Error('internal: jump into a sealed or single block');
    target.preds.push(from);
  }

  write(v: SsaVar, b: Block, d: Def): void {
    b.defs.set(v, d);
  }

  /**
   * The value of `v` at the end of `b`. Braun et al.'s recursive lookup, run on an explicit
   * stack: a value read after thousands of blocks (a long `else if` chain) walks back
   * through all of them.
   */
  read(v: SsaVar, b: Block): Def {
    const found = b.defs.get(v);
    if (found) return found;
    // A frame waits for the value of a predecessor: to pass it on to a single-predecessor
    // block, or to append it as the operand of a phi for predecessor `next - 1`.
    const stack: ({ kind: 'single'; block: Block } | { kind: 'phi'; phi: Phi; next: number })[] = [];
    let want: Block | null = b;
    let value: Def | null = null;
    for (;;) {
      if (want) {
        const blk: Block = want;
        want = null;
        const known = blk.defs.get(v);
        if (known) value = known;
        else if (!blk.sealed) {
          const phi = this.newPhi(v, blk);
          blk.incomplete.push(phi);
          value = phi.param;
          this.write(v, blk, value);
        } else if (blk.preds.length === 0) {
          // Read before any write (`let mut x: T;`), or in a block nothing enters.
          value = this.world.bottom(v.type);
          this.write(v, blk, value);
        } else if (blk.preds.length === 1) {
          stack.push({ kind: 'single', block: blk });
          want = blk.preds[0]!;
          continue;
        } else {
          const phi = this.newPhi(v, blk);
          // Written before the operands are read so that cycles end at this phi.
          this.write(v, blk, phi.param);
          stack.push({ kind: 'phi', phi, next: 0 });
          value = null;
        }
      }
      const top = stack[stack.length - 1];
      if (!top) return value!;
      if (top.kind === 'single') {
        stack.pop();
        this.write(v, top.block, value!);
        continue;
      }
      const preds = top.phi.block.preds;
      if (top.next > 0) {
        const p = preds[top.next - 1]!;
        p.cont.jump(top.phi.block.cont, [...p.cont.args, value!]);
      }
      if (top.next < preds.length) {
        want = preds[top.next++]!;
        continue;
      }
      stack.pop();
      value = top.phi.param;
    }
  }

  seal(b: Block): void {
    if (b.sealed) return;
    for (const phi of b.incomplete) this.addOperands(phi);
    b.incomplete.length = 0;
    b.sealed = true;
  }

  private newPhi(v: SsaVar, b: Block): Phi {
    const param = this.world.appendParam(b.cont, v.type, v.name);
    const phi: Phi = { param, block: b, v, dead: false };
    b.phis.push(phi);
    return phi;
  }

  /** Appends the phi's operand to the jump of every predecessor, in param order. */
  private addOperands(phi: Phi): void {
    for (const p of phi.block.preds) {
      const val = this.read(phi.v, p);
      p.cont.jump(phi.block.cont, [...p.cont.args, val]);
    }
  }

  /**
   * Removes trivial phis (all operands the same value or the phi itself) once the
   * whole body is emitted, together with the replacements in `extra`: replacing
   * them earlier would leave stale nodes in the variable maps, since the World
   * rebuilds every user of a replaced node. Blocks that lost phis are rebuilt
   * without those params.
   */
  finalize(extra: ReadonlyMap<Def, Def>): void {
    const subst = new Map(extra);
    const resolve = (d: Def): Def => {
      for (let s = subst.get(d); s !== undefined; s = subst.get(d)) d = s;
      return d;
    };
    let changed = true;
    while (changed) {
      changed = false;
      for (const b of this.blocks) {
        for (const phi of b.phis) {
          if (phi.dead) continue;
          const same = this.trivialValue(phi, resolve);
          if (same === null) continue;
          subst.set(phi.param, same);
          phi.dead = true;
          changed = true;
        }
      }
    }
    this.world.replaceAll(subst);
    const rebuilt = this.blocks.filter((b) => b.phis.some((p) => p.dead));
    const renamed = new Map<Def, Def>();
    for (const b of rebuilt) this.dropDeadParams(b, renamed);
    this.world.replaceAll(renamed);
    for (const b of rebuilt) this.rewirePreds(b);
  }

  /** The one value the phi stands for, or null when it is a real merge. */
  private trivialValue(phi: Phi, resolve: (d: Def) => Def): Def | null {
    let same: Def | null = null;
    for (const p of phi.block.preds) {
      const op = resolve(p.cont.arg(phi.param.index));
      if (op === phi.param || op === same) continue;
      if (same !== null) return null;
      same = op;
    }
    return same ?? this.world.bottom(phi.v.type);
  }

  /** Moves the body of `b` to a continuation without the dead phis; `renamed` gets the param mapping. */
  private dropDeadParams(b: Block, renamed: Map<Def, Def>): void {
    const w = this.world;
    const old = b.cont;
    const dead = new Set(b.phis.filter((p) => p.dead).map((p) => p.param));
    const live = old.params.filter((p) => !dead.has(p));
    const fresh = w.continuation(w.fnType(live.map((p) => p.type)), old.name, live.map((p) => p.name));
    fresh.span = old.span;
    if (old.hasBody) {
      fresh.jump(old.callee, old.args);
      old.clearBody();
    }
    live.forEach((p, i) => renamed.set(p, fresh.param(i)));
    b.cont = fresh;
    this.deadArgs.set(b, new Set([...dead].map((p) => p.index)));
    w.forget(old);
  }

  private rewirePreds(b: Block): void {
    const dead = this.deadArgs.get(b)!;
    for (const p of b.preds) p.cont.jump(b.cont, p.cont.args.filter((_, i) => !dead.has(i)));
  }
}
