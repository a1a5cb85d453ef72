// Runs a batch of generated cases through every stage of the compiler and checks
// that they agree (docs/architecture.md, "Where things go": the interpreter is the oracle):
//   emitted   the World right after emission, interpreted;
//   pe        after the pass list's partial evaluator (observed through its hook), interpreted;
//   optimised after the whole pass list (driver/passes.ts), interpreted;
//   native    the LLVM IR of that same World, built with the driver's toolchain, run.
// A batch is one Impala module: each case is `fn cK_case(…) -> i32` plus an
// exported `extern fn cK_entry(…)`. `main` calls every case with the first input
// set as constants (which the evaluator folds), again with every other argument
// dynamic (read from an array at an index that depends on argc), and then,
// through the export, once per input set in a loop whose bounds depend on argc.
// The interpreter also calls each export directly with each input set; what a
// call prints followed by its result and a newline is the call's transcript, and
// main's output must be exactly `#K\n`, the transcript of input 0 twice, then
// the transcripts of all inputs, for every case.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { emitLLVM } from '../../compiler/src/backend/llvm.ts';
import { runPasses } from '../../compiler/src/driver/passes.ts';
import { frontEnd, preludeSources } from '../../compiler/src/driver/pipeline.ts';
import { buildRuntime } from '../../compiler/src/driver/runtime-build.ts';
import { llvmToExecutable } from '../../compiler/src/driver/toolchain.ts';
import { InterpError, interpret, mainArguments } from '../../compiler/src/interp/index.ts';
import type { Continuation } from '../../compiler/src/ir/defs.ts';
import { verify } from '../../compiler/src/ir/verify.ts';
import type { World } from '../../compiler/src/ir/world.ts';
import { DiagnosticSink, renderDiagnostics } from '../../compiler/src/syntax/diagnostics.ts';
import { type Case, printCase } from './ast.ts';
import { SHARED_ITEMS } from './generate.ts';

export type Stage = 'emitted' | 'pe' | 'optimised' | 'native';

/** Why a program failed, with `kind` naming the stage and the sort of failure (reductions keep the kind). */
export interface Failure {
  kind: string;
  detail: string;
}

const prefix = (k: number): string => `c${k}_`;

/** The batch as one Impala module; `ids` are the case numbers (kept when a case is re-run alone). */
export function batchSource(cases: readonly Case[], ids: readonly number[] = cases.map((_, i) => i)): string {
  const main: string[] = ['fn main(argc: i32, argv: &[&[u8]]) -> i32 {', '    let d = argc - 1;'];
  cases.forEach((c, i) => {
    const p = prefix(ids[i]!);
    const n = c.inputs.length;
    main.push(`    print_char('#'); print_i32(${ids[i]}); print_char('\\n');`);
    main.push(`    print_i32(${p}case(${c.inputs[0]!.map((l) => l.text).join(', ')})); print_char('\\n');`);
    c.params.forEach((_, k) => main.push(`    let ${p}in${k} = [${c.inputs.map((set) => set[k]!.text).join(', ')}];`));
    // Input set 0 again, every other argument dynamic: the evaluator specialises on the constant ones only.
    const mixed = c.inputs[0]!.map((l, k) => (k % 2 ? `${p}in${k}(d)` : l.text)).join(', ');
    main.push(`    print_i32(${p}case(${mixed})); print_char('\\n');`);
    const args = c.params.map((_, k) => `${p}in${k}(${p}j - d)`).join(', ');
    main.push(`    for ${p}j in range(d, d + ${n}) { print_i32(${p}entry(${args})); print_char('\\n'); }`);
  });
  main.push('    0', '}');
  return [SHARED_ITEMS.trim(), ...cases.map((c, i) => printCase(c, prefix(ids[i]!))), main.join('\n'), ''].join('\n\n');
}

/** The IR problems `verify` reports, without its notes about garbage. */
function verifyErrors(world: World): string[] {
  return verify(world).filter((l) => !l.startsWith('note:'));
}

