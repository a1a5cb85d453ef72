// The World owns every node. Building a primop returns an existing equal node
// (hash-consing) or a folded one (constants, algebraic identities), so every
// later pass sees a normalised graph for free.
import {
  type ArithOpTag, type AsmInfo, type CmpOpTag, Continuation, type Def, type Intrinsic, type LitValue, Param, PrimOp,
  type PrimOpTag, type StoreHint, isLit, litValue,
} from './defs.ts';
import {
  DefiniteArrayType, FnType, IndefiniteArrayType, type IRType, PrimType, type PrimTypeName, PtrType, PtrVectorType,
  StructType, TupleType, TypeTable, VariantType,
} from './types.ts';

const commutative = new Set<PrimOpTag>(['add', 'mul', 'and', 'or', 'xor', 'eq', 'ne']);

export class World {
  readonly types = new TypeTable();
  readonly continuations = new Set<Continuation>();
  private readonly cse = new Map<string, PrimOp>();
  private readonly intrinsics = new Map<string, Continuation>();
  /** What `replace` replaced each def by (see `current`). */
  private readonly replacedBy = new WeakMap<Def, Def>();
  private nextUnique = 0;

  // ------------------------------------------------------------ types (shorthands)

  prim(name: PrimTypeName, length = 1): PrimType {
    return this.types.prim(name, length);
  }
  get mem(): IRType {
    return this.types.mem;
  }
  fnType(params: readonly IRType[]): FnType {
    return this.types.fn(params);
  }

  // ------------------------------------------------------------ continuations

  continuation(type: FnType, name = '', paramNames: readonly string[] = []): Continuation {
    const c = new Continuation(type, name, paramNames);
    this.continuations.add(c);
    return c;
  }

  /** Appends a parameter to `c` (its type changes); jumps to `c` must then pass one more argument. */
  appendParam(c: Continuation, type: IRType, name = ''): Param {
    return c.addParam(this.fnType([...c.fnType.params, type]), name);
  }

  /** Imported C function or device builtin: `fn(mem, args…, fn(mem, ret))`. */
  imported(type: FnType, name: string, cc: 'C' | 'device', linkName: string | null = null): Continuation {
    const key = `import:${cc}:${linkName ?? name}:${type.gid}`;
    let c = this.intrinsics.get(key);
    if (!c) {
      c = this.continuation(type, name);
      c.external = true;
      c.cc = cc;
      c.linkName = linkName;
      this.intrinsics.set(key, c);
    }
    return c;
  }

  /** The one continuation per (intrinsic, type). */
  intrinsic(kind: Exclude<Intrinsic, 'none'>, type: FnType): Continuation {
    const key = `intrinsic:${kind}:${type.gid}`;
    let c = this.intrinsics.get(key);
    if (!c) {
      c = this.continuation(type, kind);
      c.intrinsic = kind;
      this.intrinsics.set(key, c);
    }
    return c;
  }

  branchIntrinsic(): Continuation {
    const bb = this.fnType([this.mem]);
    return this.intrinsic('branch', this.fnType([this.mem, this.prim('bool'), bb, bb]));
  }

  /** `match` on values of `valueType`; its type lists only (mem, value, otherwise): cases follow as extra args. */
  matchIntrinsic(valueType: IRType): Continuation {
    const bb = this.fnType([this.mem]);
    return this.intrinsic('match', this.fnType([this.mem, valueType, bb]));
  }

  /** Ends `from` with a two-way branch, folded to a jump when `cond` is constant. */
  branch(from: Continuation, mem: Def, cond: Def, then: Def, otherwise: Def): void {
    const c = litValue(cond);
    if (c !== undefined) from.jump(c ? then : otherwise, [mem]);
    else if (then === otherwise) from.jump(then, [mem]);
    else from.jump(this.branchIntrinsic(), [mem, cond, then, otherwise]);
  }

  /** Ends `from` with a multi-way branch on literal cases, folded when `value` is a literal. */
  match(from: Continuation, mem: Def, value: Def, otherwise: Def, cases: readonly (readonly [Def, Def])[]): void {
    if (isLit(value)) {
      const hit = cases.find(([lit]) => litValue(lit) === value.payload);
      from.jump(hit ? hit[1] : otherwise, [mem]);
      return;
    }
    if (cases.length === 0) {
      from.jump(otherwise, [mem]);
      return;
    }
    from.jump(this.matchIntrinsic(value.type), [mem, value, otherwise, ...cases.flat()]);
  }

