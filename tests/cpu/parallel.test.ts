// `parallel`, `spawn` and `sync` from Impala to native threads (TBB), checked
// against the interpreter, which runs every body sequentially, and against
// numbers computed here. The first block looks at the lowering itself.
import { describe, expect, it } from 'vitest';
import { runPasses } from '../../compiler/src/driver/passes.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import { Continuation } from '../../compiler/src/ir/defs.ts';
import { FnType, PtrType } from '../../compiler/src/ir/types.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { reachable } from '../../compiler/src/ir/reachable.ts';
import { runInterpreted, runNative } from './support.ts';

/** Emission, then the pass list through parallel lowering. */
function lowered(text: string): { world: World; sink: DiagnosticSink; ok: boolean } {
  const sink = new DiagnosticSink();
  const front = frontEnd([{ path: 'lower.impala', text }], sink);
  if (!front) throw new Error(sink.list.map((d) => d.message).join('\n'));
  const { world } = front;
  const ok = runPasses(world, { sink }, { through: 'parallel' });
  return { world, sink, ok };
}

function calledIntrinsics(world: World): string[] {
  return reachable(world)
    .continuations.filter((c) => c.hasBody && c.callee instanceof Continuation && c.callee.isIntrinsic)
    .map((c) => (c.callee as Continuation).intrinsic);
}

function calledImports(world: World): string[] {
  return reachable(world)
    .continuations.filter((c) => c.hasBody && c.callee instanceof Continuation && c.callee.isImported)
    .map((c) => (c.callee as Continuation).name);
}

describe('lowerParallel', () => {
  const nested = `
    fn main() -> i32 {
        let n = 64;
        let data = ~[n: i32];
        let k = 3;
        let mut total = 0;
        for i in parallel(0, 0, n) {
            for j in parallel(2, 0, i) { atomic[i32](ATOMIC_ADD, &mut total, j * k); }
            data(i) = i;
        }
        let id = spawn(|| { data(0) = total; });
        sync(id);
        data(0)
    }`;

  it('replaces parallel, spawn and sync by runtime calls with top-level bodies', () => {
    const { world, sink, ok } = lowered(nested);
    expect(sink.list).toEqual([]);
    expect(ok).toBe(true);
    expect(calledIntrinsics(world).filter((k) => k === 'parallel' || k === 'spawn' || k === 'sync')).toEqual([]);
    const imports = calledImports(world);
    expect(imports.filter((n) => n === 'anydsl_parallel_for')).toHaveLength(2);
    expect(imports).toContain('anydsl_spawn_thread');
    expect(imports).toContain('anydsl_sync_thread');
    // The spawned task's heap record is released when its body is done.
    expect(imports).toContain('anydsl_release');

    // Each parallel body is a function (mem, env: i8*, lower: i32, upper: i32, ret) without free variables.
    const bodies = reachable(world).continuations.filter((c) => c.name === 'parallel_body');
    expect(bodies).toHaveLength(2);
    for (const f of bodies) {
      const [mem, env, lower, upper, ret] = f.fnType.params;
      expect(String(mem)).toBe('mem');
      expect(env).toBeInstanceOf(PtrType);
      expect([String(lower), String(upper)]).toEqual(['i32', 'i32']);
      expect(ret).toBeInstanceOf(FnType);
    }

    expect(runPasses(world, { sink }, { after: 'parallel' })).toBe(true);
    expect(verify(world).filter((m) => !m.startsWith('note:'))).toEqual([]);
  });

  it('leaves a program without threads alone', () => {
    const { world, ok } = lowered('fn main() -> i32 { let mut s = 0; for i in range(0, 10) { s += i; } s }');
    expect(ok).toBe(true);
    expect(calledImports(world)).toEqual([]);
  });

  it('reports break and return out of a parallel body at the loop', () => {
    const brk = lowered(`
      fn main() -> i32 {
          let mut s = 0;
          for i in parallel(0, 0, 10) {
              if i == 5 { break() }
              atomic[i32](ATOMIC_ADD, &mut s, i);
          }
          s
      }`);
    expect(brk.ok).toBe(false);
    expect(brk.sink.list.map((d) => [d.span?.line, d.message])).toEqual([
      [4, expect.stringContaining("'break' and 'return' cannot leave a parallel loop")],
    ]);

    const ret = lowered(`
      fn first(n: i32) -> i32 {
          let out = return;
          let id = spawn(|| { if n > 3 { out(n) } });
          sync(id);
          0
      }
      fn main() -> i32 { first(5) }`);
    expect(ret.ok).toBe(false);
    expect(ret.sink.list.map((d) => d.message)).toEqual([expect.stringContaining('cannot leave a spawned task')]);
  });
});

