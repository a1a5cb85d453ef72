// Direct style to CPS: branches, joins, loops, match, first-class return/break/continue.
import { describe, expect, it } from 'vitest';
import { Continuation, Param } from '../../compiler/src/ir/index.ts';
import { continuations, emit, jumpsTo, named, primops, run } from './helpers.ts';

describe('if and logic', () => {
  it('a constant condition emits only the taken arm', () => {
    const r = emit('fn main() -> i32 { if 1 < 2 { 10 } else { 20 } }');
    expect(jumpsTo([r.main!], 'branch')).toHaveLength(0);
    expect(r.main!.callee).toBe(r.main!.retParam);
    expect(run('fn main() -> i32 { if 1 < 2 { 10 } else { 20 } }').result).toBe(10n);
  });

  it('a dynamic condition branches to two blocks that meet in a join taking the value', () => {
    const r = emit('fn f(c: bool) -> i32 { if c { 1 } else { 2 } } fn main() -> i32 { f(true) }');
    const f = named([r.main!], 'f');
    expect(jumpsTo([f], 'branch')).toHaveLength(1);
    expect(named([f], 'if_join').params.map((p) => p.type.toString())).toEqual(['mem', 'i32']);
  });

  it('&& and || short-circuit', () => {
    const src = `fn main() -> i32 {
      let mut hits = 0;
      let t = |v: bool| -> bool { hits++; v };
      if false && t(true) { hits += 100; }
      if true || t(true) { hits += 10; }
      if t(true) && t(false) { hits += 1000; }
      hits
    }`;
    expect(run(src).result).toBe(12n);
  });
});

describe('loops', () => {
  it('break and continue of a while jump to its exit and header', () => {
    const src = `fn main() -> i32 {
      let mut i = 0; let mut s = 0;
      while true { i++; if i > 10 { break() } if i % 2 == 0 { continue() } s += i; }
      s
    }`;
    const r = emit(src);
    expect(primops([r.main!], 'slot')).toHaveLength(0);
    expect(named([r.main!], 'while_head').params.map((p) => p.type.toString())).toEqual(['mem', 'i32', 'i32']);
    expect(named([r.main!], 'while_exit').callee).toBe(r.main!.retParam);
    expect(run(src).result).toBe(25n);
  });

  it('a first-class break leaves the loop; the loop variables go to memory', () => {
    const src = `fn call(k: fn() -> !) -> ! { k() }
      fn main() -> i32 {
        let mut i = 0;
        while true { i++; let k = break; if i == 5 { call(k) } }
        i
      }`;
    expect(primops([emit(src).main!], 'slot')).toHaveLength(1);
    expect(run(src).result).toBe(5n);
  });

  it('a closure may leave the loop around it', () => {
    const src = `fn main() -> i32 {
      let mut i = 0;
      while i < 100 { let stop = || break(); i++; if i == 7 { stop() } }
      i
    }`;
    expect(run(src).result).toBe(7n);
  });

  it('for calls the generator with a body closure and the return block as break', () => {
    const src = `fn twice(body: fn(i32) -> ()) -> () { body(1); body(2) }
      fn main() -> i32 { let mut s = 0; for x in twice() { s += x; } s }`;
    const r = emit(src);
    const call = continuations([r.main!]).find((c) => c.hasBody && c.callee instanceof Continuation && c.callee.name === 'twice')!;
    const [, body, brk] = call.args;
    expect((body as Continuation).name).toBe('for_body');
    expect((body as Continuation).retParam).not.toBeNull();
    expect((brk as Continuation).name).toBe('break');
    expect(run(src).result).toBe(3n);
  });

  it('break, continue and return inside a for body', () => {
    const src = `fn find(xs: &[i32], n: i32, v: i32) -> i32 {
        for i in range(0, n) { if xs(i) == v { return(i) } }
        -1
      }
      fn main() -> i32 {
        let a = [5, 6, 7, 8];
        let mut s = 0;
        for i in range(0, 100) { if i == 6 { break() } if i % 2 == 1 { continue() } s += i; }
        find(&a, 4, 7) * 100 + find(&a, 4, 9) * 10 + s
      }`;
    expect(run(src).result).toBe(200n - 10n + 6n);
  });

  it('the body of a for refers to the enclosing return as a free variable', () => {
    const r = emit('fn f(n: i32) -> i32 { for i in range(0, n) { if i == 3 { return(i) } } 0 } fn main() -> i32 { f(9) }');
    const f = named([r.main!], 'f');
    const body = named([f], 'for_body');
    const usesOuterReturn = continuations([body]).some((c) => c.hasBody && c.callee === f.retParam);
    expect(usesOuterReturn).toBe(true);
  });

  it('with binds only break', () => {
    const src = `fn once(body: fn(i32) -> ()) -> () { body(4) }
      fn main() -> i32 { let mut r = 0; with x in once() { r = x * 2; } r }`;
    expect(run(src).result).toBe(8n);
  });
});

