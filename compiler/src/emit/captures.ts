// Which locals must live in memory, decided once over the whole program before
// emission. A local lives in a stack slot when its address is taken (`&x`,
// `&mut x.f`, `&a(i)`), or when it is mutable and used from a closure or a `for`
// body other than the one declaring it: SSA values cannot be shared by two
// continuations that both write them, while a slot is shared through its pointer.
// Everything else is an SSA value (immutable locals are plain Defs), except a mutable
// array of more than LARGEST_SSA_ARRAY elements: as an SSA value each store at an index
// only known at run time copies the whole array through a temporary (LLVM inserts at
// constant indices only), and a GPU kernel would be passed the uninitialised array as a
// parameter; in a slot it is an alloca indexed in place. Small arrays stay SSA values, so
// partial evaluation still sees through them (sorting networks, unrolled stencils).
//
// The same goes for every mutable local of a fn, closure or body whose `while`
// loop is left through a first-class `break`/`continue` (used as a value, or from
// a nested closure): such a jump may happen anywhere, so it cannot pass the loop's
// phis their operands (see jumps.ts).
import type { Block, Expr, ExprOf, FnDecl, Param, Pattern } from '../syntax/ast.ts';
import type { Program } from '../sema/program.ts';
import { localRoot } from '../sema/ops.ts';
import { prune, type LocalBinding, type Type } from '../sema/types.ts';

const LARGEST_SSA_ARRAY = 16;

/** Whether `t` is, or is a tuple holding, an array of more than LARGEST_SSA_ARRAY elements. */
function holdsLargeArray(t: Type): boolean {
  const p = prune(t);
  if (p.tag === 'array') return p.size > LARGEST_SSA_ARRAY || holdsLargeArray(p.elem);
  if (p.tag === 'tuple') return p.elems.some(holdsLargeArray);
  return false;
}

/** What owns a local: the fn item (nested ones included), closure or `for`/`with` body declaring it. */
type Owner = FnDecl | ExprOf<'closure'> | ExprOf<'for'>;

export class LocalInfo {
  /** Locals that need a stack slot. */
  readonly inMemory = new Set<LocalBinding>();
  /** `let mut` locals and `mut` params. */
  readonly assignable = new Set<LocalBinding>();

  /** Mutable locals that are not in memory are SSA variables. */
  isSsaVar(b: LocalBinding): boolean {
    return this.assignable.has(b) && !this.inMemory.has(b);
  }
}

export function analyseLocals(program: Program): LocalInfo {
  const w = new Walker(program);
  for (const fn of program.fns) w.fn(fn);
  return w.conclude();
}

class Walker {
  readonly info = new LocalInfo();
  private readonly owner = new Map<LocalBinding, Owner>();
  private readonly whileOwner = new Map<ExprOf<'while'>, Owner>();
  private readonly addrTaken = new Set<LocalBinding>();
  private readonly captured = new Set<LocalBinding>();
  /** Owners of a `while` left through a first-class `break` or `continue`. */
  private readonly escapingLoops = new Set<Owner>();
  private stack: Owner[] = [];

  constructor(private readonly program: Program) {}

  fn(decl: FnDecl): void {
    if (!decl.body) return;
    this.within(decl, () => {
      this.params(decl.params);
      this.block(decl.body!);
    });
  }

  conclude(): LocalInfo {
    for (const b of this.addrTaken) this.info.inMemory.add(b);
    for (const b of this.captured) if (this.info.assignable.has(b)) this.info.inMemory.add(b);
    for (const b of this.info.assignable) if (this.escapingLoops.has(this.owner.get(b)!)) this.info.inMemory.add(b);
    for (const b of this.info.assignable) if (holdsLargeArray(this.program.bindingType(b))) this.info.inMemory.add(b);
    return this.info;
  }

  private within(o: Owner, body: () => void): void {
    this.stack.push(o);
    body();
    this.stack.pop();
  }

  private get current(): Owner {
    return this.stack[this.stack.length - 1]!;
  }

  private declare(b: LocalBinding, assignable: boolean): void {
    this.owner.set(b, this.current);
    if (assignable) this.info.assignable.add(b);
  }

  private params(ps: readonly Param[]): void {
    for (const p of ps) if (p.name) this.declare(p, p.mutable);
  }

  private pattern(p: Pattern): void {
    switch (p.kind) {
      case 'bind':
        this.declare(p, p.mutable);
        return;
      case 'tuple':
        for (const e of p.elems) this.pattern(e);
        return;
      case 'variant':
        for (const e of p.args ?? []) this.pattern(e);
        return;
      default:
        return;
    }
  }

