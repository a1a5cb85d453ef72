import { describe, expect, it } from 'vitest';
import { primName, type Token } from '../../compiler/src/syntax/index.ts';
import { tokens } from './helpers.ts';

function kinds(text: string): string[] {
  return tokens(text).tokens.map((t) => `${t.kind} ${t.text}`);
}

function one(text: string): Token {
  const { tokens: ts, diagnostics } = tokens(text);
  expect(diagnostics).toEqual([]);
  expect(ts).toHaveLength(2);
  return ts[0];
}

function lexErrors(text: string): string[] {
  return tokens(text).diagnostics.map((d) => `${d.span?.line}:${d.span?.col}-${d.span?.endCol} ${d.message}`);
}

describe('lexer: words', () => {
  it('separates keywords from identifiers', () => {
    const all = 'do else enum extern false fn for with if match impl in let asm mod priv pub static struct trait true type typeof while simd as mut';
    expect(tokens(all).tokens.slice(0, -1).every((t) => t.kind === 'keyword')).toBe(true);
    expect(kinds('fnord iff _x __ x1_y2 _ returned')).toEqual([
      'ident fnord', 'ident iff', 'ident _x', 'ident __', 'ident x1_y2', 'ident _', 'ident returned', 'eof ',
    ]);
  });

  it('keeps primitive type names contextual and maps the aliases', () => {
    expect(kinds('i32 half')).toEqual(['ident i32', 'ident half', 'eof ']);
    expect(primName('int')).toBe('i32');
    expect(primName('uint')).toBe('u32');
    expect(primName('half')).toBe('f16');
    expect(primName('float')).toBe('f32');
    expect(primName('double')).toBe('f64');
    expect(primName('bool')).toBe('bool');
    expect(primName('u64')).toBe('u64');
    expect(primName('i128')).toBeNull();
  });

  it('treats return, break and continue as identifiers (they are first-class values)', () => {
    expect(kinds('return break continue')).toEqual(['ident return', 'ident break', 'ident continue', 'eof ']);
  });
});

describe('lexer: operators', () => {
  it('munches the longest operator', () => {
    const ops = ':: .. -> => @@ @ ? $ ++ -- += -= *= /= %= &= |= ^= <<= >>= << >> == != <= >= && || ~ ! = < > + - * / % & | ^ ( ) [ ] { } , ; : .';
    expect(tokens(ops).tokens.slice(0, -1).map((t) => t.text).join(' ')).toBe(ops);
    expect(kinds('a<<=b')).toEqual(['ident a', 'punct <<=', 'ident b', 'eof ']);
    expect(kinds('@@f @?x')).toEqual(['punct @@', 'ident f', 'punct @', 'punct ?', 'ident x', 'eof ']);
    expect(kinds('x-->y')).toEqual(['ident x', 'punct --', 'punct >', 'ident y', 'eof ']);
  });
});

describe('lexer: integer literals', () => {
  it.each([
    ['42', 42n, null], ['0', 0n, null], ['0x2A', 42n, null], ['0xDeadBee', 0xdeadbeen, null], ['0o777', 0o777n, null],
    ['0b1111_0000', 0xf0n, null], ['1_000_000', 1000000n, null], ['7i', 7n, 'i'], ['7u', 7n, 'u'],
    ['100i8', 100n, 'i8'], ['60000u16', 60000n, 'u16'], ['3i64', 3n, 'i64'], ['0xFFu8', 255n, 'u8'],
    ['0b1000_0000u8', 128n, 'u8'], ['1_i32', 1n, 'i32'], ['1024f', 1024n, 'f'], ['3f32', 3n, 'f32'], ['2f16', 2n, 'f16'],
    ['1h', 1n, 'h'], ['0x1f32', 0x1f32n, null], ['18446744073709551615', 18446744073709551615n, null],
  ])('%s', (text, value, suffix) => {
    const t = one(text);
    expect(t.kind).toBe('int');
    if (t.kind !== 'int') return;
    expect(t.value).toBe(value);
    expect(t.suffix).toBe(suffix);
  });

  it('leaves `..` and method-like dots to the parser', () => {
    expect(kinds('0..4')).toEqual(['int 0', 'punct ..', 'int 4', 'eof ']);
    expect(kinds('1.max')).toEqual(['int 1', 'punct .', 'ident max', 'eof ']);
  });

  it('reports integers beyond 64 bits, bad digits, bad suffixes and bare prefixes', () => {
    expect(lexErrors('18446744073709551616')).toEqual(['1:1-20 integer literal is too large for 64 bits']);
    expect(lexErrors('0b102')).toEqual(["1:5-5 invalid digit '2' in binary literal"]);
    expect(lexErrors('0o8')).toEqual(["1:3-3 invalid digit '8' in octal literal"]);
    expect(lexErrors('12abc')).toEqual(["1:3-5 invalid suffix 'abc' on integer literal"]);
    expect(lexErrors('0x')).toEqual(["1:1-2 missing digits after integer base prefix '0x'"]);
    expect(lexErrors('0xffh')).toEqual(["1:5-5 invalid suffix 'h' on integer literal"]);
  });
});