describe('match', () => {
  const shapes = `enum Shape { Circle(i32), Rect(i32, i32), Empty }
    fn area(s: Shape) -> i32 { match s { Shape::Circle(r) => 3 * r * r, Shape::Rect(w, h) => w * h, _ => 0 } }`;

  it('switches on the variant index with the match intrinsic', () => {
    const r = emit(`${shapes} fn main() -> i32 { area(Shape::Rect(2, 3)) }`);
    const area = named([r.main!], 'area');
    const [sw] = jumpsTo([area], 'match');
    expect(sw).toBeDefined();
    expect(primops([area], 'variant_index')).toHaveLength(1);
    expect(run(`${shapes} fn main() -> i32 { area(Shape::Rect(2, 3)) * 100 + area(Shape::Circle(1)) * 10 + area(Shape::Empty) }`).result)
      .toBe(630n);
  });

  it('tests nested patterns in order', () => {
    const src = `enum O { Some(i32), None }
      fn f(p: (O, i32)) -> i32 {
        match p { (O::Some(0), _) => 1, (O::Some(x), 2) => x, (O::None, y) => y * 10, _ => 99 }
      }
      fn main() -> i32 { f((O::Some(0), 5)) + f((O::Some(7), 2)) * 10 + f((O::None, 3)) * 100 + f((O::Some(7), 3)) * 1000 }`;
    expect(run(src).result).toBe(1n + 70n + 3000n + 99000n);
  });

  it('matches integer literals', () => {
    const src = 'fn f(x: i32) -> i32 { match x { 1 => 10, 2 => 20, _ => 0 } } fn main() -> i32 { f(1) + f(2) + f(3) }';
    expect(jumpsTo([named([emit(src).main!], 'f')], 'match')).toHaveLength(1);
    expect(run(src).result).toBe(30n);
  });

  it('a constant scrutinee selects its arm at compile time', () => {
    const r = emit('fn main() -> i32 { match 2 { 1 => 10, 2 => 20, _ => 0 } }');
    expect(jumpsTo([r.main!], 'match')).toHaveLength(0);
    expect(jumpsTo([r.main!], 'branch')).toHaveLength(0);
  });
});

describe('unreachable code', () => {
  it('code after a diverging call is dropped without an error', () => {
    const r = emit('fn main() -> i32 { return(1) + { print_i32(2); 3 } }');
    expect(r.sink.list).toHaveLength(0);
    expect(continuations([r.main!]).some((c) => c.name === 'print_i32')).toBe(false);
    expect(r.main!.callee).toBe(r.main!.retParam);
  });

  it('a join no arm reaches is dropped', () => {
    const r = emit('fn f(c: bool) -> i32 { if c { return(1) } else { return(2) } } fn main() -> i32 { f(true) }');
    const f = named([r.main!], 'f');
    expect(continuations([f]).some((c) => c.name === 'if_join')).toBe(false);
    expect(f.retParam).toBeInstanceOf(Param);
  });
});
