// Prints an AST back as Impala with every compound expression parenthesised, so tests can
// read precedence and associativity off the text. The output parses back to the same tree.
import type {
  Block, Expr, Filter, FnDecl, Item, Literal, MatchArm, Module, Param, Path, Pattern, Stmt, TypeExpr, TypeParam,
} from './ast.ts';

const utf8 = new TextDecoder();

/** Kinds printed without surrounding parentheses even as operands. */
const atomicKinds: ReadonlySet<string> = new Set([
  'lit', 'path', 'call', 'tuple', 'array', 'repeat', 'heaparray', 'simd', 'return', 'break', 'continue', 'asm',
]);

export function printModule(m: Module): string {
  return m.items.map(printItem).join('\n');
}

/** An expression as an operand: parenthesised unless atomic. */
export function printExpr(e: Expr): string {
  return atomicKinds.has(e.kind) ? bare(e) : `(${bare(e)})`;
}

/** Where the grammar takes a full expression (arguments, initialisers, bodies). */
function bare(e: Expr): string {
  switch (e.kind) {
    case 'lit': return printLiteral(e.lit);
    case 'path': return printPath(e.path);
    case 'call': return `${printExpr(e.callee)}(${e.args.map(bare).join(', ')})`;
    case 'field': return `${printExpr(e.object)}.${e.field.name}`;
    case 'tuple': return tuple(e.elems.map(bare));
    case 'array': return `[${e.elems.map(bare).join(', ')}]`;
    case 'repeat': return `[${bare(e.value)}, .. ${e.count}]`;
    case 'heaparray': return `~[${bare(e.size)}: ${printType(e.elemType)}]`;
    case 'simd': return `simd[${e.elems.map(bare).join(', ')}]`;
    case 'struct': return `${printPath(e.path)} ${braced(e.fields.map((f) => `${f.name.name}: ${bare(f.value)}`), ', ')}`;
    case 'unary': return e.postfix ? `${printExpr(e.operand)}${e.op}` : `${e.op === '&mut' ? '&mut ' : e.op}${printExpr(e.operand)}`;
    case 'binary': return `${printExpr(e.lhs)} ${e.op} ${printExpr(e.rhs)}`;
    case 'assign': return `${printExpr(e.lhs)} ${e.op} ${printExpr(e.rhs)}`;
    case 'cast': return `${printExpr(e.expr)} as ${printType(e.target)}`;
    case 'if': return `if ${condition(e.cond)} ${printBlock(e.then)}${e.else ? ` else ${bare(e.else)}` : ''}`;
    case 'match': return `match ${condition(e.scrutinee)} ${braced(e.arms.map(arm), ', ')}`;
    case 'while': return `while ${condition(e.cond)} ${printBlock(e.body)}`;
    case 'for': {
      const params = e.params.length ? `${e.params.map(param).join(', ')} in ` : '';
      const filter = e.filter ? ` ${printFilter(e.filter)}` : '';
      return `${e.isWith ? 'with' : 'for'} ${params}${condition(e.generator)}${filter} ${printBlock(e.body)}`;
    }
    case 'block': return printBlock(e.block);
    case 'closure': {
      const ret = e.diverges ? ' -> !' : e.retType ? ` -> ${printType(e.retType)}` : '';
      return `${e.filter ? printFilter(e.filter) : ''}|${e.params.map(param).join(', ')}|${ret} ${bare(e.body)}`;
    }
    case 'return': case 'break': case 'continue': return e.kind;
    case 'run': return `@@${printExpr(e.call)}`;
    case 'hlt': return `$${printExpr(e.expr)}`;
    case 'known': return `?${printExpr(e.expr)}`;
    case 'asm': {
      const operands = (os: { constraint: string; expr: Expr }[]) =>
        os.map((o) => `${printString(o.constraint)}(${bare(o.expr)})`).join(', ');
      const strings = (ss: string[]) => ss.map(printString).join(', ');
      return `asm(${printString(e.template)} : ${operands(e.outputs)} : ${operands(e.inputs)} : ${strings(e.clobbers)} : ${strings(e.options)})`;
    }
  }
}

/** Conditions cannot hold a bare struct literal, so it gets parentheses there. */
function condition(e: Expr): string {
  return e.kind === 'struct' ? `(${bare(e)})` : bare(e);
}

function arm(a: MatchArm): string {
  return `${printPattern(a.pattern)} => ${bare(a.body)}`;
}

function tuple(elems: string[]): string {
  return elems.length === 1 ? `(${elems[0]},)` : `(${elems.join(', ')})`;
}

export function printBlock(b: Block): string {
  const parts = b.stmts.map(stmt);
  if (b.expr) parts.push(bare(b.expr));
  return braced(parts, ' ');
}

function braced(parts: string[], separator: string): string {
  return parts.length ? `{ ${parts.join(separator)} }` : '{ }';
}

function stmt(s: Stmt): string {
  switch (s.kind) {
    case 'let': {
      const type = s.type ? `: ${printType(s.type)}` : '';
      const init = s.init ? ` = ${bare(s.init)}` : '';
      return `let ${printPattern(s.pattern)}${type}${init};`;
    }
    case 'item': return printItem(s.item);
    // Operands are parenthesised, so only a block-like expression can start like one.
    case 'expr': return `${bare(s.expr)}${s.semi ? ';' : ''}`;
  }
}