  /** Removes unreachable continuations from the registry (they may still be referenced by dead code). */
  forget(c: Continuation): void {
    c.clearBody();
    this.continuations.delete(c);
  }

  /**
   * Drops the primops that no registered continuation's body reaches (directly or
   * through other primops) from the CSE table and from their operands' use lists.
   * `replace` rebuilds the users of a replaced def but cannot delete the old ones;
   * left in the use lists, they make a `Scope` include primops over params of
   * continuations that are long gone, i.e. free variables no live code has.
   * Filters count as uses: they are brought up to date (`substitute`) and kept.
   * Call it after forgetting unreachable continuations.
   */
  sweep(): void {
    const live = new Set<PrimOp>();
    const stack: Def[] = [];
    // Loops, not push(...ops): a string literal is an array of as many ops as it has bytes.
    for (const c of this.continuations) {
      for (const o of c.ops) stack.push(o);
      if (c.filter) {
        c.filter = c.filter.map((f) => this.substitute(f));
        for (const f of c.filter) stack.push(f);
      }
    }
    while (stack.length) {
      const d = stack.pop()!;
      if (!(d instanceof PrimOp) || live.has(d)) continue;
      live.add(d);
      for (const o of d.ops) stack.push(o);
    }
    // forEach, not for-of: no [key, value] array per entry of a table of every primop.
    this.cse.forEach((p, key) => {
      if (live.has(p)) return;
      this.cse.delete(key);
      p.ops.forEach((o, i) => o.uses.delete(`${p.gid}:${i}`));
    });
  }

  // ------------------------------------------------------------ primop construction

  private make(tag: PrimOpTag, type: IRType, ops: readonly Def[], payload?: unknown): PrimOp {
    // Built without an intermediate array: every primop the passes build or rebuild (most of them CSE hits) makes a key.
    let key = `${tag}|${type.gid}|`;
    for (let i = 0; i < ops.length; i++) key += i === 0 ? `${ops[i]!.gid}` : `,${ops[i]!.gid}`;
    key += `|${payloadKey(payload)}`;
    let p = this.cse.get(key);
    if (!p) {
      p = new PrimOp(tag, type, ops, payload);
      this.cse.set(key, p);
    }
    return p;
  }

  lit(type: PrimType, value: LitValue): PrimOp {
    return this.make('lit', type, [], normaliseLit(type, value));
  }
  litI32(n: number): PrimOp {
    return this.lit(this.prim('i32'), BigInt(n));
  }
  litBool(b: boolean): PrimOp {
    return this.lit(this.prim('bool'), b);
  }
  bottom(type: IRType): PrimOp {
    return this.make('bottom', type, []);
  }

  arith(tag: ArithOpTag, a: Def, b: Def): Def {
    const t = a.type as PrimType;
    if (commutative.has(tag) && isLit(a) && !isLit(b)) [a, b] = [b, a];
    const x = litValue(a);
    let y = litValue(b);
    // A constant shift amount is masked here once, so every later stage sees one in range.
    if ((tag === 'shl' || tag === 'shr') && typeof y === 'bigint' && t.length === 1 && shiftAmount(t, y) !== y) {
      y = shiftAmount(t, y);
      b = this.lit(t, y);
    }
    if (x !== undefined && y !== undefined) {
      const folded = foldArith(tag, t, x, y);
      if (folded !== undefined) return this.lit(t, folded);
    }
    const id = this.arithIdentity(tag, t, a, b, y);
    if (id) return id;
    return this.make(tag, t, [a, b]);
  }

  private arithIdentity(tag: ArithOpTag, t: PrimType, a: Def, b: Def, y: LitValue | undefined): Def | undefined {
    if (t.length !== 1) return undefined;
    const zero = t.isBool ? false : t.isFloat ? 0 : 0n;
    const isZero = y !== undefined && y === zero;
    const isOne = y !== undefined && (t.isFloat ? y === 1 : y === 1n);
    const isAllOnes = y !== undefined && (t.isBool ? y === true : typeof y === 'bigint' && y === normaliseLit(t, -1n));
    switch (tag) {
      case 'add':
      case 'sub':
        if (isZero && !t.isFloat) return a;
        if (tag === 'sub' && a === b && t.isInt) return this.lit(t, 0n);
        return undefined;
      case 'mul':
        if (isOne) return a;
        if (isZero && t.isInt) return b;
        return undefined;
      case 'div':
        return isOne ? a : undefined;
      case 'and':
        if (isZero) return b;
        if (isAllOnes || a === b) return a;
        return undefined;
      case 'or':
        if (isZero || a === b) return a;
        if (isAllOnes) return b;
        return undefined;
      case 'xor':
        if (isZero) return a;
        if (a === b) return this.lit(t, zero);
        return undefined;
      case 'shl':
      case 'shr':
        return isZero ? a : undefined;
      default:
        return undefined;
    }
  }

