// One LLVM function from one top-level continuation: its blocks in reverse
// post-order, block params as phis (or plain aliases when a block has a single
// predecessor), the scheduled primops, and a terminator per block.
import { Continuation, type Def, type Param, type PrimOp, isLit } from '../ir/defs.ts';
import { IndefiniteArrayType, PtrType, TupleType } from '../ir/types.ts';
import type { CallCont, Target, Terminator } from './cfg.ts';
import { describe, fail } from './errors.ts';
import { type InstrContext, emitPrimOp } from './llvm-primops.ts';
import { type ModuleContext, type Signature, signatureOf } from './llvm-module.ts';
import { isErased, llvmType, returnValueType } from './llvm-types.ts';
import { NameTable } from './names.ts';
import { type Schedule, isConstant, scheduleFunction } from './schedule.ts';

export function emitFunction(mod: ModuleContext, fn: Continuation): string {
  return new FunctionEmitter(mod, fn, scheduleFunction(fn, mod.program)).emit();
}

interface Phi {
  name: string;
  type: string;
  incoming: string[];
}

interface BlockText {
  label: string;
  phis: Phi[];
  lines: string[];
}

const atomicOps = ['xchg', 'add', 'sub', 'and', 'nand', 'or', 'xor', 'max', 'min', 'umax', 'umin', 'fadd', 'fsub'];

class FunctionEmitter implements InstrContext {
  private readonly locals = new NameTable();
  private readonly values = new Map<Def, string>();
  private readonly effects = new Map<PrimOp, string>();
  private readonly labels = new Map<Continuation, string>();
  private readonly phis = new Map<Param, Phi>();
  private readonly allocas: string[] = [];
  private readonly blocks: BlockText[] = [];
  /** Calls in tail position; marked `tail` at the end if the function has no stack temporaries. */
  private readonly tailCalls: { lines: string[]; index: number }[] = [];
  private lines: string[] = [];
  private readonly sig: Signature;
  /** The return type the IR gives this function (main's may differ from its signature). */
  private readonly ownRetType: string;

  constructor(
    readonly mod: ModuleContext,
    private readonly fn: Continuation,
    private readonly schedule: Schedule,
  ) {
    this.sig = mod.signature(fn);
    const ret = returnValueType(fn.fnType);
    this.ownRetType = ret ? llvmType(ret) : 'void';
  }

  emit(): string {
    const { cfg } = this.schedule;
    const params = this.fn.params
      .filter((p) => p !== this.fn.retParam && !isErased(p.type))
      .map((p, i) => {
        const name = `%${this.locals.fresh(p.name || 'arg')}`;
        this.values.set(p, name);
        return `${this.sig.params[i]} ${name}`;
      });
    for (const b of cfg.blocks) this.labels.set(b, this.locals.fresh(b === this.fn ? 'entry' : b.name || 'bb'));
    for (const b of cfg.blocks) {
      if (b === this.fn || cfg.graph.preds(b).length === 1) continue;
      for (const p of b.params) {
        if (isErased(p.type)) continue;
        const phi = { name: `%${this.locals.fresh(p.name || 'phi')}`, type: llvmType(p.type), incoming: [] };
        this.phis.set(p, phi);
        this.values.set(p, phi.name);
      }
    }
    for (const b of cfg.blocks) {
      this.lines = [];
      this.blocks.push({ label: this.labels.get(b)!, phis: b.params.flatMap((p) => this.phis.get(p) ?? []), lines: this.lines });
      for (const p of this.schedule.placed.get(b)!) emitPrimOp(this, p);
      this.terminate(cfg.terminator(b), this.labels.get(b)!);
    }
    if (this.allocas.length === 0) for (const { lines, index } of this.tailCalls) lines[index] = lines[index]!.replace(/^((?:%\S+ = )?)call /, '$1tail call ');
    this.blocks[0]!.lines.unshift(...this.allocas);

    const linkage = this.fn.external ? '' : 'internal ';
    const body = this.blocks.map((b) => [
      `${b.label}:`,
      ...b.phis.map((phi) => `  ${phi.name} = phi ${phi.type} ${phi.incoming.join(', ')}`),
      ...b.lines.map((l) => `  ${l}`),
    ].join('\n'));
    return `define ${linkage}${this.sig.ret} ${this.mod.functionRef(this.fn)}(${params.join(', ')}) {\n${body.join('\n')}\n}`;
  }

  // ---------------------------------------------------------- InstrContext

