// The generated programs as data: a small tree of Impala text fragments that the
// generator builds well typed by construction, the printer turns into source, and
// the reducer shrinks while keeping every name it uses in scope. Only what the
// reducer has to see is structured (scalar expressions, statement lists, names);
// everything else is plain text.

export type Scalar = 'i8' | 'u8' | 'i16' | 'u16' | 'i32' | 'u32' | 'i64' | 'u64' | 'bool' | 'f32' | 'f64';

/** A piece of a fragment: text, a sub-expression, a braced block, or a use of a name. */
export type Part = string | Expr | Block | NameUse | ItemUse;

/** A local variable (or loop index, closure parameter) used by name. */
export interface NameUse {
  k: 'name';
  name: string;
}

/** A per-case item (helper fn, struct), printed with the case's prefix so cases can share a module. */
export interface ItemUse {
  k: 'item';
  name: string;
}

export type Expr =
  | { k: 'lit'; t: Scalar; text: string }
  | { k: 'ref'; t: Scalar; name: string }
  /** `t` null: not a scalar (an aggregate, a closure), so it cannot be replaced by a literal. `binds`: names its parts may use (closure params). */
  | { k: 'op'; t: Scalar | null; parts: Part[]; binds?: string[] };

export interface Block {
  k: 'block';
  /** A fixed first line (a while loop's counter increment) the reducer must not remove. */
  head?: string;
  stmts: Stmt[];
  /** The block's value (a helper's result). */
  tail?: Expr;
}

export interface Stmt {
  k: 'stmt';
  parts: Part[];
  /** Names visible to later statements of the same list. */
  decls?: string[];
  /** Names visible inside this statement's parts only (loop index, while counter). */
  binds?: string[];
}

export interface Item {
  name: string;
  parts: Part[];
  /** Parameters, visible in `parts`. */
  binds: string[];
}

export interface Case {
  params: { name: string; t: Scalar }[];
  items: Item[];
  body: Block;
  /** Per input set, one literal per parameter. */
  inputs: Lit[][];
}

export interface Lit {
  t: Scalar;
  text: string;
  /** The value as the interpreter takes it. */
  value: bigint | number | boolean;
}

// ------------------------------------------------------------------ constructors

export const lit = (t: Scalar, text: string): Expr => ({ k: 'lit', t, text });
export const ref = (t: Scalar, name: string): Expr => ({ k: 'ref', t, name });
export const op = (t: Scalar | null, ...parts: Part[]): Expr => ({ k: 'op', t, parts });
export const nameUse = (name: string): NameUse => ({ k: 'name', name });
export const itemUse = (name: string): ItemUse => ({ k: 'item', name });
export const stmt = (parts: Part[], decls?: string[], binds?: string[]): Stmt => ({
  k: 'stmt',
  parts,
  ...(decls ? { decls } : {}),
  ...(binds ? { binds } : {}),
});
export const block = (stmts: Stmt[], tail?: Expr, head?: string): Block => ({
  k: 'block',
  stmts,
  ...(tail ? { tail } : {}),
  ...(head ? { head } : {}),
});

/** The literal the reducer puts in place of an expression. */
export function simplest(t: Scalar): Expr {
  if (t === 'bool') return lit(t, 'false');
  if (t === 'f32') return lit(t, '0.0f');
  if (t === 'f64') return lit(t, '0.0');
  return lit(t, t === 'i32' ? '0' : `0${t}`);
}

// ------------------------------------------------------------------ printing

const INDENT = '    ';

function printParts(parts: readonly Part[], prefix: string, depth: number): string {
  let s = '';
  for (const p of parts) {
    if (typeof p === 'string') s += p;
    else if (p.k === 'name') s += p.name;
    else if (p.k === 'item') s += prefix + p.name;
    else if (p.k === 'block') s += printBlock(p, prefix, depth);
    else s += printExpr(p, prefix, depth);
  }
  return s;
}

function printExpr(e: Expr, prefix: string, depth: number): string {
  if (e.k === 'lit') return e.text;
  if (e.k === 'ref') return e.name;
  return printParts(e.parts, prefix, depth);
}

function printBlock(b: Block, prefix: string, depth: number): string {
  const inner = INDENT.repeat(depth + 1);
  const lines = [...(b.head ? [b.head] : []), ...b.stmts.map((s) => printParts(s.parts, prefix, depth + 1))];
  if (b.tail) lines.push(printExpr(b.tail, prefix, depth + 1));
  if (lines.length === 0) return '{ }';
  return `{\n${lines.map((l) => inner + l).join('\n')}\n${INDENT.repeat(depth)}}`;
}

export function printItem(item: Item, prefix: string): string {
  return printParts(item.parts, prefix, 0);
}

/** The case as Impala items: its helpers, `fn <prefix>case(…) -> i32` and the exported `extern fn <prefix>entry(…) -> i32`. */
export function printCase(c: Case, prefix: string): string {
  const params = c.params.map((p) => `${p.name}: ${p.t}`).join(', ');
  const args = c.params.map((p) => p.name).join(', ');
  return [
    ...c.items.map((i) => printItem(i, prefix)),
    `fn ${prefix}case(${params}) -> i32 ${printBlock(c.body, prefix, 0)}`,
    `extern fn ${prefix}entry(${params}) -> i32 { ${prefix}case(${args}) }`,
  ].join('\n');
}

// ------------------------------------------------------------------ scoping