  cmp(tag: CmpOpTag, a: Def, b: Def): Def {
    const t = a.type as PrimType;
    const boolT = this.prim('bool', t.length);
    if (commutative.has(tag) && isLit(a) && !isLit(b)) [a, b] = [b, a];
    const x = litValue(a);
    const y = litValue(b);
    if (x !== undefined && y !== undefined) return this.lit(boolT, compareLits(tag, x, y));
    if (a === b && t.length === 1 && !t.isFloat) return this.lit(boolT, tag === 'eq' || tag === 'le' || tag === 'ge');
    return this.make(tag, boolT, [a, b]);
  }

  /** `as`: numeric conversion; pointer-to-pointer casts are bitcasts. */
  cast(to: IRType, v: Def): Def {
    if (v.type === to) return v;
    const x = litValue(v);
    if (x !== undefined && to instanceof PrimType && to.length === 1) return this.lit(to, convertLit(v.type as PrimType, to, x));
    return this.make('cast', to, [v]);
  }

  bitcast(to: IRType, v: Def): Def {
    if (v.type === to) return v;
    const x = litValue(v);
    if (x !== undefined && to instanceof PrimType && to.length === 1) {
      const from = v.type as PrimType;
      if (from.bits === to.bits) return this.lit(to, reinterpretLit(from, to, x));
    }
    if (v instanceof PrimOp && v.tag === 'bitcast') return this.bitcast(to, v.op(0));
    return this.make('bitcast', to, [v]);
  }

  select(cond: Def, a: Def, b: Def): Def {
    const c = litValue(cond);
    if (c !== undefined && typeof c === 'boolean') return c ? a : b;
    if (a === b) return a;
    return this.make('select', a.type, [cond, a, b]);
  }

  tuple(elems: readonly Def[]): Def {
    return this.make('tuple', this.types.tuple(elems.map((e) => e.type)), elems);
  }
  unitValue(): Def {
    return this.tuple([]);
  }
  structAgg(type: StructType, elems: readonly Def[]): Def {
    return this.make('struct_agg', type, elems);
  }
  definiteArray(elemType: IRType, elems: readonly Def[]): Def {
    return this.make('definite_array', this.types.definiteArray(elemType, elems.length), elems);
  }
  /** `count` copies of `value`: short arrays as their elements (folding sees them), long ones as one node. */
  repeatArray(value: Def, count: number): Def {
    if (count <= maxSpelledRepeat) return this.definiteArray(value.type, Array.from({ length: count }, () => value));
    return this.make('repeat_array', this.types.definiteArray(value.type, count), [value]);
  }
  /** A SIMD value from scalar lanes. */
  vector(elems: readonly Def[]): Def {
    const e = elems[0]!.type as PrimType;
    return this.make('vector', this.prim(e.prim, elems.length), elems);
  }

  extract(agg: Def, index: Def | number): Def {
    const idx = typeof index === 'number' ? this.litI32(index) : index;
    const i = litValue(idx);
    // Every element is the same (an index out of bounds has no defined result).
    if (agg instanceof PrimOp && agg.tag === 'repeat_array') return agg.op(0);
    if (i !== undefined && agg instanceof PrimOp) {
      const n = Number(i);
      if (agg.tag === 'tuple' || agg.tag === 'struct_agg' || agg.tag === 'definite_array' || agg.tag === 'vector') {
        if (n >= 0 && n < agg.ops.length) return agg.op(n);
      }
      if (agg.tag === 'insert') {
        const j = litValue(agg.op(1));
        if (j !== undefined && Number(j) === n) return agg.op(2);
        if (j !== undefined) return this.extract(agg.op(0), idx);
      }
    }
    return this.make('extract', elementType(agg.type, i === undefined ? undefined : Number(i)), [agg, idx]);
  }

