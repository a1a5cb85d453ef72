// Lexical scopes. Values (fns, statics, locals) and types (structs, enums,
// aliases, modules, type parameters) live in separate namespaces, as in Rust.
import type { EnumDecl, FnDecl, ModDecl, StaticDecl, StructDecl, TypeAliasDecl, TypeParam } from '../syntax/ast.ts';
import type { LocalBinding, Type } from './types.ts';

export type ValueEntry =
  | { kind: 'fn'; decl: FnDecl }
  | { kind: 'static'; decl: StaticDecl }
  | { kind: 'local'; binding: LocalBinding; type: Type; mutable: boolean };

export type TypeEntry =
  | { kind: 'struct'; decl: StructDecl }
  | { kind: 'enum'; decl: EnumDecl }
  | { kind: 'alias'; decl: TypeAliasDecl }
  | { kind: 'mod'; decl: ModDecl; frame: Frame }
  | { kind: 'typeparam'; decl: TypeParam };

/**
 * `boundary` marks the outermost frame of an item (its type parameters and
 * parameters): locals and type parameters found beyond it belong to an enclosing
 * fn and cannot be used (items do not capture). A fn item nested in a body is the
 * exception for values: its boundary names it (`nested`), and a value lookup that
 * crosses it sees the enclosing body's locals, as a closure does (lexical scoping).
 */
export class Frame {
  readonly values = new Map<string, ValueEntry>();
  readonly types = new Map<string, TypeEntry>();

  constructor(
    readonly parent: Frame | null,
    readonly boundary = false,
    readonly nested: FnDecl | null = null,
  ) {}

  lookupValue(name: string): Found<ValueEntry> | null {
    return this.lookup((f) => f.valueHere(name), (e) => e.kind === 'local', true);
  }

  lookupType(name: string): Found<TypeEntry> | null {
    return this.lookup((f) => f.types.get(name), (e) => e.kind === 'typeparam', false);
  }

  protected valueHere(name: string): ValueEntry | undefined {
    return this.values.get(name);
  }

  private lookup<E>(get: (f: Frame) => E | undefined, isLocal: (e: E) => boolean, intoBodies: boolean): Found<E> | null {
    let crossed = false;
    const via: FnDecl[] = [];
    for (let f: Frame | null = this; f; f = f.parent) {
      const e = get(f);
      if (e) return { entry: e, captured: crossed && isLocal(e), via };
      if (f.boundary && f.nested && intoBodies) via.push(f.nested);
      else if (f.boundary) crossed = true;
    }
    return null;
  }
}

/**
 * The `let`s of one block. A frame per `let` would make a lookup walk every
 * earlier `let` of the block (quadratic in long blocks); instead all of them share
 * one table, and the frame after the i-th `let` sees the bindings of the first i.
 * Those frames stay valid after later `let`s: items declared in nested blocks keep
 * theirs and are checked after the block.
 */
export class Lets {
  /** Per name, its bindings in order, each with the number of the `let` that made it. */
  private readonly bindings = new Map<string, { at: number; entry: ValueEntry }[]>();
  private count = 0;

  constructor(private readonly base: Frame) {}

  /** The frame after one more `let`, which binds `values`. */
  bind(values: ReadonlyMap<string, ValueEntry>): Frame {
    const at = ++this.count;
    for (const [name, entry] of values) {
      let list = this.bindings.get(name);
      if (!list) this.bindings.set(name, (list = []));
      list.push({ at, entry });
    }
    return new LetFrame(this.base, this, at);
  }

  /** The binding of `name` after the first `at` lets. */
  get(name: string, at: number): ValueEntry | undefined {
    const list = this.bindings.get(name);
    if (!list) return undefined;
    // The scan from the newest binding goes further only for a frame kept for a
    // nested item, which is checked after the block has shadowed the name again.
    for (let i = list.length - 1; i >= 0; i--) if (list[i]!.at <= at) return list[i]!.entry;
    return undefined;
  }
}

class LetFrame extends Frame {
  constructor(
    base: Frame,
    private readonly lets: Lets,
    private readonly at: number,
  ) {
    super(base);
  }

  protected override valueHere(name: string): ValueEntry | undefined {
    return this.lets.get(name, this.at);
  }
}

/**
 * `captured`: the entry is a local of an enclosing item, not usable here. `via`: the
 * nested fns whose boundaries the lookup crossed, innermost first; a local found
 * beyond them is one they capture.
 */
export interface Found<E> {
  entry: E;
  captured: boolean;
  via: readonly FnDecl[];
}