// ------------------------------------------------------------ native runs

/** A pseudo-random u32 per index, as the Impala programs compute it. */
function value(i: number): number {
  const h = Math.imul(i, 2654435761) >>> 0;
  return (h ^ (h >>> 15)) >>> 0;
}

/** What the reduction program prints for `n` elements: the sequential line and the parallel line agree. */
function reductionExpected(n: number): string {
  let sum = 0n;
  let min = 2 ** 31 - 1;
  let max = -(2 ** 31);
  let umin = 2 ** 32 - 1;
  let umax = 0;
  let xor = 0;
  for (let i = 0; i < n; i++) {
    const v = value(i);
    const s = v | 0;
    sum += BigInt(s);
    min = Math.min(min, s);
    max = Math.max(max, s);
    umin = Math.min(umin, v);
    umax = Math.max(umax, v);
    xor = (xor ^ v) >>> 0;
  }
  const line = `${sum} ${min} ${max} ${umin} ${umax} ${xor}`;
  return `seq ${line}\npar ${line} xchg 1\n`;
}

function reductionProgram(n: number): string {
  return `
    fn @value(i: i32) -> u32 {
        let h = (i as u32) * 2654435761u;
        h ^ (h >> 15u)
    }

    fn show(what: &[u8], sum: i64, min: i32, max: i32, umin: u32, umax: u32, xor: u32) -> () {
        print_string(what);
        print_char(' '); print_i64(sum); print_char(' '); print_i32(min); print_char(' '); print_i32(max);
        print_char(' '); print_u32(umin); print_char(' '); print_u32(umax); print_char(' '); print_u32(xor);
    }

    fn main() -> i32 {
        let n = ${n};
        let data = ~[n: u32];
        for i in parallel(0, 0, n) { data(i) = value(i); }

        let mut sum = 0i64; let mut min = 2147483647; let mut max = -2147483647 - 1;
        let mut umin = 4294967295u; let mut umax = 0u; let mut xor = 0u;
        for i in range(0, n) {
            let v = data(i);
            let s = v as i32;
            sum += s as i64;
            if s < min { min = s }
            if s > max { max = s }
            if v < umin { umin = v }
            if v > umax { umax = v }
            xor ^= v;
        }
        show("seq", sum, min, max, umin, umax, xor);
        print_char('\\n');

        let mut psum = 0i64; let mut pmin = 2147483647; let mut pmax = -2147483647 - 1;
        let mut pumin = 4294967295u; let mut pumax = 0u; let mut pxor = 0u;
        let mut last = -1;
        let mut swapped = 0i64;
        for i in parallel(0, 0, n) {
            let v = data(i);
            let s = v as i32;
            atomic[i64](ATOMIC_ADD, &mut psum, s as i64);
            atomic[i32](ATOMIC_MIN, &mut pmin, s);
            atomic[i32](ATOMIC_MAX, &mut pmax, s);
            atomic[u32](ATOMIC_UMIN, &mut pumin, v);
            atomic[u32](ATOMIC_UMAX, &mut pumax, v);
            atomic[u32](ATOMIC_XOR, &mut pxor, v);
            let old = atomic[i32](ATOMIC_XCHG, &mut last, i);
            atomic[i64](ATOMIC_ADD, &mut swapped, old as i64);
        }
        // Every exchange hands out the previous value exactly once: what was swapped
        // out plus what is left are the initial -1 and every index.
        let all = -1i64 + (n as i64) * (n as i64 - 1i64) / 2i64;
        show("par", psum, pmin, pmax, pumin, pumax, pxor);
        print_string(" xchg "); print_i32(if swapped + last as i64 == all { 1 } else { 0 });
        print_char('\\n');
        0
    }`;
}

