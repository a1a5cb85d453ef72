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
 * fn and cannot be used (items do not capture).
 */
export class Frame {
  readonly values = new Map<string, ValueEntry>();
  readonly types = new Map<string, TypeEntry>();

  constructor(
    readonly parent: Frame | null,
    readonly boundary = false,
  ) {}

  lookupValue(name: string): Found<ValueEntry> | null {
    return this.lookup((f) => f.values.get(name), (e) => e.kind === 'local');
  }

  lookupType(name: string): Found<TypeEntry> | null {
    return this.lookup((f) => f.types.get(name), (e) => e.kind === 'typeparam');
  }

  private lookup<E>(get: (f: Frame) => E | undefined, isLocal: (e: E) => boolean): Found<E> | null {
    let crossed = false;
    for (let f: Frame | null = this; f; f = f.parent) {
      const e = get(f);
      if (e) return { entry: e, captured: crossed && isLocal(e) };
      if (f.boundary) crossed = true;
    }
    return null;
  }
}

/** `captured`: the entry is a local of an enclosing item, not usable here. */
export interface Found<E> {
  entry: E;
  captured: boolean;
}
