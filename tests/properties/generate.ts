// A generator of well-typed Impala programs, typed by construction: every
// expression is generated for a type, from the variables in scope. Arithmetic that
// LLVM leaves undefined but Impala defines (docs/language.md, "Defined semantics of
// arithmetic") is generated at its edges: shifts by any amount (negative, the width
// or more), MIN / -1 and MIN % -1, float to integer casts of NaN, infinities and
// out-of-range values. Divisors are odd: a zero divisor stops the program only where
// its quotient is still computed, and the evaluator and the folder remove unused or
// absorbed divisions (docs/language.md), so the interpreter right after emission would
// stop where later stages do not. Array indices out of bounds are masked. The
// interpreter, the partial evaluator and the native code at -O0 and -O3 must agree on
// every program. The output of a program depends on
// nothing but its text and its inputs: loops have small constant trip counts
// (bounded by masks where the bound is dynamic), recursion has a bounded depth,
// and floats are printed only after NaN is mapped to 0 (the sign of a NaN is not
// something the interpreter models).
//
// The generator draws from fast-check's random source (`caseArbitrary`); its
// shrinker is `reductions` (ast.ts).
import fc from 'fast-check';
import {
  type Block, type Case, type Expr, type Item, type Lit, type Part, type Scalar, type Stmt, block, itemUse, lit, nameUse, op, reductions, ref, stmt,
} from './ast.ts';

/** Items every batch defines once, used by generated code (`pp_` keeps them apart from the prelude). */
export const SHARED_ITEMS = `
fn pp_f2i(x: f64) -> i32 { if x < 1.0e9 && x > -1.0e9 { x as i32 } else { -7 } }
fn pp_fin(x: f64) -> f64 { if x == x { x } else { 0.0 } }
fn pp_fin32(x: f32) -> f32 { if x == x { x } else { 0.0f } }
fn pp_apply(f: fn(i32) -> i32, x: i32) -> i32 { f(x) }
fn pp_apply2(f: fn(i32) -> i32, x: i32) -> i32 { f(f(x)) }
fn pp_each3(f: fn(i32) -> (), x: i32) -> () { f(x); f(x + 1); f(x + 2) }
fn pp_countdown(n: i32, body: fn(i32) -> ()) -> () { if n > 0 { body(n); pp_countdown(n - 1, body) } }
fn pp_adder(k: i32) -> fn(i32) -> i32 { |z: i32| z + k }
fn pp_compose(f: fn(i32) -> i32, g: fn(i32) -> i32) -> fn(i32) -> i32 { |x: i32| g(f(x)) }
fn pp_fold(n: i32, init: i64, f: fn(i64, i32) -> i64) -> i64 { let mut acc = init; for i in range(0, n) { acc = f(acc, i); } acc }
fn @(?n) pp_unroll_down(n: i32, body: fn(i32) -> ()) -> () { if n > 0 { pp_unroll_down(n - 1, body); @@body(n - 1) } }
fn pp_pick[T](c: bool, a: T, b: T) -> T { if c { a } else { b } }
fn pp_load[T](p: &T) -> T { *p }
fn pp_store[T](p: &mut T, v: T) -> () { *p = v }
`;

type IntType = Exclude<Scalar, 'bool' | 'f32' | 'f64'>;
type FloatType = 'f32' | 'f64';
const INT_TYPES: readonly IntType[] = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64'];
const BITS: Record<IntType, number> = { i8: 8, u8: 8, i16: 16, u16: 16, i32: 32, u32: 32, i64: 64, u64: 64 };
/** How often each type is drawn: i32 (loop indices, masks, closures) most. */
const SCALAR_WEIGHTS: readonly (readonly [Scalar, number])[] = [
  ['i32', 4], ['i64', 2], ['u32', 2], ['bool', 2], ['f64', 2], ['i8', 1], ['u8', 1], ['i16', 1], ['u16', 1], ['u64', 1], ['f32', 1],
];

const isInt = (t: Scalar): t is IntType => t in BITS;
const isSigned = (t: IntType): boolean => t.startsWith('i');

type Var =
  | { kind: 'scalar'; name: string; t: Scalar; mut: boolean }
  | { kind: 'tuple'; name: string; elems: Scalar[]; mut: boolean }
  | { kind: 'struct'; name: string; item: string; fields: { name: string; t: Scalar }[]; mut: boolean }
  | { kind: 'array'; name: string; elem: Scalar; n: number; mut: boolean }
  /** `fn(i32) -> i32` */
  | { kind: 'fn'; name: string }
  /** `fn(i32) -> ()` */
  | { kind: 'proc'; name: string };

type Aggregate = Extract<Var, { kind: 'tuple' | 'struct' | 'array' }>;

interface Ctx {
  /** Inside a loop body: which of `break()` and `continue()` may be used (see `forLoop`). */
  loop: 'break' | 'continue' | null;
  loopDepth: number;
  depth: number;
  /** The result type of the enclosing fn when `return` is bound to it (not inside a closure). */
  ret: Scalar | null;
  /** Inside a helper's body: no further helpers are made (keeps recursion between helpers out). */
  helper: boolean;
}

interface Helper {
  name: string;
  params: ({ t: Scalar } | { agg: Aggregate })[];
  ret: Scalar;
  recursive: boolean;
}

/** The random source: fast-check's, so runs are reproducible from a seed. */
interface Rand {
  int(lo: number, hi: number): number;
  bigint(lo: bigint, hi: bigint): bigint;
}

function intRange(t: IntType): [bigint, bigint] {
  const bits = BigInt(BITS[t]);
  return isSigned(t) ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
}

/** `n` as a literal of type `t`; negative values in parentheses, the minimum as a subtraction (`-2147483648` would not fit before negation). */
export function intText(t: IntType, n: bigint): string {
  const suffix = t === 'i32' ? '' : t;
  const [min] = intRange(t);
  if (n === min && isSigned(t)) return `(-${-(n + 1n)}${suffix} - 1${suffix})`;
  return n < 0n ? `(-${-n}${suffix})` : `${n}${suffix}`;
}

