// GPU launches in the interpreter (interp/gpu.ts), through the prelude's accelerators
// (compiler/lib/gpu.impala): every work item of every block runs, the work-item queries
// answer per target, barriers order the items of a block, shared memory is the block's,
// and what hardware would reject is an error. Each program runs as emitted and again
// after partial evaluation.
import { describe, expect, it } from 'vitest';
import { runPasses } from '../../compiler/src/driver/passes.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import type { Continuation } from '../../compiler/src/ir/index.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { arrayCells, arrayPointer, interpret, type Value } from '../../compiler/src/interp/index.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';

const ACCELERATORS = ['nvvm', 'cuda', 'opencl'] as const;

/** `test(out: &mut [i32], n: i32)` of `source`, run on an output of `n` zeros; returns the output. */
function runner(source: string): { run(n: number): number[]; evaluate(): void } {
  const sink = new DiagnosticSink();
  const front = frontEnd([{ path: 'gpu.impala', text: source }], sink);
  if (!front) throw new Error(sink.list.map((d) => d.message).join('\n'));
  const world: World = front.world;
  const test: Continuation = front.emitted.exports.find((c) => c.name === 'test')!;
  return {
    run(n) {
      const out = arrayPointer(world.types, world.types.prim('i32'), Array.from({ length: n }, () => 0n));
      interpret(world, test, [out, BigInt(n)] as Value[]);
      return arrayCells(out).map(Number);
    },
    evaluate() {
      expect(runPasses(world, { sink }, { through: 'pe' })).toBe(true);
    },
  };
}

/** Runs before and after partial evaluation; both must give the same output, which is returned. */
function runBoth(source: string, n: number): number[] {
  const r = runner(source);
  const before = r.run(n);
  r.evaluate();
  expect(r.run(n)).toEqual(before);
  return before;
}

