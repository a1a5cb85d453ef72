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
async function timeLoop(runs: number, once: () => unknown, sample: (ms: number) => void, onProgress?: (done: number) => void): Promise<void> {
  checkRuns(runs);
  // Awaiting is what lets the asynchronous references (sharp) share this loop; a kernel
  // returns no promise, and awaiting a plain value costs a microtask, nothing next to a run.
  await once();
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await once();
    sample(Number(process.hrtime.bigint() - start) / 1e6);
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
 * The times in ms of each of `runners` over `rounds` rounds in which they take turns, one
 * run each, so that a burst of load from other processes, or the cache state one leaves,
 * falls on all of them alike rather than on one. Synchronous: kernels return no promise.
 */
export function timesInTurns(runners: readonly (() => unknown)[], rounds: number): number[][] {
  checkRuns(rounds);
  const samples = runners.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (const [i, run] of runners.entries()) {
      const t0 = performance.now();
      run();
      samples[i]!.push(performance.now() - t0);
    }
  }
  return samples;
}

/**
 * The times a median is taken of: all of them up to `limit`, beyond that a uniform random
 * sample of `limit` (reservoir sampling, Algorithm R), so a long benchmark keeps a fixed
 * amount of memory and its median stays within sampling error of the exact one.
 */
export class MedianSample {
  private readonly kept: Float64Array;
  private seen = 0;

  constructor(limit = 1001) {
    this.kept = new Float64Array(limit);
  }

  add(x: number): void {
    if (this.seen < this.kept.length) this.kept[this.seen] = x;
    else {
      // The (seen + 1)-th value replaces a kept one with probability limit / (seen + 1).
      const j = Math.floor(Math.random() * (this.seen + 1));
      if (j < this.kept.length) this.kept[j] = x;
    }
    this.seen++;
  }

  /** How many values are kept: never more than the limit. */
  get size(): number {
    return Math.min(this.seen, this.kept.length);
  }

  median(): number {
    return median(this.kept.subarray(0, this.size));
  }
}

/** Runs `once` (after one warm-up) `runs` times and gives the median; `onProgress` hears after each run. */
export async function timeRuns(pixels: number, runs: number, once: () => unknown, onProgress?: (done: number) => void): Promise<Timing> {
  const times = new MedianSample();
  await timeLoop(runs, once, (ms) => times.add(ms), onProgress);
  const medianMs = times.median();
  return { runs, medianMs, gpixels: pixels / (medianMs * 1e6) };
}