describe('parallel on native threads', () => {
  it('a parallel reduction over 10^7 elements with atomics equals the sequential one', async () => {
    const n = 10_000_000;
    const native = await runNative(reductionProgram(n), 'reduce_1e7');
    expect(native).toEqual({ stdout: reductionExpected(n), status: 0 });
  });

  it('the reduction agrees with the interpreter on a small input', async () => {
    const n = 3000;
    const text = reductionProgram(n);
    const expected = { stdout: reductionExpected(n), status: 0 };
    expect(runInterpreted(text, 'reduce_small')).toEqual(expected);
    expect(await runNative(text, 'reduce_small')).toEqual(expected);
  });

  it('runs the body once per index of [lower, upper): n = 0, n = 2, empty and reversed ranges, explicit thread counts', async () => {
    const text = `
      fn count(threads: i32, lower: i32, upper: i32) -> () {
          let mut runs = 0;
          let mut seen = 0i64;
          for i in parallel(threads, lower, upper) {
              atomic[i32](ATOMIC_ADD, &mut runs, 1);
              atomic[i64](ATOMIC_OR, &mut seen, 1i64 << ((i - lower) as i64));
          }
          print_i32(runs); print_char(' '); print_i64(seen); print_char('\\n');
      }
      fn main() -> i32 {
          count(0, 0, 0);
          count(0, 0, 2);
          count(0, 5, 5);
          count(0, 7, 3);
          count(1, 0, 2);
          count(3, 10, 12);
          count(0, -3, 40);
          0
      }`;
    const expected = { stdout: `0 0\n2 3\n0 0\n0 0\n2 3\n2 3\n43 ${2n ** 43n - 1n}\n`, status: 0 };
    expect(runInterpreted(text, 'bounds')).toEqual(expected);
    expect(await runNative(text, 'bounds')).toEqual(expected);
  });

  it('runs a body that is a function value (chosen at run time) through its closure record', async () => {
    const text = `
      static mut acc: i32 = 0;
      fn add(i: i32) -> () { atomic[i32](ATOMIC_ADD, &mut acc, i); }
      fn main(argc: i32, argv: &[&[u8]]) -> i32 {
          let mut s = 0;
          let twice = |i: i32| { atomic[i32](ATOMIC_ADD, &mut s, 2 * i); };
          let body = if argc > 5 { add } else { twice };
          parallel(0, 0, 100, body);
          parallel(0, 0, 10, add);
          print_i32(s); print_char(' '); print_i32(acc); print_char('\\n');
          0
      }`;
    const expected = { stdout: '9900 45\n', status: 0 };
    expect(runInterpreted(text, 'fnvalue')).toEqual(expected);
    expect(await runNative(text, 'fnvalue')).toEqual(expected);
  });

  it('spawn runs tasks concurrently and sync joins them: their results are visible afterwards', async () => {
    const text = `
      fn fill(out: &mut [i32], n: i32, seed: i32) -> () {
          for i in range(0, n) { out(i) = seed * 1000 + i % 1000; }
      }
      fn sum(a: &[i32], n: i32) -> i64 {
          let mut s = 0i64;
          for i in range(0, n) { s += a(i) as i64; }
          s
      }
      fn main() -> i32 {
          let n = 50000;
          let a = ~[n: i32];
          let b = ~[n: i32];
          let mut done = 0;
          let id_a = spawn(|| { fill(a, n, 1); done = 1; });
          let id_b = spawn(|| fill(b, n, 2));

          // One task per t, each with its own copy of t.
          let mut results = [0, .. 4];
          let mut ids = [0, .. 4];
          for t in range(0, 4) {
              ids(t) = spawn(|| {
                  let mut s = 0;
                  for i in range(0, 1000 * (t + 1)) { s += i % 7; }
                  results(t) = s;
              });
          }
          sync(id_a);
          sync(id_b);
          for t in range(0, 4) { sync(ids(t)); }

          // A task that runs a parallel loop of its own.
          let mut total = 0i64;
          let id = spawn(|| { for i in parallel(0, 0, 1000) { atomic[i64](ATOMIC_ADD, &mut total, i as i64); } });
          sync(id);

          let mut distinct = 1;
          for s in range(0, 4) { for t in range(s + 1, 4) { if ids(s) == ids(t) || ids(t) == id_a || ids(t) == id_b { distinct = 0 } } }
          print_i64(sum(a, n)); print_char(' '); print_i64(sum(b, n)); print_char(' '); print_i32(done); print_char('\\n');
          for t in range(0, 4) { print_i32(results(t)); print_char(' '); }
          print_i64(total); print_char(' '); print_i32(distinct); print_char('\\n');
          0
      }`;
    const fillSum = (seed: number): number => {
      let s = 0;
      for (let i = 0; i < 50000; i++) s += seed * 1000 + (i % 1000);
      return s;
    };
    const task = (t: number): number => {
      let s = 0;
      for (let i = 0; i < 1000 * (t + 1); i++) s += i % 7;
      return s;
    };
    const expected = {
      stdout: `${fillSum(1)} ${fillSum(2)} 1\n${[0, 1, 2, 3].map(task).join(' ')} ${(999 * 1000) / 2} 1\n`,
      status: 0,
    };
    expect(runInterpreted(text, 'spawn')).toEqual(expected);
    expect(await runNative(text, 'spawn')).toEqual(expected);
  });
});