describe('lexer: float literals', () => {
  it.each([
    ['1.5', 1.5, null], ['1e-5', 1e-5, null], ['2.5e3', 2500, null], ['1E2', 100, null], ['1.25e+2', 125, null],
    ['2.f', 2, 'f'], ['2.', 2, null], ['1.25f', 1.25, 'f'], ['0.75f32', 0.75, 'f32'], ['0.1f64', 0.1, 'f64'],
    ['1.5h', 1.5, 'h'], ['0.5f16', 0.5, 'f16'], ['1e5f', 1e5, 'f'], ['1_000.5', 1000.5, null],
    // The 2018 code's spellings: a leading point, `_` right after the exponent's `e`.
    ['.5', 0.5, null], ['.25f', 0.25, 'f'], ['1.7e_4', 17000, null], ['2E+0_1', 20, null], ['3.4028234664e+38f', 3.4028234664e38, 'f'],
  ])('%s', (text, value, suffix) => {
    const t = one(text);
    expect(t.kind).toBe('float');
    if (t.kind !== 'float') return;
    expect(t.value).toBe(value);
    expect(t.suffix).toBe(suffix);
  });

  it('reports an integer suffix on a float', () => {
    expect(lexErrors('1.5i32')).toEqual(["1:4-6 invalid suffix 'i32' on float literal"]);
  });

  it('reads a point after an operand as a field access, not as a float', () => {
    expect(kinds('s.5 f().5 [1].0 (x, .5)')).toEqual([
      'ident s', 'punct .', 'int 5', 'ident f', 'punct (', 'punct )', 'punct .', 'int 5', 'punct [', 'int 1', 'punct ]',
      'punct .', 'int 0', 'punct (', 'ident x', 'punct ,', 'float .5', 'punct )', 'eof ',
    ]);
    expect(kinds('1e_')).toEqual(['int 1e_', 'eof ']);
  });
});

describe('lexer: char and string literals', () => {
  it.each([
    ["'a'", 97], ["'0'", 48], ["' '", 32], ["'\\0'", 0], ["'\\n'", 10], ["'\\t'", 9], ["'\\''", 39], ["'\\\"'", 34],
    ["'\\\\'", 92], ["'\"'", 34],
  ])('%s', (text, value) => {
    const t = one(text);
    expect(t.kind).toBe('char');
    if (t.kind === 'char') expect(t.value).toBe(value);
  });

  it('resolves string escapes to bytes and encodes UTF-8', () => {
    const t = one('"tab\\there \\" \\\\ \\\' \\0 é"');
    expect(t.kind).toBe('str');
    if (t.kind !== 'str') return;
    expect([...t.value]).toEqual([...new TextEncoder().encode('tab\there " \\ \' \0 é')]);
  });

  it('reports bad char literals with precise spans', () => {
    expect(lexErrors("''")).toEqual(['1:1-2 empty character literal']);
    expect(lexErrors("'ab'")).toEqual(['1:1-4 character literal must contain exactly one character']);
    expect(lexErrors("'é'")).toEqual(['1:1-3 character literal is not a single byte (u8)']);
    expect(lexErrors("'\\q'")).toEqual(["1:2-3 unknown escape sequence '\\q'"]);
    expect(lexErrors("x = 'a")).toEqual(['1:5-6 unterminated character literal']);
  });

  it('reports unterminated strings at the end of their line and keeps lexing', () => {
    const { tokens: ts, diagnostics } = tokens('let s = "abc\nlet t = 1;');
    expect(diagnostics.map((d) => `${d.span?.line}:${d.span?.col}-${d.span?.endCol} ${d.message}`)).toEqual([
      '1:9-12 unterminated string literal',
    ]);
    expect(ts.filter((t) => t.kind === 'keyword').map((t) => t.span.line)).toEqual([1, 2]);
    expect(lexErrors('"a\\qb"')).toEqual(["1:3-4 unknown escape sequence '\\q'"]);
  });
});

describe('lexer: comments, whitespace, spans', () => {
  it('skips line and nested block comments', () => {
    expect(kinds('a // x\n/* b /* c */ d */ e /**/ f /***/')).toEqual(['ident a', 'ident e', 'ident f', 'eof ']);
    expect(kinds('2 */* multiply */ 3')).toEqual(['int 2', 'punct *', 'int 3', 'eof ']);
  });

  it('reports an unterminated block comment at its start', () => {
    expect(lexErrors('a\n  /* /* */ never closed')).toEqual(['2:3-4 unterminated block comment']);
  });

  it('reports unexpected characters and goes on', () => {
    expect(lexErrors('a # b ` \\')).toEqual([
      "1:3-3 unexpected character '#'", "1:7-7 unexpected character '`'", "1:9-9 unexpected character '\\'",
    ]);
    expect(kinds('a # b')).toEqual(['ident a', 'ident b', 'eof ']);
    expect(lexErrors('a\u0001')).toEqual(["1:2-2 unexpected character 'U+0001'"]);
  });

  it('reports a run of unexpected characters as one error', () => {
    expect(lexErrors('a ##` b')).toEqual(["1:3-5 unexpected characters '##`'"]);
    expect(lexErrors(`${'#'.repeat(30)} b`)).toEqual([`1:1-30 unexpected characters '${'#'.repeat(20)}…'`]);
  });

  it('gives 1-based lines and inclusive end columns', () => {
    const ts = tokens('fn main() {\r\n\tlet xyz = 0x10;\n}').tokens;
    const xyz = ts.find((t) => t.text === 'xyz')!;
    expect(xyz.span).toEqual({ file: 'test.impala', line: 2, col: 6, endLine: 2, endCol: 8 });
    const eof = ts[ts.length - 1];
    expect(eof.span.line).toBe(3);
    expect(eof.span.col).toBe(2);
  });
});
