// Timing kernels the way the paper's Fig. 6 reports them: median throughput over N runs.

export interface Timing {
  runs: number;
  medianMs: number;
  /** Gigapixels per second at the median time. */
  gpixels: number;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('the median of no times');
  const s = [...xs].sort((p, q) => p - q);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The times in ms of `runs` calls of `once` after one warm-up; `onProgress` hears after each run. */
export async function timeEach(runs: number, once: () => unknown, onProgress?: (done: number) => void): Promise<number[]> {
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`the number of benchmark runs must be a positive integer, not ${runs}`);
  // Awaiting is what lets the asynchronous references (sharp) share this loop; a kernel
  // returns no promise, and awaiting a plain value costs a microtask, nothing next to a run.
  await once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await once();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    onProgress?.(i + 1);
  }
  return times;
}

export function timing(pixels: number, times: readonly number[]): Timing {
  const medianMs = median(times);
  return { runs: times.length, medianMs, gpixels: pixels / (medianMs * 1e6) };
}

/** Runs `once` (after one warm-up) `runs` times; `onProgress` hears after each run. */
export async function timeRuns(pixels: number, runs: number, once: () => unknown, onProgress?: (done: number) => void): Promise<Timing> {
  return timing(pixels, await timeEach(runs, once, onProgress));
}