/** A small constant of an integer type, e.g. a mask. */
function small(t: IntType, n: number): string {
  return intText(t, BigInt(n));
}

class Gen {
  private next = 0;
  private readonly items: Item[] = [];
  private readonly helpers: Helper[] = [];
  private readonly structs: { item: string; fields: { name: string; t: Scalar }[] }[] = [];

  constructor(private readonly r: Rand) {}

  // ---------------------------------------------------------------- randomness

  private chance(p: number): boolean {
    return this.r.int(0, 9999) < p * 10000;
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[this.r.int(0, xs.length - 1)]!;
  }

  /** Runs one of the options with a positive weight, chosen in proportion to the weights. */
  private choose<T>(options: readonly (readonly [number, () => T])[]): T {
    const live = options.filter(([w]) => w > 0);
    const total = live.reduce((s, [w]) => s + w, 0);
    let x = this.r.int(0, Math.round(total * 100) - 1) / 100;
    for (const [w, f] of live) {
      if (x < w) return f();
      x -= w;
    }
    return live[live.length - 1]![1]();
  }

  /** A type; with `env`, usually the type of a variable in it, so that more expressions read variables than literals. */
  private scalar(env: readonly Var[] = []): Scalar {
    const typed = env.filter((v): v is Extract<Var, { kind: 'scalar' }> => v.kind === 'scalar');
    if (typed.length && this.chance(0.6)) return this.pick(typed).t;
    return this.choose(SCALAR_WEIGHTS.map(([t, w]) => [w, () => t] as const));
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.next++}`;
  }

  // ---------------------------------------------------------------- literals

  private intValue(t: IntType): bigint {
    const [min, max] = intRange(t);
    return this.choose<bigint>([
      [5, () => BigInt(this.r.int(isSigned(t) ? -16 : 0, 16))],
      [2, () => this.pick([min, max, min + 1n, max - 1n, isSigned(t) ? -1n : 1n])],
      [1, () => (1n << BigInt(this.r.int(0, BITS[t] - 2))) + BigInt(this.r.int(-1, 1))],
      [2, () => this.r.bigint(min, max)],
    ]);
  }

  /** A float literal; f32 ones stay well inside its range (an out-of-range literal is an error). */
  private floatText(t: FloatType): string {
    const text = this.choose<string>([
      [4, () => `${this.r.int(0, 20)}.${this.pick(['0', '5', '25', '125', '75'])}`],
      [1, () => this.pick(t === 'f64' ? ['0.1', '0.3', '2.5e-3', '1.0e10', '3.0e15', '1.0e300', '7.0e-310'] : ['0.1', '0.3', '2.5e-3', '1.0e10', '3.0e30'])],
      [1, () => `${this.r.int(0, 99999)}.${this.r.int(0, 999)}`],
    ]);
    const suffixed = t === 'f32' ? `${text}f` : text;
    return this.chance(0.3) ? `(-${suffixed})` : suffixed;
  }

  private input(t: Scalar): Lit {
    if (t === 'bool') {
      const b = this.chance(0.5);
      return { t, text: String(b), value: b };
    }
    if (!isInt(t)) {
      const text = this.floatText(t);
      const value = Number(text.replace(/[()f]/g, ''));
      return { t, text, value: t === 'f32' ? Math.fround(value) : value };
    }
    const v = this.intValue(t);
    return { t, text: intText(t, v), value: v };
  }

  private literal(t: Scalar): Expr {
    if (t === 'bool') return lit(t, String(this.chance(0.5)));
    if (!isInt(t)) return lit(t, this.floatText(t));
    const v = this.intValue(t);
    if (v >= 0n && this.chance(0.1)) return lit(t, `0x${v.toString(16)}${t === 'i32' ? '' : t}`);
    return lit(t, intText(t, v));
  }

  // ---------------------------------------------------------------- expressions

  private expr(t: Scalar, env: readonly Var[], d: number, ctx: Ctx): Expr {
    if (d <= 0 || this.chance(0.2)) return this.leaf(t, env, ctx);
    if (this.chance(0.12)) return this.anyTypeExpr(t, env, d, ctx);
    if (t === 'bool') return this.boolExpr(env, d, ctx);
    if (!isInt(t)) return this.floatExpr(t, env, d, ctx);
    return this.intExpr(t, env, d, ctx);
  }

  /** A literal, a variable, or an element of an aggregate variable. */
  private leaf(t: Scalar, env: readonly Var[], ctx: Ctx, indexDepth = 1): Expr {
    const scalars = env.filter((v): v is Extract<Var, { kind: 'scalar' }> => v.kind === 'scalar' && v.t === t);
    const tuples = env.flatMap((v) => (v.kind === 'tuple' ? v.elems.flatMap((e, i) => (e === t ? [[v, i] as const] : [])) : []));
    const fields = env.flatMap((v) => (v.kind === 'struct' ? v.fields.filter((f) => f.t === t).map((f) => [v, f.name] as const) : []));
    const arrays = env.filter((v): v is Extract<Var, { kind: 'array' }> => v.kind === 'array' && v.elem === t);
    return this.choose<Expr>([
      [2, () => this.literal(t)],
      [scalars.length ? 5 : 0, () => ref(t, this.pick(scalars).name)],
      [tuples.length ? 1.5 : 0, () => {
        const [v, i] = this.pick(tuples);
        return op(t, nameUse(v.name), `(${i})`);
      }],
      [fields.length ? 1.5 : 0, () => {
        const [v, f] = this.pick(fields);
        return op(t, nameUse(v.name), `.${f}`);
      }],
      [arrays.length ? 1.5 : 0, () => {
        const v = this.pick(arrays);
        const index = indexDepth > 0 ? this.expr('i32', env, indexDepth, ctx) : this.leaf('i32', env, ctx, 0);
        return op(t, nameUse(v.name), '(', index, ` & ${v.n - 1})`);
      }],
    ]);
  }

  /** Forms that work for every scalar type: match, generic fns, select, a load through a pointer, a block with a local. */
  private anyTypeExpr(t: Scalar, env: readonly Var[], d: number, ctx: Ctx): Expr {
    const sub = (): Expr => this.expr(t, env, d - 1, ctx);
    const cond = (): Expr => this.expr('bool', env, d - 1, ctx);
    const vars = env.filter((v) => v.kind === 'scalar' && v.t === t);
    return this.choose<Expr>([
      [2, () =>
        this.chance(0.7)
          ? op(t, '(match (', this.expr('i32', env, d - 1, ctx), ' & 3) { 0 => ', sub(), ', 2 => ', sub(), ', _ => ', sub(), ' })')
          : op(t, '(match ', cond(), ' { true => ', sub(), ', _ => ', sub(), ' })')],
      [1, () => op(t, 'pp_pick(', cond(), ', ', sub(), ', ', sub(), ')')],
      [1, () => op(t, 'select(', cond(), ', ', sub(), ', ', sub(), ')')],
      [vars.length ? 1 : 0, () => op(t, 'pp_load(&', nameUse(this.pick(vars).name), ')')],
      [1, () => {
        const b = this.fresh('b');
        const bt = this.scalar(env);
        const init = this.expr(bt, env, d - 1, ctx);
        const inner: Var[] = [...env, { kind: 'scalar', name: b, t: bt, mut: false }];
        return { k: 'op', t, parts: [`({ let ${b}: ${bt} = `, init, '; ', this.expr(t, inner, d - 1, ctx), ' })'], binds: [b] };
      }],
    ]);
  }

  private intExpr(t: IntType, env: readonly Var[], d: number, ctx: Ctx): Expr {
    const sub = (): Expr => this.expr(t, env, d - 1, ctx);
    const signed = isSigned(t);
    const one = small(t, 1);
    return this.choose<Expr>([
      [8, () => op(t, '(', sub(), ` ${this.pick(['+', '-', '*', '&', '|', '^', '+', '-', '*'])} `, sub(), ')')],
      [2, () => op(t, '(', sub(), ` ${this.pick(['<<', '>>'])} (`, sub(), ` & ${small(t, BITS[t] - 1)}))`)],
      // Any amount: the `| 0` keeps a literal amount out of range from being a compile-time error.
      [1.5, () => op(t, '(', sub(), ` ${this.pick(['<<', '>>'])} (`, sub(), ` | ${small(t, 0)}))`)],
      [2, () => {
        const o = this.pick(['/', '%']);
        if (!signed) return op(t, '(', sub(), ` ${o} (`, sub(), ` | ${one}))`);
        // A positive divisor cannot overflow; halving the dividend keeps a divisor of -1 from overflowing.
        return this.chance(0.5)
          ? op(t, '(', sub(), ` ${o} ((`, sub(), ` & ${small(t, t === 'i8' ? 127 : 255)}) | ${one}))`)
          : op(t, '((', sub(), ` >> ${one}) ${o} (`, sub(), ` | ${one}))`);
      }],
      // Any dividend over any odd divisor, so MIN / -1 and MIN % -1 (which wrap) come up.
      [signed ? 1.5 : 0, () => op(t, '(', sub(), ` ${this.pick(['/', '%'])} (`, sub(), ` | ${one}))`)],
      [1, () => (signed && this.chance(0.5) ? op(t, '(-', sub(), ')') : op(t, '(!', sub(), ')'))],
      [2, () => this.intCast(t, env, d, ctx)],
      [1, () => op(t, '(if ', this.expr('bool', env, d - 1, ctx), ' { ', sub(), ' } else { ', sub(), ' })')],
      [ctx.helper ? 0.5 : 1.5, () => this.helperCall(t, env, d, ctx)],
      [(t === 'i32' || t === 'i64') && !ctx.helper ? 1 : 0, () => this.recursiveCall(t as 'i32' | 'i64', env, d, ctx)],
      [t === 'i32' ? 1.5 : 0, () => this.closureCall(env, d, ctx)],
      [t === 'i64' ? 0.7 : 0, () => this.fold(env, d, ctx)],
    ]);
  }

  /** `pp_fold(n, init, |acc, j| …)`: a loop in a library fn over a closure of two parameters. */
  private fold(env: readonly Var[], d: number, ctx: Ctx): Expr {
    const acc = this.fresh('acc');
    const j = this.fresh('j');
    const inner: Var[] = [...env, { kind: 'scalar', name: acc, t: 'i64', mut: false }, { kind: 'scalar', name: j, t: 'i32', mut: false }];
    const body = this.expr('i64', inner, 2, { ...ctx, ret: null });
    const lambda: Expr = { k: 'op', t: null, parts: [`|${acc}: i64, ${j}: i32| `, body], binds: [acc, j] };
    return op('i64', 'pp_fold((', this.expr('i32', env, d - 1, ctx), ' & 7), ', this.expr('i64', env, d - 1, ctx), ', ', lambda, ')');
  }

  /** From any other type; floats directly (saturating, NaN to 0) or through `pp_f2i`, which keeps the conversion in range. */
  private intCast(t: IntType, env: readonly Var[], d: number, ctx: Ctx): Expr {
    let from = this.scalar(env);
    while (from === t) from = this.scalar(env);
    const e = this.expr(from, env, d - 1, ctx);
    if (isInt(from) || from === 'bool' || this.chance(0.5)) return op(t, '(', e, ` as ${t})`);
    const converted = from === 'f64' ? op('i32', 'pp_f2i(', e, ')') : op('i32', 'pp_f2i((', e, ' as f64))');
    return t === 'i32' ? converted : op(t, '(', converted, ` as ${t})`);
  }

  private boolExpr(env: readonly Var[], d: number, ctx: Ctx): Expr {
    const sub = (): Expr => this.expr('bool', env, d - 1, ctx);
    return this.choose<Expr>([
      [5, () => {
        const s = this.scalar(env);
        const o = s === 'bool' ? this.pick(['==', '!=']) : this.pick(['==', '!=', '<', '<=', '>', '>=']);
        return op('bool', '(', this.expr(s, env, d - 1, ctx), ` ${o} `, this.expr(s, env, d - 1, ctx), ')');
      }],
      [2, () => op('bool', '(', sub(), ` ${this.pick(['&&', '||'])} `, sub(), ')')],
      [1, () => op('bool', '(!', sub(), ')')],
      [0.5, () => op('bool', '(if ', sub(), ' { ', sub(), ' } else { ', sub(), ' })')],
      [ctx.helper ? 0 : 0.5, () => this.helperCall('bool', env, d, ctx)],
    ]);
  }

  private floatExpr(t: FloatType, env: readonly Var[], d: number, ctx: Ctx): Expr {
    const sub = (): Expr => this.expr(t, env, d - 1, ctx);
    return this.choose<Expr>([
      [6, () => op(t, '(', sub(), ` ${this.pick(['+', '-', '*', '/'])} `, sub(), ')')],
      [0.5, () => op(t, '(', sub(), ' % ', sub(), ')')],
      [1, () => op(t, '(-', sub(), ')')],
      [2, () => op(t, '(', this.expr(this.pick(INT_TYPES), env, d - 1, ctx), ` as ${t})`)],
      // The values where float to integer conversions saturate.
      [0.7, () => {
        const f = t === 'f32' ? 'f' : '';
        return op(t, this.pick([`(0.0${f} / 0.0${f})`, `(1.0${f} / 0.0${f})`, `(-1.0${f} / 0.0${f})`, `3.0e9${f}`, `(-3.0e9${f})`, `1.0e20${f}`, `(-1.0e20${f})`, `255.9${f}`, `(-128.5${f})`]));
      }],
      [0.5, () => op(t, '(', this.expr(t === 'f32' ? 'f64' : 'f32', env, d - 1, ctx), ` as ${t})`)],
      [1, () => op(t, '(if ', this.expr('bool', env, d - 1, ctx), ' { ', sub(), ' } else { ', sub(), ' })')],
      [ctx.helper ? 0 : 1, () => this.helperCall(t, env, d, ctx)],
    ]);
  }

  /** A closure called directly, through `pp_apply`/`pp_apply2`, as returned by `pp_adder`, or composed by `pp_compose`. */
  private closureCall(env: readonly Var[], d: number, ctx: Ctx): Expr {
    const fns = env.filter((v) => v.kind === 'fn');
    const arg = this.expr('i32', env, d - 1, ctx);
    const apply = this.pick(['pp_apply(', 'pp_apply2(']);
    return this.choose<Expr>([
      [fns.length ? 3 : 0, () => op('i32', nameUse(this.pick(fns).name), '(', arg, ')')],
      [fns.length ? 2 : 0, () => op('i32', apply, nameUse(this.pick(fns).name), ', ', arg, ')')],
      [1, () => op('i32', apply, this.lambda(env, ctx), ', ', arg, ')')],
      [1, () => op('i32', 'pp_adder(', this.expr('i32', env, d - 1, ctx), ')(', arg, ')')],
      [1, () => {
        const f = (): Part => (fns.length && this.chance(0.6) ? nameUse(this.pick(fns).name) : this.lambda(env, ctx));
        return op('i32', 'pp_compose(', f(), ', ', f(), ')(', arg, ')');
      }],
    ]);
  }

  /** `|z: i32| e` reading the variables in scope. */
  private lambda(env: readonly Var[], ctx: Ctx): Expr {
    const z = this.fresh('z');
    const inner: Var[] = [...env, { kind: 'scalar', name: z, t: 'i32', mut: false }];
    const body = this.expr('i32', inner, 2, { ...ctx, ret: null });
    return { k: 'op', t: null, parts: [`|${z}: i32| `, body], binds: [z] };
  }

  // ---------------------------------------------------------------- helpers

  private helperCall(t: Scalar, env: readonly Var[], d: number, ctx: Ctx): Expr {
    const existing = this.helpers.filter((h) => h.ret === t && !h.recursive);
    const h = existing.length && (ctx.helper || this.chance(0.4)) ? this.pick(existing) : ctx.helper ? null : this.makeHelper(t, env);
    if (!h) return this.leaf(t, env, ctx);
    const args: Part[] = [];
    for (const p of h.params) {
      if (args.length) args.push(', ');
      if ('t' in p) {
        const e = this.expr(p.t, env, d - 1, ctx);
        // `$` hides the argument from the evaluator; the value is the same.
        args.push(...(this.chance(0.1) ? ['$(', e, ')'] : [e]));
      } else {
        // An aggregate argument needs a variable of the same shape in scope; without one a leaf stands in for the call.
        const same = env.filter((v) => sameShape(v, p.agg));
        if (!same.length) return this.leaf(t, env, ctx);
        args.push(nameUse(this.pick(same).name));
      }
    }
    // `@@` forces specialisation; harmless for helpers that do not recurse.
    return op(t, this.chance(0.15) ? '@@' : '', itemUse(h.name), '(', ...args, ')');
  }

  /** A new helper fn returning `t`: scalar params (and maybe an aggregate from `env`), an expression or statement body, maybe a filter. */
  private makeHelper(t: Scalar, env: readonly Var[]): Helper {
    const name = this.fresh('h');
    const params: Helper['params'] = [];
    const penv: Var[] = [];
    const sig: Part[] = [];
    const add = (...text: Part[]): void => void sig.push(...(sig.length ? [', '] : []), ...text);
    for (let i = this.r.int(1, 3); i > 0; i--) {
      const pt = this.scalar();
      const pn = this.fresh('q');
      // A `mut` parameter is a local variable initialised by the argument.
      const mut = this.chance(0.2);
      params.push({ t: pt });
      penv.push({ kind: 'scalar', name: pn, t: pt, mut });
      add(`${this.chance(0.1) ? '@' : ''}${mut ? 'mut ' : ''}${pn}: ${pt}`);
    }
    const aggs = env.filter((v): v is Aggregate => v.kind === 'tuple' || v.kind === 'struct' || v.kind === 'array');
    if (aggs.length && this.chance(0.5)) {
      const a = this.pick(aggs);
      const pn = this.fresh('q');
      params.push({ agg: a });
      penv.push({ ...a, name: pn, mut: false });
      add(`${pn}: `, ...typeParts(a));
    }
    const ctx: Ctx = { loop: null, loopDepth: 0, depth: 1, ret: t, helper: true };
    let body: Block;
    if (this.chance(0.5)) {
      body = block([], this.expr(t, penv, 3, ctx));
    } else {
      const { stmts, env: scope } = this.stmts(penv, ctx, this.r.int(1, 4));
      body = block(stmts, this.expr(t, scope, 2, ctx));
    }
    const filter = this.helperFilter(penv);
    this.items.push({ name, parts: [`fn ${filter}`, itemUse(name), '(', ...sig, `) -> ${t} `, body], binds: penv.map((v) => v.name) });
    const h: Helper = { name, params, ret: t, recursive: false };
    this.helpers.push(h);
    return h;
  }

  /** A call of a new helper returning a tuple of `ts`, computed by statements. */
  private tupleHelperCall(ts: readonly Scalar[], env: readonly Var[], d: number, ctx: Ctx): Part[] {
    const name = this.fresh('h');
    const params = Array.from({ length: this.r.int(1, 2) }, () => ({ name: this.fresh('q'), t: this.scalar() }));
    const penv: Var[] = params.map((p) => ({ kind: 'scalar', ...p, mut: false }));
    const hctx: Ctx = { loop: null, loopDepth: 0, depth: 1, ret: null, helper: true };
    const { stmts, env: scope } = this.stmts(penv, hctx, this.r.int(0, 3));
    const tail = op(null, '(', ...ts.flatMap((t, i) => [...(i ? [', '] : []), this.expr(t, scope, 2, hctx)]), ')');
    const sig = params.map((p) => `${p.name}: ${p.t}`).join(', ');
    this.items.push({
      name,
      binds: params.map((p) => p.name),
      parts: ['fn ', itemUse(name), `(${sig}) -> (${ts.join(', ')}) `, block(stmts, tail)],
    });
    const args = params.flatMap((p, i) => [...(i ? [', '] : []), this.expr(p.t, env, d - 1, ctx)]);
    return [itemUse(name), '(', ...args, ')'];
  }

  private helperFilter(params: readonly Var[]): string {
    const scalar = params.filter((p) => p.kind === 'scalar');
    return this.choose<string>([
      [4, () => ''],
      [1, () => '@ '],
      [1, () => `@(?${this.pick(scalar).name}) `],
    ]);
  }

  /** `r(x, n)` for a new helper recursing `n` times (n is masked to 0..7 or a small constant), with a filter on n most of the time. */
  private recursiveCall(t: 'i32' | 'i64', env: readonly Var[], d: number, ctx: Ctx): Expr {
    const name = this.fresh('r');
    const x = this.fresh('x');
    const n = this.fresh('n');
    const penv: Var[] = [
      { kind: 'scalar', name: x, t, mut: false },
      { kind: 'scalar', name: n, t: 'i32', mut: false },
    ];
    const hctx: Ctx = { loop: null, loopDepth: 0, depth: 1, ret: t, helper: true };
    const filter = this.pick(['', `@(?${n}) `, `@(?${n}) `, `@(?${n} & ?${x}) `]);
    const combine = this.pick(['+', '^', '-', '*']);
    this.items.push({
      name,
      binds: [x, n],
      parts: [
        `fn ${filter}`, itemUse(name), `(${x}: ${t}, ${n}: i32) -> ${t} {\n    if ${n} <= 0 { `, this.expr(t, penv, 2, hctx),
        ` } else { (`, this.expr(t, penv, 2, hctx), ` ${combine} `, itemUse(name), '(', this.expr(t, penv, 2, hctx), `, ${n} - 1)) }\n}`,
      ],
    });
    this.helpers.push({ name, params: [{ t }, { t: 'i32' }], ret: t, recursive: true });
    const depth = this.choose<Part[]>([
      [2, () => [String(this.r.int(0, 6))]],
      [2, () => ['(', this.expr('i32', env, d - 1, ctx), ' & 7)']],
      [0.5, () => [`$${this.r.int(0, 6)}`]],
    ]);
    return op(t, itemUse(name), '(', this.expr(t, env, d - 1, ctx), ', ', ...depth, ')');
  }

  // ---------------------------------------------------------------- statements

  private stmts(env: readonly Var[], ctx: Ctx, count: number): { stmts: Stmt[]; env: Var[] } {
    let scope = [...env];
    const out: Stmt[] = [];
    for (let i = 0; i < count; i++) {
      const { s, vars } = this.stmt(scope, ctx);
      out.push(s);
      // A new binding shadows an older one of the same name.
      scope = [...scope.filter((v) => !vars.some((n) => n.name === v.name)), ...vars];
    }
    return { stmts: out, env: scope };
  }

  private nested(env: readonly Var[], ctx: Ctx): Block {
    return block(this.stmts(env, ctx, this.r.int(1, ctx.depth > 2 ? 2 : 4)).stmts);
  }

  private stmt(env: readonly Var[], ctx: Ctx): { s: Stmt; vars: Var[] } {
    const none = (s: Stmt): { s: Stmt; vars: Var[] } => ({ s, vars: [] });
    const d = ctx.depth > 1 ? 2 : 3;
    const mutScalars = env.filter((v): v is Extract<Var, { kind: 'scalar' }> => v.kind === 'scalar' && v.mut);
    const mutAggs = env.filter((v): v is Aggregate => (v.kind === 'tuple' || v.kind === 'struct' || v.kind === 'array') && v.mut);
    const procs = env.filter((v) => v.kind === 'proc');
    const deep = ctx.depth >= 3;
    const loops = ctx.loopDepth < 2;
    return this.choose<{ s: Stmt; vars: Var[] }>([
      [5, () => this.letScalar(env, d, ctx)],
      [deep ? 0.5 : 2, () => this.letAggregate(env, d, ctx)],
      [ctx.helper ? 0 : 0.7, () => {
        const name = this.fresh('g');
        const annotated = this.chance(0.3) ? ': fn(i32) -> i32' : '';
        const init = this.chance(0.25) ? op(null, 'pp_adder(', this.expr('i32', env, d, ctx), ')') : this.lambda(env, ctx);
        return { s: stmt([`let ${name}${annotated} = `, init, ';'], [name]), vars: [{ kind: 'fn', name }] };
      }],
      [ctx.helper || deep ? 0 : 0.7, () => this.letProc(env, ctx)],
      [mutScalars.length ? 6 : 0, () => none(this.assign(this.pick(mutScalars), env, d, ctx))],
      [mutAggs.length ? 3 : 0, () => none(this.assignAggregate(this.pick(mutAggs), env, d, ctx))],
      [3, () => none(this.print(env, d, ctx))],
      [deep ? 0 : 2, () => {
        const c = this.expr('bool', env, d, ctx);
        const inner = { ...ctx, depth: ctx.depth + 1 };
        const parts: Part[] = ['if ', c, ' ', this.nested(env, inner)];
        if (this.chance(0.5)) parts.push(' else ', this.nested(env, inner));
        return none(stmt(parts));
      }],
      [deep || !loops ? 0 : 3, () => none(this.forLoop(env, ctx))],
      [deep || !loops ? 0 : 1, () => none(this.whileLoop(env, ctx))],
      [ctx.loop ? 1.5 : 0, () => {
        const jump = ctx.loop === 'break' ? this.pick(['break()', 'continue()']) : 'continue()';
        return none(stmt(['if ', this.expr('bool', env, d, ctx), ` { ${jump} }`]));
      }],
      [ctx.ret ? 0.4 : 0, () => none(stmt(['if ', this.expr('bool', env, d, ctx), ' { return(', this.expr(ctx.ret!, env, d, ctx), ') }']))],
      [procs.length ? 1.5 : 0, () => {
        const p = nameUse(this.pick(procs).name);
        const arg = this.expr('i32', env, d, ctx);
        return none(this.chance(0.5) ? stmt([p, '(', arg, ');']) : stmt(['pp_each3(', p, ', ', arg, ');']));
      }],
    ]);
  }

  private letScalar(env: readonly Var[], d: number, ctx: Ctx): { s: Stmt; vars: Var[] } {
    const t = this.scalar(env);
    const visible = env.filter((v) => v.kind === 'scalar');
    // Sometimes a name in scope, of any type: shadowing.
    const name = visible.length && this.chance(0.08) ? this.pick(visible).name : this.fresh('v');
    const mut = this.chance(0.6);
    // Literals of i32 and f64 need no annotation; suffixed literals fix the other types.
    const annotation = this.chance(0.6) ? `: ${t}` : '';
    const s = stmt([`let ${mut ? 'mut ' : ''}${name}${annotation} = `, this.expr(t, env, d, ctx), ';'], [name]);
    return { s, vars: [{ kind: 'scalar', name, t, mut }] };
  }

  private letAggregate(env: readonly Var[], d: number, ctx: Ctx): { s: Stmt; vars: Var[] } {
    const name = this.fresh('t');
    const mut = this.chance(0.6);
    const head = `let ${mut ? 'mut ' : ''}${name}`;
    const elems = (ts: readonly Scalar[], sep = ', '): Part[] => ts.flatMap((t, i) => [...(i ? [sep] : []), this.expr(t, env, d - 1, ctx)]);
    return this.choose<{ s: Stmt; vars: Var[] }>([
      [2, () => {
        const ts = Array.from({ length: this.r.int(2, 3) }, () => this.scalar(env));
        const annotation = this.chance(0.5) ? `: (${ts.join(', ')})` : '';
        const init: Part[] = this.chance(0.2) && !ctx.helper ? this.tupleHelperCall(ts, env, d, ctx) : ['(', ...elems(ts), ')'];
        return { s: stmt([`${head}${annotation} = `, ...init, ';'], [name]), vars: [{ kind: 'tuple', name, elems: ts, mut }] };
      }],
      [2, () => {
        const s = this.structType();
        const inits = s.fields.flatMap((f, i) => [i ? ', ' : '', `${f.name}: `, this.expr(f.t, env, d - 1, ctx)]);
        return {
          s: stmt([`${head} = `, itemUse(s.item), ' { ', ...inits, ' };'], [name]),
          vars: [{ kind: 'struct', name, item: s.item, fields: s.fields, mut }],
        };
      }],
      [2, () => {
        const elem = this.scalar(env);
        const n = this.pick([2, 4, 8]);
        const repeat = this.chance(0.3);
        const init: Part[] = repeat ? ['[', this.expr(elem, env, d - 1, ctx), `, .. ${n}]`] : ['[', ...elems(Array(n).fill(elem)), ']'];
        const annotation = this.chance(0.3) ? `: [${elem} * ${n}]` : '';
        return { s: stmt([`${head}${annotation} = `, ...init, ';'], [name]), vars: [{ kind: 'array', name, elem, n, mut }] };
      }],
    ]);
  }

  /** A struct type: a new one, or one made before (struct literals of the same type in several places). */
  private structType(): { item: string; fields: { name: string; t: Scalar }[] } {
    if (this.structs.length && this.chance(0.4)) return this.pick(this.structs);
    const item = this.fresh('S');
    const fields = Array.from({ length: this.r.int(1, 4) }, (_, i) => ({ name: `f${i}`, t: this.scalar() }));
    this.items.push({ name: item, binds: [], parts: ['struct ', itemUse(item), ` { ${fields.map((f) => `${f.name}: ${f.t}`).join(', ')} }`] });
    const s = { item, fields };
    this.structs.push(s);
    return s;
  }

  /** `let p = |z: i32| { … }`: a closure updating variables of the enclosing fn. */
  private letProc(env: readonly Var[], ctx: Ctx): { s: Stmt; vars: Var[] } {
    const name = this.fresh('p');
    const z = this.fresh('z');
    const inner: Var[] = [...env, { kind: 'scalar', name: z, t: 'i32', mut: false }];
    // `break`, `continue` and `return` are not bound in a closure's body; loops are.
    const body = this.nested(inner, { loop: null, loopDepth: ctx.loopDepth, depth: ctx.depth + 1, ret: null, helper: ctx.helper });
    const annotated = this.chance(0.3) ? ': fn(i32) -> ()' : '';
    const lambda: Expr = { k: 'op', t: null, parts: [`|${z}: i32| `, body], binds: [z] };
    return { s: stmt([`let ${name}${annotated} = `, lambda, ';'], [name]), vars: [{ kind: 'proc', name }] };
  }

  private assign(v: Extract<Var, { kind: 'scalar' }>, env: readonly Var[], d: number, ctx: Ctx): Stmt {
    const target = nameUse(v.name);
    const e = (): Expr => this.expr(v.t, env, d, ctx);
    // Through a pointer: the variable's address is taken, so it lives in memory.
    if (this.chance(0.1)) return stmt(['pp_store(&mut ', target, ', ', e(), ');']);
    if (v.t === 'bool') return stmt([target, ' = ', e(), ';']);
    if (!isInt(v.t)) return stmt([target, ` ${this.pick(['=', '+=', '-=', '*=', '/='])} `, e(), ';']);
    return this.compound(v.t, [target], env, d, ctx);
  }

  /** `target op= e;` for an integer place, the operation guarded like the expressions. */
  private compound(t: IntType, target: Part[], env: readonly Var[], d: number, ctx: Ctx): Stmt {
    const e = (): Expr => this.expr(t, env, d, ctx);
    return this.choose<Stmt>([
      [3, () => stmt([...target, ` ${this.pick(['=', '+=', '-=', '*=', '&=', '|=', '^='])} `, e(), ';'])],
      [1, () => stmt([...target, `${this.pick(['++', '--'])};`])],
      [1, () => stmt([...target, ` ${this.pick(['<<=', '>>='])} (`, e(), ` & ${small(t, BITS[t] - 1)});`])],
      [1, () =>
        isSigned(t)
          ? stmt([...target, ` ${this.pick(['/=', '%='])} ((`, e(), ` & ${small(t, t === 'i8' ? 127 : 255)}) | ${small(t, 1)});`])
          : stmt([...target, ` ${this.pick(['/=', '%='])} (`, e(), ` | ${small(t, 1)});`])],
    ]);
  }

  private assignAggregate(v: Aggregate, env: readonly Var[], d: number, ctx: Ctx): Stmt {
    let place: Part[];
    let t: Scalar;
    if (v.kind === 'tuple') {
      const i = this.r.int(0, v.elems.length - 1);
      place = [nameUse(v.name), `(${i})`];
      t = v.elems[i]!;
    } else if (v.kind === 'struct') {
      const f = this.pick(v.fields);
      place = [nameUse(v.name), `.${f.name}`];
      t = f.t;
    } else {
      place = [nameUse(v.name), '(', this.expr('i32', env, 1, ctx), ` & ${v.n - 1})`];
      t = v.elem;
    }
    if (!isInt(t) || this.chance(0.3)) return stmt([...place, ' = ', this.expr(t, env, d, ctx), ';']);
    return this.compound(t, place, env, d, ctx);
  }

  private print(env: readonly Var[], d: number, ctx: Ctx): Stmt {
    const t = this.scalar(env);
    const e = this.expr(t, env, d, ctx);
    const call: Record<Scalar, Part[]> = {
      i8: ['print_i32((', e, ' as i32))'],
      i16: ['print_i32((', e, ' as i32))'],
      u8: ['print_u32((', e, ' as u32))'],
      u16: ['print_u32((', e, ' as u32))'],
      i32: ['print_i32(', e, ')'],
      u32: ['print_u32(', e, ')'],
      i64: ['print_i64(', e, ')'],
      u64: ['print_u64(', e, ')'],
      bool: ['print_bool(', e, ')'],
      f32: ['print_f32(pp_fin32(', e, '))'],
      f64: ['print_f64(pp_fin(', e, '))'],
    };
    return stmt([...call[t], "; print_char(' ');"]);
  }

  private forLoop(env: readonly Var[], ctx: Ctx): Stmt {
    const i = this.fresh('i');
    const d = 1;
    const masked = (m: number): Part[] => ['(', this.expr('i32', env, d, ctx), ` & ${m})`];
    const lo = this.r.int(-2, 3);
    let escapes = true;
    const gen: Part[] = this.choose<Part[]>([
      [3, () => ['range(', ...(this.chance(0.7) ? [String(lo)] : masked(3)), ', ', ...(this.chance(0.6) ? [String(lo + this.r.int(0, 7))] : masked(7)), ')']],
      [2, () => {
        const a = this.r.int(0, 2);
        return ['unroll(', String(a), ', ', ...(this.chance(0.8) ? [String(a + this.r.int(0, 4))] : masked(3)), ')'];
      }],
      [1, () => ['range_step(', String(lo), ', ', String(lo + this.r.int(0, 9)), ', ', String(this.r.int(1, 4)), ')']],
      [1, () => ['pp_countdown(', ...(this.chance(0.5) ? [String(this.r.int(0, 6))] : masked(7)), ')']],
      [0.5, () => ['pp_unroll_down(', String(this.r.int(0, 5)), ')']],
      [0.5, () => {
        escapes = false;
        return ['pp_unroll_down(', ...masked(7), ')'];
      }],
    ]);
    const inner: Var[] = [...env, { kind: 'scalar', name: i, t: 'i32', mut: false }];
    // pp_unroll_down calls the body after its recursive call: with a dynamic bound it stays a
    // recursion, and leaving it with `break` or `return` would need a non-local jump, which the
    // compiler rejects by design (closure_convert.ts). With a constant bound it unrolls.
    const body = this.nested(inner, {
      ...ctx,
      loop: escapes ? 'break' : 'continue',
      ret: escapes ? ctx.ret : null,
      loopDepth: ctx.loopDepth + 1,
      depth: ctx.depth + 1,
    });
    return stmt([`for ${i} in `, ...gen, ' ', body], undefined, [i]);
  }

  /** A while loop whose counter (first in the body, so `continue()` cannot skip it) bounds the trip count. */
  private whileLoop(env: readonly Var[], ctx: Ctx): Stmt {
    const w = this.fresh('w');
    const inner: Var[] = [...env, { kind: 'scalar', name: w, t: 'i32', mut: false }];
    const cond = this.expr('bool', env, 1, ctx);
    const body = this.nested(inner, { ...ctx, loop: 'break', loopDepth: ctx.loopDepth + 1, depth: ctx.depth + 1 });
    body.head = `${w}++;`;
    return stmt([`let mut ${w} = 0; while ${w} < ${this.r.int(1, 6)} && `, cond, ' ', body], undefined, [w]);
  }

  // ---------------------------------------------------------------- a case

  /** `fn case(params…) -> i32`: statements, then a checksum of every scalar the body's top level can see. */
  makeCase(): Case {
    const params = Array.from({ length: this.r.int(1, 4) }, (_, i) => ({ name: `a${i}`, t: this.scalar() }));
    const env: Var[] = params.map((p) => ({ kind: 'scalar', name: p.name, t: p.t, mut: false }));
    const ctx: Ctx = { loop: null, loopDepth: 0, depth: 0, ret: 'i32', helper: false };
    const { stmts, env: scope } = this.stmts(env, ctx, this.r.int(3, 10));
    const h = this.fresh('sum');
    const sums: Stmt[] = [stmt([`let mut ${h} = 17;`], [h])];
    for (const v of scope) for (const e of observe(v)) sums.push(stmt([nameUse(h), ' = (', nameUse(h), ' * 31) + ', e, ';']));
    const inputs = Array.from({ length: 4 }, () => params.map((p) => this.input(p.t)));
    return { params, items: this.items, body: block([...stmts, ...sums], ref('i32', h)), inputs };
  }
}

function typeParts(a: Aggregate): Part[] {
  if (a.kind === 'tuple') return [`(${a.elems.join(', ')})`];
  if (a.kind === 'array') return [`[${a.elem} * ${a.n}]`];
  return [itemUse(a.item)];
}

function sameShape(v: Var, a: Aggregate): boolean {
  if (v.kind !== a.kind) return false;
  if (v.kind === 'tuple' && a.kind === 'tuple') return v.elems.join() === a.elems.join();
  if (v.kind === 'array' && a.kind === 'array') return v.elem === a.elem && v.n === a.n;
  return v.kind === 'struct' && a.kind === 'struct' && v.item === a.item;
}

/** i32 expressions that together observe the value of `v`. */
function observe(v: Var): Expr[] {
  const scalar = (t: Scalar, e: () => Part[]): Expr => {
    if (t === 'i32') return op('i32', ...e());
    if (t === 'i64' || t === 'u64') return op('i32', '((', ...e(), ' ^ (', ...e(), ` >> 32${t})) as i32)`);
    if (t === 'bool') return op('i32', '(if ', ...e(), ' { 1 } else { 2 })');
    if (t === 'f64') return op('i32', 'pp_f2i(', ...e(), ')');
    if (t === 'f32') return op('i32', 'pp_f2i((', ...e(), ' as f64))');
    return op('i32', '(', ...e(), ' as i32)');
  };
  const n = nameUse(v.name);
  switch (v.kind) {
    case 'scalar':
      return [scalar(v.t, () => [ref(v.t, v.name)])];
    case 'tuple':
      return v.elems.map((t, i) => scalar(t, () => [n, `(${i})`]));
    case 'struct':
      return v.fields.map((f) => scalar(f.t, () => [n, `.${f.name}`]));
    case 'array':
      return Array.from({ length: v.n }, (_, i) => scalar(v.elem, () => [n, `(${i})`]));
    case 'fn':
      return [op('i32', n, '(3)')];
    case 'proc':
      return [];
  }
}

/** fast-check's random source as a `Rand`. */
function randOf(mrng: fc.Random): Rand {
  return { int: (lo, hi) => mrng.nextInt(lo, hi), bigint: (lo, hi) => mrng.nextBigInt(lo, hi) };
}

/** Generates one case per draw and shrinks with `reductions`. */
class CaseArbitrary extends fc.Arbitrary<Case> {
  generate(mrng: fc.Random): fc.Value<Case> {
    return new fc.Value(new Gen(randOf(mrng)).makeCase(), undefined);
  }

  canShrinkWithoutContext(value: unknown): value is Case {
    return false;
  }

  shrink(value: Case): fc.Stream<fc.Value<Case>> {
    return fc.stream(reductions(value)).map((c) => new fc.Value(c, undefined));
  }
}

export const caseArbitrary: fc.Arbitrary<Case> = new CaseArbitrary();
