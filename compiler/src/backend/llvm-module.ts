// Module-level state of the LLVM emitter: function symbols, declarations,
// globals, and constants (which may refer to functions and globals).
import { Continuation, type Def, PrimOp } from '../ir/defs.ts';
import { cpuLayout } from '../ir/layout.ts';
import { type DefiniteArrayType, type FnType, type IRType, PrimType, type VariantType } from '../ir/types.ts';
import { describe, fail } from './errors.ts';
import { escapeBytes, formatLit } from './llvm-consts.ts';
import { extAttr, llvmType, returnValueType, valueParamTypes, variantPayloadType } from './llvm-types.ts';
import { NameTable, symbol } from './names.ts';
import type { Program } from './program.ts';
import { isStreamingImport, streamingDefinition } from './streaming.ts';
import { isConstant } from './schedule.ts';

export interface Signature {
  /** The return type (`void` included) with its attributes in front, as `define`/`call` want it. */
  ret: string;
  /** The bare return type. */
  retType: string;
  /** Parameter types, each followed by its attributes. */
  params: string[];
}

export class ModuleContext {
  private readonly names = new NameTable();
  private readonly symbols = new Map<Continuation, string>();
  private readonly globals = new Map<PrimOp, string>();
  private readonly globalLines: string[] = [];
  /** Declarations by symbol; the signature text detects clashing imports of one symbol. */
  private readonly declarations = new Map<string, string>();
  private readonly defined = new Map<string, string>();
  /** Private functions of the backend's own (the division-by-zero check), by what they do. */
  private readonly helpers = new Map<string, { ref: string; lines: string[] }>();

  /** Module-level lines after the functions (metadata such as NVVM's kernel annotations). */
  private readonly trailer: string[] = [];
  private sharedCount = 0;

  constructor(
    readonly program: Program,
    /** Code for a GPU (NVPTX): no C runtime to call, kernels, block-shared memory. */
    readonly device = false,
    /** The symbol an import is called by, when it is not its link name (libdevice's math). */
    importSymbol: (name: string) => string = (name) => name,
  ) {
    // External symbols keep their names; claim them before any internal name is made up.
    for (const f of program.functions.filter((c) => c.external)) {
      const name = f.linkName ?? f.name;
      if (!this.names.claim(name)) fail(f, `a second exported function is named '${name}'`);
      this.symbols.set(f, `@${symbol(name)}`);
      this.defined.set(name, this.declareText(name, f));
    }
    for (const f of program.functions.filter((c) => !c.external)) this.symbols.set(f, `@${this.names.fresh(f.name || 'fn')}`);
    for (const c of program.imports) {
      const name = importSymbol(c.linkName ?? c.name);
      if (isStreamingImport(name)) {
        const define = (ref: string) => streamingDefinition(ref, name, c.fnType, device, (masked, params) => this.requireRuntime(masked, 'void', params));
        this.symbols.set(c, this.helper(name, define));
        continue;
      }
      this.symbols.set(c, `@${symbol(name)}`);
      this.declare(name, this.declareText(name, c), c);
    }
  }

  /** `@name` of a function or import. */
  functionRef(c: Continuation): string {
    return this.symbols.get(c)!;
  }

  isMain(c: Continuation): boolean {
    return c.external && (c.linkName ?? c.name) === 'main';
  }

  /** The LLVM signature of a function or import; `main` always returns i32. */
  signature(c: Continuation): Signature {
    const sig = signatureOf(c.fnType, c.cc === 'device' ? 'intrinsic' : 'C');
    return this.isMain(c) && sig.ret === 'void' ? { ...sig, ret: 'i32', retType: 'i32' } : sig;
  }

  /** Makes sure a runtime function is declared (the backend's own calls, e.g. `anydsl_alloc`). */
  requireRuntime(name: string, ret: string, params: readonly string[]): string {
    this.declare(name, `declare ${ret} @${symbol(name)}(${params.join(', ')})`, null);
    return `@${symbol(name)}`;
  }

  /**
   * `@name` of a private helper the backend's instruction sequences call, defined once per
   * module: `define` gets the fresh name and returns the definition (with any private globals).
   */
  helper(what: string, define: (ref: string) => string[]): string {
    let h = this.helpers.get(what);
    if (!h) {
      const ref = `@${this.names.fresh(what)}`;
      h = { ref, lines: define(ref) };
      this.helpers.set(what, h);
    }
    return h.ref;
  }

  private declareText(name: string, c: Continuation): string {
    const sig = this.signature(c);
    return `declare ${sig.ret} @${symbol(name)}(${sig.params.join(', ')})`;
  }

  private declare(name: string, text: string, c: Continuation | null): void {
    const defined = this.defined.get(name);
    const known = defined ?? this.declarations.get(name);
    if (known === undefined) {
      if (!this.names.claim(name)) fail(c, `the symbol '${name}' is already in use`);
      this.declarations.set(name, text);
    } else if (known !== text) {
      fail(c, `'${name}' is used with two signatures: '${known}' and '${text}'`);
    }
  }

  /**
   * A block-shared array of `count` elements of `elem` (address space 3), for one
   * `reserve_shared` call: module-level, so every work item of a block sees the same one.
   */
  sharedArray(elem: string, count: number, fn: Continuation): string {
    if (!this.device) fail(fn, 'reserve_shared outside a GPU kernel');
    const ref = `@${this.names.fresh(`shared.${this.sharedCount++}`)}`;
    this.globalLines.push(`${ref} = internal addrspace(3) global [${count} x ${elem}] undef, align 16`);
    return ref;
  }

