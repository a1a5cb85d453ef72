// Runs Impala source through the stages around the partial evaluator, so tests
// can look at the world before and after it, its trace, the final LLVM IR, and
// run exported functions in the IR interpreter (the oracle).
import { emitLLVM } from '../../compiler/src/backend/llvm.ts';
import { optimise, runPasses } from '../../compiler/src/driver/passes.ts';
import { frontEnd } from '../../compiler/src/driver/pipeline.ts';
import type { Continuation } from '../../compiler/src/ir/defs.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { interpret, type Value } from '../../compiler/src/interp/index.ts';
import type { PeOptions } from '../../compiler/src/pe/index.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';

export interface Run {
  result: Value;
  stdout: string;
}

export class Program {
  readonly world: World;
  readonly sink = new DiagnosticSink();
  readonly trace: string[] = [];
  private readonly exported = new Map<string, Continuation>();

  constructor(source: string) {
    const front = frontEnd([{ path: 'test.impala', text: source }], this.sink);
    if (!front) throw new Error(`front end: ${this.messages()}`);
    this.world = front.world;
    for (const c of front.emitted.exports) this.exported.set(c.name, c);
  }

  /** Runs the pass list's evaluator; returns whether it finished within its budget. */
  evaluate(opts: Omit<Partial<PeOptions>, 'sink'> = {}): boolean {
    const pe = { trace: (l: string) => this.trace.push(l), ...opts };
    return runPasses(this.world, { sink: this.sink, pe }, { through: 'pe' });
  }

  /** The rest of the pass list, then the backend. */
  llvm(): string {
    optimise(this.world, { sink: this.sink });
    if (this.sink.hasErrors) throw new Error(`optimisation: ${this.messages()}`);
    return emitLLVM(this.world, { moduleName: 'test' });
  }

  run(name: string, args: readonly Value[] = []): Run {
    const entry = this.exported.get(name);
    if (!entry) throw new Error(`no exported function ${name}`);
    const r = interpret(this.world, entry, args);
    return { result: r.result, stdout: r.stdout };
  }

  /** `run` on each argument list. */
  runAll(name: string, argLists: readonly (readonly Value[])[]): Run[] {
    return argLists.map((args) => this.run(name, args));
  }

  messages(): string {
    return this.sink.list.map((d) => d.message).join('\n');
  }
}

/** The text of the LLVM function `name`. */
export function llvmFunction(llvm: string, name: string): string {
  const start = llvm.search(new RegExp(`^define [^@]*@${name}\\(`, 'm'));
  if (start < 0) throw new Error(`no function @${name} in\n${llvm}`);
  return llvm.slice(start, llvm.indexOf('\n}', start) + 2);
}

/** How often `pattern` occurs in `text`. */
export function count(text: string, pattern: RegExp): number {
  return [...text.matchAll(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))].length;
}
