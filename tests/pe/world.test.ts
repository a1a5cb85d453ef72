// The World helpers the evaluator relies on: filters (kept outside the graph)
// follow replacements, and sweeping leaves no dead primop registered as a user.
import { describe, expect, it } from 'vitest';
import { World } from '../../compiler/src/ir/index.ts';
import { Scope } from '../../compiler/src/ir/scope.ts';

function fixture() {
  const w = new World();
  const i32 = w.prim('i32');
  const retT = w.fnType([w.mem, i32]);
  const f = w.continuation(w.fnType([w.mem, i32, retT]), 'f', ['mem', 'n', 'return']);
  const g = w.continuation(w.fnType([w.mem, i32, retT]), 'g', ['mem', 'x', 'return']);
  g.external = true;
  return { w, f, g };
}

describe('World helpers for the partial evaluator', () => {
  it('substitute folds a filter with arguments and with params replaced since', () => {
    const { w, f, g } = fixture();
    const [, n] = f.params;
    const [, x] = g.params;
    // A filter of f mentioning g's param x, as a specialisation's filter mentions its caller's values.
    const filter = w.arith('and', w.known(n!), w.known(x!));
    expect(w.substitute(filter, new Map([[n!, w.litI32(1)]]))).toBe(w.known(x!));
    w.replace(x!, w.litI32(2));
    expect(w.current(x!)).toBe(w.litI32(2));
    expect(w.substitute(filter, new Map([[n!, w.litI32(1)]]))).toBe(w.litBool(true));
  });

  it('sweep unregisters primops no body reaches and brings filters up to date', () => {
    const { w, f, g } = fixture();
    const [gm, x, gr] = g.params;
    const [fm, n, fr] = f.params;
    g.jump(f, [gm!, x!, gr!]);
    f.jump(fr!, [fm!, n!]);
    f.filter = [w.litBool(false), w.arith('or', w.known(n!), w.known(x!)), w.litBool(false)];
    const dead = w.arith('add', x!, w.litI32(7));
    expect([...x!.uses.values()].some((u) => u.user === dead)).toBe(true);

    w.sweep();
    expect([...x!.uses.values()].some((u) => u.user === dead)).toBe(false);
    // Filters are kept: g's scope still sees f's filter through x.
    expect(new Scope(g).contains(f.filter[1]!)).toBe(true);

    w.replace(x!, w.litI32(2));
    w.sweep();
    expect(f.filter[1]).toBe(w.litBool(true));
  });
});
