// The tests' one pseudo-random generator: deterministic, so every failure reproduces.

/** xorshift32 in [0, 1); multiplying by 2^32 gives the 32-bit state exactly. */
export function random(seed: number): () => number {
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
