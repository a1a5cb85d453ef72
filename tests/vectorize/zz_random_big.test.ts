// Randomly generated loop bodies (nested divergent and uniform ifs and loops,
// break, continue, early return, stores), vectorised at several widths: the
// native results must equal the interpreter's, which runs one iteration at a time.
// A failure prints the kernel; the seeds make it reproducible.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Native, buildNative, interpretScalar, random } from './support.ts';

const widths = [4, 8, 16];
const KERNELS = 150;

/** Writes one random body over `i`, `n` (uniform), `x(i)`, locals `a`, `b` and loop counters. */
class Gen {
  private counters: string[] = [];
  private loops = 0;
  constructor(private readonly rnd: () => number) {}

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)]!;
  }

  private atom(): string {
    return this.pick(['a', 'b', 'x(i)', 'i', 'n', `${Math.floor(this.rnd() * 20) - 5}`, ...this.counters]);
  }

  expr(depth = 0): string {
    if (depth > 2 || this.rnd() < 0.3) return this.atom();
    return `(${this.expr(depth + 1)} ${this.pick(['+', '-', '*', '&', '^', '|'])} ${this.expr(depth + 1)})`;
  }

  cond(): string {
    // Conditions on `n` and the counters alone are uniform.
    const lhs = this.rnd() < 0.3 ? this.pick(['n', ...this.counters]) : this.expr(1);
    return `${lhs} ${this.pick(['<', '>', '==', '!=', '<=', '>='])} ${this.expr(2)}`;
  }

  block(depth: number): string {
    const n = 1 + Math.floor(this.rnd() * 3);
    return Array.from({ length: n }, () => this.stmt(depth)).join('\n');
  }

  stmt(depth: number): string {
    const r = this.rnd();
    const inLoop = this.counters.length > 0;
    if (depth < 3 && r < 0.25) return `if ${this.cond()} {\n${this.block(depth + 1)}\n} else {\n${this.block(depth + 1)}\n}`;
    if (depth < 3 && r < 0.4 && this.loops < 3) {
      const j = `j${this.loops++}`;
      const bound = this.rnd() < 0.5 ? `(n & 3) + 1` : `(x(i) & 3) + ${Math.floor(this.rnd() * 3)}`;
      this.counters.push(j);
      const body = this.block(depth + 1);
      this.counters.pop();
      return `let mut ${j} = 0;\nwhile ${j} < ${bound} {\n${j}++;\n${body}\n}`;
    }
    if (inLoop && r < 0.47) return `if ${this.cond()} { ${this.pick(['break()', 'continue()'])} }`;
    if (r < 0.5) return `if ${this.cond()} { y(i) = ${this.expr()}; return() }`;
    if (r < 0.65) return `y(i) = ${this.expr()};`;
    return `${this.pick(['a', 'b'])} = ${this.expr()};`;
  }
}

function kernelBody(seed: number): string {
  const g = new Gen(random(seed));
  return `let mut a = x(i);\nlet mut b = i;\n${g.block(0)}\ny(i) = a + b;`;
}

const bodies = Array.from({ length: KERNELS }, (_, k) => kernelBody(5000 + k));
const source = bodies
  .flatMap((body, k) => widths.map((w) => `extern fn k${k}_w${w}(n: i32, x: &[i32], y: &mut [i32]) -> () {\n  vectorize(${w}, 0, n, |i| {\n${body}\n  });\n}`))
  .join('\n');

describe('random bodies', () => {
  let lib: Native;
  beforeAll(async () => {
    lib = await buildNative(source);
  });

  it.each(bodies.map((_, k) => k))('kernel %i agrees with the interpreter at every width', (k) => {
    const rnd = random(77 + k);
    for (const n of [13, 40]) {
      const x = Int32Array.from({ length: n }, () => Math.floor(rnd() * 200) - 100);
      const expected = new Int32Array(n);
      interpretScalar(source, `k${k}_w4`, n, x, expected);
      for (const w of widths) {
        const y = new Int32Array(n);
        lib.call(`k${k}_w${w}`, n, x, y);
        expect({ w, n, y: Array.from(y) }, bodies[k]).toEqual({ w, n, y: Array.from(expected) });
      }
    }
  });
});
