import { describe, expect, it } from 'vitest';
import { Nesting } from '../../compiler/src/ir/nesting.ts';
import { Builder } from '../interp/build.ts';

describe('Nesting', () => {
  it('finds what closures need through the continuations they use', () => {
    const b = new Builder();
    const { w, i32 } = b;
    // f(n): head(i) loops; body uses i and n; exit returns through f's return param via a block.
    const f = b.fn('f', [i32], i32);
    const [mem, n, ret] = f.params;
    const head = b.block('head', [i32]);
    const body = b.block('body');
    const exit = b.block('exit');
    const done = b.block('done');
    f.jump(head, [mem!, w.litI32(0)]);
    const [hm, i] = head.params;
    w.branch(head, hm!, w.cmp('lt', i!, n!), body, exit);
    body.jump(head, [body.param(0), w.arith('add', i!, w.litI32(1))]);
    exit.jump(done, [exit.param(0)]);
    done.jump(ret!, [done.param(0), n!]);
    const nesting = new Nesting([f]);
    const names = (c: Parameters<Nesting['needs']>[0]): string[] => [...nesting.needs(c)].map((k) => k.name).sort();
    expect(names(f)).toEqual([]);
    expect(names(head)).toEqual(['f']);
    expect(names(body)).toEqual(['f', 'head']);
    // exit reads no param itself, but jumps to a block that reads f's.
    expect(names(exit)).toEqual(['f']);
    const step = w.arith('add', i!, w.litI32(1));
    expect([...nesting.owners(step as never)].map((k) => k.name)).toEqual(['head']);
  });
});