interface Observation {
  main: string;
  /** Per case, the transcripts of its export on each input set. */
  calls: string[][];
}

/**
 * How a run ends that stopped on a zero divisor, written alike for the interpreter and
 * native code (whose runtime says `integer division by zero` and aborts; docs/language.md).
 */
const DIVISION_BY_ZERO = '<division by zero>';

function run(world: World, entry: Continuation, args: Parameters<typeof interpret>[2]): { stdout: string; result: string } {
  try {
    const r = interpret(world, entry, args);
    return { stdout: r.stdout, result: String(r.result) };
  } catch (e) {
    if (e instanceof InterpError) {
      return { stdout: e.stdout, result: e.message.startsWith('integer division by zero') ? DIVISION_BY_ZERO : `<interpreter error: ${e.message}>` };
    }
    throw e;
  }
}

/** What `main` prints, run like the executable (argv = ['prog']), a non-zero exit status written as the native run writes it. */
function mainOutput(world: World, main: Continuation): string {
  const r = run(world, main, mainArguments(main, ['prog']));
  if (r.result === '0') return r.stdout;
  return r.stdout + (/^-?\d+$/.test(r.result) ? `<exit ${BigInt.asUintN(8, BigInt(r.result))}>` : r.result);
}

function observe(world: World, cases: readonly Case[], ids: readonly number[]): Observation {
  const byName = new Map<string, Continuation>();
  for (const c of world.continuations) if (c.external && c.hasBody) byName.set(c.name, c);
  const main = byName.get('main');
  if (!main) throw new Error('main is gone from the World');
  const calls = cases.map((c, i) => {
    const name = `${prefix(ids[i]!)}entry`;
    const entry = byName.get(name);
    if (!entry) throw new Error(`the export ${name} is gone from the World`);
    return c.inputs.map((set) => {
      const r = run(world, entry, set.map((l) => l.value));
      return `${r.stdout}${r.result}\n`;
    });
  });
  return { main: mainOutput(world, main), calls };
}

/** What main must print given the transcripts of the exports: all of them, or up to the first call that divides by zero, where main stops. */
function expectedMain(calls: readonly string[][], ids: readonly number[]): string {
  const all = calls.map((t, i) => `#${ids[i]}\n${t[0]}${t[0]}${t.join('')}`).join('');
  const stop = all.indexOf(`${DIVISION_BY_ZERO}\n`);
  return stop < 0 ? all : all.slice(0, stop + DIVISION_BY_ZERO.length);
}

/** The first line where `a` and `b` differ, with what each stage printed there. */
export function firstDifference(a: string, b: string, aName: string, bName: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  let i = 0;
  while (i < la.length && i < lb.length && la[i] === lb[i]) i++;
  const context = la.slice(0, i).reverse().find((l) => l.startsWith('#')) ?? '';
  const show = (ls: string[]): string => JSON.stringify(ls.slice(i, i + 3).join('\n'));
  return `first difference at output line ${i + 1} (in case ${context || '?'}):\n  ${aName}: ${show(la)}\n  ${bName}: ${show(lb)}`;
}

/** The interpreted stages; on success also the LLVM IR of the final World and main's expected output. */
export type InterpOutcome = { failure: Failure } | { failure: null; llvm: string; expected: string };