  insert(agg: Def, index: Def | number, value: Def): Def {
    const idx = typeof index === 'number' ? this.litI32(index) : index;
    const i = litValue(idx);
    if (i !== undefined && agg instanceof PrimOp && (agg.tag === 'tuple' || agg.tag === 'struct_agg' || agg.tag === 'definite_array' || agg.tag === 'vector')) {
      const n = Number(i);
      if (n >= 0 && n < agg.ops.length) {
        const elems = agg.ops.map((o, k) => (k === n ? value : o));
        return this.rebuild(agg, elems);
      }
    }
    return this.make('insert', agg.type, [agg, idx, value]);
  }

  /** Address of element `index` of the aggregate `ptr` points to. */
  lea(ptr: Def, index: Def | number): Def {
    const idx = typeof index === 'number' ? this.litI32(index) : index;
    const pt = ptr.type instanceof PtrVectorType ? ptr.type.lane : (ptr.type as PtrType);
    const i = litValue(idx);
    const elem = elementType(pt.pointee, i === undefined ? undefined : Number(i));
    const lane = this.types.ptr(elem, pt.addrSpace);
    // A vector of pointers or of indices addresses one element per lane (a gather's addresses).
    const lanes = ptr.type instanceof PtrVectorType ? ptr.type.length : idx.type instanceof PrimType ? idx.type.length : 1;
    return this.make('lea', lanes > 1 ? this.types.ptrVector(lane, lanes) : lane, [ptr, idx]);
  }

  /** Returns the (mem, value) pair; use `extract(…, 0)` and `extract(…, 1)`. */
  load(mem: Def, ptr: Def): Def {
    const pt = ptr.type as PtrType;
    return this.make('load', this.types.tuple([this.mem, pt.pointee]), [mem, ptr]);
  }
  store(mem: Def, ptr: Def, value: Def, hint?: StoreHint): Def {
    return this.make('store', this.mem, [mem, ptr, value], hint);
  }
  /** Returns (mem, frame) for the stack slots of one function activation. */
  enter(mem: Def): Def {
    return this.make('enter', this.types.tuple([this.mem, this.types.frame]), [mem]);
  }
  slot(frame: Def, type: IRType): Def {
    return this.make('slot', this.types.ptr(type), [frame], this.nextUnique++);
  }
  /** Heap allocation of `count` elements of `elemType` (count 1 and a non-array type for `~T`). Returns (mem, ptr). */
  alloc(mem: Def, allocated: IRType, count: Def): Def {
    return this.make('alloc', this.types.tuple([this.mem, this.types.ptr(allocated)]), [mem, count]);
  }
  /** Inline assembly reading `inputs` and giving `(mem, R)` (see the `asm` tag); never merged with another. */
  asm(mem: Def, inputs: readonly Def[], outputs: readonly IRType[], info: Omit<AsmInfo, 'id'>): Def {
    const result = outputs.length === 1 ? outputs[0]! : this.types.tuple(outputs);
    return this.make('asm', this.types.tuple([this.mem, result]), [mem, ...inputs], { ...info, id: this.nextUnique++ });
  }
  global(init: Def, mutable: boolean, name = ''): Def {
    return this.make('global', this.types.ptr(init.type), [init], { mutable, name, id: this.nextUnique++ });
  }
  sizeof(t: IRType): Def {
    return this.make('sizeof', this.prim('i32'), [], t);
  }
  alignof(t: IRType): Def {
    return this.make('alignof', this.prim('i32'), [], t);
  }

  variant(type: VariantType, index: number, value: Def): Def {
    return this.make('variant', type, [value], index);
  }
  variantIndex(v: Def): Def {
    if (v instanceof PrimOp && v.tag === 'variant') return this.lit(this.prim('u32'), BigInt(v.payload as number));
    return this.make('variant_index', this.prim('u32'), [v]);
  }
  variantExtract(v: Def, index: number): Def {
    if (v instanceof PrimOp && v.tag === 'variant' && v.payload === index) return v.op(0);
    const vt = v.type as VariantType;
    return this.make('variant_extract', vt.variants[index]!, [v], index);
  }

  run(d: Def): Def {
    return isLit(d) ? d : this.make('run', d.type, [d]);
  }
  hlt(d: Def): Def {
    return this.make('hlt', d.type, [d]);
  }
  /** `?e`: folds to true when `e` depends on no parameter and no effect. */
  known(d: Def): Def {
    if (isStatic(d)) return this.litBool(true);
    if (d instanceof PrimOp && d.tag === 'hlt') return this.litBool(false);
    return this.make('known', this.prim('bool'), [d]);
  }