  value(d: Def): string {
    if (isErased(d.type)) {
      if (d.type instanceof TupleType) return 'zeroinitializer';
      return this.fail(`'${describe(d)}' (of type ${d.type}) is used as a run-time value`);
    }
    const v = this.values.get(d);
    if (v !== undefined) return v;
    if (isConstant(d)) return this.mod.constant(d, this.fn);
    if (d instanceof Continuation || d === this.fn.retParam) {
      return this.fail(`'${describe(d)}' is used as a value: a closure or continuation that transform/ did not convert`);
    }
    return this.fail(`'${describe(d)}' is used before it is defined (a free variable, or a scheduling bug)`);
  }

  typed(d: Def): string {
    return `${llvmType(d.type)} ${this.value(d)}`;
  }

  instr(hint: string, rhs: string): string {
    const name = `%${this.locals.fresh(hint)}`;
    this.lines.push(`${name} = ${rhs}`);
    return name;
  }

  line(text: string): void {
    this.lines.push(text);
  }

  bind(d: Def, value: string): void {
    this.values.set(d, value);
  }

  bindEffect(p: PrimOp, value: string): void {
    this.effects.set(p, value);
  }

  effectValue(p: PrimOp): string {
    return this.effects.get(p) ?? this.fail(`the value of '${describe(p)}' is used before the effect runs`);
  }

  alloca(type: string, align?: number): string {
    const name = `%${this.locals.fresh('tmp')}`;
    this.allocas.push(`${name} = alloca ${type}${align ? `, align ${align}` : ''}`);
    return name;
  }

  fail(what: string): never {
    return fail(this.fn, what);
  }

  // ---------------------------------------------------------- control flow

  private terminate(term: Terminator, fromLabel: string): void {
    switch (term.kind) {
      case 'jump':
        this.edge(fromLabel, term.block, term.args.filter((a) => !isErased(a.type)).map((a) => ({ type: llvmType(a.type), value: this.value(a) })));
        this.line(`br label %${this.labels.get(term.block)!}`);
        return;
      case 'branch': {
        const then = this.target(term.then, fromLabel);
        const otherwise = this.target(term.else, fromLabel);
        this.line(`br ${this.typed(term.cond)}, label %${then}, label %${otherwise}`);
        return;
      }
      case 'match': {
        const otherwise = this.target(term.otherwise, fromLabel);
        const seen = new Set<string>();
        const cases: string[] = [];
        for (const c of term.cases) {
          if (!isLit(c.lit)) this.fail(`a match case '${describe(c.lit)}' is not a literal`);
          const v = this.value(c.lit);
          if (seen.has(v)) continue; // the first case wins, as in a chain of ifs
          seen.add(v);
          cases.push(`${this.typed(c.lit)}, label %${this.target(c.target, fromLabel)}`);
        }
        this.line(`switch ${this.typed(term.value)}, label %${otherwise} [${cases.map((c) => `\n    ${c}`).join('')}\n  ]`);
        return;
      }
      case 'return':
        this.ret(term.args.filter((a) => !isErased(a.type)).map((a) => this.typed(a)));
        return;
      case 'call': {
        const direct = term.callee instanceof Continuation;
        const sig = direct ? this.mod.signature(term.callee as Continuation) : signatureOf(term.calleeType, 'C');
        const ref = direct ? this.mod.functionRef(term.callee as Continuation) : this.value(term.callee);
        if (!ref) this.fail(`calls '${describe(term.callee)}', which is neither a function nor an import`);
        const args = term.args.filter((a) => !isErased(a.type));
        if (args.length !== sig.params.length) this.fail(`calls '${describe(term.callee)}' with ${args.length} arguments for ${sig.params.length} parameters`);
        const argText = args.map((a, i) => `${sig.params[i]} ${this.value(a)}`).join(', ');
        this.continueCall(term.cont, sig.retType, `call ${sig.ret} ${ref}(${argText})`, fromLabel);
        return;
      }
      case 'intrinsic': {
        if (term.intrinsic === 'reserve_shared') {
          this.continueWith(term.cont, 'ptr addrspace(3)', this.reserveShared(term), fromLabel);
          return;
        }
        const { type, rhs } = this.atomic(term);
        this.continueCall(term.cont, type, rhs, fromLabel);
        return;
      }
    }
  }

  /** The label for a branch target; edges that leave the function get a block of their own. */
  private target(t: Target, fromLabel: string): string {
    if (t.kind === 'block') {
      if (t.block.params.some((p) => !isErased(p.type))) this.fail(`the branch target '${describe(t.block)}' expects values`);
      return this.labels.get(t.block)!;
    }
    const label = this.locals.fresh(`${fromLabel}.exit`);
    const saved = this.lines;
    this.lines = [];
    this.blocks.push({ label, phis: [], lines: this.lines });
    this.terminate(t.term, label);
    this.lines = saved;
    return label;
  }

