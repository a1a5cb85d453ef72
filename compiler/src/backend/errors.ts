// The backend only sees IR that transform/ promised to be in control-flow form.
// When that promise is broken we stop with an internal error that names the
// continuation and the offending shape, rather than emit LLVM that clang rejects
// (or, worse, accepts with a different meaning).
import type { Continuation, Def } from '../ir/defs.ts';

export class BackendError extends Error {
  constructor(message: string) {
    super(`internal error (backend): ${message}`);
    this.name = 'BackendError';
  }
}

/** Throws a BackendError about `what`, in the function `fn` (when known). */
export function fail(fn: Continuation | null, what: string): never {
  throw new BackendError(fn ? `in '${describe(fn)}': ${what}` : what);
}

/** A readable name for a node in error messages: label plus type, plus a source line when known. */
export function describe(d: Def): string {
  const at = d.span && d.span.line > 0 ? ` at ${d.span.file}:${d.span.line}` : '';
  return `${d.label}: ${d.type}${at}`;
}