  private block(b: Block): void {
    for (const s of b.stmts) {
      if (s.kind === 'let') {
        if (s.init) this.expr(s.init);
        this.pattern(s.pattern);
      } else if (s.kind === 'expr') {
        this.expr(s.expr);
      }
      // Nested fn items are walked on their own (they are in `program.fns`, after their
      // enclosing fn); what they capture counts as used from another owner.
    }
    if (b.expr) this.expr(b.expr);
  }

  private use(b: LocalBinding): void {
    const o = this.owner.get(b);
    if (o !== undefined && o !== this.current) this.captured.add(b);
  }


  /** `direct`: the jump is the callee of a call, not a value. */
  private jump(e: Expr, direct: boolean): void {
    const t = this.program.jumps.get(e);
    if (!t) return;
    if (t.kind === 'local') {
      this.use(t.binding);
      return;
    }
    if (t.kind !== 'while') return;
    const o = this.whileOwner.get(t.expr);
    if (o !== undefined && (!direct || o !== this.current)) this.escapingLoops.add(o);
  }

  private expr(e: Expr): void {
    if (isAutoBorrow(this.program, e)) {
      const r = localRoot(e);
      if (r) this.addrTaken.add(r);
    }
    switch (e.kind) {
      case 'lit':
        return;
      case 'heaparray':
        this.expr(e.size);
        return;
      case 'path':
        if (e.res?.kind === 'local') this.use(e.res.binding);
        return;
      case 'return':
      case 'break':
      case 'continue':
        this.jump(e, false);
        return;
      case 'call':
        if (e.callee.kind === 'return' || e.callee.kind === 'break' || e.callee.kind === 'continue') this.jump(e.callee, true);
        else this.expr(e.callee);
        for (const a of e.args) this.expr(a);
        return;
      case 'field':
        this.expr(e.object);
        return;
      case 'tuple':
      case 'array':
      case 'simd':
        for (const x of e.elems) this.expr(x);
        return;
      case 'repeat':
        this.expr(e.value);
        return;
      case 'struct':
        for (const f of e.fields) this.expr(f.value);
        return;
      case 'unary':
        if (e.op === '&' || e.op === '&mut') {
          const r = localRoot(e.operand);
          if (r) this.addrTaken.add(r);
        }
        this.expr(e.operand);
        return;
      case 'binary': {
        // Operands in order, without a recursion per operator of a long `a + b + c …`.
        const rights: Expr[] = [];
        let x: Expr = e;
        for (; x.kind === 'binary'; x = x.lhs) rights.push(x.rhs);
        this.expr(x);
        for (let i = rights.length - 1; i >= 0; i--) this.expr(rights[i]!);
        return;
      }
      case 'assign':
        this.expr(e.lhs);
        this.expr(e.rhs);
        return;
      case 'cast':
        this.expr(e.expr);
        return;
      case 'if': {
        // Link by link: `else if` chains are thousands long in generated code.
        let link: Expr | null = e;
        for (; link?.kind === 'if'; link = link.else) {
          this.expr(link.cond);
          this.block(link.then);
        }
        if (link) this.expr(link);
        return;
      }
      case 'match':
        this.expr(e.scrutinee);
        for (const arm of e.arms) {
          this.pattern(arm.pattern);
          this.expr(arm.body);
        }
        return;
      case 'while':
        this.whileOwner.set(e, this.current);
        this.expr(e.cond);
        this.block(e.body);
        return;
      case 'for':
        this.expr(e.generator);
        this.within(e, () => {
          this.params(e.params);
          this.block(e.body);
        });
        return;
      case 'block':
        this.block(e.block);
        return;
      case 'closure':
        this.within(e, () => {
          this.params(e.params);
          this.expr(e.body);
        });
        return;
      case 'run':
        this.expr(e.call);
        return;
      case 'hlt':
      case 'known':
        this.expr(e.expr);
        return;
      case 'asm':
        for (const o of e.outputs) this.expr(o.expr);
        for (const i of e.inputs) this.expr(i.expr);
        return;
    }
  }
}

/**
 * Whether sema borrows the value of `e` (a value where an immutable pointer is expected):
 * like `&e`, it is the address of the place `e` designates (a copy only for temporaries).
 */
export function isAutoBorrow(program: Program, e: Expr): boolean {
  const to = program.coercions.get(e);
  if (!to || prune(to).tag !== 'ptr' || (e.kind === 'lit' && e.lit.kind === 'str')) return false;
  const t = prune(e.type!);
  return t.tag !== 'ptr' && t.tag !== 'owned';
}