  /** The same primop with new operands, folded again. */
  rebuild(p: PrimOp, ops: readonly Def[]): Def {
    const [a, b, c] = ops;
    switch (p.tag) {
      case 'lit':
      case 'bottom':
      case 'sizeof':
      case 'alignof':
        return p;
      case 'add': case 'sub': case 'mul': case 'div': case 'rem':
      case 'and': case 'or': case 'xor': case 'shl': case 'shr':
        return this.arith(p.tag, a!, b!);
      case 'eq': case 'ne': case 'lt': case 'le': case 'gt': case 'ge':
        return this.cmp(p.tag, a!, b!);
      case 'cast':
        return this.cast(p.type, a!);
      case 'bitcast':
        return this.bitcast(p.type, a!);
      case 'select':
        return this.select(a!, b!, c!);
      case 'tuple':
        return this.tuple(ops);
      case 'struct_agg':
        return this.structAgg(p.type as StructType, ops);
      case 'definite_array':
        return this.definiteArray((p.type as DefiniteArrayType).elem, ops);
      case 'repeat_array':
        return this.repeatArray(a!, (p.type as DefiniteArrayType).dim);
      case 'vector':
        return this.vector(ops);
      case 'extract':
        return this.extract(a!, b!);
      case 'insert':
        return this.insert(a!, b!, c!);
      case 'lea':
        return this.lea(a!, b!);
      case 'load':
        return this.load(a!, b!);
      case 'store':
        return this.store(a!, b!, c!, p.payload as StoreHint | undefined);
      case 'enter':
        return this.enter(a!);
      case 'slot':
        return this.make('slot', p.type, [a!], p.payload);
      case 'alloc':
        return this.make('alloc', p.type, [a!, b!]);
      case 'global':
        return this.make('global', this.types.ptr(a!.type), [a!], p.payload);
      case 'asm':
        return this.make('asm', p.type, ops, p.payload);
      case 'variant':
        return this.variant(p.type as VariantType, p.payload as number, a!);
      case 'variant_index':
        return this.variantIndex(a!);
      case 'variant_extract':
        return this.variantExtract(a!, p.payload as number);
      case 'run':
        return this.run(a!);
      case 'hlt':
        return this.hlt(a!);
      case 'known':
        return this.known(a!);
    }
  }

  /**
   * `root` rebuilt (and refolded) with the defs of `subst` replaced and every def
   * `replace`d since brought up to date (`current`). For expressions kept outside
   * the graph, which `replace` cannot see: filters. Values taken from `subst` are
   * final; values from earlier replacements are brought up to date in turn.
   * Iterative: those values may be long primop chains.
   */
  substitute(root: Def, subst: ReadonlyMap<Def, Def> = new Map()): Def {
    const done = new Map<Def, Def>();
    const stack: Def[] = [root];
    while (stack.length) {
      const d = stack[stack.length - 1]!;
      if (done.has(d)) {
        stack.pop();
        continue;
      }
      const given = subst.get(d);
      const now = given === undefined ? this.current(d) : d;
      if (given !== undefined || now !== d) {
        if (given === undefined && !done.has(now)) {
          stack.push(now);
          continue;
        }
        done.set(d, given ?? done.get(now)!);
      } else if (d instanceof PrimOp && d.ops.length) {
        const pending = d.ops.filter((o) => !done.has(o));
        if (pending.length) {
          stack.push(...pending);
          continue;
        }
        const ops = d.ops.map((o) => done.get(o)!);
        done.set(d, ops.every((o, i) => o === d.op(i)) ? d : this.rebuild(d, ops));
      } else {
        done.set(d, d);
      }
      stack.pop();
    }
    return done.get(root)!;
  }

  /** `d` as it is now, followed through every `replace` since (for references kept outside the graph: filters). */
  current(d: Def): Def {
    let next = this.replacedBy.get(d);
    if (!next) return d;
    const seen = new Set<Def>([d]);
    while (next && !seen.has(next)) {
      seen.add(next);
      d = next;
      next = this.replacedBy.get(d);
    }
    return d;
  }

