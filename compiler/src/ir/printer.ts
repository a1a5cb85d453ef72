// Readable text of the CPS graph (`--emit-ir`). Each top-level continuation is
// printed with the blocks of its scope in reverse post-order; a block's primops
// come right before its body, in dependency order, the first time the scope needs
// them. Literals are written inline. Output depends only on the graph (gids and
// use order), so it is stable across runs and diffable.
import { Continuation, type Def, Param, PrimOp, isLit } from './defs.ts';
import { Closedness } from './closedness.ts';
import { bodiesReachable, Nesting } from './nesting.ts';
import { Scope } from './scope.ts';
import { DefiniteArrayType, type IRType, PrimType, VariantType } from './types.ts';
import type { World } from './world.ts';

export function printWorld(world: World): string {
  const conts = [...world.continuations].sort((a, b) => a.gid - b.gid);
  const lines: string[] = [];
  for (const c of conts) if (c.isImported) lines.push(importLine(c));
  if (lines.length) lines.push('');
  const outer = new Outer(conts);
  const printer = new Printer(outer);
  for (const c of conts) if (c.hasBody && outer.isClosed(c)) printer.group(new Scope(c), lines);
  // Closures not nested in any printed scope (only reachable through dead code, or not yet lowered).
  for (const c of conts) if (c.hasBody && !printer.printed.has(c)) printer.group(new Scope(c), lines);
  return lines.join('\n');
}

export function printScope(scope: Scope): string {
  const lines: string[] = [];
  new Printer(new Outer([scope.entry])).group(scope, lines);
  return lines.join('\n');
}

/** How a def is written where it is used. */
export function defRef(d: Def): string {
  if (d instanceof Param) return `%${d.label}`;
  if (d instanceof Continuation) {
    if (d.isIntrinsic) return d.intrinsic;
    if (d.isImported) return d.linkName ?? d.name;
    return d.label;
  }
  const p = d as PrimOp;
  if (isLit(p)) return literal(p.type as PrimType, p.payload);
  if (p.tag === 'bottom') return `undef:${p.type}`;
  return `%${p.label}`;
}

function importLine(c: Continuation): string {
  const link = c.linkName ?? c.name;
  const alias = c.linkName && c.linkName !== c.name ? ` (${c.name})` : '';
  return `import "${c.cc}" ${link}${alias}: ${c.type}`;
}

/**
 * The continuations a group's entry is a closure over. Only groups of nested
 * entries need them, and the nesting sets of every continuation add up to the sum
 * of all nesting depths (quadratic in a long chain of calls), so the top-level
 * ones are found without them.
 */
class Outer {
  private readonly closedness: Closedness;
  private nesting: Nesting | null = null;

  constructor(private readonly roots: readonly Continuation[]) {
    this.closedness = new Closedness(bodiesReachable(roots));
  }

  isClosed(c: Continuation): boolean {
    return this.closedness.isClosed(c);
  }

  of(c: Continuation): ReadonlySet<Continuation> {
    if (this.isClosed(c)) return new Set();
    this.nesting ??= new Nesting(this.roots);
    return this.nesting.needs(c);
  }
}

class Printer {
  /** Continuations already printed by an earlier group. */
  readonly printed = new Set<Continuation>();

  constructor(private readonly outer: Outer) {}

  group(scope: Scope, lines: string[]): void {
    const entry = scope.entry;
    const outer = [...this.outer.of(entry)].sort((a, b) => a.gid - b.gid);
    const attrs = [
      entry.external ? ` extern${entry.cc === 'internal' ? '' : ` "${entry.cc}"`}` : '',
      entry.linkName && entry.linkName !== entry.name ? ` = "${entry.linkName}"` : '',
      outer.length ? ` (closure over ${outer.map((c) => c.label).join(', ')})` : '',
    ].join('');
    lines.push(`fn ${entry.label}${attrs} {`);
    const shown = new Set<PrimOp>();
    for (const c of scope.continuations) {
      if (this.printed.has(c) || c.isIntrinsic || c.isImported) continue;
      this.printed.add(c);
      const params = c.params.map((p) => `%${p.label}: ${p.type}`).join(', ');
      const filter = c.filter ? ` @(${c.filter.map(defRef).join(', ')})` : '';
      lines.push(`  ${c.label}(${params})${filter}:`);
      if (!c.hasBody) {
        lines.push('    <no body>');
        continue;
      }
      for (const p of schedule(c.ops, shown)) lines.push(`    ${primOpLine(p)}`);
      lines.push(`    ${defRef(c.callee)}(${c.args.map(defRef).join(', ')})`);
    }
    lines.push('}', '');
  }
}

