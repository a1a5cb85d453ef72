// Type expressions to types, and the resolution of paths in type position.
import type { Path, PathSegment, PrimName, TypeExpr } from '../syntax/ast.ts';
import type { Span } from '../syntax/diagnostics.ts';
import type { Checker } from './checker.ts';
import { checkExpr } from './expr.ts';
import { aliasType, typeParamsOf } from './items.ts';
import { resolveArgsLater } from './paths.ts';
import type { Frame, TypeEntry } from './scope.ts';
import { substType, paramMap } from './type-ops.ts';
import { showType } from './infer.ts';
import { prune, type Resolution, type Type } from './types.ts';

const primAliases: Record<string, PrimName> = {
  int: 'i32', uint: 'u32', half: 'f16', float: 'f32', double: 'f64',
  bool: 'bool', i8: 'i8', i16: 'i16', i32: 'i32', i64: 'i64',
  u8: 'u8', u16: 'u16', u32: 'u32', u64: 'u64', f16: 'f16', f32: 'f32', f64: 'f64',
};

const errorT: Type = { tag: 'error' };

export function lowerType(ck: Checker, te: TypeExpr): Type {
  switch (te.kind) {
    case 'prim':
      return { tag: 'prim', name: te.name };
    case 'tuple':
      return { tag: 'tuple', elems: te.elems.map((e) => lowerType(ck, e)) };
    case 'array': {
      const elem = lowerType(ck, te.elem);
      return te.size === null ? { tag: 'indefarray', elem } : { tag: 'array', elem, size: te.size };
    }
    case 'simd': {
      const elem = lowerType(ck, te.elem);
      checkSimdElem(ck, elem, te.elem.span);
      // A vector of no lanes has no LLVM type, and the IR's one-lane vector is its scalar.
      if (te.size > 1) return { tag: 'simd', elem, size: te.size };
      ck.error(te.span, 'a simd type needs at least two lanes');
      return errorT;
    }
    case 'ptr':
      return { tag: 'ptr', pointee: lowerType(ck, te.pointee), mutable: te.mutable, addrSpace: te.addrSpace };
    case 'owned':
      return { tag: 'owned', pointee: lowerType(ck, te.pointee) };
    case 'fn':
      return { tag: 'fn', params: te.params.map((p) => lowerType(ck, p)), ret: te.ret && lowerType(ck, te.ret) };
    case 'typeof':
      if (!ck.u.active) {
        ck.error(te.span, "'typeof' is only allowed inside a function body");
        return errorT;
      }
      return checkExpr(ck, te.expr);
    case 'infer':
      if (!ck.u.active) {
        ck.error(te.span, "the placeholder '_' is only allowed inside a function body");
        return errorT;
      }
      return ck.u.fresh();
    case 'path':
      return lowerPathType(ck, te);
  }
}

/** The lanes of a simd vector (a type or a literal) are primitive values; checked once `elem` is inferred. */
export function checkSimdElem(ck: Checker, elem: Type, span: Span): void {
  ck.u.finalCheck(() => {
    const p = prune(elem);
    if (p.tag !== 'prim' && p.tag !== 'error') ck.error(span, `simd elements must be of primitive type, found '${showType(p)}'`);
  });
}

function lowerPathType(ck: Checker, te: Extract<TypeExpr, { kind: 'path' }>): Type {
  const r = resolveTypePath(ck, te.path);
  if (!r) return errorT;
  if ('prim' in r) return { tag: 'prim', name: r.prim };
  const last = te.path.segments[te.path.segments.length - 1]!;
  const res = entryResolution(ck, r.entry, last, te.span);
  if (!res) return errorT;
  te.res = res;
  resolveArgsLater(ck, res, te.span);
  return resolutionType(ck, res);
}

/** The type a type resolution denotes. */
function resolutionType(ck: Checker, res: Resolution): Type {
  switch (res.kind) {
    case 'struct':
      return { tag: 'struct', decl: res.decl, args: res.typeArgs };
    case 'enum':
      return { tag: 'enum', decl: res.decl, args: res.typeArgs };
    case 'alias':
      return substType(aliasType(ck, res.decl), paramMap(res.decl.typeParams, res.typeArgs));
    case 'typeparam':
      return { tag: 'param', decl: res.decl };
    default:
      return errorT;
  }
}

/**
 * Turns a type-namespace entry into a resolution, lowering the explicit type
 * arguments of `seg` or, inside a body, inventing them when omitted.
 */
export function entryResolution(ck: Checker, entry: TypeEntry, seg: PathSegment, span: PathSegment['span']): Resolution | null {
  switch (entry.kind) {
    case 'typeparam':
      if (seg.typeArgs.length) ck.error(span, `type parameter '${seg.name}' takes no type arguments`);
      return { kind: 'typeparam', decl: entry.decl };
    case 'mod':
      ck.error(span, `expected a type, found module '${seg.name}'`);
      return null;
    case 'struct':
    case 'enum':
    case 'alias': {
      const typeArgs = typeArgsFor(ck, typeParamsOf(entry.decl).length, seg, span);
      return { kind: entry.kind, decl: entry.decl, typeArgs } as Resolution;
    }
  }
}

/**
 * The type arguments for a generic item used at `seg`: the explicit ones, and inside
 * a body fresh inference variables for those omitted at the end (`bitcast[f32](x)`).
 */
export function typeArgsFor(ck: Checker, arity: number, seg: PathSegment, span: PathSegment['span']): Type[] {
  const args = seg.typeArgs.map((a) => lowerType(ck, a));
  if (args.length < arity && ck.u.active) {
    while (args.length < arity) args.push(ck.u.fresh());
    return args;
  }
  if (args.length !== arity) {
    ck.error(span, `wrong number of type arguments for '${seg.name}': expected ${arity} but found ${args.length}`);
    return Array.from({ length: arity }, (_, i) => args[i] ?? errorT);
  }
  return args;
}

export type TypePathResult = { entry: TypeEntry } | { prim: PrimName };

/** Resolves a path in the type namespace: `T`, `S`, `m::S`, a primitive alias. */
export function resolveTypePath(ck: Checker, path: Path): TypePathResult | null {
  const segs = path.segments;
  const first = segs[0]!;
  if (segs.length === 1) {
    const found = ck.frame.lookupType(first.name);
    if (!found) {
      const prim = primAliases[first.name];
      if (prim) return { prim };
      ck.error(path.span, `unknown type '${first.name}'`);
      return null;
    }
    if (found.captured) {
      ck.error(path.span, `cannot use type parameter '${first.name}' of an enclosing item`);
      return null;
    }
    return { entry: found.entry };
  }
  const mod = resolveModule(ck, path, segs.length - 1);
  if (!mod) return null;
  const last = segs[segs.length - 1]!;
  const entry = mod.types.get(last.name);
  if (!entry) {
    ck.error(path.span, `unknown type '${pathText(path)}'`);
    return null;
  }
  return { entry };
}

/** Resolves the first `count` segments of `path` as a chain of modules. */
function resolveModule(ck: Checker, path: Path, count: number): Frame | null {
  let frame: Frame | null = null;
  for (let i = 0; i < count; i++) {
    const seg = path.segments[i]!;
    const entry: TypeEntry | undefined = frame ? frame.types.get(seg.name) : ck.frame.lookupType(seg.name)?.entry;
    if (!entry || entry.kind !== 'mod') {
      ck.error(path.span, entry ? `'${seg.name}' is not a module` : `unknown module '${seg.name}'`);
      return null;
    }
    frame = entry.frame;
  }
  return frame;
}

export function pathText(path: Path): string {
  return path.segments.map((s) => s.name).join('::');
}
