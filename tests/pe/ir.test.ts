// The evaluator on hand-built IR (ir/README.md conventions): filters folded with
// the arguments substituted, `hlt` and `run` callees, the memo and polyvariance.
import { describe, expect, it } from 'vitest';
import { type Continuation, type Def, type IRType, World } from '../../compiler/src/ir/index.ts';
import { interpret, type Value } from '../../compiler/src/interp/index.ts';
import { partialEvaluate } from '../../compiler/src/pe/index.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';

class Ir {
  readonly w = new World();
  readonly i32 = this.w.prim('i32');

  /** `fn(mem, params…, fn(mem[, r]))`, external when it is an entry. */
  fn(name: string, params: readonly IRType[], r: IRType | null, names: readonly string[]): Continuation {
    const ret = this.w.fnType(r ? [this.w.mem, r] : [this.w.mem]);
    return this.w.continuation(this.w.fnType([this.w.mem, ...params, ret]), name, ['mem', ...names, 'return']);
  }

  entry(name: string, params: readonly IRType[], r: IRType | null, names: readonly string[]): Continuation {
    const c = this.fn(name, params, r, names);
    c.external = true;
    return c;
  }

  block(name: string, values: readonly IRType[] = []): Continuation {
    return this.w.continuation(this.w.fnType([this.w.mem, ...values]), name, ['mem', ...values.map(() => 'v')]);
  }

  lit(n: number): Def {
    return this.w.litI32(n);
  }

  /** Runs the evaluator; returns its trace. */
  evaluate(): string[] {
    const trace: string[] = [];
    const sink = new DiagnosticSink();
    expect(partialEvaluate(this.w, { sink, trace: (l) => trace.push(l) })).toBe(true);
    expect(sink.list).toEqual([]);
    return trace;
  }

  run(entry: Continuation, args: readonly Value[]): { result: Value; stdout: string } {
    const r = interpret(this.w, entry, args);
    return { result: r.result, stdout: r.stdout };
  }
}

