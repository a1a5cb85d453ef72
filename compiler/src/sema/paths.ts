// Paths in value position: locals, fns (instantiated at the use), statics and
// enum variants (`E::A`, `m::E[T]::B`).
import type { EnumDecl, FnDecl, Path, PathSegment } from '../syntax/ast.ts';
import type { Span } from '../syntax/diagnostics.ts';
import type { Checker } from './checker.ts';
import { fnSig, sigType, staticType, variantFieldTypes } from './items.ts';
import { pathText, typeArgsFor } from './lower.ts';
import type { Frame, TypeEntry } from './scope.ts';
import { paramMap, substType } from './type-ops.ts';
import type { Resolution, Type } from './types.ts';

export interface ValuePath {
  res: Resolution;
  type: Type;
}

export function resolveValuePath(ck: Checker, path: Path): ValuePath | null {
  const segs = path.segments;
  const last = segs[segs.length - 1]!;
  if (segs.length === 1) {
    if (last.name === '_') {
      ck.error(path.span, "'_' is not a value: it only ignores a parameter or a part of a pattern");
      return null;
    }
    const found = ck.frame.lookupValue(last.name);
    if (!found) {
      const asType = ck.frame.lookupType(last.name);
      ck.error(path.span, asType ? `expected a value, found ${asType.entry.kind} '${last.name}'` : `unknown identifier '${last.name}'`);
      return null;
    }
    if (found.captured) {
      ck.error(path.span, `cannot capture local '${last.name}' in a nested item`);
      return null;
    }
    const e = found.entry;
    switch (e.kind) {
      case 'local':
        if (last.typeArgs.length) ck.error(path.span, `local '${last.name}' takes no type arguments`);
        ck.crossed(found.via, { binding: e.binding });
        return { res: { kind: 'local', binding: e.binding }, type: e.type };
      case 'static':
        return { res: { kind: 'static', decl: e.decl }, type: staticType(ck, e.decl) };
      case 'fn':
        if (ck.nestedFns.has(e.decl)) {
          ck.crossed(found.via, { fn: e.decl });
          ck.nestedRefs.push({ decl: e.decl, span: path.span });
        }
        return instantiateFn(ck, e.decl, last, path.span);
    }
  }
  let frame: Frame | null = null;
  for (let i = 0; i < segs.length - 1; i++) {
    const seg = segs[i]!;
    const entry: TypeEntry | undefined = frame ? frame.types.get(seg.name) : ck.frame.lookupType(seg.name)?.entry;
    if (entry?.kind === 'mod') {
      frame = entry.frame;
      continue;
    }
    if (entry?.kind === 'enum' && i === segs.length - 2) return variant(ck, entry.decl, seg, last, path.span);
    ck.error(path.span, `unknown identifier '${pathText(path)}'`);
    return null;
  }
  const entry = frame!.values.get(last.name);
  if (!entry || entry.kind === 'local') {
    ck.error(path.span, `unknown identifier '${pathText(path)}'`);
    return null;
  }
  if (entry.kind === 'static') return { res: { kind: 'static', decl: entry.decl }, type: staticType(ck, entry.decl) };
  return instantiateFn(ck, entry.decl, last, path.span);
}

function instantiateFn(ck: Checker, decl: FnDecl, seg: PathSegment, span: Span): ValuePath {
  const typeArgs = typeArgsFor(ck, decl.typeParams.length, seg, span);
  const res: Resolution = { kind: 'fn', decl, typeArgs };
  resolveArgsLater(ck, res, span);
  return { res, type: substType(sigType(fnSig(ck, decl)), paramMap(decl.typeParams, typeArgs)) };
}

function variant(ck: Checker, decl: EnumDecl, enumSeg: PathSegment, seg: PathSegment, span: Span): ValuePath | null {
  const index = decl.variants.findIndex((v) => v.name.name === seg.name);
  if (index < 0) {
    ck.error(span, `no variant '${seg.name}' in enum '${decl.name.name}'`);
    return null;
  }
  const typeArgs = typeArgsFor(ck, decl.typeParams.length, enumSeg, span);
  const res: Resolution = { kind: 'variant', decl, index, typeArgs };
  resolveArgsLater(ck, res, span);
  const map = paramMap(decl.typeParams, typeArgs);
  const enumT: Type = { tag: 'enum', decl, args: typeArgs };
  const fields = variantFieldTypes(ck, decl, index).map((f) => substType(f, map));
  return { res, type: fields.length ? { tag: 'fn', params: fields, ret: enumT } : enumT };
}

/** Resolves the type arguments a resolution records once the session ends. */
export function resolveArgsLater(ck: Checker, res: Resolution, span: Span): void {
  if (!('typeArgs' in res) || res.typeArgs.length === 0) return;
  ck.u.site((resolve) => {
    res.typeArgs = res.typeArgs.map((a) => resolve(a, span));
  });
}