function inline(d: Def): boolean {
  return d instanceof PrimOp && (d.tag === 'lit' || d.tag === 'bottom');
}

/** Primops under `roots` not shown yet, operands before users (post-order without JS recursion). */
function schedule(roots: readonly Def[], shown: Set<PrimOp>): PrimOp[] {
  const order: PrimOp[] = [];
  const stack: { p: PrimOp; next: number }[] = [];
  const push = (d: Def): void => {
    if (d instanceof PrimOp && !inline(d) && !shown.has(d)) {
      shown.add(d);
      stack.push({ p: d, next: 0 });
    }
  };
  for (const r of roots) {
    push(r);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.p.ops.length) push(top.p.op(top.next++));
      else order.push(stack.pop()!.p);
    }
  }
  return order;
}

function primOpLine(p: PrimOp): string {
  let payload = '';
  switch (p.tag) {
    case 'global': {
      const g = p.payload as { mutable: boolean; name: string };
      payload = `${g.mutable ? ' mut' : ''}${g.name ? ` "${g.name}"` : ''}`;
      break;
    }
    case 'sizeof':
    case 'alignof':
      payload = ` ${p.payload as IRType}`;
      break;
    case 'store':
      if (p.payload) payload = ` ${p.payload as string}`;
      break;
    case 'variant':
    case 'variant_extract': {
      const i = p.payload as number;
      const vt = (p.tag === 'variant' ? p.type : p.op(0).type) as VariantType;
      payload = ` #${i}${vt instanceof VariantType && vt.variantNames[i] ? `(${vt.variantNames[i]})` : ''}`;
      break;
    }
  }
  const ops = stringLiteral(p) ?? p.ops.map(defRef).join(', ');
  return `%${p.label}: ${p.type} = ${p.tag}${payload}${ops ? ` ${ops}` : ''}`;
}

/** A definite array of byte literals (a string) as a quoted string. */
function stringLiteral(p: PrimOp): string | null {
  const t = p.type;
  if (p.tag !== 'definite_array' || !(t instanceof DefiniteArrayType)) return null;
  if (!(t.elem instanceof PrimType && t.elem.isInt && t.elem.bits === 8) || !p.ops.every(isLit)) return null;
  const chars = p.ops.map((o) => {
    const c = Number(BigInt.asUintN(8, (o as PrimOp).payload as bigint));
    if (c === 0x22 || c === 0x5c) return `\\${String.fromCharCode(c)}`;
    return c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`;
  });
  return `"${chars.join('')}"`;
}

/** `42` (i32), `true`, `42u8`, `1.5f32`; a vector literal (a splat) also names its type. */
function literal(t: PrimType, v: unknown): string {
  const s = t.scalar;
  let text: string;
  if (s.isBool) text = String(v);
  else if (s.isInt) text = s.prim === 'i32' ? `${v as bigint}` : `${v as bigint}${s.prim}`;
  else text = `${floatText(v as number, s.prim)}${s.prim}`;
  return t.length === 1 ? text : `${text}:${t}`;
}

/** The shortest decimal that reads back as the same value of the float type. */
function floatText(x: number, prim: string): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x < 0 ? '-inf' : 'inf';
  if (Object.is(x, -0)) return '-0';
  if (prim === 'f32') {
    for (let digits = 1; digits < 9; digits++) {
      const s = x.toPrecision(digits);
      if (Math.fround(Number(s)) === x) return String(Number(s));
    }
  }
  return String(x);
}
