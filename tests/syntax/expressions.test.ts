import { describe, expect, it } from 'vitest';
import type { Expr, ExprOf } from '../../compiler/src/syntax/index.ts';
import { expr, paren, roundTrip, tail } from './helpers.ts';

function as<K extends Expr['kind']>(e: Expr, kind: K): ExprOf<K> {
  expect(e.kind).toBe(kind);
  return e as ExprOf<K>;
}

describe('precedence and associativity', () => {
  it.each([
    ['a + b * c', '(a + (b * c))'],
    ['a * b + c', '((a * b) + c)'],
    ['a - b - c', '((a - b) - c)'],
    ['a / b / c', '((a / b) / c)'],
    ['a < b == c', '((a < b) == c)'],
    ['a == b < c', '((a == b) < c)'],
    ['a != b >= c <= d > e', '((((a != b) >= c) <= d) > e)'],
    ['a || b && c', '(a || (b && c))'],
    ['a && b || c', '((a && b) || c)'],
    ['a | b ^ c & d', '(a | (b ^ (c & d)))'],
    ['a & b == c', '((a & b) == c)'],
    ['a << b + c', '(a << (b + c))'],
    ['a >> b >> c', '((a >> b) >> c)'],
    ['a + b << c', '((a + b) << c)'],
    ['x = y = z', '(x = (y = z))'],
    ['x += y -= z', '(x += (y -= z))'],
    ['x <<= a || b', '(x <<= (a || b))'],
    ['-a as i64', '((-a) as i64)'],
    ['a * b as f32', '(a * (b as f32))'],
    ['x as i32 as i64', '((x as i32) as i64)'],
    ['*p.f', '(*(p.f))'],
    ['-a.b(c)', '(-(a.b)(c))'],
    ['!a && b', '((!a) && b)'],
    ['&mut x.y', '(&mut (x.y))'],
    ['&&x', '(&(&x))'],
    ['&&mut x', '(&(&mut x))'],
    ['- -a', '(-(-a))'],
    ['++i', '(++i)'],
    ['i++ + 1', '((i++) + 1)'],
    ['m(y)(x)', 'm(y)(x)'],
    ['a.b.c', '((a.b).c)'],
    ['$a + b', '(($a) + b)'],
    ['?n & ?m', '((?n) & (?m))'],
    ['~x', '(~x)'],
    ['@@f(a) + 1', '((@@f(a)) + 1)'],
  ])('%s', (src, printed) => {
    expect(paren(src)).toBe(printed);
  });

  it('parses a closure body as far as it reaches', () => {
    expect(paren('|x| x + 1')).toBe('(|x| x + 1)');
    expect(paren('f(|x| x * 2, y)')).toBe('f(|x| x * 2, y)');
  });
});