  /** Passes `values` to the value params of `to` along the edge leaving block `fromLabel`. */
  private edge(fromLabel: string, to: Continuation, values: readonly { type: string; value: string }[]): void {
    const params = to.params.filter((p) => !isErased(p.type));
    const types = params.map((p) => llvmType(p.type));
    if (types.join() !== values.map((v) => v.type).join()) {
      this.fail(`passes (${values.map((v) => v.type).join(', ')}) to '${describe(to)}', which takes (${types.join(', ')})`);
    }
    params.forEach((p, i) => {
      const phi = this.phis.get(p);
      if (phi) phi.incoming.push(`[ ${values[i]!.value}, %${fromLabel} ]`);
      else this.values.set(p, values[i]!.value);
    });
  }

  /** Emits `call` (whose result has type `retType`) and goes on where `cont` says. */
  private continueCall(cont: CallCont, retType: string, call: string, fromLabel: string): void {
    const result = retType === 'void' ? null : `%${this.locals.fresh('call')}`;
    this.line(result ? `${result} = ${call}` : call);
    this.continueWith(cont, retType, result, fromLabel);
  }

  /** Goes on where `cont` says with `result` (of type `retType`; null for void) as the value returned. */
  private continueWith(cont: CallCont, retType: string, result: string | null, fromLabel: string): void {
    switch (cont.kind) {
      case 'block': {
        // A block taking several values gets them out of the struct the callee returns (returnValueType).
        const takes = cont.block.params.filter((p) => !isErased(p.type));
        const values =
          result === null
            ? []
            : takes.length > 1
              ? takes.map((p, i) => ({ type: llvmType(p.type), value: this.instr('ret.elem', `extractvalue ${retType} ${result}, ${i}`) }))
              : [{ type: retType, value: result }];
        this.edge(fromLabel, cont.block, values);
        this.line(`br label %${this.labels.get(cont.block)!}`);
        return;
      }
      case 'tail':
        if (retType !== this.ownRetType) this.fail(`a tail call returns ${retType} from a function returning ${this.ownRetType}`);
        this.tailCalls.push({ lines: this.lines, index: this.lines.length - 1 });
        this.ret(result ? [`${retType} ${result}`] : []);
        return;
      case 'none':
        this.line('unreachable');
        return;
    }
  }

  private ret(given: readonly string[]): void {
    // Several values (a return continuation in tuple form) go back as one struct.
    const values = given.length > 1 ? [`${this.sig.retType} ${given.reduce((agg, v, i) => this.instr('ret.agg', `insertvalue ${this.sig.retType} ${agg}, ${v}, ${i}`), 'undef')}`] : given;
    if (values.length === 1 && !values[0]!.startsWith(`${this.sig.retType} `)) this.fail(`returns '${values[0]!}' from a function returning ${this.sig.retType}`);
    if (values.length === 1) this.line(`ret ${values[0]!}`);
    else if (this.sig.ret === 'void') this.line('ret void');
    else if (this.mod.isMain(this.fn)) this.line('ret i32 0');
    else this.fail(`returns nothing from a function returning ${this.sig.ret}`);
  }

  /** `reserve_shared[T](n)`: the address of a block-shared array of n elements; n must be known at compile time. */
  private reserveShared(term: Extract<Terminator, { kind: 'intrinsic' }>): string {
    const [, n] = term.args;
    const result = (term.cont.kind === 'block' ? term.cont.block.params[1]?.type : undefined) ?? null;
    if (!isLit(n!)) this.fail('reserve_shared with a size that is not known at compile time');
    const pointee = result instanceof PtrType ? result.pointee : null;
    if (!(pointee instanceof IndefiniteArrayType)) this.fail('reserve_shared must return to a block that takes the array');
    return this.mod.sharedArray(llvmType(pointee.elem), Number(n.payload as bigint), this.fn);
  }

  /**
   * `atomic(op, addr, val)` and `cmpxchg(addr, cmp, new)`, sequentially consistent as
   * in Thorin; `op` numbers LLVM's atomicrmw operations in their enum order.
   */
  private atomic(term: Extract<Terminator, { kind: 'intrinsic' }>): { type: string; rhs: string } {
    const [, a, b, c] = term.args;
    if (term.intrinsic === 'cmpxchg') {
      return { type: `{ ${llvmType(b!.type)}, i1 }`, rhs: `cmpxchg ${this.typed(a!)}, ${this.typed(b!)}, ${this.typed(c!)} seq_cst seq_cst` };
    }
    const op = isLit(a!) ? atomicOps[Number(a.payload)] : undefined;
    if (!op) this.fail(`atomic with operation '${describe(a!)}': not a known literal operation`);
    return { type: llvmType(c!.type), rhs: `atomicrmw ${op} ${this.typed(b!)}, ${this.typed(c!)} seq_cst` };
  }
}
