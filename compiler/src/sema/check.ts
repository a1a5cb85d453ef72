// The entry point of sema: name resolution, type inference and checking of a
// whole program, annotating the AST in place.
import type { EnumDecl, FnDecl, Item, Module, StructDecl } from '../syntax/ast.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import { checkFnBody, checkStaticInit } from './bodies.ts';
import { before, Checker } from './checker.ts';
import { collectItems } from './collect.ts';
import { showType } from './infer.ts';
import { checkIntrinsicDeclaration } from './intrinsics.ts';
import { aliasType, fnSig, sigType, staticType, structFieldTypes, variantFieldTypes } from './items.ts';
import type { Program } from './program.ts';
import { Frame } from './scope.ts';
import { paramMap, substType, typeEquals } from './type-ops.ts';
import { prune, type Type } from './types.ts';

export type { Program, FnSig, JumpTarget } from './program.ts';

const errorT: Type = { tag: 'error' };

export interface CheckOptions {
  /** How many leading modules form the prelude (default 1). */
  preludeModules?: number;
}

/**
 * Checks `modules`, of which the leading ones are the prelude: their items form the
 * outer scope, the items of all other modules one scope inside it (mutually visible,
 * shadowing the prelude). A lone module is simply checked on its own.
 */
export function checkProgram(modules: Module[], sink: DiagnosticSink, options: CheckOptions = {}): Program {
  const preludeCount = options.preludeModules ?? 1;
  const preludeFrame = new Frame(null);
  const userFrame = new Frame(preludeFrame);
  const ck = new Checker(sink, userFrame);
  const hooks = { sink, declared: (i: Item | FnDecl, f: Frame) => ck.declared(i, f) };
  modules.forEach((m, i) => collectItems(m.items, i < preludeCount ? preludeFrame : userFrame, hooks));
  reconcileWithPrelude(ck, preludeFrame, userFrame);
  for (let item = ck.worklist.shift(); item; item = ck.worklist.shift()) checkItem(ck, item);
  oneSignaturePerSymbol(ck);
  const capturingFns = nestedCaptures(ck);

  const mainEntry = userFrame.values.get('main') ?? preludeFrame.values.get('main');
  const main = mainEntry?.kind === 'fn' && mainEntry.decl.body ? mainEntry.decl : null;
  return {
    modules,
    fns: ck.fns,
    externs: ck.externs.filter((d) => !ck.externAlias.has(d)),
    exports: ck.fns.filter((d) => d.exported),
    statics: ck.statics,
    main,
    signature: (d) => fnSig(ck, d),
    staticType: (d) => staticType(ck, d),
    bindingType: (b) => ck.bindingTypes.get(b) ?? errorT,
    patternType: (p) => ck.patternTypes.get(p) ?? errorT,
    fieldTypes: (decl, args) => structFieldTypes(ck, decl).map((t) => substType(t, paramMap(decl.typeParams, args))),
    variantTypes: (decl, index, args) =>
      variantFieldTypes(ck, decl, index).map((t) => substType(t, paramMap(decl.typeParams, args))),
    coercions: ck.coercions,
    jumps: ck.jumps,
    forBodies: ck.forBodies,
    capturingFns,
  };
}

/**
 * The nested fns that capture: those that use a local or continuation of an enclosing
 * body, and those that name such a fn from outside their own body (to the fixpoint).
 * Emit puts them inside their enclosing body. One that captures a block's local
 * cannot be used before that local is declared (the value would not exist yet), nor
 * be generic or exported (both need it to stand alone).
 */
function nestedCaptures(ck: Checker): Set<FnDecl> {
  const capturing = new Set(ck.capturesDirectly);
  const latest = new Map(ck.capturedLet);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [d, uses] of ck.nestedUses) {
      for (const u of uses) {
        if (capturing.has(u) && !capturing.has(d)) {
          capturing.add(d);
          changed = true;
        }
        const l = latest.get(u);
        const m = latest.get(d);
        if (l && (!m || before(m.span, l.span))) {
          latest.set(d, l);
          changed = true;
        }
      }
    }
  }
  for (const d of capturing) {
    if (d.typeParams.length) ck.error(d.name.span, `nested fn '${d.name.name}' uses locals of the function around it, so it cannot be generic`);
    if (d.exported) ck.error(d.name.span, `exported fn '${d.name.name}' cannot use locals of the function around it`);
  }
  for (const r of ck.nestedRefs) {
    const l = latest.get(r.decl);
    if (l && capturing.has(r.decl) && before(r.span, l.span)) {
      ck.error(r.span, `'${r.decl.name.name}' is used before '${l.name}', which it captures, is declared`);
    }
  }
  return capturing;
}

