// Small helpers to build IR programs by hand in tests, following ir/README.md:
// functions are `fn(mem, params…, fn(mem, R))`, blocks `fn(mem, phis…)`.
import { type Continuation, type Def, type FnType, type IRType, type PrimType, World } from '../../compiler/src/ir/index.ts';

export class Builder {
  readonly w = new World();
  readonly i32 = this.w.prim('i32');
  readonly i64 = this.w.prim('i64');
  readonly u8 = this.w.prim('u8');
  readonly f32 = this.w.prim('f32');
  readonly f64 = this.w.prim('f64');
  readonly bool = this.w.prim('bool');

  /** The return continuation type for a result of `ret` (`null`: no value). */
  retType(ret: IRType | null): FnType {
    return this.w.fnType(ret ? [this.w.mem, ret] : [this.w.mem]);
  }

  fnType(params: readonly IRType[], ret: IRType | null): FnType {
    return this.w.fnType([this.w.mem, ...params, this.retType(ret)]);
  }

  fn(name: string, params: readonly IRType[], ret: IRType | null): Continuation {
    return this.w.continuation(this.fnType(params, ret), name);
  }

  block(name: string, phis: readonly IRType[] = []): Continuation {
    return this.w.continuation(this.w.fnType([this.w.mem, ...phis]), name);
  }

  extern(name: string, params: readonly IRType[], ret: IRType | null = null, cc: 'C' | 'device' = 'C'): Continuation {
    return this.w.imported(this.fnType(params, ret), name, cc, cc === 'device' ? name : null);
  }

  /** Ends `from` with a call of `f`; returns the block the call returns to (params: mem, result). */
  call(from: Continuation, f: Def, mem: Def, args: readonly Def[], ret: IRType | null, name = 'cont'): Continuation {
    const k = this.w.continuation(this.retType(ret), name);
    from.jump(f, [mem, ...args, k]);
    return k;
  }

  /** Calls `anydsl_print_*` from `from`; returns the block after it. */
  print(from: Continuation, mem: Def, fn: string, value: Def): Continuation {
    return this.call(from, this.extern(fn, [value.type]), mem, [value], null, `after_${fn}`);
  }

  lit(t: PrimType, v: bigint | number | boolean): Def {
    return this.w.lit(t, v);
  }
}
