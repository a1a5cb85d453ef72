import { describe, expect, it } from 'vitest';
import { printType, type FnDecl, type Item, type TypeExpr } from '../../compiler/src/syntax/index.ts';
import { parseOk, roundTrip } from './helpers.ts';

function only<K extends Item['kind']>(src: string, kind: K): Extract<Item, { kind: K }> {
  const [item] = parseOk(src).items;
  expect(item.kind).toBe(kind);
  return item as Extract<Item, { kind: K }>;
}

function typeOf(src: string): TypeExpr {
  const item = only(`type A = ${src};`, 'typealias');
  return item.type;
}

describe('functions', () => {
  it('filters, type parameters, parameter filters and mut', () => {
    const f = only('fn @(?a & ?b) f[T, U](a: T, @b: i32, @(b < 5) c: U, @? d: i32, mut e: f32) -> i32 { a }', 'fn');
    expect(f.filter?.kind).toBe('expr');
    expect(f.typeParams.map((t) => t.name)).toEqual(['T', 'U']);
    expect(f.params.map((p) => p.filter?.kind ?? null)).toEqual([null, 'always', 'expr', 'known', null]);
    expect(f.params.map((p) => p.mutable)).toEqual([false, false, false, false, true]);
    expect(f.retType?.kind).toBe('prim');
    expect(f.diverges).toBe(false);
    expect(f.exported).toBe(false);
    expect(f.abi).toBeNull();
  });

  it('`fn @ name`, no return type, `-> !`, pub', () => {
    const f = only('fn @get_42() { }', 'fn');
    expect(f.filter?.kind).toBe('always');
    expect(f.retType).toBeNull();
    expect(f.diverges).toBe(false);
    const k = only('pub fn k(x: i32) -> ! { k(x) }', 'fn');
    expect(k.diverges).toBe(true);
    expect(k.retType).toBeNull();
    expect(k.isPub).toBe(true);
  });

  it('exported functions', () => {
    const f = only('extern fn blur(img: &[f32], n: int) -> double { 0.0 }', 'fn');
    expect(f.exported).toBe(true);
    expect(f.body).not.toBeNull();
  });

  it('extern blocks with link names and type-only parameters', () => {
    const b = only(
      'extern "device" { fn "llvm.sqrt.f32" sqrt(f32) -> f32; fn "llvm.fma.f32" fma(f32, f32, f32) -> f32; }',
      'extern',
    );
    expect(b.abi).toBe('device');
    expect(b.fns.map((f) => [f.name.name, f.linkName, f.abi, f.body])).toEqual([
      ['sqrt', 'llvm.sqrt.f32', 'device', null],
      ['fma', 'llvm.fma.f32', 'device', null],
    ]);
    expect(b.fns[1].params.map((p) => p.name)).toEqual([null, null, null]);
    const t = only('extern "thorin" { fn cmpxchg[T](addr: &mut T, T, new: T) -> (T, bool); fn sync(i32); }', 'extern');
    expect(t.fns[0].params.map((p) => p.name?.name ?? null)).toEqual(['addr', null, 'new']);
    expect(t.fns[1].retType).toBeNull();
    expect(only('extern "C" { }', 'extern').fns).toEqual([]);
  });
});

describe('other items', () => {
  it('statics', () => {
    const s = only('static mut X: [f32 * 4] = [1.0f, 2.f, 3f, 1e-5f];', 'static');
    expect(s.mutable).toBe(true);
    expect(s.type?.kind).toBe('array');
    expect(only('pub static N = 3;', 'static').type).toBeNull();
    const zeroed = only('static mut buffer: [u8 * 64];', 'static');
    expect([zeroed.type?.kind, zeroed.init]).toEqual(['array', null]);
  });

  it('stray semicolons between items', () => {
    expect(parseOk('; fn f() -> () {}; ;; struct S { a: i32 }; mod m { ; static X = 1;; }').items.map((i) => i.kind)).toEqual(['fn', 'struct', 'mod']);
  });

  it('structs', () => {
    const s = only('struct S[T] { pub f: T, g: &[1]T, }', 'struct');
    expect(s.typeParams.map((t) => t.name)).toEqual(['T']);
    expect(s.fields.map((f) => [f.name.name, f.isPub])).toEqual([['f', true], ['g', false]]);
  });

  it('enums', () => {
    const e = only('enum E[T] { A, B(T, i32), C() }', 'enum');
    expect(e.variants.map((v) => [v.name.name, v.fields.length])).toEqual([['A', 0], ['B', 2], ['C', 0]]);
  });

  it('type aliases, modules, traits and impls', () => {
    expect(only('type P[T] = (T, T);', 'typealias').typeParams).toHaveLength(1);
    const m = only('pub mod m { fn f() { } mod n { struct S { } } }', 'mod');
    expect(m.isPub).toBe(true);
    expect(m.items.map((i) => i.kind)).toEqual(['fn', 'mod']);
    const t = only('trait Shape[T] { fn area(self: T) -> f32; fn name() -> i32 { 0 } }', 'trait');
    expect(t.items.map((i) => (i as FnDecl).body === null)).toEqual([true, false]);
    const i = only('impl[T] Shape[T] for Circle[T] { fn area(self: T) -> f32 { 1.0f } }', 'impl');
    expect(i.typeParams.map((p) => p.name)).toEqual(['T']);
    expect(i.trait?.kind).toBe('path');
    expect(i.forType.kind).toBe('path');
    expect(only('impl Circle { }', 'impl').trait).toBeNull();
  });

  it('items may come in any order and print back the same', () => {
    const src = [
      'fn main() -> i32 { helper() }',
      'fn helper() -> i32 { 1 }',
      'struct S { x: i32 }',
      'enum E { A, B(i32) }',
      'static mut G: i32 = 0;',
      'type T = S;',
      'mod m { pub fn f() { } }',
    ].join('\n');
    expect(roundTrip(src)).toBe(src);
  });
});