  /** Replaces `old` by `replacement` everywhere (see `replaceAll`). */
  replace(old: Def, replacement: Def): void {
    if (old !== replacement) this.replaceAll(new Map([[old, replacement]]));
  }

  /**
   * Replaces several defs at once: continuation bodies are rewired and each primop that
   * depends on them is rebuilt (and refolded) exactly once. Replacing one by one would
   * rebuild a node once per changed path to it, which is exponential on the memory chains
   * of a long block. `subst` maps old defs to new ones; a new def may itself be a key.
   */
  replaceAll(subst: ReadonlyMap<Def, Def>): void {
    if (subst.size === 0) return;
    for (const [old, replacement] of subst) this.replacedBy.set(old, replacement);
    const affected = new Set<PrimOp>();
    const users = new Set<Continuation>();
    const work = [...subst.keys()];
    while (work.length) {
      const d = work.pop()!;
      for (const { user } of d.uses.values()) {
        if (user instanceof Continuation) users.add(user);
        else if (user instanceof PrimOp && !affected.has(user)) {
          affected.add(user);
          work.push(user);
        }
      }
  }
  const memo = new Map<Def, Def>();
  const resolve = (d: Def): Def => {
    let r = d;
    for (let s = subst.get(r); s !== undefined; s = subst.get(r)) r = s;
    return r;
  };
  /** The new version of `root`, building operands first without recursion (chains are long). */
  const renew = (root: Def): Def => {
    const stack: Def[] = [root];
    while (stack.length) {
      const d = stack[stack.length - 1]!;
      if (memo.has(d)) {
        stack.pop();
        continue;
      }
      const r = resolve(d);
      if (r !== d) {
        if (!memo.has(r)) {
          stack.push(r);
          continue;
        }
        memo.set(d, memo.get(r)!);
      } else if (d instanceof PrimOp && affected.has(d)) {
        const pending = d.ops.filter((o) => !memo.has(o));
        if (pending.length) {
          stack.push(...pending);
          continue;
        }
        const ops = d.ops.map((o) => memo.get(o)!);
        memo.set(d, ops.every((o, i) => o === d.op(i)) ? d : this.rebuild(d, ops));
      } else {
        memo.set(d, d);
      }
      stack.pop();
    }
    return memo.get(root)!;
  };
  for (const c of users) {
    c.ops.forEach((o, i) => {
      const n = renew(o);
      if (n !== o) c.updateOp(i, n);
    });
  }
  }
}

// ------------------------------------------------------------ helpers

function payloadKey(p: unknown): string {
  if (p === undefined) return '';
  if (typeof p === 'bigint') return `${p}n`;
  if (typeof p === 'number') return Object.is(p, -0) ? '-0' : `${p}`;
  if (typeof p === 'object' && p !== null && 'gid' in p) return `T${(p as { gid: number }).gid}`;
  if (typeof p === 'object' && p !== null && 'id' in p) return `G${(p as { id: number }).id}`;
  return String(p);
}

export function elementType(t: IRType, index: number | undefined): IRType {
  if (t instanceof TupleType) return t.elems[index ?? 0]!;
  if (t instanceof StructType) return t.fields[index ?? 0]!;
  if (t instanceof DefiniteArrayType || t instanceof IndefiniteArrayType) return t.elem;
  if (t instanceof PrimType && t.length > 1) return t.scalar;
  if (t instanceof PtrVectorType) return t.lane;
  if (t instanceof VariantType) return t.variants[index ?? 0]!;
  throw new Error(`internal: no element type for ${t}`);
}

/** Longest `[v, .. n]` built as a definite_array of its elements rather than a repeat_array. */
const maxSpelledRepeat = 64;

/** True when `d` depends on no param and no effect: a compile-time constant. Iterative: unrolled code builds deep chains. */
export function isStatic(root: Def): boolean {
  const seen = new Set<Def>();
  const work: Def[] = [root];
  while (work.length) {
    const d = work.pop()!;
    if (seen.has(d) || d instanceof Continuation) continue;
    seen.add(d);
    if (d instanceof Param) return false;
    const p = d as PrimOp;
    switch (p.tag) {
      case 'hlt': case 'load': case 'store': case 'enter': case 'slot': case 'alloc': case 'known': case 'bottom':
        return false;
      case 'global':
        if ((p.payload as { mutable: boolean }).mutable) return false;
        break;
      default:
        for (const o of p.ops) work.push(o);
    }
  }
  return true;
}

