// Program-wide emission state: the fn instances (one continuation per fn and
// concrete type arguments, bodies emitted from a worklist so recursion needs no
// special case), imported and compiler-known functions, string globals, statics.
import type { Continuation, Def, FnType, Intrinsic, VariantType, World } from '../ir/index.ts';
import type { EnumDecl, FnDecl, StaticDecl } from '../syntax/ast.ts';
import type { DiagnosticSink, Span } from '../syntax/diagnostics.ts';
import type { Program } from '../sema/program.ts';
import { paramMap, substType, typeKey } from '../sema/type-ops.ts';
import type { Type } from '../sema/types.ts';
import { analyseLocals, type LocalInfo } from './captures.ts';
import { emitFnBody } from './function.ts';
import { emitStatic, type StaticRef } from './statics.ts';
import { TypeLowering } from './types.ts';

/** `extern "thorin"` functions that become intrinsic continuations. */
const intrinsicKinds: ReadonlySet<string> = new Set<Exclude<Intrinsic, 'none' | 'branch' | 'match'>>([
  'vectorize', 'parallel', 'spawn', 'sync', 'cuda', 'nvvm', 'opencl', 'reserve_shared', 'atomic', 'cmpxchg', 'pe_info',
  'lane_id', 'num_lanes', 'any', 'all', 'ballot', 'extract', 'broadcast',
]);

/** `extern "thorin"` functions that become primops at their call sites. */
export const primopBuiltins: ReadonlySet<string> = new Set(['bitcast', 'select', 'insert', 'sizeof', 'alignof', 'undef', 'nontemporal_store']);

interface PendingFn {
  decl: FnDecl;
  typeArgs: readonly Type[];
  cont: Continuation;
}

export class Emitter {
  readonly types: TypeLowering;
  readonly locals: LocalInfo;
  private readonly instances = new Map<string, Continuation>();
  private readonly queue: PendingFn[] = [];
  private readonly ctors = new Map<string, Continuation>();
  private readonly strings = new Map<Def, Def>();
  private readonly statics = new Map<StaticDecl, StaticRef | null>();
  private vectorizeAdapter: Continuation | null = null;

  constructor(
    readonly world: World,
    readonly program: Program,
    readonly sink: DiagnosticSink,
  ) {
    this.types = new TypeLowering(world, program);
    this.locals = analyseLocals(program);
  }

  /** The continuation of `decl` instantiated with the concrete `typeArgs`; its body follows in `drain`. */
  instance(decl: FnDecl, typeArgs: readonly Type[]): Continuation {
    const key = `${decl.id}[${typeArgs.map(typeKey).join(',')}]`;
    let c = this.instances.get(key);
    if (!c) {
      const params = decl.params.map((p) => p.name?.name ?? '_');
      c = this.world.continuation(this.signatureType(decl, typeArgs), decl.name.name, ['mem', ...params, 'return']);
      c.span = decl.span;
      this.instances.set(key, c);
      this.queue.push({ decl, typeArgs, cont: c });
    }
    return c;
  }

  /** Emits the bodies of all instances requested so far, and of those they request. */
  drain(): void {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) emitFnBody(this, job.decl, job.typeArgs, job.cont);
  }

  private signatureType(decl: FnDecl, typeArgs: readonly Type[]) {
    const sig = this.program.signature(decl);
    const map = paramMap(decl.typeParams, typeArgs);
    return this.types.fnType(
      sig.params.map((t) => substType(t, map)),
      sig.ret && substType(sig.ret, map),
    );
  }

  /** A fn used as a value or callee: an instance, an imported function or an intrinsic. */
  fnValue(decl: FnDecl, typeArgs: readonly Type[], span: Span): Def {
    const w = this.world;
    const name = decl.name.name;
    switch (decl.abi) {
      case 'C':
        return w.imported(this.signatureType(decl, typeArgs), name, 'C', decl.linkName);
      case 'device':
        return w.imported(this.signatureType(decl, typeArgs), name, 'device', decl.linkName ?? name);
      case 'thorin': {
        const type = this.signatureType(decl, typeArgs);
        if (name === 'vectorize' && type.params.length === 7) return this.vectorize2018(type);
        if (intrinsicKinds.has(name)) return w.intrinsic(name as Exclude<Intrinsic, 'none'>, type);
        this.sink.error(span, primopBuiltins.has(name)
          ? `compiler-known function '${name}' can only be called, not used as a value`
          : `unknown compiler-known function '${name}'`);
        return w.bottom(type);
      }
      case null:
        if (decl.body) return this.instance(decl, typeArgs);
        this.sink.error(span, `function '${name}' has no body`);
        return w.bottom(this.signatureType(decl, typeArgs));
    }
  }

  /**
   * The 2018 runtime's `vectorize(length, alignment, lower, upper, body)` (sema accepts its
   * declaration): the intrinsic without the alignment, which only hinted at the alignment of
   * the data. Its filter inlines it everywhere, so after pe the intrinsic is called directly.
   */
  private vectorize2018(type: FnType): Continuation {
    if (!this.vectorizeAdapter) {
      const w = this.world;
      const [mem, length, , lower, upper, body, ret] = type.params;
      const intrinsic = w.intrinsic('vectorize', w.fnType([mem!, length!, lower!, upper!, body!, ret!]));
      const c = w.continuation(type, 'vectorize', ['mem', 'length', 'alignment', 'lower', 'upper', 'body', 'return']);
      c.jump(intrinsic, [0, 1, 3, 4, 5, 6].map((i) => c.param(i)));
      c.filter = c.params.map((_, i) => w.litBool(i > 0 && i < 6));
      this.vectorizeAdapter = c;
    }
    return this.vectorizeAdapter;
  }

  /** One immutable global per distinct string literal. */
  stringGlobal(bytes: Def): Def {
    let g = this.strings.get(bytes);
    if (!g) this.strings.set(bytes, (g = this.world.global(bytes, false, 'str')));
    return g;
  }

  /** The global of a static, or null when its initialiser could not be evaluated (reported). */
  staticRef(decl: StaticDecl): StaticRef | null {
    if (!this.statics.has(decl)) {
      // Marked first: a static whose initialiser reads itself fails instead of recursing.
      this.statics.set(decl, null);
      this.statics.set(decl, emitStatic(this, decl));
    }
    return this.statics.get(decl)!;
  }

  /**
   * An enum constructor used as a function value (`let f = E::B;`): a function
   * `fn(mem, fields…, ret)` returning the variant.
   */
  variantCtor(enumT: Extract<Type, { tag: 'enum' }>, index: number, decl: EnumDecl): Continuation {
    const key = `${typeKey(enumT)}#${index}`;
    let c = this.ctors.get(key);
    if (!c) {
      const w = this.world;
      const fields = this.program.variantTypes(decl, index, enumT.args);
      const variant = decl.variants[index]!;
      c = w.continuation(this.types.fnType(fields, enumT), variant.name.name);
      c.span = variant.span;
      const vt = this.types.lower(enumT) as VariantType;
      const payload = w.tuple(fields.map((_, i) => c!.param(i + 1)));
      c.jump(c.retParam!, [c.param(0), w.variant(vt, index, payload)]);
      this.ctors.set(key, c);
    }
    return c;
  }
}
