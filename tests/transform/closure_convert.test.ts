import { describe, expect, it } from 'vitest';
import { Continuation, PrimOp } from '../../compiler/src/ir/defs.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { Closedness } from '../../compiler/src/ir/closedness.ts';
import { isControlOperand } from '../../compiler/src/ir/jumps.ts';
import { reachable } from '../../compiler/src/ir/reachable.ts';
import { closureConvert } from '../../compiler/src/transform/closure_convert.ts';
import { optimise } from '../../compiler/src/driver/passes.ts';
import {
  Builder, buildEscapingBreak, buildLocalFib, buildMakeAdder, buildMutualClosureRecursion, buildStoredClosures, buildWalk,
} from './support/programs.ts';

/** The backend's contract: every continuation is closed, or a first-order block used for control flow only. */
function backendViolations(w: World): string[] {
  const r = reachable(w);
  const free = new Closedness(r.continuations);
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

/** What verify reports, less its notes. */
function verifyErrors(w: World): string[] {
  return verify(w).filter((l) => !l.startsWith('note:'));
}

/**
 * Runs `main` on `cases` and checks the results are `expected`; optimises, which must
 * report nothing and leave a verified graph meeting the backend's contract with one
 * exported function; and runs that on `cases` again. Returns the exported function.
 */
function expectConverted(b: Builder, main: Continuation, cases: readonly bigint[][], expected: readonly bigint[]): Continuation {
  expect(cases.map((a) => b.run(main, a))).toEqual(expected);
  expect(optimised(b).list).toEqual([]);
  expect(verifyErrors(b.w)).toEqual([]);
  expect(backendViolations(b.w)).toEqual([]);
  const exported = [...b.w.continuations].filter((c) => c.external && c.hasBody);
  expect(exported).toHaveLength(1);
  expect(cases.map((a) => b.run(exported[0]!, a))).toEqual(expected);
  return exported[0]!;
}

describe('closure conversion', () => {
  it('converts closures passed to a function that is recursive in them', () => {
    const b = new Builder();
    const main = buildWalk(b);
    const cases = [[0n, 5n], [1n, 5n], [4n, -3n]];
    const expected = cases.map(([k, c]) => k! * (k! + 1n) + c!);
    expectConverted(b, main, cases, expected);
    // walk stays a real function taking a record, and its closure g became code with an environment.
    const names = reachable(b.w).continuations.map((c) => c.name);
    expect(names).toContain('walk');
    expect(names).toContain('g.code');
  });

  it('eliminates a returned closure without any record (lower2cff handles it)', () => {
    const b = new Builder();
    const main = buildMakeAdder(b);
    expect(expectConverted(b, main, [[3n, 4n]], [7n])).toBe(main);
    expect(reachable(b.w).continuations.filter((c) => c.hasBody).map((c) => c.name)).toEqual(['main']);
  });

  it('converts function values that live in memory, closures and top-level functions alike', () => {
    const b = new Builder();
    const main = buildStoredClosures(b);
    // main's type has no function value in it: it is rewritten in place and stays the exported object.
    expect(expectConverted(b, main, [[10n, 3n]], [19n])).toBe(main);
    const names = reachable(b.w).continuations.map((c) => c.name);
    expect(names).toContain('lam.code');
    expect(names).toContain('dbl.cc');
  });

  it('lambda-lifts a local function that recursion keeps nested: calls pass the captured values, nothing is allocated', () => {
    const b = new Builder();
    const main = buildLocalFib(b);
    const fib = (k: bigint, c: bigint): bigint => (k < 2n ? k + c : fib(k - 1n, c) + fib(k - 2n, c));
    const cases = [[0n, 1n], [6n, 2n], [10n, 0n]];
    const expected = cases.map(([n, c]) => fib(n!, c!) * 10n);
    expectConverted(b, main, cases, expected);
    const code = reachable(b.w).continuations.find((c) => c.name === 'fib.code')!;
    expect(new Closedness([code]).isClosed(code)).toBe(true);
    expect(String(code.param(1).type)).toBe('(i32)');
    expect(reachable(b.w).primops.filter((p) => p.tag === 'alloc')).toEqual([]);
  });

  it('handles recursion that wraps a closure through a second function', () => {
    const b = new Builder();
    const main = buildMutualClosureRecursion(b);
    const ns = [0n, 1n, 5n];
    expectConverted(b, main, ns.map((n) => [n]), ns.map((n) => n + 1n));
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

  function buildIntrinsicBodies(b: Builder): void {
    const { w } = b;
    const bodyT = b.fn([b.i32], null);
    const parallel = w.intrinsic('parallel', b.fn([b.i32, b.i32, b.i32, bodyT], null));
    const vectorize = w.intrinsic('vectorize', b.fn([b.i32, b.i32, b.i32, bodyT], null));
    const main = b.exported([b.i32], null, 'main', ['n']);
    const [mem, n, ret] = main.params;
    const { mem: m0, ptr: out } = b.stackSlot(mem!, b.i32);
    const pbody = b.func([b.i32], null, 'pbody', ['i']);
    pbody.jump(pbody.param(2), [w.store(pbody.param(0), out, w.arith('add', pbody.param(1), n!))]);
    const vbody = b.func([b.i32], null, 'vbody', ['i']);
    vbody.jump(vbody.param(2), [w.store(vbody.param(0), out, w.arith('mul', vbody.param(1), n!))]);
    const next = b.block('next');
    main.jump(parallel, [m0, b.lit(0), b.lit(0), n!, pbody, next]);
    next.jump(vectorize, [next.param(0), b.lit(8), b.lit(0), n!, vbody, ret!]);
  }

  function intrinsicCalls(b: Builder, kind: string): Continuation[] {
    return reachable(b.w).continuations.filter(
      (c) => c.hasBody && c.callee instanceof Continuation && c.callee.intrinsic === kind,
    );
  }

  it('hands an intrinsic it does not lower itself a function value as a record', () => {
    const b = new Builder();
    buildIntrinsicBodies(b);
    expect(closureConvert(b.w, new DiagnosticSink())).toBe(true);
    const record = intrinsicCalls(b, 'parallel')[0]!.arg(4) as PrimOp;
    expect(record.tag).toBe('tuple');
    expect((record.op(0) as Continuation).name).toBe('pbody.code');
  });

  it('leaves the body of vectorize a continuation for the vectoriser', () => {
    const b = new Builder();
    buildIntrinsicBodies(b);
    const sink = new DiagnosticSink();
    expect(closureConvert(b.w, sink)).toBe(true);
    expect(sink.list).toEqual([]);
    const body = intrinsicCalls(b, 'vectorize')[0]!.arg(4);
    expect(body).toBeInstanceOf(Continuation);
    expect((body as Continuation).name).toBe('vbody');
  });

  it('leaves no vectorize or parallel call after the whole pipeline', () => {
    const b = new Builder();
    buildIntrinsicBodies(b);
    expect(optimised(b).list).toEqual([]);
    expect(verifyErrors(b.w)).toEqual([]);
    expect(intrinsicCalls(b, 'parallel')).toEqual([]);
    expect(intrinsicCalls(b, 'vectorize')).toEqual([]);
  });

  it('gives the export to a converted copy when an exported function takes a function value', () => {
    const b = new Builder();
    const { w } = b;
    const fT = b.fn([b.i32], b.i32);
    const apply = b.exported([fT, b.i32], b.i32, 'apply', ['f', 'x']);
    apply.cc = 'C';
    apply.jump(apply.param(1), [apply.param(0), apply.param(2), apply.param(3)]);
    expect(optimised(b).list).toEqual([]);
    const exported = [...w.continuations].filter((c) => c.external && c.hasBody);
    expect(exported).toHaveLength(1);
    expect(exported[0]).not.toBe(apply);
    expect(exported[0]!.name).toBe('apply');
    expect(exported[0]!.cc).toBe('C');
    expect(String(exported[0]!.param(1).type)).toBe('(fn(mem, i8*, i32, fn(mem, i32)), i8*)');
  });

  it('changes nothing when no function value is left', () => {
    const b = new Builder();
    const main = b.exported([b.i32], b.i32, 'main', ['x']);
    main.jump(main.param(2), [main.param(0), main.param(1)]);
    const before = [...b.w.continuations];
    expect(closureConvert(b.w, new DiagnosticSink())).toBe(true);
    expect([...b.w.continuations]).toEqual(before);
  });
});