/**
 * A user's extern declaration of a fn the prelude declares with the same ABI stands
 * for the prelude's declaration when the signatures agree; otherwise it is an error.
 * An extern "C" declaration of a fn the prelude defines in Impala (the RV intrinsics
 * `rv_any`…, which the original left to a C-level vectoriser) stands for that definition.
 */
function reconcileWithPrelude(ck: Checker, prelude: Frame, user: Frame): void {
  for (const [name, ue] of user.values) {
    const pe = prelude.values.get(name);
    if (ue.kind !== 'fn' || pe?.kind !== 'fn') continue;
    const u = ue.decl;
    const p = pe.decl;
    if (!u.abi || u.body || (p.body ? u.abi !== 'C' || p.abi : u.abi !== p.abi)) continue;
    if (sameSignature(ck, u, p)) {
      user.values.set(name, pe);
      ck.externAlias.set(u, p);
    } else if (p.body || !isEarlierForm(ck, u)) {
      ck.error(u.name.span, `declaration of '${name}' does not match the prelude's '${sigText(ck, p)}'`);
    }
  }
}

/** The 2018 AnyDSL runtime's `vectorize(length, alignment, lower, upper, body)`; emit drops the alignment. */
export const VECTORIZE_2018 = 'fn(i32, i32, i32, i32, fn(i32) -> ()) -> ()';

/**
 * User declarations that differ from the prelude's and still stand, as their own
 * declarations: the 2018 runtime's bindings of C functions the prelude also declares
 * (`anydsl_alloc(i32, i64) -> &[i8]`; one C symbol, so `oneSignaturePerSymbol` checks
 * that the C signatures agree), its five-argument `vectorize`, and its `sizeof[T]() -> i64`
 * (and `alignof`; emit widens the i32 the primop gives).
 */
function isEarlierForm(ck: Checker, u: FnDecl): boolean {
  if (u.abi === 'C') return true;
  if (u.abi !== 'thorin') return false;
  const sig = showType(sigType(fnSig(ck, u)));
  if (u.name.name === 'vectorize') return u.typeParams.length === 0 && sig === VECTORIZE_2018;
  return (u.name.name === 'sizeof' || u.name.name === 'alignof') && u.typeParams.length === 1 && sig === 'fn() -> i64';
}

/**
 * A C symbol has one declaration in the LLVM module, so every extern "C" fn naming it must
 * agree as LLVM declares it (signedness and pointee types do not show there); the second
 * that does not is an error at its declaration.
 */
function oneSignaturePerSymbol(ck: Checker): void {
  const first = new Map<string, { decl: FnDecl; shape: string }>();
  for (const d of ck.externs) {
    if (d.abi !== 'C' || ck.externAlias.has(d)) continue;
    const symbol = d.linkName ?? d.name.name;
    const sig = fnSig(ck, d);
    if ([...sig.params, sig.ret].some((t) => t && prune(t).tag === 'error')) continue;
    const shape = `(${sig.params.map(cShape).join(', ')}) -> ${sig.ret ? cShape(sig.ret) : '!'}`;
    const seen = first.get(symbol);
    if (!seen) first.set(symbol, { decl: d, shape });
    else if (seen.shape !== shape) {
      ck.error(d.span, `C symbol '${symbol}' is declared again with another signature: ${shape} here, ${seen.shape} at ${seen.decl.span.file}:${seen.decl.span.line}`);
    }
  }
}

/** A type as the C ABI sees it. */
function cShape(t: Type): string {
  const u = prune(t);
  if (u.tag === 'ptr' || u.tag === 'owned') return 'ptr';
  if (u.tag === 'tuple' && u.elems.length === 0) return 'void';
  if (u.tag === 'prim' && u.name !== 'bool') return u.name.replace(/^u/, 'i');
  return showType(u);
}

function sameSignature(ck: Checker, a: FnDecl, b: FnDecl): boolean {
  if (a.typeParams.length !== b.typeParams.length) return false;
  const renamed = paramMap(a.typeParams, b.typeParams.map((decl): Type => ({ tag: 'param', decl })));
  return typeEquals(substType(sigType(fnSig(ck, a)), renamed), sigType(fnSig(ck, b)));
}

function sigText(ck: Checker, d: FnDecl): string {
  const tps = d.typeParams.length ? `[${d.typeParams.map((t) => t.name).join(', ')}]` : '';
  return showType(sigType(fnSig(ck, d))).replace(/^fn/, `fn${tps}`);
}

