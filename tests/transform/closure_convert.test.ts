import { describe, expect, it } from 'vitest';
import { Continuation } from '../../compiler/src/ir/defs.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { FreeParams, isControlOperand, reachable } from '../../compiler/src/transform/analysis.ts';
import { closureConvert } from '../../compiler/src/transform/closure_convert.ts';
import { optimise } from '../../compiler/src/transform/pipeline.ts';
import {
  Builder, buildEscapingBreak, buildLocalFib, buildMakeAdder, buildMutualClosureRecursion, buildStoredClosures, buildWalk,
} from './support/programs.ts';
import { runIR } from './support/run-ir.ts';

/** The backend's contract: every continuation is closed, or a first-order block used for control flow only. */
function backendViolations(w: World): string[] {
  const r = reachable(w);
  const free = new FreeParams(r.continuations);
  const out: string[] = [];
  for (const c of r.continuations) {
    if (!c.hasBody || free.isClosed(c)) continue;
    if (c.fnType.order !== 1) out.push(`${c.label} is nested and higher-order`);
    for (const { user, index } of c.uses.values()) {
      if (!(user instanceof Continuation) || !isControlOperand(user, index)) out.push(`${c.label} is nested and used as a value`);
    }
  }
  return out;
}

function optimised(b: Builder): DiagnosticSink {
  const sink = new DiagnosticSink();
  optimise(b.w, { sink });
  return sink;
}

describe('closure conversion', () => {
  it('converts closures passed to a function that is recursive in them', () => {
    const b = new Builder();
    const main = buildWalk(b);
    const cases = [[0n, 5n], [1n, 5n], [4n, -3n]];
    const expected = cases.map(([k, c]) => [k! * (k! + 1n) + c!]);
    expect(cases.map((a) => runIR(main, a).result)).toEqual(expected);

    expect(optimised(b).list).toEqual([]);
    expect(verify(b.w).filter((l) => !l.startsWith('note:'))).toEqual([]);
    expect(backendViolations(b.w)).toEqual([]);
    const entry = [...b.w.continuations].find((c) => c.external && c.hasBody)!;
    expect(cases.map((a) => runIR(entry, a).result)).toEqual(expected);
    // walk stays a real function taking a record, and its closure g became code with an environment.
    const names = reachable(b.w).continuations.map((c) => c.name);
    expect(names).toContain('walk');
    expect(names).toContain('g.code');
  });

  it('eliminates a returned closure without any record (lower2cff handles it)', () => {
    const b = new Builder();
    const main = buildMakeAdder(b);
    expect(runIR(main, [3n, 4n]).result).toEqual([7n]);
    expect(optimised(b).list).toEqual([]);
    expect(verify(b.w).filter((l) => !l.startsWith('note:'))).toEqual([]);
    expect(reachable(b.w).continuations.filter((c) => c.hasBody).map((c) => c.name)).toEqual(['main']);
    expect(runIR(main, [3n, 4n]).result).toEqual([7n]);
  });

  it('converts function values that live in memory, closures and top-level functions alike', () => {
    const b = new Builder();
    const main = buildStoredClosures(b);
    expect(runIR(main, [10n, 3n]).result).toEqual([19n]);
    expect(optimised(b).list).toEqual([]);
    expect(verify(b.w).filter((l) => !l.startsWith('note:'))).toEqual([]);
    expect(backendViolations(b.w)).toEqual([]);
    const entry = [...b.w.continuations].find((c) => c.external && c.hasBody)!;
    expect(entry).not.toBe(main);
    expect(runIR(entry, [10n, 3n]).result).toEqual([19n]);
    const names = reachable(b.w).continuations.map((c) => c.name);
    expect(names).toContain('lam.code');
    expect(names).toContain('dbl.cc');
  });

  it('lifts a local closure that is recursive with changing return continuations; calls pass its environment', () => {
    const b = new Builder();
    const main = buildLocalFib(b);
    const fib = (k: bigint, c: bigint): bigint => (k < 2n ? k + c : fib(k - 1n, c) + fib(k - 2n, c));
    const cases = [[0n, 1n], [6n, 2n], [10n, 0n]];
    const expected = cases.map(([n, c]) => [fib(n!, c!) * 10n]);
    expect(cases.map((a) => runIR(main, a).result)).toEqual(expected);
    expect(optimised(b).list).toEqual([]);
    expect(verify(b.w).filter((l) => !l.startsWith('note:'))).toEqual([]);
    expect(backendViolations(b.w)).toEqual([]);
    const entry = [...b.w.continuations].find((c) => c.external && c.hasBody)!;
    expect(cases.map((a) => runIR(entry, a).result)).toEqual(expected);
    const code = reachable(b.w).continuations.find((c) => c.name === 'fib.code')!;
    // Recursive calls inside the code reuse its own environment: no allocation in the code.
    const allocs = reachable(b.w).primops.filter((p) => p.tag === 'alloc');
    expect(allocs).toHaveLength(1);
    expect(new FreeParams([code]).isClosed(code)).toBe(true);
  });

  it('handles recursion that wraps a closure through a second function', () => {
    const b = new Builder();
    const main = buildMutualClosureRecursion(b);
    const ns = [0n, 1n, 5n];
    expect(ns.map((n) => runIR(main, [n]).result)).toEqual(ns.map((n) => [n + 1n]));
    expect(optimised(b).list).toEqual([]);
    expect(verify(b.w).filter((l) => !l.startsWith('note:'))).toEqual([]);
    expect(backendViolations(b.w)).toEqual([]);
    const entry = [...b.w.continuations].find((c) => c.external && c.hasBody)!;
    expect(ns.map((n) => runIR(entry, [n]).result)).toEqual(ns.map((n) => [n + 1n]));
  });

  it('reports a break that escapes into a closure as a non-local jump, with its span', () => {
    const b = new Builder();
    const { brk } = buildEscapingBreak(b);
    const sink = optimised(b);
    expect(sink.list.map((d) => d.message)).toEqual([
      expect.stringContaining("cannot compile a non-local jump out of 'break'"),
    ]);
    expect(sink.list[0]!.span).toEqual(brk.span);
  });

  it('changes nothing when no function value is left', () => {
    const b = new Builder();
    const main = b.func([b.i32], b.i32, 'main', ['x']);
    main.external = true;
    main.jump(main.param(2), [main.param(0), main.param(1)]);
    const before = [...b.w.continuations];
    expect(closureConvert(b.w, new DiagnosticSink())).toBe(true);
    expect([...b.w.continuations]).toEqual(before);
  });
});
