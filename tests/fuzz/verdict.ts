// What the fuzzer accepts from the compiler for any input: a build, or errors that each
// carry a location (rendered `file:line col c: error: …`), with bounded output. Anything
// else is a failure of the compiler: an internal compiler error, an exception escaping the
// driver, an error without a location, runaway output, invalid LLVM IR, a crash or a hang.
import type { BuildResult } from '../../compiler/src/driver/build.ts';

export type Verdict =
  | { kind: 'compiled' }
  | { kind: 'rejected' }
  | { kind: FailureKind; detail: string };

export type FailureKind = 'internal-error' | 'exception' | 'unlocated-error' | 'output-too-long' | 'invalid-llvm' | 'crash' | 'timeout';

/** More than this much diagnostic text for one file is runaway output (a cap on repeated errors is expected). */
export const MAX_REPORT_BYTES = 256 * 1024;

export function classify(result: BuildResult): Verdict {
  if (result.ok) return { kind: 'compiled' };
  const ice = result.diagnostics.find((d) => d.message.startsWith('internal compiler error'));
  if (ice) return { kind: 'internal-error', detail: ice.message.slice(0, 4000) };
  // The sink's closing `N more errors` count is the one error that has no place.
  const unlocated = result.diagnostics.find((d) => d.severity === 'error' && (!d.span || d.span.line === 0) && !/^\d+ more errors?$/.test(d.message));
  if (unlocated) return { kind: 'unlocated-error', detail: unlocated.message.slice(0, 4000) };
  if (result.rendered.length > MAX_REPORT_BYTES) {
    return { kind: 'output-too-long', detail: `${result.rendered.length} bytes of diagnostics (${result.diagnostics.length} diagnostics)` };
  }
  return { kind: 'rejected' };
}

export function isFailure(v: Verdict): v is { kind: FailureKind; detail: string } {
  return v.kind !== 'compiled' && v.kind !== 'rejected';
}

/** What makes two failures the same bug: the kind and the first line of the message with numbers and names blurred. */
export function signature(v: { kind: FailureKind; detail: string }): string {
  const first = v.detail.split('\n')[0] ?? '';
  return `${v.kind}: ${first.replace(/\d+/g, 'N').replace(/'[^']*'/g, "'…'").slice(0, 160)}`;
}
