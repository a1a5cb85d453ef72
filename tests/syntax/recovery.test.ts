import { describe, expect, it } from 'vitest';
import { renderDiagnostics } from '../../compiler/src/syntax/index.ts';
import { errors, parse } from './helpers.ts';

describe('error recovery', () => {
  it('reports several errors in one file with their positions and keeps the good items', () => {
    const src = [
      'fn a() -> i32 {',
      '    let x = 1 +;',
      '    let y = (2 3);',
      '    foo(a b, c);',
      '    x',
      '}',
      'fn b(x: i32 -> i32 { x }',
      'struct S { a: i32; b: i32 }',
      'fn c() { match x { 1 => a b, 2 => c } let z = ; }',
      'static Q = ;',
      '}',
      'fn ok() -> i32 { 1 }',
    ].join('\n');
    expect(errors(src)).toEqual([
      "2:16 expected expression, found ';'",
      "3:16 expected ',' or ')', found literal 3",
      "4:11 expected ',' or ')', found identifier 'b'",
      "7:13 expected ',' or ')', found '->'",
      "8:18 expected ',' or '}', found ';'",
      "9:27 expected ',' or '}', found identifier 'b'",
      "9:47 expected expression, found ';'",
      "10:12 expected expression, found ';'",
      "11:1 expected item, found '}'",
    ]);
    const names = parse(src).module.items.map((i) => ('name' in i ? i.name.name : i.kind));
    expect(names).toEqual(['a', 'S', 'c', 'ok']);
  });

  it('every parse error message starts with `expected`', () => {
    const bad = ['fn', 'fn f(', 'fn f() -> { }', 'struct { }', 'let x = 1;', 'fn f() { let = 1; }', 'enum E { 1 }',
      'extern "C" { fn f() { } }', 'fn f() { x. }', 'type = i32;', 'fn f() { if a { } else }', 'fn f() { [1, .. n] }',
      'fn f() { for x in y { } }', 'fn f() { match x { 1 } }', 'fn f(x: [i32 * n]) { }', 'impl { }', 'static X: = 1;'];
    for (const src of bad) {
      const es = errors(src);
      expect(es.length, src).toBeGreaterThan(0);
      for (const e of es) expect(e.replace(/^\d+:\d+ /, ''), src).toMatch(/^expected /);
    }
  });

  it('a missing semicolon does not swallow the next statement', () => {
    const src = 'fn f() {\n  let a = 1\n  let b = 2;\n  b = 3\n  g(b);\n}';
    expect(errors(src)).toEqual(["3:3 expected ';', found 'let'", "5:3 expected ';' or '}', found identifier 'g'"]);
  });

  it('a missing closing brace is reported at the end of the file', () => {
    expect(errors('fn f() {\n  g();\n')).toEqual(["3:1 expected '}', found end of file"]);
  });

  it('checks the generator of for/with and the operand of @@', () => {
    expect(errors('fn f() { for x in xs { } }')).toEqual(["1:19 expected a call as the generator of 'for'"]);
    expect(errors('fn f() { with gen { } }')).toEqual(["1:15 expected a call as the generator of 'with'"]);
    expect(errors('fn f() { @@g; }')).toEqual(["1:12 expected a call after '@@'"]);
  });

  it('rejects an unknown extern ABI but keeps its declarations', () => {
    const { module, diagnostics } = parse('extern "rust" { fn f(i32); }');
    expect(diagnostics.map((d) => d.message)).toEqual(['expected ABI "C", "device" or "thorin", found "rust"']);
    expect(module.items).toHaveLength(1);
  });

  it('interleaves lexical and syntax errors in source order', () => {
    expect(errors("fn f() {\n  let c = 'ab';\n  let = 1;\n  let s = \"x;\n}")).toEqual([
      '2:11 character literal must contain exactly one character',
      "3:7 expected pattern, found '='",
      '4:11 unterminated string literal',
      "5:1 expected ';', found '}'",
    ]);
  });

  it('renders diagnostics with the source line and a caret', () => {
    const src = 'fn f() {\n    let x = 1 +;\n}';
    const { diagnostics } = parse(src);
    expect(renderDiagnostics(diagnostics, [{ path: 'test.impala', text: src }])).toBe(
      "test.impala:2 col 16: error: expected expression, found ';'\n    let x = 1 +;\n               ^",
    );
  });

  it('bounds nesting with a diagnostic instead of overflowing the stack', () => {
    for (const deep of ['('.repeat(100_000), '-'.repeat(100_000) + 'x', '&'.repeat(50_000) + 'x', '['.repeat(100_000)]) {
      const es = errors(`fn f() { ${deep} }`);
      expect(es.some((e) => e.includes('nested too deeply'))).toBe(true);
    }
    expect(errors(`type T = ${'&'.repeat(10_000)}i32;`).some((e) => e.includes('nested too deeply'))).toBe(true);
    expect(errors(`fn f() { ${'{'.repeat(10_000)} }`).some((e) => e.includes('nested too deeply'))).toBe(true);
  });

  it('parses long flat chains without nesting limits', () => {
    const elseIfs = Array.from({ length: 2000 }, (_, i) => `if x == ${i} { ${i} }`).join(' else ');
    expect(errors(`fn f(x: i32) -> i32 { ${elseIfs} else { 0 } }`)).toEqual([]);
    expect(errors(`fn f() -> i32 { ${Array.from({ length: 5000 }, (_, i) => `${i}`).join(' + ')} }`)).toEqual([]);
    expect(errors(`fn f() { ${'a.b'.repeat(1)}${'.c(1)'.repeat(5000)}; }`)).toEqual([]);
  });
});
