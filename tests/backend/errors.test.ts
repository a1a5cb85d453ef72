// IR outside what the backend may assume is an internal error naming the culprit,
// never LLVM that clang rejects or misreads.
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../compiler/src/backend/errors.ts';
import { emitLLVM } from '../../compiler/src/backend/llvm.ts';
import { block, fnType, func, World } from './helpers.ts';

describe('backend errors', () => {
  it('rejects a closure that was not converted', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const closureT = fnType(w, [i32], i32);
    const apply = func(w, 'apply', [closureT], i32);
    const k = block(w, 'k', [i32]);
    apply.jump(apply.param(1), [apply.param(0), w.litI32(1), k]);
    k.jump(apply.param(2), [k.param(0), k.param(1)]);
    const f = func(w, 'f', [i32], i32, true);
    // `add_x` captures f's parameter x: a closure, passed as a value.
    const addX = w.continuation(closureT, 'add_x');
    addX.jump(addX.param(2), [addX.param(0), w.arith('add', addX.param(1), f.param(1))]);
    f.jump(apply, [f.param(0), addX, f.param(2)]);
    expect(() => emitLLVM(w)).toThrow(BackendError);
    expect(() => emitLLVM(w)).toThrow(/in 'f_\d+.*'add_x_\d+.*(closure|higher-order)/);
  });

  it('rejects a function nested in another one that was not lowered to blocks', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const f = func(w, 'f', [i32], i32, true);
    // `twice_x(y) = y * x` returns through its own return param but uses f's x.
    const nested = w.continuation(f.fnType, 'twice_x');
    nested.jump(nested.param(2), [nested.param(0), w.arith('mul', nested.param(1), f.param(1))]);
    const k = block(w, 'k', [i32]);
    f.jump(nested, [f.param(0), w.litI32(2), k]);
    k.jump(f.param(2), [k.param(0), k.param(1)]);
    expect(() => emitLLVM(w)).toThrow(/in 'f_\d+.*'twice_x_\d+.*is a function nested in this function \(it receives the continuation 'k_\d+/);
  });

  it('rejects a jump into a block of another function', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const f = func(w, 'f', [i32], i32, true);
    const inner = block(w, 'inner');
    f.jump(inner, [f.param(0)]);
    inner.jump(f.param(2), [inner.param(0), f.param(1)]);
    const g = func(w, 'g', [], i32, true);
    g.jump(inner, [g.param(0)]);
    expect(() => emitLLVM(w)).toThrow(/in 'g_\d+.*(non-local jump to 'inner_\d+|uses parameters outside its scope: 'p_\d+' of 'f_)/);
  });

  it('rejects intrinsics that transform must lower', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const body = fnType(w, [i32], null);
    const parallel = w.intrinsic('parallel', fnType(w, [i32, i32, i32, body], null));
    const f = func(w, 'f', [], null, true);
    const work = func(w, 'work', [i32], null);
    work.jump(work.param(2), [work.param(0)]);
    f.jump(parallel, [f.param(0), w.litI32(0), w.litI32(0), w.litI32(8), work, f.param(1)]);
    expect(() => emitLLVM(w)).toThrow(/in 'f_\d+.*intrinsic 'parallel'/);
  });

  it('rejects a call whose result type does not fit its return block', () => {
    const w = new World();
    const i32 = w.prim('i32');
    const id = func(w, 'id', [i32], i32);
    id.jump(id.param(2), [id.param(0), id.param(1)]);
    const f = func(w, 'f', [], null, true);
    const k = block(w, 'k', [w.prim('f32')]);
    f.jump(id, [f.param(0), w.litI32(1), k]);
    k.jump(f.param(1), [k.param(0)]);
    expect(() => emitLLVM(w)).toThrow(/passes \(i32\) to 'k_\d+.*takes \(float\)/);
  });
});
