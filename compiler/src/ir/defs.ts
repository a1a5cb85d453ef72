// The nodes of the CPS graph. A Def is a value; Continuations are the only
// mutable (nominal) nodes: their body (a jump to a callee with arguments) can be
// set and rewired. PrimOps are immutable and hash-consed by the World.
// Every Def knows its uses so passes can find users and replace nodes.
import type { Span } from '../syntax/diagnostics.ts';
import { FnType, type IRType } from './types.ts';

let nextGid = 0;

export interface Use {
  readonly user: Def;
  readonly index: number;
  /** `${user.gid}:${index}`: the key of this use in the operand's `uses`. */
  readonly key: string;
}

export abstract class Def {
  readonly gid = nextGid++;
  protected _ops: Def[] = [];
  /** Keyed by `${user.gid}:${index}`. */
  readonly uses = new Map<string, Use>();
  /** Source location for diagnostics (PE budget, verifier). */
  span: Span | null = null;

  constructor(type: IRType) {
    this._type = type;
  }

  protected _type: IRType;
  get type(): IRType {
    return this._type;
  }

  get ops(): readonly Def[] {
    return this._ops;
  }

  op(i: number): Def {
    return this._ops[i]!;
  }

  /** The record of the use of operand `i`, with its key in the operand's `uses`. */
  protected useOf(i: number): Use {
    return { user: this, index: i, key: `${this.gid}:${i}` };
  }

  protected setOp(i: number, d: Def): void {
    const use = this.useOf(i);
    const old = this._ops[i];
    if (old) old.uses.delete(use.key);
    this._ops[i] = d;
    d.uses.set(use.key, use);
  }

  protected unsetOps(): void {
    const ops = this._ops;
    for (let i = 0; i < ops.length; i++) ops[i]!.uses.delete(this.useOf(i).key);
    this._ops = [];
  }

  get numUses(): number {
    return this.uses.size;
  }

  abstract get label(): string;
}

// ---------------------------------------------------------------- primops

export type ArithOpTag = 'add' | 'sub' | 'mul' | 'div' | 'rem' | 'and' | 'or' | 'xor' | 'shl' | 'shr';
export type CmpOpTag = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge';

export type PrimOpTag =
  /** value: bigint for integers (wrapped to the type's width), number for floats, boolean for bool */
  | 'lit'
  /** An undefined value of the type (`undef[T]()`). */
  | 'bottom'
  | ArithOpTag
  | CmpOpTag
  /** Value conversion (`as`): int<->int (sign/zero extend or truncate), int<->float, float<->float. */
  | 'cast'
  | 'bitcast'
  | 'select'
  | 'tuple'
  | 'struct_agg'
  | 'definite_array'
  /**
   * ops [value]: a definite array (the type says how long) whose every element is the
   * value; `[v, .. n]` of any size costs one node.
   */
  | 'repeat_array'
  /** A SIMD vector built from scalars. */
  | 'vector'
  /** ops: [aggregate, index]; index is a literal for tuples/structs, any i32/i64 for arrays and vectors. */
  | 'extract'
  /** ops: [aggregate, index, value] */
  | 'insert'
  /** Address of an element: ops [ptr, index]; pointer to a struct/tuple/array (definite or indefinite). */
  | 'lea'
  /** ops [mem, ptr] -> (mem, T) */
  | 'load'
  /** ops [mem, ptr, value] -> mem; payload: a `StoreHint`, or none */
  | 'store'
  /** ops [mem] -> (mem, frame) */
  | 'enter'
  /** ops [frame] -> ptr; payload: unique id */
  | 'slot'
  /** Heap allocation: ops [mem, count] -> (mem, ptr to indefinite array of the element, or to the type) */
  | 'alloc'
  /** A global variable: ops [init]; payload: { mutable, id, name }; type: ptr to init's type */
  | 'global'
  /** sizeof / alignof of payload type; an i32 */
  | 'sizeof'
  | 'alignof'
  /** Variant construction: ops [value]; payload: variant index */
  | 'variant'
  /** ops [variant value] -> u32 tag */
  | 'variant_index'
  /** ops [variant value]; payload: variant index */
  | 'variant_extract'
  /** `@@e`: force evaluation */
  | 'run'
  /** `$e`: hide from the partial evaluator */
  | 'hlt'
  /** `?e`: true when e is known at compile time; resolved by the partial evaluator */
  | 'known'
  /**
   * Inline assembly: ops [mem, inputs…] -> (mem, R), R being `()` without outputs, the
   * output's type for one and a tuple of them for several; payload: `AsmInfo`.
   */
  | 'asm';

/**
 * How a store may write, beyond what it writes. `nontemporal`: the value is not read
 * again soon, so the store may go around the caches (x86's streaming stores), which saves
 * reading each line in before it is overwritten when the data written outgrows the
 * caches. The result is the same either way: the vectoriser and the LLVM backend stream
 * contiguous vector stores (backend/streaming.ts); scalar stores, the interpreter and the
 * GPU backends ignore the hint.
 */
export type StoreHint = 'nontemporal';

/** What an `asm` primop runs, LLVM's template and constraints as written; `id` keeps each one apart. */
export interface AsmInfo {
  readonly id: number;
  readonly template: string;
  readonly outputs: readonly string[];
  readonly inputs: readonly string[];
  readonly clobbers: readonly string[];
  /** `volatile`, `alignstack`, `intel`. */
  readonly options: readonly string[];
}

export class PrimOp extends Def {
  /**
   * The largest gid of a Param this primop reads through primops, -1 for none. Gids
   * grow with creation, so a primop whose newest param is older than a continuation's
   * params reads none of them: searches for them skip whole chains without walking them.
   */
  readonly newestParam: number;

