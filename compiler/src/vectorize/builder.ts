// Straight-line emission of CPS code: the block being filled and the memory it
// has reached. A call ends the block and continues in the block it returns to; a
// conditional part is a diamond whose join block receives the memory and the
// part's results.
import type { Continuation, Def } from '../ir/defs.ts';
import type { IRType } from '../ir/types.ts';
import type { World } from '../ir/world.ts';

export class Builder {
  cur!: Continuation;
  mem!: Def;

  constructor(readonly world: World, start: Continuation) {
    this.enter(start);
  }

  /** Continues in `k`, whose first param is the memory. */
  enter(k: Continuation): void {
    this.cur = k;
    this.mem = k.param(0);
  }

  /** A new block `fn(mem, params…)`. */
  block(name: string, params: readonly IRType[] = []): Continuation {
    const w = this.world;
    return w.continuation(w.fnType([w.mem, ...params]), name);
  }

  /** Calls `callee(mem, args…, k)` and continues in `k`; returns the result (null for none). */
  call(callee: Def, args: readonly Def[], result: IRType | null, name = 'ret'): Def | null {
    const k = this.block(name, result ? [result] : []);
    this.cur.jump(callee, [this.mem, ...args, k]);
    this.enter(k);
    return result ? k.param(1) : null;
  }

  /** Ends the block with `target(mem, args…)`. */
  jump(target: Def, args: readonly Def[]): void {
    this.cur.jump(target, [this.mem, ...args]);
  }

  /**
   * Runs `then` only when `cond` holds: its results, or `otherwise` when it did not
   * run, are the values after the diamond (of the types of `otherwise`).
   */
  when(cond: Def, then: () => readonly Def[], otherwise: readonly Def[], name = 'lane'): Def[] {
    const w = this.world;
    const join = this.block(`${name}_join`, otherwise.map((d) => d.type));
    const yes = this.block(name);
    const no = this.block(`${name}_skip`);
    w.branch(this.cur, this.mem, cond, yes, no);
    no.jump(join, [no.param(0), ...otherwise]);
    this.enter(yes);
    const results = then();
    this.jump(join, results);
    this.enter(join);
    return join.params.slice(1);
  }
}
