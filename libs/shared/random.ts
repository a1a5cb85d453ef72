// The project's one pseudo-random generator: procedural scenes, random boards, benchmark
// inputs and the tests' generated data all come from it, so a seed names the same data on
// every platform and every failure reproduces.

/**
 * xorshift32 (Marsaglia) as numbers in [0, 1); multiplying a value by 2^32 gives the 32-bit
 * state exactly, for callers that want integers. A seed of 0 (which xorshift cannot leave) is 1.
 */
export function xorshift32(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** xorshift32 from a scrambled seed, so that small seeds (1, 2, 3, …) start far apart. */
export function seededRandom(seed: number): () => number {
  return xorshift32(seed ^ 0x9e3779b9);
}