  constructor(
    readonly tag: PrimOpTag,
    type: IRType,
    ops: readonly Def[],
    /** Literal value, slot/global identity, sizeof type, variant index. */
    readonly payload: unknown = undefined,
  ) {
    super(type);
    let newest = -1;
    ops.forEach((d, i) => {
      this.setOp(i, d);
      newest = Math.max(newest, newestParam(d));
    });
    this.newestParam = newest;
  }

  get label(): string {
    return `${this.tag}_${this.gid}`;
  }
}

/** `PrimOp.newestParam` extended to any def: a continuation is a name, its params are not read through it. */
export function newestParam(d: Def): number {
  return d instanceof PrimOp ? d.newestParam : d instanceof Param ? d.gid : -1;
}

export type LitValue = bigint | number | boolean;

export function isLit(d: Def): d is PrimOp & { payload: LitValue } {
  return d instanceof PrimOp && d.tag === 'lit';
}

export function litValue(d: Def): LitValue | undefined {
  return isLit(d) ? d.payload : undefined;
}

// ---------------------------------------------------------------- continuations

export class Param extends Def {
  name: string;
  constructor(type: IRType, readonly continuation: Continuation, readonly index: number, name = '') {
    super(type);
    this.name = name;
  }
  get label(): string {
    return `${this.name || 'p'}_${this.gid}`;
  }
}

/**
 * Compiler-known continuations. `branch`: args [mem, cond, then, else].
 * `match`: args [mem, value, otherwise, lit0, target0, lit1, target1, …].
 * The rest are the `extern "thorin"` functions of the prelude (docs/language.md, "The prelude"); their args are the
 * Impala arguments with mem first and the return continuation last.
 */
export type Intrinsic =
  | 'none'
  | 'branch'
  | 'match'
  | 'vectorize'
  | 'parallel'
  | 'spawn'
  | 'sync'
  | 'cuda'
  | 'nvvm'
  | 'opencl'
  | 'reserve_shared'
  | 'atomic'
  | 'cmpxchg'
  | 'pe_info'
  /** Lane queries (compiler/lib/lanes.impala): SPMD meaning inside `vectorize`, one lane elsewhere. */
  | 'lane_id'
  | 'num_lanes'
  | 'any'
  | 'all'
  | 'ballot'
  | 'extract'
  | 'broadcast';

/** How a continuation is called at the machine level. */
export type CallingConv = 'internal' | 'C' | 'device';

export class Continuation extends Def {
  readonly params: Param[];
  name: string;
  intrinsic: Intrinsic = 'none';
  cc: CallingConv = 'internal';
  /** Exported (has body) or imported (no body) with the C ABI / device builtin. */
  external = false;
  /** Symbol for imported/exported functions when it differs from `name`. */
  linkName: string | null = null;
  /** Per-parameter filter of the partial evaluator (bool Defs over this continuation's params); null when none. */
  filter: Def[] | null = null;

  constructor(type: FnType, name = '', paramNames: readonly string[] = []) {
    super(type);
    this.name = name;
    this.params = type.params.map((t, i) => new Param(t, this, i, paramNames[i] ?? ''));
  }

  get fnType(): FnType {
    return this.type as FnType;
  }

  /**
   * Adds a parameter (SSA construction adds phis to blocks lazily). `newType` must be
   * the old type with `param`'s type appended; callers go through `World.appendParam`.
   */
  addParam(newType: FnType, name: string): Param {
    const p = new Param(newType.params[newType.params.length - 1]!, this, this.params.length, name);
    this.params.push(p);
    this._type = newType;
    return p;
  }

  get label(): string {
    return `${this.name || 'k'}_${this.gid}`;
  }

  param(i: number): Param {
    return this.params[i]!;
  }

  get hasBody(): boolean {
    return this._ops.length > 0;
  }

  get callee(): Def {
    return this._ops[0]!;
  }

  /** The arguments of the body; one array per body (passes read `args` in loops), a new one when the body changes. */
  get args(): readonly Def[] {
    return (this.argsOfBody ??= this._ops.slice(1));
  }
  private argsOfBody: readonly Def[] | undefined;
  /**
   * The use record of each operand slot, made once: a body is set again and again (every
   * jump, every rewiring), and a new key string and record per operand each time was a
   * large share of the allocations of the passes. (A primop sets its operands once.)
   */
  private slots: Use[] | undefined;

  protected override useOf(i: number): Use {
    const slots = (this.slots ??= []);
    return (slots[i] ??= super.useOf(i));
  }

  protected override setOp(i: number, d: Def): void {
    super.setOp(i, d);
    this.argsOfBody = undefined;
  }

  protected override unsetOps(): void {
    super.unsetOps();
    this.argsOfBody = undefined;
  }

  arg(i: number): Def {
    return this._ops[i + 1]!;
  }

  /** Imported function or builtin: no body and called by name. */
  get isImported(): boolean {
    return this.external && !this.hasBody && this.intrinsic === 'none';
  }

  get isIntrinsic(): boolean {
    return this.intrinsic !== 'none';
  }

  /** Last param is a continuation: the function returns through it. */
  get retParam(): Param | null {
    const p = this.params[this.params.length - 1];
    return p && p.type instanceof FnType ? p : null;
  }

  /** Sets the body to `callee(args…)`, replacing any previous body. */
  jump(callee: Def, args: readonly Def[]): void {
    this.unsetOps();
    this.setOp(0, callee);
    args.forEach((a, i) => this.setOp(i + 1, a));
  }

  /** Changes one operand of the body (0 = callee, i + 1 = argument i). */
  updateOp(i: number, d: Def): void {
    this.setOp(i, d);
  }

  clearBody(): void {
    this.unsetOps();
  }
}
