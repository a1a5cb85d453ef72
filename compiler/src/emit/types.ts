// Source types (after monomorphisation) to IR types, following the conventions
// of ir/README.md: functions take the memory token first and return through a
// continuation, `()` is the empty tuple, structs and enums are nominal and made
// once per instance.
import type { FnType, IRType, StructType, VariantType, World } from '../ir/index.ts';
import type { Program } from '../sema/program.ts';
import { typeKey } from '../sema/type-ops.ts';
import { prune, typeToString, type Type } from '../sema/types.ts';

export function isUnitType(t: Type): boolean {
  const p = prune(t);
  return p.tag === 'tuple' && p.elems.length === 0;
}

/** `never` and `()` carry no value: blocks and returns get no parameter for them. */
export function carriesNoValue(t: Type): boolean {
  const p = prune(t);
  return isUnitType(p) || p.tag === 'never';
}

export class TypeLowering {
  private readonly nominal = new Map<string, StructType | VariantType>();

  constructor(
    private readonly world: World,
    private readonly program: Program,
  ) {}

  /** `t` must be concrete: no type parameter of a generic item is left in it. */
  lower(t: Type): IRType {
    const w = this.world;
    const p = prune(t);
    switch (p.tag) {
      case 'prim':
        return w.prim(p.name);
      case 'tuple':
        return w.types.tuple(p.elems.map((e) => this.lower(e)));
      case 'array':
        return w.types.definiteArray(this.lower(p.elem), p.size);
      case 'indefarray':
        return w.types.indefiniteArray(this.lower(p.elem));
      case 'simd': {
        const elem = prune(p.elem);
        if (elem.tag !== 'prim') throw new Error(`internal: simd of non-primitive ${typeToString(p)}`);
        return w.prim(elem.name, p.size);
      }
      case 'ptr':
        return w.types.ptr(this.lower(p.pointee), p.addrSpace);
      case 'owned':
        return w.types.ptr(this.lower(p.pointee), 0);
      case 'fn':
        return this.fnType(p.params, p.ret);
      case 'struct':
        return this.struct(p);
      case 'enum':
        return this.enumType(p);
      case 'never':
      case 'error':
        // Values of these types only occur in unreachable code; any type does.
        return w.types.unit();
      case 'var':
        // Sema resolves every variable; an unconstrained literal keeps its default.
        if (p.lit === 'float') return w.prim('f64');
        if (p.lit === 'int') return w.prim('i32');
        throw new Error('internal: unresolved type variable reached emit');
      case 'param':
        throw new Error(`internal: type parameter '${p.decl.name}' reached emit unsubstituted`);
    }
  }

  /**
   * `fn(A) -> R` is `fn(mem, A, fn(mem, R))` (`fn(mem)` when R is `()`), and
   * `fn(A) -> !` is `fn(mem, A)`. A continuation taking just `()` is `fn(mem)`: sema
   * types the `return` of a unit fn both as `fn() -> !` and as `fn(()) -> !`.
   */
  fnType(params: readonly Type[], ret: Type | null): FnType {
    const w = this.world;
    const diverges = ret === null || prune(ret).tag === 'never';
    if (diverges && params.length === 1 && isUnitType(params[0]!)) return w.fnType([w.mem]);
    const ps = [w.mem, ...params.map((t) => this.lower(t))];
    if (!diverges) ps.push(this.retCont(ret!));
    return w.fnType(ps);
  }

  /** The return continuation of a fn returning `ret`. */
  retCont(ret: Type): FnType {
    const w = this.world;
    return carriesNoValue(ret) ? w.fnType([w.mem]) : w.fnType([w.mem, this.lower(ret)]);
  }

  private struct(t: Extract<Type, { tag: 'struct' }>): StructType {
    const key = typeKey(t);
    const known = this.nominal.get(key);
    if (known) return known as StructType;
    const s = this.world.types.struct(typeToString(t));
    // Cached before the fields are lowered so that recursion through pointers ends here.
    this.nominal.set(key, s);
    s.fieldNames = t.decl.fields.map((f) => f.name.name);
    s.fields = this.program.fieldTypes(t.decl, t.args).map((f) => this.lower(f));
    return s;
  }

  private enumType(t: Extract<Type, { tag: 'enum' }>): VariantType {
    const key = typeKey(t);
    const known = this.nominal.get(key);
    if (known) return known as VariantType;
    const v = this.world.types.variant(typeToString(t));
    this.nominal.set(key, v);
    v.variantNames = t.decl.variants.map((x) => x.name.name);
    v.variants = t.decl.variants.map((_, i) =>
      this.world.types.tuple(this.program.variantTypes(t.decl, i, t.args).map((f) => this.lower(f))),
    );
    return v;
  }
}