describe('the partial evaluator on hand-built IR', () => {
  it('evaluates filters with the arguments substituted: ? and comparisons fold', () => {
    const ir = new Ir();
    const { w } = ir;
    // fn f(@(?a) a: i32, @(b < 5) b: i32) -> i32 { a + b }
    const f = ir.fn('f', [ir.i32, ir.i32], ir.i32, ['a', 'b']);
    const [fm, a, b, fr] = f.params;
    f.filter = [w.litBool(false), w.known(a!), w.cmp('lt', b!, ir.lit(5)), w.litBool(false)];
    f.jump(fr!, [fm!, w.arith('add', a!, b!)]);
    // main(x) = f(3, x) + 10 * f(x, 4)
    const main = ir.entry('main', [ir.i32], ir.i32, ['x']);
    const [m, x, r] = main.params;
    const k1 = ir.block('k1', [ir.i32]);
    const k2 = ir.block('k2', [ir.i32]);
    main.jump(f, [m!, ir.lit(3), x!, k1]);
    k1.jump(f, [k1.param(0), x!, ir.lit(4), k2]);
    k2.jump(r!, [k2.param(0), w.arith('add', k1.param(1), w.arith('mul', k2.param(1), ir.lit(10)))]);

    const xs = [[0n], [9n], [-4n]];
    const before = xs.map((args) => ir.run(main, args));
    const trace = ir.evaluate();
    expect(xs.map((args) => ir.run(main, args))).toEqual(before);
    expect(trace.filter((l) => l.includes('(filter)'))).toEqual([
      'specialise f at <unknown location>: args [a] = 3 (filter)',
      'specialise f at <unknown location>: args [b] = 4 (filter)',
    ]);
    // Each specialisation has one call site and is inlined: f is gone.
    expect([...w.continuations].some((c) => c.name === 'f')).toBe(false);
  });

  it('never specialises a $ argument, and ? of it is false', () => {
    const ir = new Ir();
    const { w } = ir;
    // fn @f(a: i32) -> i32 { if ?a { 1 } else { 2 } }
    const f = ir.fn('f', [ir.i32], ir.i32, ['a']);
    const [fm, a, fr] = f.params;
    f.filter = [w.litBool(false), w.litBool(true), w.litBool(false)];
    f.jump(fr!, [fm!, w.select(w.known(a!), ir.lit(1), ir.lit(2))]);
    // main() = 10 * f($7) + f(7)
    const main = ir.entry('main', [], ir.i32, []);
    const [m, r] = main.params;
    const k1 = ir.block('k1', [ir.i32]);
    const k2 = ir.block('k2', [ir.i32]);
    main.jump(f, [m!, w.hlt(ir.lit(7)), k1]);
    k1.jump(f, [k1.param(0), ir.lit(7), k2]);
    k2.jump(r!, [k2.param(0), w.arith('add', w.arith('mul', k1.param(1), ir.lit(10)), k2.param(1))]);

    // Unevaluated, `?` is false everywhere.
    expect(ir.run(main, []).result).toBe(22n);
    const trace = ir.evaluate();
    expect(trace.filter((l) => l.includes('(filter)'))).toEqual(['specialise f at <unknown location>: args [a] = 7 (filter)']);
    expect(ir.run(main, []).result).toBe(21n);
  });

  it('specialises every argument of a run (@@) callee, whatever its filters', () => {
    const ir = new Ir();
    const { w } = ir;
    const g = ir.fn('g', [ir.i32], ir.i32, ['x']);
    g.jump(g.param(2), [g.param(0), w.arith('mul', g.param(1), ir.lit(2))]);
    // main(x) = g(@@g(x))
    const main = ir.entry('main', [ir.i32], ir.i32, ['x']);
    const [m, x, r] = main.params;
    const k1 = ir.block('k1', [ir.i32]);
    main.jump(w.run(g), [m!, x!, k1]);
    k1.jump(g, [k1.param(0), k1.param(1), r!]);

    const before = ir.run(main, [5n]);
    const trace = ir.evaluate();
    expect(ir.run(main, [5n])).toEqual(before);
    expect(trace[0]).toBe('specialise g at <unknown location>: args [mem, x, return] = mem, x, k1 (@@)');
  });

  it('memoises specialisations per callee and specialised values, one per distinct value', () => {
    const ir = new Ir();
    const { w } = ir;
    // fn h(@(?n) n: i32) -> () { print_i32(n) }
    const print = w.imported(w.fnType([w.mem, ir.i32, w.fnType([w.mem])]), 'anydsl_print_i32', 'C');
    const h = ir.fn('h', [ir.i32], null, ['n']);
    const [hm, n, hr] = h.params;
    h.filter = [w.litBool(false), w.known(n!), w.litBool(false)];
    h.jump(print, [hm!, n!, hr!]);
    // main() { h(2); h(2); h(3) }
    const main = ir.entry('main', [], null, []);
    const [m, r] = main.params;
    const k1 = ir.block('k1');
    const k2 = ir.block('k2');
    main.jump(h, [m!, ir.lit(2), k1]);
    k1.jump(h, [k1.param(0), ir.lit(2), k2]);
    k2.jump(h, [k2.param(0), ir.lit(3), r!]);

    expect(ir.run(main, []).stdout).toBe('223');
    const trace = ir.evaluate();
    expect(ir.run(main, []).stdout).toBe('223');
    expect(trace.filter((l) => l.includes('(filter)'))).toEqual([
      'specialise h at <unknown location>: args [n] = 2 (filter)',
      'specialise h at <unknown location>: args [n] = 3 (filter)',
    ]);
    // The two calls with 2 share their specialisation, which stays a function.
    expect(main.callee).toBe(k1.callee);
    expect(main.callee).not.toBe(h);
    expect((main.callee as Continuation).params).toHaveLength(2);
  });
});
