// Wall-clock time per compiler stage, for `impala --time-passes` and compile()'s
// `timePasses`: where a cold compile spends its time (front end, each pass of the
// pass list, LLVM text, clang), so compile latency can be tracked stage by stage.

export interface StageTime {
  /** The stage as the pass list and the driver name it ('parse', 'pe', 'cleanup', 'llvm-text', 'clang', …); a repeated stage appears once per run. */
  stage: string;
  ms: number;
}

/** Collects stage times in the order the stages ran. */
export class StageTimer {
  readonly entries: StageTime[] = [];

  time<T>(stage: string, work: () => T): T {
    const start = performance.now();
    try {
      return work();
    } finally {
      this.entries.push({ stage, ms: performance.now() - start });
    }
  }

  async timeAsync<T>(stage: string, work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.entries.push({ stage, ms: performance.now() - start });
    }
  }
}

/** Runs `work` timed as `stage` when there is a timer, untimed otherwise. */
export function timed<T>(timer: StageTimer | undefined, stage: string, work: () => T): T {
  return timer ? timer.time(stage, work) : work();
}

/** The table `--time-passes` prints: one row per stage in order (ms and share of the total), then the total. */
export function formatTimings(entries: readonly StageTime[], title = 'time per stage'): string {
  const total = entries.reduce((sum, e) => sum + e.ms, 0);
  const width = Math.max('total'.length, ...entries.map((e) => e.stage.length));
  const row = (stage: string, ms: number, share: string) => `  ${stage.padEnd(width)}  ${ms.toFixed(1).padStart(9)}  ${share.padStart(6)}`;
  const lines = [`${title}:`, `  ${'stage'.padEnd(width)}  ${'ms'.padStart(9)}  ${'share'.padStart(6)}`];
  for (const e of entries) lines.push(row(e.stage, e.ms, total > 0 ? `${((100 * e.ms) / total).toFixed(1)}%` : '-'));
  lines.push(row('total', total, total > 0 ? '100.0%' : '-'));
  return `${lines.join('\n')}\n`;
}