function checkItem(ck: Checker, item: Item | FnDecl): void {
  switch (item.kind) {
    case 'fn':
      fnSig(ck, item);
      // A nested fn's body is checked where it is declared (control.ts).
      if (item.body) {
        if (!ck.nestedFns.has(item)) checkFnBody(ck, item);
      } else if (!item.abi) ck.error(item.name.span, `fn '${item.name.name}' has no body`);
      if (item.linkName !== null) checkLinkName(ck, item, item.linkName);
      if (item.exported && item.typeParams.length) ck.error(item.name.span, `exported fn '${item.name.name}' cannot be generic`);
      else if (item.exported && item.body) checkExportedSignature(ck, item);
      return;
    case 'static':
      staticType(ck, item);
      checkStaticInit(ck, item);
      return;
    case 'struct':
      noDuplicates(ck, item.fields.map((f) => f.name), 'field');
      structFieldTypes(ck, item);
      if (containsByValue(ck, item, item)) ck.error(item.name.span, `recursive type '${item.name.name}' has infinite size`);
      return;
    case 'enum':
      noDuplicates(ck, item.variants.map((v) => v.name), 'variant');
      variantFieldTypes(ck, item, 0);
      if (containsByValue(ck, item, item)) ck.error(item.name.span, `recursive type '${item.name.name}' has infinite size`);
      return;
    case 'typealias':
      aliasType(ck, item);
      return;
    default:
      return;
  }
}

/**
 * An `extern fn` is called from C (and from hosts through koffi), so what it takes and
 * returns must have one C representation: numbers, bool and pointers. f16 has none in
 * the C ABI LLVM targets; aggregates would need the platform's by-value struct rules.
 */
function checkExportedSignature(ck: Checker, item: FnDecl): void {
  const sig = fnSig(ck, item);
  const crossesC = (t: Type): boolean => {
    const u = prune(t);
    if (u.tag === 'error' || u.tag === 'ptr' || u.tag === 'owned') return true;
    return u.tag === 'prim' && u.name !== 'f16';
  };
  const refuse = (span: Item['span'], what: string, t: Type) =>
    ck.error(span, `exported fn '${item.name.name}' cannot ${what} of type '${showType(t)}': only numbers (not f16), bool and pointers cross the C ABI`);
  item.params.forEach((p, i) => {
    const t = sig.params[i];
    if (t && !crossesC(t)) refuse(p.type?.span ?? p.span, 'take a parameter', t);
  });
  const ret = sig.ret && prune(sig.ret);
  if (ret && !(ret.tag === 'tuple' && ret.elems.length === 0) && !crossesC(ret)) refuse(item.retType?.span ?? item.name.span, 'return a value', ret);
}

/** A link name (`fn "symbol" name`) must be a symbol LLVM can declare for this ABI. */
function checkLinkName(ck: Checker, item: FnDecl, linkName: string): void {
  if (linkName === '' || linkName.includes('\0')) {
    ck.error(item.span, `link name of fn '${item.name.name}' must be a non-empty symbol without NUL characters`);
  } else if (item.abi === 'device') {
    checkIntrinsicDeclaration(ck, item, linkName);
  } else if (item.abi === 'C' && linkName.startsWith('llvm.')) {
    // LLVM treats every `llvm.` symbol as an intrinsic and checks its signature, which a C
    // declaration knows nothing of; intrinsics are declared with `extern "device"`.
    ck.error(item.span, `link name '${linkName}' of extern "C" fn '${item.name.name}' is reserved: names starting with 'llvm.' are LLVM intrinsics, declared with extern "device"`);
  }
}

function noDuplicates(ck: Checker, names: readonly { name: string; span: Item['span'] }[], what: string): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n.name)) ck.error(n.span, `duplicate definition of ${what} '${n.name}'`);
    seen.add(n.name);
  }
}

/** Whether `decl`'s values contain a `target` directly (not behind a pointer). */
function containsByValue(ck: Checker, decl: StructDecl | EnumDecl, target: StructDecl | EnumDecl, seen = new Set<object>()): boolean {
  if (seen.has(decl)) return false;
  seen.add(decl);
  const fields = decl.kind === 'struct' ? structFieldTypes(ck, decl) : decl.variants.flatMap((_, i) => variantFieldTypes(ck, decl, i));
  const visit = (t: Type): boolean => {
    const p = prune(t);
    switch (p.tag) {
      case 'struct':
      case 'enum':
        return p.decl === target || containsByValue(ck, p.decl, target, seen) || p.args.some(visit);
      case 'tuple':
        return p.elems.some(visit);
      case 'array':
      case 'simd':
        return visit(p.elem);
      default:
        return false;
    }
  };
  return fields.some(visit);
}