describe('types', () => {
  it.each([
    ['int', 'i32'], ['uint', 'u32'], ['float', 'f32'], ['double', 'f64'], ['half', 'f16'], ['bool', 'bool'],
    ['()', '()'], ['(i32, f32)', '(i32, f32)'], ['(i32)', 'i32'], ['(i32,)', '(i32,)'],
    ['[f32 * 4]', '[f32 * 4]'], ['[u8]', '[u8]'], ['simd[f32 * 8]', 'simd[f32 * 8]'],
    ['&T', '&T'], ['&mut T', '&mut T'], ['&[1]f32', '&[1]f32'], ['&mut[3][f32]', '&mut[3][f32]'],
    ['&[i32]', '&[i32]'], ['&&i32', '&&i32'], ['~[u8]', '~[u8]'],
    ['fn(i32, f32) -> bool', 'fn(i32, f32) -> bool'], ['fn(i32) -> !', 'fn(i32) -> !'], ['fn(i32)', 'fn(i32) -> ()'],
    ['fn()', 'fn() -> ()'], ['S[i32, T]', 'S[i32, T]'], ['m::n::T', 'm::n::T'], ['typeof(x + 1)', 'typeof(x + 1)'], ['_', '_'],
  ])('%s', (src, printed) => {
    expect(printType(typeOf(src))).toBe(printed);
  });

  it('address spaces and mutability of pointers', () => {
    const t = typeOf('&mut[3][f32]');
    expect(t.kind === 'ptr' && [t.mutable, t.addrSpace, t.pointee.kind]).toEqual([true, 3, 'array']);
    const g = typeOf('&[1]i32');
    expect(g.kind === 'ptr' && [g.mutable, g.addrSpace]).toEqual([false, 1]);
  });

  it('fn types: `-> !` is a continuation, an omitted return is ()', () => {
    const k = typeOf('fn(i32) -> !');
    expect(k.kind === 'fn' && k.ret).toBeNull();
    const u = typeOf('fn(i32)');
    expect(u.kind === 'fn' && u.ret?.kind === 'tuple' && u.ret.elems).toEqual([]);
  });
});

describe('patterns', () => {
  it('all pattern forms', () => {
    const src = 'fn f() { match v { (1, x) => 1, (-2, mut y) => 2, E::A => 3, E::B(_, (a, b)) => 4, true => 5, 1.5 => 6, E[i32]::C(z) => 7, _ => 8 } }';
    expect(roundTrip(src)).toBe(
      'fn f() { match v { (1, x) => 1, (-2, mut y) => 2, E::A => 3, E::B(_, (a, b)) => 4, true => 5, 1.5 => 6, E[i32]::C(z) => 7, _ => 8 } }',
    );
  });

  it('negative literal patterns carry the sign', () => {
    const f = only('fn f() { let -3 = x; }', 'fn');
    const s = f.body!.stmts[0];
    expect(s.kind === 'let' && s.pattern.kind === 'lit' && s.pattern.lit).toEqual({ kind: 'int', value: -3n, suffix: null });
  });
});

describe('spans and ids', () => {
  it('every node has a unique id and a span covering its text', () => {
    const m = parseOk('fn f(x: i32) -> i32 {\n  x + 1\n}');
    const f = m.items[0] as FnDecl;
    expect(f.span).toMatchObject({ line: 1, col: 1, endLine: 3, endCol: 1 });
    const body = f.body!.expr!;
    expect(body.span).toMatchObject({ line: 2, col: 3, endLine: 2, endCol: 7 });
    const ids = new Set<number>();
    const visit = (n: unknown): void => {
      if (n === null || typeof n !== 'object') return;
      if (Array.isArray(n)) return n.forEach(visit);
      const rec = n as Record<string, unknown>;
      if (typeof rec.id === 'number') {
        expect(ids.has(rec.id)).toBe(false);
        ids.add(rec.id);
        expect(rec.span).toBeDefined();
      }
      Object.values(rec).forEach(visit);
    };
    visit(m);
    expect(ids.size).toBeGreaterThan(10);
  });
});
