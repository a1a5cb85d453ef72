// Item-level types, computed on first use and memoised: fn signatures, struct
// fields, enum variants, alias bodies, static types. They are lowered outside any
// inference session, in a frame holding the item's type parameters.
import type { EnumDecl, FnDecl, StaticDecl, StructDecl, TypeAliasDecl, TypeParam } from '../syntax/ast.ts';
import { checkStaticInit } from './bodies.ts';
import type { Checker } from './checker.ts';
import { lowerType } from './lower.ts';
import type { FnSig } from './program.ts';
import { Frame } from './scope.ts';
import { unit, type Type } from './types.ts';

type Generic = FnDecl | StructDecl | EnumDecl | TypeAliasDecl;

const errorT: Type = { tag: 'error' };

export function typeParamsOf(decl: Generic): TypeParam[] {
  return decl.typeParams;
}

/** The frame an item's types (and, for fns, its body) are resolved in. */
export function itemFrame(ck: Checker, decl: Generic | StaticDecl): Frame {
  let f = ck.itemFrames.get(decl);
  if (!f) {
    f = new Frame(ck.declFrame.get(decl) ?? null, true);
    if (decl.kind !== 'static') {
      for (const tp of decl.typeParams) {
        if (f.types.has(tp.name)) ck.error(tp.span, `duplicate type parameter '${tp.name}'`);
        else f.types.set(tp.name, { kind: 'typeparam', decl: tp });
      }
    }
    ck.itemFrames.set(decl, f);
  }
  return f;
}

function lowerIn(ck: Checker, decl: Generic | StaticDecl, body: () => Type[]): Type[] {
  return ck.u.outside(() => ck.inFrame(itemFrame(ck, decl), body));
}

export function fnSig(ck: Checker, decl: FnDecl): FnSig {
  let sig = ck.sigs.get(decl);
  if (sig) return sig;
  const [ret, ...params] = lowerIn(ck, decl, () => [
    decl.diverges ? errorT : decl.retType ? lowerType(ck, decl.retType) : unit,
    ...decl.params.map((p) => {
      if (p.type) return lowerType(ck, p.type);
      ck.error(p.span, `missing type for parameter${p.name ? ` '${p.name.name}'` : ''}`);
      return errorT;
    }),
  ]);
  sig = { params, ret: decl.diverges ? null : ret! };
  ck.sigs.set(decl, sig);
  return sig;
}

/** The fn type of a signature. */
export function sigType(sig: FnSig): Type {
  return { tag: 'fn', params: sig.params, ret: sig.ret };
}

/** Field types in declaration order, mentioning the struct's type parameters. */
export function structFieldTypes(ck: Checker, decl: StructDecl): Type[] {
  let ts = ck.structFields.get(decl);
  if (!ts) {
    ts = lowerIn(ck, decl, () => decl.fields.map((f) => lowerType(ck, f.type)));
    ck.structFields.set(decl, ts);
  }
  return ts;
}

export function variantFieldTypes(ck: Checker, decl: EnumDecl, index: number): Type[] {
  let ts = ck.variantFields.get(decl);
  if (!ts) {
    const flat = lowerIn(ck, decl, () => decl.variants.flatMap((v) => v.fields.map((f) => lowerType(ck, f))));
    let i = 0;
    ts = decl.variants.map((v) => flat.slice(i, (i += v.fields.length)));
    ck.variantFields.set(decl, ts);
  }
  return ts[index] ?? [];
}

/** The aliased type, mentioning the alias's type parameters. */
export function aliasType(ck: Checker, decl: TypeAliasDecl): Type {
  const known = ck.aliasTypes.get(decl);
  if (known) return known;
  if (ck.busy.has(decl)) {
    ck.error(decl.name.span, `type alias '${decl.name.name}' refers to itself`);
    return errorT;
  }
  ck.busy.add(decl);
  const [t] = lowerIn(ck, decl, () => [lowerType(ck, decl.type)]);
  ck.busy.delete(decl);
  ck.aliasTypes.set(decl, t!);
  return t!;
}

/** The declared type of a static, or the type of its initialiser when none is declared. */
export function staticType(ck: Checker, decl: StaticDecl): Type {
  const known = ck.staticTypes.get(decl);
  if (known) return known;
  let t: Type;
  if (decl.type) {
    const declared = decl.type;
    [t] = lowerIn(ck, decl, () => [lowerType(ck, declared)]) as [Type];
  } else if (ck.busy.has(decl)) {
    ck.error(decl.name.span, `cannot infer the type of static '${decl.name.name}': its initialiser depends on itself`);
    return errorT;
  } else {
    ck.busy.add(decl);
    t = checkStaticInit(ck, decl);
    ck.busy.delete(decl);
  }
  ck.staticTypes.set(decl, t);
  return t;
}