describe('primary expressions', () => {
  it('literals', () => {
    expect(as(expr('42u8'), 'lit').lit).toEqual({ kind: 'int', value: 42n, suffix: 'u8' });
    expect(as(expr('1.5f'), 'lit').lit).toEqual({ kind: 'float', value: 1.5, suffix: 'f' });
    expect(as(expr('true'), 'lit').lit).toEqual({ kind: 'bool', value: true });
    expect(as(expr("'\\n'"), 'lit').lit).toEqual({ kind: 'char', value: 10 });
    const s = as(expr('"ab" "cd"\n "e"'), 'lit').lit;
    expect(s.kind === 'str' && new TextDecoder().decode(s.value)).toBe('abcde');
  });

  it('paths, type application and first-class return/break/continue', () => {
    const p = as(expr('a::b[i32, T]::c'), 'path').path;
    expect(p.segments.map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(p.segments[1].typeArgs.map((t) => t.kind)).toEqual(['prim', 'path']);
    const call = as(expr('bitcast[f32](x)'), 'call');
    expect(as(call.callee, 'path').path.segments[0].typeArgs).toHaveLength(1);
    expect(expr('return').kind).toBe('return');
    expect(expr('break').kind).toBe('break');
    expect(expr('continue').kind).toBe('continue');
    expect(as(as(expr('return(x)'), 'call').callee, 'return')).toBeTruthy();
  });

  it('indexing uses call syntax', () => {
    const c = as(expr('t(0)'), 'call');
    expect(c.args).toHaveLength(1);
  });

  it('tuples, parentheses, arrays, repeats, heap arrays and simd vectors', () => {
    expect(as(expr('()'), 'tuple').elems).toEqual([]);
    expect(expr('(a)').kind).toBe('path');
    expect(as(expr('(a, b)'), 'tuple').elems).toHaveLength(2);
    expect(as(expr('(a,)'), 'tuple').elems).toHaveLength(1);
    expect(as(expr('[a, b, c,]'), 'array').elems).toHaveLength(3);
    expect(as(expr('[]'), 'array').elems).toHaveLength(0);
    const r = as(expr('[0.0f, .. 4]'), 'repeat');
    expect(r.count).toBe(4);
    const h = as(expr('~[n * 2: f32]'), 'heaparray');
    expect(paren('~[n * 2: f32]')).toBe('~[n * 2: f32]');
    expect(h.elemType.kind).toBe('prim');
    expect(paren('~[1, 2]')).toBe('(~[1, 2])');
    expect(as(expr('simd[a, b, c, d]'), 'simd').elems).toHaveLength(4);
  });

  it('struct literals', () => {
    const s = as(expr('S { f: 1, g: x + 1 }'), 'struct');
    expect(s.fields.map((f) => f.name.name)).toEqual(['f', 'g']);
    expect(as(expr('S[i32] { }'), 'struct').path.segments[0].typeArgs).toHaveLength(1);
    expect(paren('m::P { x: S { y: 1 } }')).toBe('(m::P { x: S { y: 1 } })');
  });

  it('closures with and without types, return types and filters', () => {
    const c = as(expr('|x, mut y: i32| x'), 'closure');
    expect(c.params.map((p) => [p.name?.name, p.mutable, p.type?.kind ?? null])).toEqual([['x', false, null], ['y', true, 'prim']]);
    expect(as(expr('|| 1'), 'closure').params).toEqual([]);
    const typed = as(expr('|x: i32| -> i32 { x }'), 'closure');
    expect(typed.retType?.kind).toBe('prim');
    expect(typed.body.kind).toBe('block');
    expect(as(expr('|k| -> ! k()'), 'closure').diverges).toBe(true);
    expect(as(expr('@|x| x'), 'closure').filter?.kind).toBe('always');
    const f = as(expr('@(?c)|x| x'), 'closure').filter;
    expect(f?.kind === 'expr' && f.expr.kind).toBe('known');
    expect(as(expr('@|| 0'), 'closure').filter?.kind).toBe('always');
  });

  it("the 2018 closures: '||' before ')' does nothing, '|x||y, z| e' nests", () => {
    const call = as(expr('benchmark(f, ||)'), 'call');
    const empty = as(call.args[1]!, 'closure');
    expect([empty.params, empty.body.kind === 'tuple' && empty.body.elems]).toEqual([[], []]);
    const outer = as(expr('|x||y, z| x + y'), 'closure');
    const inner = as(outer.body, 'closure');
    expect([outer.params.map((p) => p.name?.name), inner.params.map((p) => p.name?.name), inner.body.kind]).toEqual([['x'], ['y', 'z'], 'binary']);
    expect(paren('|a: i32||b||c| a')).toBe(paren('|a: i32| |b| |c| a'));
  });

  it('partial-evaluation annotations', () => {
    expect(as(expr('@@f(a, b)'), 'run').call.kind).toBe('call');
    expect(as(expr('$a'), 'hlt').expr.kind).toBe('path');
    expect(as(expr('?a'), 'known').expr.kind).toBe('path');
  });

  it('control flow', () => {
    const i = as(expr('if a { 1 } else if b { 2 } else { 3 }'), 'if');
    const elif = as(i.else!, 'if');
    expect(as(elif.else!, 'block').block.expr?.kind).toBe('lit');
    expect(as(expr('if a { }'), 'if').else).toBeNull();
    const w = as(expr('while i < n { i++; }'), 'while');
    expect(w.body.stmts).toHaveLength(1);
    expect(as(expr('{ let x = 1; x }'), 'block').block.stmts).toHaveLength(1);
  });

  it('match arms with and without commas after block bodies', () => {
    const m = as(expr('match e { E::A => 1, E::B(x, _) => { x } (a, mut b) => -1, -5 => 0, \'c\' => 1, "s" => 2, _ => if a { 1 } else { 2 } }'), 'match');
    expect(m.arms.map((a) => a.pattern.kind)).toEqual(['variant', 'variant', 'tuple', 'lit', 'lit', 'lit', 'wild']);
    expect(m.arms[1].body.kind).toBe('block');
    expect(m.arms[6].body.kind).toBe('if');
    expect(as(expr('match x { }'), 'match').arms).toEqual([]);
  });

  it('for and with loops', () => {
    const f = as(expr('for x, mut y: i32 in tile(a, b) @(?a) { body(x, y) }'), 'for');
    expect(f.params.map((p) => p.name?.name)).toEqual(['x', 'y']);
    expect(f.params[1].mutable).toBe(true);
    expect(f.generator.kind).toBe('call');
    expect(f.filter?.kind).toBe('expr');
    expect(f.isWith).toBe(false);
    expect(as(expr('for i in range(0, n) @ { }'), 'for').filter?.kind).toBe('always');
    const none = as(expr('for bench() { }'), 'for');
    expect(none.params).toEqual([]);
    const w = as(expr('with x in gen(1) { break() }'), 'for');
    expect(w.isWith).toBe(true);
    expect(as(expr('for i in img.rows(0) { }'), 'for').generator.kind).toBe('call');
  });

  it('inline assembly', () => {
    const a = as(expr('asm("add $1, $0" : "=r"(x) : "r"(y), "0"(x) : "cc" : "volatile")'), 'asm');
    expect(a.template).toBe('add $1, $0');
    expect(a.outputs.map((o) => o.constraint)).toEqual(['=r']);
    expect(a.inputs.map((o) => o.constraint)).toEqual(['r', '0']);
    expect(a.clobbers).toEqual(['cc']);
    expect(a.options).toEqual(['volatile']);
    expect(as(expr('asm("nop" :: "r"(n))'), 'asm').inputs).toHaveLength(1);
    expect(as(expr('asm("nop")'), 'asm').outputs).toEqual([]);
  });
});

describe('struct literals in conditions', () => {
  it('are not parsed where a body follows', () => {
    const i = as(tail('fn f() { if x == S { } }'), 'if');
    expect(as(i.cond, 'binary').rhs.kind).toBe('path');
    const w = as(tail('fn f() { while x {} }'), 'while');
    expect(w.cond.kind).toBe('path');
    const m = as(tail('fn f() { match s { _ => 1 } }'), 'match');
    expect(m.scrutinee.kind).toBe('path');
    const f = as(tail('fn f() { for i in g(S { a: 1 }) { } }'), 'for');
    expect(as(f.generator, 'call').args[0].kind).toBe('struct');
  });

  it('are allowed inside parentheses of a condition', () => {
    const i = as(tail('fn f() { if (S { a: 1 }).a { } }'), 'if');
    expect(as(i.cond, 'field').object.kind).toBe('struct');
  });
});

describe('statements', () => {
  it('block-like expressions need no semicolon and end the statement', () => {
    const f = roundTrip('fn f() { if a { } *p = 1; while b { } -x; { } for g() { } match x { } (y) }');
    expect(f).toBe('fn f() { if a { } (*p) = 1; while b { } -x; { } for g() { } match x { } y }');
  });

  it('the last expression without a semicolon is the block value', () => {
    const item = roundTrip('fn f() -> i32 { let x = 1; x + 1 }');
    expect(item).toBe('fn f() -> i32 { let x = 1; x + 1 }');
    expect(tail('fn f() { while a { } }').kind).toBe('while');
  });

  it('let with patterns, types and initialisers', () => {
    expect(roundTrip('fn f() { let (a, mut b): (i32, f32) = g(); let mut c; let _ = 1; let d: i32; }')).toBe(
      'fn f() { let (a, mut b): (i32, f32) = g(); let mut c; let _ = 1; let d: i32; }',
    );
  });

  it('items nested in blocks', () => {
    expect(roundTrip('fn f() { fn g() -> i32 { 1 } struct S { } g() }')).toBe('fn f() { fn g() -> i32 { 1 } struct S { } g() }');
  });

  it('empty statements', () => {
    expect(roundTrip('fn f() { ;; a; ; }')).toBe('fn f() { a; }');
  });

  it('keeps `semi` of block-like statements', () => {
    expect(roundTrip('fn f() { if a { }; for g() { } 1 }')).toBe('fn f() { if a { }; for g() { } 1 }');
  });
});
