// Mutations of Impala sources for the fuzzer: token deletion, insertion and swaps, line
// duplication, truncation, splices from other programs, deep nesting and huge literals.
// Every choice comes from the given generator, so a seed reproduces a mutant exactly.

export type Rng = () => number;

/** Identifiers, numbers, strings, comments, operators, whitespace: enough to cut a program at token boundaries. */
const TOKEN = /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|<<=|>>=|->|=>|::|\.\.|&&|\|\||[-+*/%&|^!=<>]=?|./gs;

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

const isSpace = (t: string): boolean => /^\s/.test(t);
const isNumber = (t: string): boolean => /^\d/.test(t);

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[Math.floor(rng() * xs.length)]!;
}

function int(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

/** Indices of the tokens that are not whitespace (the ones mutations act on). */
function solid(tokens: readonly string[]): number[] {
  const out: number[] = [];
  tokens.forEach((t, i) => {
    if (!isSpace(t)) out.push(i);
  });
  return out;
}

export interface MutationContext {
  /** Tokens seen in the corpus, the pool insertions draw from. */
  pool: readonly string[];
  /** Other programs, for splices. */
  corpus: readonly string[];
}

type Mutation = (rng: Rng, text: string, cx: MutationContext) => string;

const deleteToken: Mutation = (rng, text) => {
  const tokens = tokenize(text);
  const at = solid(tokens);
  if (at.length === 0) return text;
  const n = int(rng, 1, 3);
  const i = pick(rng, at);
  let removed = 0;
  for (let k = i; k < tokens.length && removed < n; k++) {
    if (!isSpace(tokens[k]!)) removed++;
    tokens[k] = '';
  }
  return tokens.join('');
};

const insertToken: Mutation = (rng, text, cx) => {
  const tokens = tokenize(text);
  const i = int(rng, 0, tokens.length);
  tokens.splice(i, 0, ` ${pick(rng, cx.pool)} `);
  return tokens.join('');
};

const swapTokens: Mutation = (rng, text) => {
  const tokens = tokenize(text);
  const at = solid(tokens);
  if (at.length < 2) return text;
  const k = int(rng, 0, at.length - 2);
  const [a, b] = [at[k]!, at[rng() < 0.7 ? k + 1 : int(rng, 0, at.length - 1)]!];
  [tokens[a], tokens[b]] = [tokens[b]!, tokens[a]!];
  return tokens.join('');
};

const duplicateLine: Mutation = (rng, text) => {
  const lines = text.split('\n');
  const i = int(rng, 0, lines.length - 1);
  const copies = rng() < 0.8 ? 1 : int(rng, 2, 200);
  lines.splice(i, 0, ...Array<string>(copies).fill(lines[i]!));
  return lines.join('\n');
};

const truncate: Mutation = (rng, text) => text.slice(0, int(rng, 0, text.length));

const splice: Mutation = (rng, text, cx) => {
  const other = pick(rng, cx.corpus).split('\n');
  const from = int(rng, 0, other.length - 1);
  const piece = other.slice(from, from + int(rng, 1, 8));
  const lines = text.split('\n');
  lines.splice(int(rng, 0, lines.length), 0, ...piece);
  return lines.join('\n');
};

/** Depths that reach past any plausible recursion limit of a recursive-descent compiler. */
const DEPTHS = [20, 200, 2000, 20000];

const deepNesting: Mutation = (rng, text) => {
  const tokens = tokenize(text);
  const at = solid(tokens).filter((i) => /^[A-Za-z_\d]/.test(tokens[i]!));
  if (at.length === 0) return text;
  const i = pick(rng, at);
  const n = pick(rng, DEPTHS);
  const [open, close] = pick(rng, [
    ['(', ')'],
    ['{ ', ' }'],
    ['[', ']'],
    ['-', ''],
    ['!', ''],
    ['&', ''],
    ['*', ''],
    ['if true { ', ' } else { 0 }'],
    ['|| ', ''],
    ['(', ',)'],
  ] as const);
  tokens[i] = open.repeat(n) + tokens[i]! + close.repeat(n);
  return tokens.join('');
};

const hugeLiteral: Mutation = (rng, text) => {
  const tokens = tokenize(text);
  const numbers = solid(tokens).filter((i) => isNumber(tokens[i]!));
  const at = numbers.length > 0 ? numbers : solid(tokens);
  if (at.length === 0) return text;
  const i = pick(rng, at);
  const digits = pick(rng, [20, 40, 400, 100000]);
  tokens[i] = pick(rng, [
    '9'.repeat(digits),
    `0x${'f'.repeat(digits)}`,
    `1${'0'.repeat(digits)}.5`,
    `1e${digits}`,
    `1.0e-${digits}`,
    '18446744073709551616',
    '2147483648',
    '-9223372036854775809',
    `${'9'.repeat(digits)}u8`,
    `"${'x'.repeat(digits)}"`,
    `[0, .. ${'9'.repeat(Math.min(digits, 30))}]`,
  ]);
  return tokens.join('');
};

const MUTATIONS: readonly [number, Mutation][] = [
  [6, deleteToken],
  [6, insertToken],
  [4, swapTokens],
  [2, duplicateLine],
  [2, truncate],
  [2, splice],
  [1, deepNesting],
  [2, hugeLiteral],
];
const TOTAL = MUTATIONS.reduce((s, [w]) => s + w, 0);

/** One to three mutations of `text`. */
export function mutate(rng: Rng, text: string, cx: MutationContext): string {
  const rounds = rng() < 0.6 ? 1 : int(rng, 2, 3);
  let out = text;
  for (let r = 0; r < rounds; r++) {
    let x = rng() * TOTAL;
    const m = MUTATIONS.find(([w]) => (x -= w) < 0)?.[1] ?? deleteToken;
    out = m(rng, out, cx);
  }
  return out;
}

/** The insertion pool: every distinct token of the corpus, plus keywords that may be rare in it. */
export function tokenPool(corpus: readonly string[]): string[] {
  const seen = new Set<string>(['fn', 'let', 'mut', 'if', 'else', 'while', 'for', 'in', 'match', 'return', 'break', 'continue', 'struct', 'enum', 'static', 'extern', '@', '?', '$', '..', '::', '->', '=>', 'as', 'simd', 'asm']);
  for (const text of corpus) for (const t of tokenize(text)) if (!isSpace(t) && t.length < 40) seen.add(t);
  return [...seen].sort();
}
