// From a failing batch to a small reproducer: re-run the cases one at a time and
// take the smallest that fails on its own; when none does (the failure needs
// several cases in one module, e.g. sharing a specialisation), drop cases from
// the batch while it keeps failing. Then shrink the cases left greedily with
// `reductions` while the failure keeps its kind. Shrinking fast-check style over
// a whole batch would cost a native build per step, so this works on the few
// cases left and skips the native stage when the failure shows before it.
import { type Case, reductions, weight } from './ast.ts';
import { batchSource, checkCases, type Failure } from './stages.ts';

export interface Reproducer {
  /** The case numbers left in the reproducer. */
  ids: number[];
  source: string;
  failure: Failure;
  /** Cases of the batch that fail on their own. */
  failingAlone: number[];
  steps: number;
}

const needsNative = (kind: string): boolean => kind === 'differs:native' || kind === 'crash:native build';

interface Sample {
  cases: Case[];
  ids: number[];
}

/** The failure of `s` if it has kind `kind`. */
async function failsLike(s: Sample, kind: string): Promise<Failure | null> {
  const f = await checkCases(s.cases, s.ids, needsNative(kind));
  return f && f.kind === kind ? f : null;
}

/** Drops chunks of cases (halves first, then smaller) while the failure remains. */
async function fewerCases(s: Sample, failure: Failure, deadline: number): Promise<{ sample: Sample; failure: Failure }> {
  let current = s;
  let currentFailure = failure;
  for (let chunk = current.cases.length >> 1; chunk >= 1 && Date.now() < deadline; ) {
    let dropped = false;
    for (let at = 0; at < current.cases.length && current.cases.length > 1 && Date.now() < deadline; at += chunk) {
      const keep = (_: unknown, i: number): boolean => i < at || i >= at + chunk;
      const candidate = { cases: current.cases.filter(keep), ids: current.ids.filter(keep) };
      if (!candidate.cases.length) continue;
      const f = await failsLike(candidate, currentFailure.kind);
      if (f) {
        current = candidate;
        currentFailure = f;
        dropped = true;
        at -= chunk;
      }
    }
    if (!dropped) chunk >>= 1;
  }
  return { sample: current, failure: currentFailure };
}

/**
 * A small program that fails like the batch did, shrunk within `budgetMs`.
 * Null when the failure does not come back on a re-run.
 */
export async function reproduce(cases: readonly Case[], failure: Failure, budgetMs: number): Promise<Reproducer | null> {
  const deadline = Date.now() + budgetMs;
  const failing: { id: number; failure: Failure }[] = [];
  for (let id = 0; id < cases.length; id++) {
    const f = await checkCases([cases[id]!], [id], needsNative(failure.kind));
    if (f && f.kind !== 'rejected') failing.push({ id, failure: f });
  }
  let sample: Sample;
  let current: Failure;
  if (failing.length) {
    // The batch's own kind of failure first, so the reproducer explains what was reported.
    const sameKind = failing.filter((f) => f.failure.kind === failure.kind);
    const pool = sameKind.length ? sameKind : failing;
    const start = pool.reduce((a, b) => (weight(cases[b.id]!) < weight(cases[a.id]!) ? b : a));
    sample = { cases: [cases[start.id]!], ids: [start.id] };
    current = start.failure;
  } else {
    const all = { cases: [...cases], ids: cases.map((_, i) => i) };
    const again = await failsLike(all, failure.kind);
    if (!again) return null;
    ({ sample, failure: current } = await fewerCases(all, again, deadline));
  }
  let steps = 0;
  let progress = true;
  while (progress && Date.now() < deadline) {
    progress = false;
    for (let k = 0; k < sample.cases.length && !progress; k++) {
      for (const smaller of reductions(sample.cases[k]!)) {
        if (Date.now() >= deadline) break;
        const candidate = { cases: sample.cases.map((c, i) => (i === k ? smaller : c)), ids: sample.ids };
        const f = await failsLike(candidate, current.kind);
        if (f) {
          sample = candidate;
          current = f;
          steps++;
          progress = true;
          break;
        }
      }
    }
  }
  return {
    ids: sample.ids,
    source: batchSource(sample.cases, sample.ids),
    failure: current,
    failingAlone: failing.map((f) => f.id),
    steps,
  };
}
