// Match exhaustiveness by pattern-matrix usefulness (Maranget, "Warnings for
// pattern matching"): a match is exhaustive when a wildcard row is not useful
// after its arms. Constructors come from the patterns themselves: enum variants,
// bool and other literals, tuples.
import type { EnumDecl, ExprOf, Pattern } from '../syntax/ast.ts';
import type { Checker } from './checker.ts';

/** A pattern reduced to what exhaustiveness needs; null is a wildcard. */
type Pat = { ctor: Ctor; args: Pat[] } | null;

type Ctor =
  | { kind: 'variant'; decl: EnumDecl; index: number; arity: number }
  | { kind: 'tuple'; arity: number }
  | { kind: 'lit'; key: string; bool: boolean | null };

function reduce(p: Pattern): Pat {
  switch (p.kind) {
    case 'bind':
    case 'wild':
      return null;
    case 'tuple':
      return { ctor: { kind: 'tuple', arity: p.elems.length }, args: p.elems.map(reduce) };
    case 'variant': {
      if (p.res?.kind !== 'variant') return null;
      const arity = p.res.decl.variants[p.res.index]!.fields.length;
      const args = (p.args ?? []).map(reduce);
      while (args.length < arity) args.push(null);
      return { ctor: { kind: 'variant', decl: p.res.decl, index: p.res.index, arity }, args: args.slice(0, arity) };
    }
    case 'lit': {
      const l = p.lit;
      const value = l.kind === 'str' ? '' : String(l.value);
      return { ctor: { kind: 'lit', key: `${l.kind}:${value}`, bool: l.kind === 'bool' ? l.value : null }, args: [] };
    }
  }
}

function arity(c: Ctor): number {
  return c.kind === 'lit' ? 0 : c.arity;
}

function sameCtor(a: Ctor, b: Ctor): boolean {
  if (a.kind === 'variant' && b.kind === 'variant') return a.index === b.index;
  if (a.kind === 'lit' && b.kind === 'lit') return a.key === b.key;
  return a.kind === b.kind;
}

type Row = Pat[];

function specialize(rows: Row[], c: Ctor): Row[] {
  const out: Row[] = [];
  for (const [head, ...rest] of rows) {
    if (head === null || head === undefined) out.push([...Array<Pat>(arity(c)).fill(null), ...rest]);
    else if (sameCtor(head.ctor, c)) out.push([...head.args, ...rest]);
  }
  return out;
}

/** The constructors of the head column's type when `seen` covers all of them, else null. */
function allCtors(seen: Ctor[]): Ctor[] | null {
  const first = seen[0]!;
  if (first.kind === 'tuple') return [first];
  if (first.kind === 'variant') {
    const all = first.decl.variants.map((v, index): Ctor => ({ kind: 'variant', decl: first.decl, index, arity: v.fields.length }));
    return all.every((c) => seen.some((s) => sameCtor(s, c))) ? all : null;
  }
  if (first.bool !== null) {
    const both = [true, false].map((b): Ctor => ({ kind: 'lit', key: `bool:${b}`, bool: b }));
    return both.every((c) => seen.some((s) => sameCtor(s, c))) ? both : null;
  }
  return null;
}

/** A value shape the rows do not match (as source text), or null when they match everything. */
function witness(rows: Row[], width: number): string[] | null {
  if (width === 0) return rows.length === 0 ? [] : null;
  const seen = rows.flatMap((r) => (r[0] ? [r[0].ctor] : []));
  const complete = seen.length ? allCtors(seen) : null;
  if (complete) {
    for (const c of complete) {
      const w = witness(specialize(rows, c), arity(c) + width - 1);
      if (w) return [show(c, w.slice(0, arity(c))), ...w.slice(arity(c))];
    }
    return null;
  }
  const defaults = rows.filter((r) => r[0] === null).map((r) => r.slice(1));
  const w = witness(defaults, width - 1);
  if (!w) return null;
  return [missingCtor(seen), ...w];
}

function missingCtor(seen: Ctor[]): string {
  const first = seen[0];
  if (first?.kind === 'variant') {
    const v = first.decl.variants.find((_, i) => !seen.some((s) => s.kind === 'variant' && s.index === i))!;
    return show({ kind: 'variant', decl: first.decl, index: first.decl.variants.indexOf(v), arity: v.fields.length }, v.fields.map(() => '_'));
  }
  if (first?.kind === 'lit' && first.bool !== null) {
    return seen.some((s) => s.kind === 'lit' && s.bool === false) ? 'true' : 'false';
  }
  return '_';
}

function show(c: Ctor, args: string[]): string {
  if (c.kind === 'tuple') return `(${args.join(', ')})`;
  if (c.kind === 'lit') return c.key.slice(c.key.indexOf(':') + 1);
  const name = `${c.decl.name.name}::${c.decl.variants[c.index]!.name.name}`;
  return args.length ? `${name}(${args.join(', ')})` : name;
}

/** Reports a match whose arms leave some value of the scrutinee unmatched. */
export function checkExhaustive(ck: Checker, e: ExprOf<'match'>): void {
  const w = witness(e.arms.map((a) => [reduce(a.pattern)]), 1);
  if (w) ck.error(e.span, `non-exhaustive match: '${w[0]}' not covered`);
}
