import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DiagnosticSink, parseModule, printModule } from '../../compiler/src/syntax/index.ts';
import { paren } from './helpers.ts';

/** Parses and checks what must hold for any input: no exception, and every span inside the text. */
function parsesSafely(text: string): void {
  const sink = new DiagnosticSink();
  const module = parseModule({ path: 'fuzz.impala', text }, sink);
  expect(module.file).toBe('fuzz.impala');
  const lines = text.split('\n').length;
  for (const d of sink.list) {
    expect(d.severity).toBe('error');
    expect(d.span!.line).toBeGreaterThanOrEqual(1);
    expect(d.span!.line).toBeLessThanOrEqual(lines);
  }
}

const vocabulary = [
  'fn', 'let', 'mut', 'if', 'else', 'match', 'while', 'for', 'with', 'in', 'struct', 'enum', 'type', 'static', 'extern',
  'mod', 'trait', 'impl', 'pub', 'as', 'simd', 'asm', 'typeof', 'true', 'false', 'return', 'break', 'continue',
  'x', 'y', 'S', 'i32', 'f32', '_', '0', '42u8', '1.5f', '2.', "'a'", '"s"', '"C"',
  '(', ')', '[', ']', '{', '}', ',', ';', ':', '::', '.', '..', '->', '=>', '@', '@@', '?', '$', '~', '!', '=', '==',
  '<', '>', '<=', '+', '-', '*', '/', '%', '&', '&&', '|', '||', '^', '<<', '>>', '+=', '++', '--', '/*', '*/', '//', '\n',
];

describe('the parser on hostile input', () => {
  it('never throws on random text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300, unit: 'binary' }), parsesSafely), { numRuns: 500 });
  });

  it('never throws on random bytes read as Latin-1', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => parsesSafely(String.fromCharCode(...bytes))),
      { numRuns: 300 },
    );
  });

  it('never throws on token soups', () => {
    const soup = fc.tuple(fc.array(fc.constantFrom(...vocabulary), { maxLength: 200 }), fc.constantFrom(' ', ''));
    fc.assert(fc.property(soup, ([words, sep]) => parsesSafely(words.join(sep))), { numRuns: 1000 });
  });

  it('never throws on mutilated valid programs', () => {
    const program = [
      'fn @(?n) pow(x: i32, n: i32) -> i32 { if n == 0 { 1 } else if n % 2 == 0 { let r = pow(x, n / 2); r * r } else { x * pow(x, n - 1) } }',
      'extern "thorin" { fn bitcast[D, S](S) -> D; }',
      'struct P[T] { pub x: T, y: &mut[1][T] }',
      'fn main() { for i in range(0, 10) @ { let v = [0.0f, .. 4]; match i { 0 => v(0) = 1.0f, _ => { } } } }',
    ].join('\n');
    const cuts = fc.array(fc.tuple(fc.nat(program.length), fc.nat(8), fc.constantFrom('', '{', '}', '(', ';', 'fn', '|')), {
      maxLength: 6,
    });
    fc.assert(
      fc.property(cuts, (edits) => {
        let text = program;
        for (const [at, len, insert] of edits) text = text.slice(0, at) + insert + text.slice(at + len);
        parsesSafely(text);
      }),
      { numRuns: 500 },
    );
  });
});

// An independent statement of the precedence table: a random tree is written with as few
// parentheses as the table allows, and the parser must recover the tree.
type Tree =
  | { kind: 'atom'; text: string }
  | { kind: 'binary'; op: string; lhs: Tree; rhs: Tree }
  | { kind: 'assign'; op: string; lhs: Tree; rhs: Tree }
  | { kind: 'prefix'; op: string; operand: Tree }
  | { kind: 'cast'; operand: Tree };

const levels: Record<string, number> = {
  '||': 1, '&&': 2, '==': 3, '!=': 3, '<': 3, '<=': 3, '>': 3, '>=': 3, '|': 4, '^': 5, '&': 6, '<<': 7, '>>': 7,
  '+': 8, '-': 8, '*': 9, '/': 9, '%': 9,
};
const castLevel = 10;
const prefixLevel = 11;

const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b', 'c', '1', '2').map((text): Tree => ({ kind: 'atom', text })),
    fc.record({ kind: fc.constant('binary' as const), op: fc.constantFrom(...Object.keys(levels)), lhs: tie('tree'), rhs: tie('tree') }),
    fc.record({ kind: fc.constant('assign' as const), op: fc.constantFrom('=', '+=', '<<='), lhs: tie('tree'), rhs: tie('tree') }),
    fc.record({ kind: fc.constant('prefix' as const), op: fc.constantFrom('-', '!', '*', '&', '&mut', '$', '?'), operand: tie('tree') }),
    fc.record({ kind: fc.constant('cast' as const), operand: tie('tree') }),
  ),
})).tree;

function minimal(t: Tree, min: number): string {
  const wrap = (level: number, s: string) => (level < min ? `(${s})` : s);
  switch (t.kind) {
    case 'atom': return t.text;
    case 'binary': {
      const p = levels[t.op];
      return wrap(p, `${minimal(t.lhs, p)} ${t.op} ${minimal(t.rhs, p + 1)}`);
    }
    case 'assign': return wrap(0, `${minimal(t.lhs, 1)} ${t.op} ${minimal(t.rhs, 0)}`);
    case 'prefix': return wrap(prefixLevel, `${t.op} ${minimal(t.operand, prefixLevel)}`);
    case 'cast': return wrap(castLevel, `${minimal(t.operand, castLevel)} as i32`);
  }
}

function full(t: Tree): string {
  switch (t.kind) {
    case 'atom': return t.text;
    case 'binary': case 'assign': return `(${full(t.lhs)} ${t.op} ${full(t.rhs)})`;
    case 'prefix': return `(${t.op === '&mut' ? '&mut ' : t.op}${full(t.operand)})`;
    case 'cast': return `(${full(t.operand)} as i32)`;
  }
}

describe('precedence, checked against the table', () => {
  it('recovers random trees from minimally parenthesised text', () => {
    fc.assert(
      fc.property(tree, (t) => {
        expect(paren(minimal(t, 0))).toBe(full(t));
      }),
      { numRuns: 1000 },
    );
  });

  it('printing is a fixed point of parsing', () => {
    fc.assert(
      fc.property(tree, (t) => {
        const src = `fn f() { ${minimal(t, 0)}; }`;
        const once = printModule(parseModule({ path: 'a', text: src }, new DiagnosticSink()));
        const twice = printModule(parseModule({ path: 'b', text: once }, new DiagnosticSink()));
        expect(twice).toBe(once);
      }),
      { numRuns: 300 },
    );
  });
});
