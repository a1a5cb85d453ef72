// What one activation of a continuation evaluates, worked out once per
// continuation: every primop its body needs, in the order a lazy left-to-right
// evaluation would reach them (so effects happen in the same order), with each
// operand resolved to where its value lives. Running the plan is then a loop over
// an array instead of a graph walk with map lookups per operand.
//
// Pure primops of enclosing activations (the loop counter arithmetic a block does
// on its header's params) are simply recomputed; only effects (loads, stores,
// allocations) must happen once per activation they belong to, so those are read
// from, or evaluated in, that activation.
import { Continuation, type Def, Param, PrimOp } from '../ir/defs.ts';
import type { Nesting } from '../ir/nesting.ts';
import { PrimType } from '../ir/types.ts';
import type { Closure, Value } from './values.ts';

export type Operand =
  /** A literal or a closed continuation. */
  | { readonly kind: 'value'; readonly value: Value }
  /** A param of the activation itself. */
  | { readonly kind: 'own'; readonly index: number }
  /** A primop computed earlier by the plan. */
  | { readonly kind: 'local'; readonly index: number }
  /** A param of an enclosing activation. */
  | { readonly kind: 'param'; readonly param: Param }
  /** A continuation that captures enclosing activations. */
  | { readonly kind: 'closure'; readonly continuation: Continuation; readonly needs: ReadonlySet<Continuation> }
  /** A primop that depends on no activation, evaluated once per run. */
  | { readonly kind: 'constant'; readonly op: PrimOp };

export interface Step {
  readonly op: PrimOp;
  /** The operands of a primop computed here; null for an effect of an enclosing activation. */
  readonly operands: readonly Operand[] | null;
}

const effects = new Set(['load', 'store', 'enter', 'slot', 'alloc', 'global', 'asm']);

export interface Plan {
  readonly steps: readonly Step[];
  readonly callee: Operand;
  readonly args: readonly Operand[];
  /** The step of each primop whose value belongs to this activation. */
  readonly slots: ReadonlyMap<PrimOp, number>;
}

/** `closed` gives the (shared) closure value of a continuation that captures nothing. */
export function makePlan(c: Continuation, nesting: Nesting, closed: (k: Continuation) => Closure): Plan {
  const steps: Step[] = [];
  const slotOf = new Map<PrimOp, number>();
  const slots = new Map<PrimOp, number>();

  const operand = (d: Def): Operand => {
    if (d instanceof Param) return d.continuation === c ? { kind: 'own', index: d.index } : { kind: 'param', param: d };
    if (d instanceof Continuation) {
      const needs = nesting.needs(d);
      return needs.size ? { kind: 'closure', continuation: d, needs } : { kind: 'value', value: closed(d) };
    }
    const p = d as PrimOp;
    if (p.tag === 'lit' && (p.type as PrimType).length === 1) return { kind: 'value', value: p.payload as Value };
    const slot = slotOf.get(p);
    return slot === undefined ? { kind: 'constant', op: p } : { kind: 'local', index: slot };
  };

  const add = (p: PrimOp, operands: Operand[] | null): void => {
    slotOf.set(p, steps.length);
    if (nesting.owners(p).has(c)) slots.set(p, steps.length);
    steps.push({ op: p, operands });
  };

  // Post-order, operands left to right, without JS recursion (mem chains of unrolled code are long).
  const visited = new Set<PrimOp>();
  const stack: { p: PrimOp; next: number }[] = [];
  const enter = (d: Def): void => {
    if (!(d instanceof PrimOp) || visited.has(d) || (d.tag === 'lit' && (d.type as PrimType).length === 1)) return;
    visited.add(d);
    const owners = nesting.owners(d);
    if (owners.has(c) || (owners.size && !effects.has(d.tag))) stack.push({ p: d, next: 0 });
    else if (owners.size) add(d, null);
  };
  for (const root of c.ops) {
    enter(root);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.p.ops.length) enter(top.p.ops[top.next++]!);
      else {
        stack.pop();
        add(top.p, top.p.ops.map(operand));
      }
    }
  }
  const [callee, ...args] = c.ops.map(operand);
  return { steps, callee: callee!, args, slots };
}