/** Front end, evaluator and transforms, with the interpreter after each; synchronous. */
export function interpretStages(source: string, cases: readonly Case[], ids: readonly number[]): InterpOutcome {
  const sources = [{ path: 'generated.impala', text: source }];
  const sink = new DiagnosticSink();
  const fail = (kind: string, detail: string): InterpOutcome => ({ failure: { kind, detail } });
  const crashed = (stage: string, e: unknown): InterpOutcome =>
    fail(`crash:${stage}`, e instanceof Error ? (e.stack ?? e.message) : String(e));
  let front;
  try {
    front = frontEnd(sources, sink);
  } catch (e) {
    return crashed('front end', e);
  }
  if (!front) return fail('rejected', renderDiagnostics(sink.list, [...preludeSources(), ...sources]));
  const { world } = front;
  const checkIR = (stage: Stage): InterpOutcome | null => {
    let problems: string[];
    try {
      problems = verifyErrors(world);
    } catch (e) {
      return crashed(`verify ${stage}`, e);
    }
    return problems.length ? fail(`verify:${stage}`, problems.slice(0, 20).join('\n')) : null;
  };
  const bad = checkIR('emitted');
  if (bad) return bad;

  let reference: Observation;
  try {
    reference = observe(world, cases, ids);
  } catch (e) {
    return crashed('emitted', e);
  }
  const expected = expectedMain(reference.calls, ids);
  if (reference.main !== expected) {
    return fail('differs:emitted-main', `main disagrees with the exports called directly (emitted World)\n${firstDifference(reference.main, expected, 'main', 'exports')}`);
  }
  const compare = (stage: Stage, seen: Observation): InterpOutcome | null => {
    if (seen.main !== expected) return fail(`differs:${stage}`, `${stage} disagrees with emitted\n${firstDifference(seen.main, expected, stage, 'emitted')}`);
    for (let i = 0; i < cases.length; i++) {
      for (let j = 0; j < seen.calls[i]!.length; j++) {
        if (seen.calls[i]![j] !== reference.calls[i]![j]) {
          return fail(
            `differs:${stage}-export`,
            `${stage} disagrees with emitted on ${prefix(ids[i]!)}entry(${cases[i]!.inputs[j]!.map((l) => l.text).join(', ')})\n` +
              `  ${stage}: ${JSON.stringify(seen.calls[i]![j])}\n  emitted: ${JSON.stringify(reference.calls[i]![j])}`,
          );
        }
      }
    }
    return null;
  };

  // The evaluator's result is checked through the pass list's hook; the passes after it count as 'optimise'.
  let running: 'pe' | 'optimise' = 'pe';
  let afterPe: InterpOutcome | null = null;
  const atPe = (): InterpOutcome | null => {
    const bad = checkIR('pe');
    if (bad) return bad;
    try {
      return compare('pe', observe(world, cases, ids));
    } catch (e) {
      return crashed('pe interpretation', e);
    }
  };
  let passed: boolean;
  try {
    passed = runPasses(world, {
      sink,
      observe: (pass) => {
        if (pass !== 'pe') return true;
        running = 'optimise';
        afterPe = atPe();
        return afterPe === null;
      },
    });
  } catch (e) {
    return crashed(running, e);
  }
  if (afterPe) return afterPe;
  if (!passed || sink.hasErrors) return fail(`error:${running}`, renderDiagnostics(sink.list, sources));
  const afterOpt = checkIR('optimised');
  if (afterOpt) return afterOpt;
  try {
    const d = compare('optimised', observe(world, cases, ids));
    if (d) return d;
  } catch (e) {
    return crashed('optimised interpretation', e);
  }

  try {
    return { failure: null, llvm: emitLLVM(world, { moduleName: 'generated' }), expected };
  } catch (e) {
    return crashed('backend', e);
  }
}

const RUN_TIMEOUT_MS = 20_000;

let scratch: string | null = null;
let built = 0;

function scratchDir(): string {
  scratch ??= fs.mkdtempSync(path.join(os.tmpdir(), 'impala-properties-'));
  return scratch;
}

/** Removes the executables' directory (call once, after the last native run). */
export function removeScratch(): void {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  scratch = null;
}

