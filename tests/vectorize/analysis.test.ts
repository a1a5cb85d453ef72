// The uniform/varying analysis on bodies as lower2cff leaves them, and the shape
// of the code the vectoriser makes from it.
import { describe, expect, it } from 'vitest';
import { runPasses } from '../../compiler/src/driver/passes.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { Continuation, type Param } from '../../compiler/src/ir/index.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { reachable } from '../../compiler/src/ir/reachable.ts';
import { BodyCfg } from '../../compiler/src/vectorize/cfg.ts';
import { Divergence } from '../../compiler/src/vectorize/divergence.ts';
import { LoopForest } from '../../compiler/src/vectorize/loops.ts';
import { vectorised } from './support.ts';

/** The analyses of the one `vectorize` body in `source`, and its block params by name. */
function analyse(source: string): { div: Divergence; forest: LoopForest; param: (name: string) => Param } {
  const sink = new DiagnosticSink();
  const fe = frontEnd([{ path: 'test.impala', text: source }], sink);
  if (!fe) throw new Error(sink.list.map((d) => d.message).join('\n'));
  if (!runPasses(fe.world, { sink }, { before: 'vectorize' })) throw new Error(sink.list.map((d) => d.message).join('\n'));
  const call = reachable(fe.world).continuations.find((c) => c.hasBody && c.callee instanceof Continuation && c.callee.intrinsic === 'vectorize');
  const cfg = new BodyCfg(call!.arg(4) as Continuation);
  const forest = new LoopForest(cfg);
  const params = cfg.blocks.flatMap((b) => b.params);
  const param = (name: string): Param => {
    const found = params.filter((p) => p.name === name);
    if (found.length !== 1) throw new Error(`${found.length} params named ${name}: ${params.map((p) => p.name).join(', ')}`);
    return found[0]!;
  };
  return { div: new Divergence(cfg, forest), forest, param };
}

const mandelbrot = `
  extern fn mandel(w: i32, maxit: i32, out: &mut [i32]) -> () {
    vectorize(8, 0, w, |x| {
      let c = (x as f32) / (w as f32);
      let mut zr = 0.0f;
      let mut zi = 0.0f;
      let mut k = 0;
      while k < maxit {
        if zr * zr + zi * zi > 4.0f { break() }
        let t = zr * zr - zi * zi + c;
        zi = 2.0f * zr * zi;
        zr = t;
        k++;
      }
      out(x) = k;
    });
  }`;

describe('the uniform/varying analysis', () => {
  it('keeps the trip counter of a divergent loop uniform inside it, and the loop divergent', () => {
    const { div, forest, param } = analyse(mandelbrot);
    expect(div.paramVarying(param('zr'))).toBe(true);
    expect(div.paramVarying(param('k'))).toBe(false);
    expect(forest.loops).toHaveLength(1);
    expect(div.loopDivergent(forest.loops[0]!)).toBe(true);
    // After the loop, k is read per lane: each lane left at its own iteration.
    const header = param('k').continuation;
    const exitBlock = forest.exitTargets(forest.loops[0]!)[0]!;
    expect(div.varyingAt(param('k'), exitBlock)).toBe(true);
    expect(div.varyingAt(param('k'), header)).toBe(false);
  });

  it('makes a value varying at a join of a varying branch, and not at a join of a uniform one', () => {
    const { div, param } = analyse(`
      extern fn f(n: i32, m: i32, y: &mut [i32]) -> () {
        vectorize(8, 0, n, |i| {
          let mut u = 0;
          if m > 3 { u = 1; } else { u = 2; }
          let mut v = 0;
          if i > 3 { v = 1; } else { v = 2; }
          y(i) = u + v;
        });
      }`);
    const joins = [param('u'), param('v')];
    expect(joins.map((p) => div.paramVarying(p))).toEqual([false, true]);
    expect(div.branchesDiverge).toBe(true);
  });

  it('finds no divergence in a body whose branches depend on uniform values only', () => {
    const { div, forest } = analyse(`
      extern fn f(n: i32, r: i32, x: &[f32], y: &mut [f32]) -> () {
        vectorize(8, 0, n, |i| {
          let mut s = 0.0f;
          let mut k = 0;
          while k < r { s += x(i + k); k++; }
          y(i) = s;
        });
      }`);
    expect(div.branchesDiverge).toBe(false);
    expect(div.loopDivergent(forest.loops[0]!)).toBe(false);
  });
});

describe('the vectorised code', () => {
  it('leaves no vectorize call and no lane query behind', () => {
    const { world, errors } = vectorised(`${mandelbrot}
      extern fn g(v: i32) -> i32 { lane_id() + num_lanes() }`);
    expect(errors).toEqual([]);
    const left = reachable(world).continuations.filter((c) => c.hasBody && c.callee instanceof Continuation && c.callee.isIntrinsic);
    expect(left.map((c) => (c.callee as Continuation).intrinsic).filter((k) => k !== 'branch' && k !== 'match')).toEqual([]);
  });

  it('keeps uniform control flow as branches on scalars, without masks in full iterations', async () => {
    const { world } = vectorised(`
      extern fn f(n: i32, r: i32, x: &[f32], y: &mut [f32]) -> () {
        vectorize(8, 0, n, |i| {
          let mut s = 0.0f;
          let mut k = 0;
          while k < r { s += x(i + k); k++; }
          y(i) = s;
        });
      }`);
    const blocks = reachable(world).continuations;
    const branches = blocks.filter((c) => c.hasBody && c.callee instanceof Continuation && c.callee.intrinsic === 'branch');
    // the loop heads, the tests of the masked iterations, and the while loop's test in each of the two iterations
    expect(branches.every((c) => c.arg(1).type.toString() === 'bool')).toBe(true);
    const full = blocks.find((c) => c.name === 'vector_iteration')!;
    const selects: string[] = [];
    const seen = new Set<Continuation>();
    const walk = (c: Continuation): void => {
      if (seen.has(c) || !c.hasBody) return;
      seen.add(c);
      for (const o of c.ops) {
        if (o instanceof Continuation && !o.isIntrinsic && o.name !== 'vector_next') walk(o);
        else if ('tag' in o && o.tag === 'select') selects.push(o.label);
      }
    };
    walk(full);
    expect(selects).toEqual([]);
  });
});