/** Whether every name and item the case uses is declared where it is used: what keeps a reduction well formed. */
export function wellScoped(c: Case): boolean {
  const items = new Set(c.items.map((i) => i.name));
  const parts = (ps: readonly Part[], scope: ReadonlySet<string>): boolean =>
    ps.every((p) => {
      if (typeof p === 'string') return true;
      if (p.k === 'name') return scope.has(p.name);
      if (p.k === 'item') return items.has(p.name);
      if (p.k === 'block') return blockOk(p, scope);
      return expr(p, scope);
    });
  const expr = (e: Expr, scope: ReadonlySet<string>): boolean => {
    if (e.k === 'lit') return true;
    if (e.k === 'ref') return scope.has(e.name);
    return parts(e.parts, e.binds ? new Set([...scope, ...e.binds]) : scope);
  };
  const blockOk = (b: Block, outer: ReadonlySet<string>): boolean => {
    const scope = new Set(outer);
    for (const s of b.stmts) {
      if (!parts(s.parts, s.binds ? new Set([...scope, ...s.binds]) : scope)) return false;
      for (const d of s.decls ?? []) scope.add(d);
    }
    return !b.tail || expr(b.tail, scope);
  };
  return (
    c.items.every((i) => parts(i.parts, new Set(i.binds))) && blockOk(c.body, new Set(c.params.map((p) => p.name)))
  );
}

// ------------------------------------------------------------------ reduction

/** Nodes, plus expressions that are not literals yet, plus input sets: every reduction makes it smaller. */
export function weight(c: Case): number {
  let w = c.inputs.length;
  const visit = (n: Node): void => {
    w += typeof n !== 'string' && (n.k === 'op' || n.k === 'ref') ? 2 : 1;
    for (const ch of children(n)) visit(ch);
  };
  for (const i of c.items) for (const p of i.parts) visit(p);
  visit(c.body);
  return w;
}

type Node = Part | Stmt;

function children(n: Node): Node[] {
  if (typeof n === 'string' || n.k === 'name' || n.k === 'item' || n.k === 'lit' || n.k === 'ref') return [];
  if (n.k === 'block') return [...n.stmts, ...(n.tail ? [n.tail] : [])];
  return n.parts;
}

/** Every block and every scalar expression but literals, in pre-order over the items and the body. */
function collect(c: Case): { blocks: Block[]; exprs: Exclude<Expr, { k: 'lit' }>[] } {
  const blocks: Block[] = [];
  const exprs: Exclude<Expr, { k: 'lit' }>[] = [];
  const visit = (n: Node): void => {
    if (typeof n !== 'string') {
      if (n.k === 'block') blocks.push(n);
      if ((n.k === 'op' && n.t !== null) || n.k === 'ref') exprs.push(n);
    }
    for (const ch of children(n)) visit(ch);
  };
  for (const i of c.items) for (const p of i.parts) visit(p);
  visit(c.body);
  return { blocks, exprs };
}

/** Turns node `x` into `y` in place (the parent keeps pointing at `x`). */
function become(x: Expr, y: Expr): void {
  const target = x as unknown as Record<string, unknown>;
  const source = { ...y } as unknown as Record<string, unknown>;
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
}

/** Replaces, in a copy of `c`, the `index`-th node `collect` finds, by what `edit` makes of it. */
function editCopy<K extends 'blocks' | 'exprs'>(
  c: Case,
  kind: K,
  index: number,
  edit: (n: ReturnType<typeof collect>[K][number]) => void,
): Case {
  const copy = structuredClone(c);
  edit(collect(copy)[kind][index]!);
  return copy;
}

/**
 * Smaller variants of `c`, the larger steps first: dropping helpers, statements
 * (an `if` may also give way to one of its branches), then replacing scalar
 * expressions by a literal or by a sub-expression of the same type. Only
 * well-scoped variants are produced.
 */
export function* reductions(c: Case): Generator<Case> {
  const ok = (v: Case): boolean => wellScoped(v);
  for (let i = 0; i < c.items.length; i++) {
    const v = structuredClone(c);
    v.items.splice(i, 1);
    if (ok(v)) yield v;
  }
  if (c.inputs.length > 1) yield { ...structuredClone(c), inputs: [c.inputs[0]!] };
  const { blocks, exprs } = collect(c);
  for (let b = 0; b < blocks.length; b++) {
    const n = blocks[b]!.stmts.length;
    // Halves first, then single statements: quick on long bodies, thorough at the end.
    for (let size = Math.max(1, n >> 1); size >= 1; size = size === 1 ? 0 : Math.max(1, size >> 1)) {
      for (let at = 0; at + size <= n; at += size) {
        const v = editCopy(c, 'blocks', b, (blk) => void blk.stmts.splice(at, size));
        if (ok(v)) yield v;
      }
    }
    for (let s = 0; s < n; s++) {
      const st = blocks[b]!.stmts[s]!;
      // A loop body cannot replace its loop: it uses the loop's bindings, and `break()` would lose its loop.
      if (st.binds?.length) continue;
      const branches = st.parts.flatMap((p, i) => (typeof p !== 'string' && p.k === 'block' ? [i] : []));
      for (const i of branches) {
        const v = editCopy(c, 'blocks', b, (blk) => void blk.stmts.splice(s, 1, ...(blk.stmts[s]!.parts[i] as Block).stmts));
        if (ok(v)) yield v;
      }
    }
  }
  for (let e = 0; e < exprs.length; e++) {
    const x = exprs[e]!;
    const t = x.t!;
    yield editCopy(c, 'exprs', e, (y) => become(y, simplest(t)));
    if (x.k !== 'op') continue;
    const same = x.parts.flatMap((p, i) => (typeof p !== 'string' && (p.k === 'op' || p.k === 'ref' || p.k === 'lit') && p.t === t ? [i] : []));
    for (const i of same) {
      const v = editCopy(c, 'exprs', e, (y) => become(y, (y as Extract<Expr, { k: 'op' }>).parts[i] as Expr));
      if (ok(v)) yield v;
    }
  }
}