  /** Adds a module-level line after the functions (metadata). */
  addTrailer(line: string): void {
    this.trailer.push(line);
  }

  /** `@name` of a global, defining it on first use. */
  global(g: PrimOp, fn: Continuation | null): string {
    let ref = this.globals.get(g);
    if (ref) return ref;
    const { mutable, name } = g.payload as { mutable: boolean; name: string };
    ref = `@${this.names.fresh(name || (mutable ? 'global' : 'const'))}`;
    this.globals.set(g, ref);
    const init = g.op(0);
    if (!isConstant(init)) fail(fn, `the initialiser of global '${describe(g)}' is not a constant`);
    const kind = mutable ? 'global' : 'unnamed_addr constant';
    // A global without initialiser (`static mut x: T;`) starts zeroed, as in C; the interpreter's `bottom` is zero too.
    const value = init instanceof PrimOp && init.tag === 'bottom' ? 'zeroinitializer' : this.constant(init, fn);
    this.globalLines.push(`${ref} = internal ${kind} ${llvmType(init.type)} ${value}`);
    return ref;
  }

  /** A constant operand (without its type). */
  constant(d: Def, fn: Continuation | null): string {
    if (d instanceof Continuation) {
      const ref = this.symbols.get(d);
      if (!ref) fail(fn, `'${describe(d)}' is used as a value but is not a function: a closure that transform/ did not convert`);
      return ref;
    }
    const p = d as PrimOp;
    const elems = (): string => p.ops.map((o) => `${llvmType(o.type)} ${this.constant(o, fn)}`).join(', ');
    switch (p.tag) {
      case 'lit': {
        const t = p.type as PrimType;
        const s = formatLit(t, p.payload as bigint | number | boolean);
        return t.length === 1 ? s : `<${Array.from({ length: t.length }, () => `${llvmType(t.scalar)} ${s}`).join(', ')}>`;
      }
      case 'bottom':
        return 'undef';
      case 'sizeof':
        return String(cpuLayout.size(p.payload as IRType));
      case 'alignof':
        return String(cpuLayout.align(p.payload as IRType));
      case 'global':
        return this.global(p, fn);
      case 'known':
        return 'false';
      case 'run':
      case 'hlt':
        return this.constant(p.op(0), fn);
      case 'tuple':
      case 'struct_agg':
        return p.ops.length === 0 ? 'zeroinitializer' : `{ ${elems()} }`;
      case 'definite_array':
        return p.ops.length === 0 ? 'zeroinitializer' : (byteString(p) ?? `[${elems()}]`);
      case 'repeat_array': {
        const elem = this.constant(p.op(0), fn);
        if (zeroConstants.has(elem)) return 'zeroinitializer';
        const typed = `${llvmType(p.op(0).type)} ${elem}`;
        return `[${Array.from({ length: (p.type as DefiniteArrayType).dim }, () => typed).join(', ')}]`;
      }
      case 'vector':
        return `<${elems()}>`;
      case 'variant':
        return `{ i32 ${p.payload as number}, ${variantPayloadType(p.type as VariantType)} zeroinitializer }`;
      default:
        return fail(fn, `'${describe(p)}' is not a constant`);
    }
  }

  text(moduleName: string, triple: string, functions: readonly string[], dataLayout?: string): string {
    const out = [`; ModuleID = '${moduleName}'`, `source_filename = "${moduleName}"`];
    if (dataLayout) out.push(`target datalayout = "${dataLayout}"`);
    out.push(`target triple = "${triple}"`, '');
    if (this.globalLines.length) out.push(...this.globalLines, '');
    if (this.declarations.size) out.push(...this.declarations.values(), '');
    out.push(functions.join('\n\n'));
    for (const h of this.helpers.values()) out.push('', ...h.lines);
    if (this.trailer.length) out.push('', ...this.trailer);
    return `${out.join('\n')}\n`;
  }
}

/** Spellings of all-zero constants (llvm-consts.ts), which make a repeated array `zeroinitializer`. */
const zeroConstants: ReadonlySet<string> = new Set(['0', 'false', 'null', 'zeroinitializer', '0x0000000000000000', '0xH0000']);

/** An array of byte literals as `c"…"`, so strings stay readable in the IR. */
function byteString(p: PrimOp): string | null {
  const elem = (p.type as DefiniteArrayType).elem;
  if (!(elem instanceof PrimType) || elem.length !== 1 || elem.bits !== 8) return null;
  const bytes: number[] = [];
  for (const o of p.ops) {
    if (!(o instanceof PrimOp) || o.tag !== 'lit') return null;
    bytes.push(Number(BigInt.asUintN(8, o.payload as bigint)));
  }
  return `c"${escapeBytes(bytes)}"`;
}

/**
 * The signature of a function of type `t`. LLVM intrinsics take no extension
 * attributes; everything else follows the C ABI's small-integer rule.
 */
export function signatureOf(t: FnType, abi: 'C' | 'intrinsic'): Signature {
  const ext = (ty: IRType): string => (abi === 'C' ? extAttr(ty) : '');
  const ret = returnValueType(t);
  const retType = ret ? llvmType(ret) : 'void';
  return {
    ret: ret ? `${ext(ret).trim()} ${retType}`.trim() : 'void',
    retType,
    params: valueParamTypes(t).map((p) => `${llvmType(p)}${ext(p)}`),
  };
}