/** Builds the IR with the driver's toolchain (at -O1 unless told), runs it, and returns its output (an abnormal end appended as `<…>`). */
export async function runNative(llvm: string, optLevel: 0 | 1 | 2 | 3 = 1): Promise<string> {
  const exe = path.join(scratchDir(), `p${built++}`);
  await llvmToExecutable(llvm, exe, await buildRuntime(), { optLevel });
  const { stdout, status } = await new Promise<{ stdout: string; status: string }>((resolve) => {
    execFile(exe, [], { timeout: RUN_TIMEOUT_MS, maxBuffer: 64 << 20, encoding: 'buffer' }, (err, out, errOut) => {
      const e = err as (NodeJS.ErrnoException & { signal?: string; code?: number | string }) | null;
      const dividedByZero = e?.signal === 'SIGABRT' && Buffer.from(errOut).toString('latin1').includes('integer division by zero');
      const why = !e ? '' : dividedByZero ? DIVISION_BY_ZERO : e.signal ? `<killed by ${e.signal}>` : `<exit ${e.code}>`;
      // Generated programs print ASCII only, so bytes and the interpreter's text compare directly.
      resolve({ stdout: Buffer.from(out).toString('latin1'), status: why });
    });
  });
  fs.rmSync(exe, { force: true });
  return stdout + status;
}

/** The optimisation levels the native stage builds at: the least and the most LLVM does with the IR. */
export const NATIVE_OPT_LEVELS = [0, 3] as const;

/** The native stage of a batch: what the executable prints at each of NATIVE_OPT_LEVELS must be `expected`. */
export async function nativeStage(llvm: string, expected: string): Promise<Failure | null> {
  for (const level of NATIVE_OPT_LEVELS) {
    let seen: string;
    try {
      seen = await runNative(llvm, level);
    } catch (e) {
      return { kind: `crash:native -O${level} build`, detail: e instanceof Error ? e.message : String(e) };
    }
    const stage = `native -O${level}`;
    if (seen !== expected) return { kind: `differs:native-O${level}`, detail: `${stage} disagrees with emitted\n${firstDifference(seen, expected, stage, 'emitted')}` };
  }
  return null;
}

/**
 * What `main` of a hand-written program prints at every stage, failures of a
 * stage written as `<stage failed: …>` in place of its output (for regression tests).
 */
export async function mainAtEveryStage(source: string): Promise<Record<Stage, string>> {
  const sources = [{ path: 'regression.impala', text: source }];
  const sink = new DiagnosticSink();
  const failed = (e: unknown): string => `<stage failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}>`;
  const front = frontEnd(sources, sink);
  if (!front) throw new Error(renderDiagnostics(sink.list, sources));
  const { world } = front;
  const interpretMain = (): string => {
    const main = [...world.continuations].find((c) => c.external && c.hasBody && c.name === 'main');
    return main ? mainOutput(world, main) : '<stage failed: main is gone>';
  };
  const out: Record<Stage, string> = { emitted: interpretMain(), pe: '', optimised: '', native: '' };
  const step = (stage: Stage, pass: () => void): boolean => {
    try {
      pass();
      if (sink.hasErrors) throw new Error(renderDiagnostics(sink.list, sources));
      out[stage] = interpretMain();
      return true;
    } catch (e) {
      out[stage] = failed(e);
      return false;
    }
  };
  const ok =
    step('pe', () => void runPasses(world, { sink }, { through: 'pe' })) && step('optimised', () => void runPasses(world, { sink }, { after: 'pe' }));
  if (!ok) {
    out.optimised ||= '<stage failed: an earlier stage failed>';
    out.native = '<stage failed: an earlier stage failed>';
    return out;
  }
  let llvm: string;
  try {
    llvm = emitLLVM(world, { moduleName: 'regression' });
  } catch (e) {
    out.native = failed(e);
    return out;
  }
  try {
    out.native = await runNative(llvm);
  } catch (e) {
    out.native = failed(e);
  }
  return out;
}

/** All stages for a module of `cases`; `native: false` stops after the interpreted ones. */
export async function checkCases(cases: readonly Case[], ids: readonly number[], native = true): Promise<Failure | null> {
  const outcome = interpretStages(batchSource(cases, ids), cases, ids);
  if (outcome.failure) return outcome.failure;
  return native ? nativeStage(outcome.llvm, outcome.expected) : null;
}