export function printType(t: TypeExpr): string {
  switch (t.kind) {
    case 'prim': return t.name;
    case 'tuple': return tuple(t.elems.map(printType));
    case 'array': return t.size === null ? `[${printType(t.elem)}]` : `[${printType(t.elem)} * ${t.size}]`;
    case 'simd': return `simd[${printType(t.elem)} * ${t.size}]`;
    case 'ptr': {
      const space = t.addrSpace ? `[${t.addrSpace}]` : '';
      return `&${t.mutable ? 'mut' : ''}${space}${t.mutable && !space ? ' ' : ''}${printType(t.pointee)}`;
    }
    case 'owned': return `~${printType(t.pointee)}`;
    case 'fn': return `fn(${t.params.map(printType).join(', ')}) -> ${t.ret ? printType(t.ret) : '!'}`;
    case 'path': return printPath(t.path);
    case 'typeof': return `typeof(${bare(t.expr)})`;
    case 'infer': return '_';
  }
}

export function printPattern(p: Pattern): string {
  switch (p.kind) {
    case 'bind': return `${p.mutable ? 'mut ' : ''}${p.name.name}`;
    case 'wild': return '_';
    case 'lit': return printLiteral(p.lit);
    case 'tuple': return tuple(p.elems.map(printPattern));
    case 'variant': return `${printPath(p.path)}${p.args ? `(${p.args.map(printPattern).join(', ')})` : ''}`;
  }
}

function printPath(p: Path): string {
  return p.segments
    .map((s) => (s.typeArgs.length ? `${s.name}[${s.typeArgs.map(printType).join(', ')}]` : s.name))
    .join('::');
}

function printLiteral(l: Literal): string {
  switch (l.kind) {
    case 'int': return `${l.value}${l.suffix ?? ''}`;
    case 'float': return `${floatText(l.value)}${l.suffix ?? ''}`;
    case 'bool': return String(l.value);
    case 'char': return `'${escapeByte(l.value, "'")}'`;
    case 'str': return printString(utf8.decode(l.value));
  }
}

function floatText(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? '1e999' : '-1e999';
  const s = Object.is(v, -0) ? '-0' : String(v);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

const escapes: ReadonlyMap<number, string> = new Map([
  [0, '\\0'], [9, '\\t'], [10, '\\n'], [13, '\\r'], [92, '\\\\'],
]);

function escapeByte(b: number, quote: string): string {
  const e = escapes.get(b);
  if (e) return e;
  const c = String.fromCharCode(b);
  return c === quote ? `\\${quote}` : c;
}

function printString(s: string): string {
  return `"${[...s].map((c) => (c.length === 1 && c.charCodeAt(0) < 128 ? escapeByte(c.charCodeAt(0), '"') : c)).join('')}"`;
}

function printFilter(f: Filter): string {
  switch (f.kind) {
    case 'always': return '@';
    case 'known': return '@?';
    case 'expr': return `@(${bare(f.expr)})`;
  }
}

function param(p: Param): string {
  const filter = p.filter ? `${printFilter(p.filter)} ` : '';
  const mut = p.mutable ? 'mut ' : '';
  if (!p.name) return `${filter}${p.type ? printType(p.type) : '_'}`;
  return `${filter}${mut}${p.name.name}${p.type ? `: ${printType(p.type)}` : ''}`;
}

function typeParams(ps: TypeParam[]): string {
  return ps.length ? `[${ps.map((p) => p.name).join(', ')}]` : '';
}

function printFn(f: FnDecl): string {
  const head = `${f.isPub ? 'pub ' : ''}${f.exported ? 'extern ' : ''}fn`;
  const filter = f.filter ? ` ${printFilter(f.filter)}` : '';
  const link = f.linkName !== null ? ` ${printString(f.linkName)}` : '';
  const ret = f.diverges ? ' -> !' : f.retType ? ` -> ${printType(f.retType)}` : '';
  const body = f.body ? ` ${printBlock(f.body)}` : ';';
  return `${head}${filter}${link} ${f.name.name}${typeParams(f.typeParams)}(${f.params.map(param).join(', ')})${ret}${body}`;
}

export function printItem(i: Item): string {
  const pub = 'isPub' in i && i.isPub ? 'pub ' : '';
  const items = (is: Item[]) => braced(is.map(printItem), ' ');
  switch (i.kind) {
    case 'fn': return printFn(i);
    case 'extern': return `extern ${printString(i.abi)} ${items(i.fns)}`;
    case 'static': {
      const type = i.type ? `: ${printType(i.type)}` : '';
      return `${pub}static ${i.mutable ? 'mut ' : ''}${i.name.name}${type}${i.init ? ` = ${bare(i.init)}` : ''};`;
    }
    case 'struct': {
      const fields = i.fields.map((f) => `${f.isPub ? 'pub ' : ''}${f.name.name}: ${printType(f.type)}`);
      return `${pub}struct ${i.name.name}${typeParams(i.typeParams)} ${braced(fields, ', ')}`;
    }
    case 'enum': {
      const variants = i.variants.map((v) => (v.fields.length ? `${v.name.name}(${v.fields.map(printType).join(', ')})` : v.name.name));
      return `${pub}enum ${i.name.name}${typeParams(i.typeParams)} ${braced(variants, ', ')}`;
    }
    case 'typealias': return `${pub}type ${i.name.name}${typeParams(i.typeParams)} = ${printType(i.type)};`;
    case 'mod': return `${pub}mod ${i.name.name} ${items(i.items)}`;
    case 'trait': return `trait ${i.name.name}${typeParams(i.typeParams)} ${items(i.items)}`;
    case 'impl': {
      const head = i.trait ? `${printType(i.trait)} for ${printType(i.forType)}` : printType(i.forType);
      return `impl${typeParams(i.typeParams)} ${head} ${items(i.items)}`;
    }
  }
}
