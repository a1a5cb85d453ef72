// Timing kernels the way the paper's Fig. 6 reports them: median throughput over N runs.

export interface Timing {
  runs: number;
  medianMs: number;
  /** Gigapixels per second at the median time. */
  gpixels: number;
}

/** Runs `once` (after one warm-up) `runs` times; `onProgress` hears after each run. */
export function timeRuns(pixels: number, runs: number, once: () => void, onProgress?: (done: number) => void): Timing {
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`the number of benchmark runs must be a positive integer, not ${runs}`);
  once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    once();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    onProgress?.(i + 1);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const medianMs = times.length % 2 ? times[mid]! : (times[mid - 1]! + times[mid]!) / 2;
  return { runs, medianMs, gpixels: pixels / (medianMs * 1e6) };
}