export function normaliseLit(t: PrimType, v: LitValue): LitValue {
  if (t.isBool) return Boolean(v);
  if (t.isFloat) {
    const n = Number(v);
    return t.prim === 'f32' ? Math.fround(n) : n;
  }
  const b = typeof v === 'bigint' ? v : typeof v === 'boolean' ? (v ? 1n : 0n) : BigInt(Math.trunc(v));
  return t.isSigned ? BigInt.asIntN(t.bits, b) : BigInt.asUintN(t.bits, b);
}

function foldArith(tag: ArithOpTag, t: PrimType, x: LitValue, y: LitValue): LitValue | undefined {
  if (t.length !== 1) return undefined;
  if (typeof x === 'boolean' && typeof y === 'boolean') {
    switch (tag) {
      case 'and': return x && y;
      case 'or': return x || y;
      case 'xor': return x !== y;
      default: return undefined;
    }
  }
  if (typeof x === 'number' && typeof y === 'number') {
    switch (tag) {
      case 'add': return x + y;
      case 'sub': return x - y;
      case 'mul': return x * y;
      case 'div': return x / y;
      case 'rem': return x % y;
      default: return undefined;
    }
  }
  const a = x as bigint;
  const b = y as bigint;
  switch (tag) {
    case 'add': return a + b;
    case 'sub': return a - b;
    case 'mul': return a * b;
    // A zero divisor traps at run time (docs/language.md), so it is left to run time.
    // The most negative value divided by -1 wraps (to itself; remainder 0) when lit() normalises it.
    case 'div': return b === 0n ? undefined : a / b;
    case 'rem': return b === 0n ? undefined : a % b;
    case 'and': return a & b;
    case 'or': return a | b;
    case 'xor': return a ^ b;
    case 'shl': return a << shiftAmount(t, b);
    case 'shr': return a >> shiftAmount(t, b);
  }
}

/**
 * The amount a shift of a `t` by `b` shifts by: `b` masked to the width's bits, as Rust's
 * wrapping shifts and x86 do (the backend emits the same mask; docs/language.md).
 */
export function shiftAmount(t: PrimType, b: bigint): bigint {
  return b & BigInt(t.bits - 1);
}

/** A float converted to the integer type `t`: truncated toward zero, saturated to its range, NaN to 0 (LLVM's fpto[su]i.sat). */
export function floatToInt(t: PrimType, x: number): bigint {
  if (Number.isNaN(x)) return 0n;
  const bits = BigInt(t.bits);
  const min = t.isSigned ? -(1n << (bits - 1n)) : 0n;
  const max = t.isSigned ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  if (x === -Infinity) return min;
  if (x === Infinity) return max;
  const v = BigInt(Math.trunc(x));
  return v < min ? min : v > max ? max : v;
}

/** A comparison of two literal values of the same type (also the interpreter's scalar compare). */
export function compareLits(tag: CmpOpTag, x: LitValue, y: LitValue): boolean {
  switch (tag) {
    case 'eq': return x === y;
    case 'ne': return x !== y;
    case 'lt': return x < y;
    case 'le': return x <= y;
    case 'gt': return x > y;
    case 'ge': return x >= y;
  }
}

function convertLit(from: PrimType, to: PrimType, v: LitValue): LitValue {
  if (to.isBool) return typeof v === 'boolean' ? v : v !== 0 && v !== 0n;
  if (to.isFloat) return normaliseLit(to, typeof v === 'bigint' ? Number(v) : Number(v));
  if (typeof v === 'number') return floatToInt(to, v);
  void from;
  return normaliseLit(to, v);
}

function reinterpretLit(from: PrimType, to: PrimType, v: LitValue): LitValue {
  const buf = new DataView(new ArrayBuffer(8));
  const bits = from.bits;
  if (from.isFloat) {
    if (bits === 32) buf.setFloat32(0, Number(v), true);
    else buf.setFloat64(0, Number(v), true);
  } else if (bits <= 32) buf.setUint32(0, Number(BigInt.asUintN(32, v as bigint)), true);
  else buf.setBigUint64(0, BigInt.asUintN(64, v as bigint), true);
  if (to.isFloat) return to.bits === 32 ? buf.getFloat32(0, true) : buf.getFloat64(0, true);
  const raw = to.bits <= 32 ? BigInt(buf.getUint32(0, true)) : buf.getBigUint64(0, true);
  return normaliseLit(to, raw);
}
