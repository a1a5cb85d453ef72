// Runs Impala source through the stages around the partial evaluator, so tests
// can look at the world before and after it, its trace, the final LLVM IR, and
// run exported functions in the IR interpreter (the oracle).
import { preludeSources } from '../../compiler/src/driver/pipeline.ts';
import { emitProgram } from '../../compiler/src/emit/index.ts';
import type { Continuation } from '../../compiler/src/ir/defs.ts';
import { World } from '../../compiler/src/ir/world.ts';
import { interpret, type Value } from '../../compiler/src/interp/index.ts';
import { emitLLVM } from '../../compiler/src/backend/llvm.ts';
import { partialEvaluate, type PeOptions } from '../../compiler/src/pe/index.ts';
import { checkProgram } from '../../compiler/src/sema/check.ts';
import { DiagnosticSink } from '../../compiler/src/syntax/diagnostics.ts';
import { parseModule } from '../../compiler/src/syntax/parser.ts';
import { optimise } from '../../compiler/src/transform/pipeline.ts';

export class Program {
  readonly world = new World();
  readonly sink = new DiagnosticSink();
  readonly trace: string[] = [];
  private readonly exported = new Map<string, Continuation>();

  constructor(source: string) {
    const modules = [...preludeSources(), { path: 'test.impala', text: source }].map((s) => parseModule(s, this.sink));
    const checked = checkProgram(modules, this.sink);
    this.assertNoErrors('front end');
    const emitted = emitProgram(checked, this.world, this.sink);
    this.assertNoErrors('emission');
    for (const c of emitted.exports) this.exported.set(c.name, c);
  }

  /** Runs the evaluator; returns whether it finished within its budget. */
  evaluate(opts: Partial<PeOptions> = {}): boolean {
    return partialEvaluate(this.world, { sink: this.sink, trace: (l) => this.trace.push(l), ...opts });
  }

  /** The passes after the evaluator and the backend. */
  llvm(): string {
    optimise(this.world, { sink: this.sink });
    this.assertNoErrors('optimisation');
    return emitLLVM(this.world, { moduleName: 'test' });
  }

  run(name: string, args: readonly Value[]): Value {
    const entry = this.exported.get(name);
    if (!entry) throw new Error(`no exported function ${name}`);
    return interpret(this.world, entry, args).result;
  }

  private assertNoErrors(stage: string): void {
    if (this.sink.hasErrors) throw new Error(`${stage}: ${this.sink.list.map((d) => d.message).join('\n')}`);
  }
}

/** The body of the LLVM function `name`. */
export function llvmFunction(llvm: string, name: string): string {
  const start = llvm.search(new RegExp(`^define [^@]*@${name}\\(`, 'm'));
  if (start < 0) throw new Error(`no function @${name} in\n${llvm}`);
  return llvm.slice(start, llvm.indexOf('\n}', start) + 2);
}