function failure(source: string, n = 64): string {
  const r = runner(source);
  try {
    r.run(n);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the program ran without an error');
}

describe('GPU launches in the interpreter', () => {
  it.each(ACCELERATORS)('%s: every work item of a 3-d launch sees its indices', (acc) => {
    // A grid of 4 × 6 × 2 work items in blocks of 2 × 3 × 1: each item writes its 18 queries.
    const out = runBoth(`
extern fn test(out: &mut [i32], n: i32) -> () {
    ${acc}_accelerator(0).exec((4, 6, 2), (2, 3, 1), |i| {
        let k = ((i.gidz() * 6 + i.gidy()) * 4 + i.gidx()) * 18;
        let q = [i.tidx(), i.tidy(), i.tidz(), i.bidx(), i.bidy(), i.bidz(), i.bdimx(), i.bdimy(), i.bdimz(),
                 i.nblkx(), i.nblky(), i.nblkz(), i.gidx(), i.gidy(), i.gidz(), i.gdimx(), i.gdimy(), i.gdimz()];
        for j in range(0, 18) { out(k + j) = q(j) }
    })
}`, 4 * 6 * 2 * 18);
    const expected: number[] = [];
    for (let z = 0; z < 2; z++) {
      for (let y = 0; y < 6; y++) {
        for (let x = 0; x < 4; x++) {
          expected.push(x % 2, y % 3, 0, Math.floor(x / 2), Math.floor(y / 3), z, 2, 3, 1, 2, 2, 2, x, y, z, 4, 6, 2);
        }
      }
    }
    expect(out).toEqual(expected);
  });

  it.each(ACCELERATORS)('%s: a barrier orders the shared memory of a block', (acc) => {
    // Each block of 8 reverses its part of the grid through shared memory.
    const source = (barrier: string) => `
extern fn test(out: &mut [i32], n: i32) -> () {
    let acc = ${acc}_accelerator(0);
    acc.exec((n, 1, 1), (8, 1, 1), |i| {
        let s = reserve_shared[i32](8);
        s(i.tidx()) = i.gidx() * 10;
        ${barrier}
        out(i.gidx()) = s(7 - i.tidx())
    })
}`;
    const expected = Array.from({ length: 24 }, (_, g) => (g - (g % 8) + 7 - (g % 8)) * 10);
    expect(runBoth(source('acc.barrier();'), 24)).toEqual(expected);
    // Without it, items run one after another and read slots the later ones have not written yet.
    expect(runner(source('')).run(24)).not.toEqual(expected);
  });

  it('resumes a block after each of several barriers, in phases', () => {
    // Four rounds of "add the left neighbour's value" (a prefix sum over 4 items per block).
    const out = runBoth(`
extern fn test(out: &mut [i32], n: i32) -> () {
    let acc = nvvm_accelerator(0);
    acc.exec((n, 1, 1), (4, 1, 1), |i| {
        let s = reserve_shared[i32](4);
        let t = i.tidx();
        s(t) = i.gidx() + 1;
        acc.barrier();
        for d in unroll(0, 2) {
            let step = 1 << d;
            let v = if t >= step { s(t - step) } else { 0 };
            acc.barrier();
            s(t) += v;
            acc.barrier();
        }
        out(i.gidx()) = s(t)
    })
}`, 8);
    expect(out).toEqual([1, 3, 6, 10, 5, 11, 18, 26]);
  });

  it('gives every call of reserve_shared in a block its own array, and each block fresh ones', () => {
    const out = runBoth(`
extern fn test(out: &mut [i32], n: i32) -> () {
    let acc = opencl_accelerator(0);
    acc.exec((4, 1, 1), (2, 1, 1), |i| {
        let a = reserve_shared[i32](2);
        let b = reserve_shared[i32](2);
        // Nothing written by an earlier block shows through (fresh arrays read as zero here).
        out(i.gidx()) = a(i.tidx()) + b(i.tidx());
        a(i.tidx()) = 1;
        b(i.tidx()) = 10;
        acc.barrier();
        out(4 + i.gidx()) = a(1 - i.tidx()) + b(1 - i.tidx())
    })
}`, 8);
    expect(out).toEqual([0, 0, 0, 0, 11, 11, 11, 11]);
  });

  it('rejects what the hardware would', () => {
    const launch = (grid: string, block: string, body = 'out(i.gidx()) = 1') =>
      `extern fn test(out: &mut [i32], n: i32) -> () { let acc = nvvm_accelerator(0); acc.exec(${grid}, ${block}, |i| { ${body} }) }`;
    expect(failure(launch('(10, 1, 1)', '(4, 1, 1)'))).toMatch(/nvvm launch with grid \(10, 1, 1\) and block \(4, 1, 1\): the grid counts work items and must be a non-empty multiple of the block/);
    expect(failure(launch('(0, 1, 1)', '(4, 1, 1)'))).toMatch(/must be a non-empty multiple/);
    expect(failure(launch('(4, 1, 1)', '(4, 0, 1)'))).toMatch(/every dimension must be at least 1/);
    expect(failure(launch('(8, 1, 1)', '(4, 1, 1)', 'if i.tidx() < 2 { acc.barrier() }'))).toMatch(
      /in block \(0, 0, 0\), 2 of 4 work items wait at a barrier the others finished without reaching/,
    );
    expect(failure(launch('(4, 1, 1)', '(4, 1, 1)', 'acc.exec((1, 1, 1), (1, 1, 1), |j| out(0) = 2)'))).toMatch(/nvvm launch inside a GPU kernel/);
    expect(failure(launch('(4, 1, 1)', '(4, 1, 1)', 'out(i.tidx()) = opencl_builtins::get_local_id(0u) as i32'))).toMatch(/get_local_id is an opencl builtin, used in a kernel launched with nvvm/);
    expect(failure(launch('(4, 1, 1)', '(4, 1, 1)', 'let s = reserve_shared[i32](4 + i.tidx()); s(0) = 1'))).toMatch(
      /reserve_shared: call 1 of a work item asks for 5 × \[i32\], the block's array 1 is 4 × \[i32\]/,
    );
    expect(failure('extern fn test(out: &mut [i32], n: i32) -> () { out(0) = nvvm_builtins::tid_x() }')).toMatch(
      /llvm\.nvvm\.read\.ptx\.sreg\.tid\.x outside a GPU kernel/,
    );
  });
});
