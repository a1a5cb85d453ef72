// From a failing batch to a small reproducer: re-run the cases one at a time,
// take the shortest that fails on its own, and shrink it greedily with
// `reductions` while it keeps failing the same way. Shrinking fast-check style
// over a whole batch would cost a native build per step, so this works on
// single cases and skips the native stage when the failure shows before it.
import { type Case, reductions, weight } from './ast.ts';
import { batchSource, checkCases, type Failure } from './stages.ts';

export interface Reproducer {
  id: number;
  source: string;
  failure: Failure;
  /** Cases of the batch that fail on their own. */
  failingAlone: number[];
  steps: number;
}

const needsNative = (f: Failure): boolean => f.kind === 'differs:native' || f.kind === 'crash:native build';

/** Whether `c` alone still fails with a failure of `kind`. */
async function failsLike(c: Case, id: number, kind: string): Promise<Failure | null> {
  const f = await checkCases([c], [id], kind === 'differs:native' || kind === 'crash:native build');
  return f && f.kind === kind ? f : null;
}

/**
 * The smallest failing case of a batch that failed with `failure`, shrunk within
 * `budgetMs`. Null when no case fails alone (the failure needs several cases in one module).
 */
export async function reproduce(cases: readonly Case[], failure: Failure, budgetMs: number): Promise<Reproducer | null> {
  const failing: { id: number; failure: Failure }[] = [];
  for (let id = 0; id < cases.length; id++) {
    const f = await checkCases([cases[id]!], [id], needsNative(failure));
    if (f && f.kind !== 'rejected') failing.push({ id, failure: f });
  }
  if (!failing.length) return null;
  const size = (id: number): number => weight(cases[id]!);
  // The failure of the batch first, so the reproducer explains the failure that was reported.
  const sameKind = failing.filter((f) => f.failure.kind === failure.kind);
  const pool = sameKind.length ? sameKind : failing;
  const start = pool.reduce((a, b) => (size(b.id) < size(a.id) ? b : a));
  let current = cases[start.id]!;
  let currentFailure = start.failure;
  const deadline = Date.now() + budgetMs;
  let steps = 0;
  let progress = true;
  while (progress && Date.now() < deadline) {
    progress = false;
    for (const candidate of reductions(current)) {
      if (Date.now() >= deadline) break;
      const f = await failsLike(candidate, start.id, currentFailure.kind);
      if (f) {
        current = candidate;
        currentFailure = f;
        steps++;
        progress = true;
        break;
      }
    }
  }
  return {
    id: start.id,
    source: batchSource([current], [start.id]),
    failure: currentFailure,
    failingAlone: failing.map((f) => f.id),
    steps,
  };
}
