// Timing kernels the way the paper's Fig. 6 reports them: median throughput over N runs.

export interface Timing {
  runs: number;
  medianMs: number;
  /** Gigapixels per second at the median time. */
  gpixels: number;
}

export function median(xs: readonly number[] | Float64Array): number {
  if (xs.length === 0) throw new Error('the median of no times');
  const s = Float64Array.from(xs).sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function checkRuns(runs: number): void {
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`the number of benchmark runs must be a positive integer, not ${runs}`);
}

/** Calls `once` once to warm up, then `runs` times, handing each time in ms to `sample`. */
async function timeLoop(runs: number, once: () => unknown, sample: (ms: number, index: number) => void, onProgress?: (done: number) => void): Promise<void> {
  checkRuns(runs);
  // Awaiting is what lets the asynchronous references (sharp) share this loop; a kernel
  // returns no promise, and awaiting a plain value costs a microtask, nothing next to a run.
  await once();
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await once();
    sample(Number(process.hrtime.bigint() - start) / 1e6, i);
    onProgress?.(i + 1);
  }
}

/** The times in ms of `runs` calls of `once` after one warm-up, every one (the references add them up channel by channel). */
export async function timeEach(runs: number, once: () => unknown, onProgress?: (done: number) => void): Promise<number[]> {
  const times: number[] = [];
  await timeLoop(runs, once, (ms) => times.push(ms), onProgress);
  return times;
}

/**
 * The times a median is taken of: all of them up to this many, beyond that a uniform
 * random sample of this size (reservoir sampling), so a long benchmark keeps a fixed
 * amount of memory and its median stays within sampling error of the exact one.
 */
export const MEDIAN_SAMPLE = 1001;

/** Runs `once` (after one warm-up) `runs` times and gives the median; `onProgress` hears after each run. */
export async function timeRuns(pixels: number, runs: number, once: () => unknown, onProgress?: (done: number) => void): Promise<Timing> {
  checkRuns(runs);
  const kept = new Float64Array(Math.min(runs, MEDIAN_SAMPLE));
  await timeLoop(
    runs,
    once,
    (ms, i) => {
      if (i < kept.length) kept[i] = ms;
      else {
        // Algorithm R: run i replaces a kept time with probability kept.length / (i + 1).
        const j = Math.floor(Math.random() * (i + 1));
        if (j < kept.length) kept[j] = ms;
      }
    },
    onProgress,
  );
  const medianMs = median(kept);
  return { runs, medianMs, gpixels: pixels / (medianMs * 1e6) };
}
