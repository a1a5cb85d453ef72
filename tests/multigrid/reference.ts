// A scalar V-cycle in plain TypeScript, written from the definitions in
// libs/multigrid/README.md (not from the Impala): cell-centred n × n grids on the unit
// square, the zero Dirichlet condition by ghosts that mirror the edge cell negated, the
// five-point Laplacian, weighted Jacobi (ω = 0.8), the mean of four fine cells as restriction,
// bilinear interpolation, the coarsest level solved by `ssteps` sweeps.

const OMEGA = 0.8;

/** u(x, y) with the Dirichlet ghosts one cell past each edge. */
function at(u: Float64Array, n: number, x: number, y: number): number {
  let sign = 1;
  if (x < 0) [x, sign] = [-1 - x, -sign];
  else if (x >= n) [x, sign] = [2 * n - 1 - x, -sign];
  if (y < 0) [y, sign] = [-1 - y, -sign];
  else if (y >= n) [y, sign] = [2 * n - 1 - y, -sign];
  return sign * u[y * n + x]!;
}

const neighbours = (u: Float64Array, n: number, x: number, y: number): number => at(u, n, x - 1, y) + at(u, n, x + 1, y) + at(u, n, x, y - 1) + at(u, n, x, y + 1);

function jacobiSweeps(u: Float64Array, f: Float64Array, n: number, h2: number, sweeps: number): void {
  const next = new Float64Array(n * n);
  for (let s = 0; s < sweeps; s++) {
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) next[y * n + x] = (1 - OMEGA) * u[y * n + x]! + (OMEGA / 4) * (h2 * f[y * n + x]! + neighbours(u, n, x, y));
    }
    u.set(next);
  }
}

/** f − A·u. */
export function residual(u: Float64Array, f: Float64Array, n: number): Float64Array {
  const h2 = 1 / (n * n);
  const r = new Float64Array(n * n);
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) r[y * n + x] = f[y * n + x]! - (4 * u[y * n + x]! - neighbours(u, n, x, y)) / h2;
  return r;
}

/** sqrt(h² Σ r²). */
export function residualNorm(u: Float64Array, f: Float64Array, n: number): number {
  let sum = 0;
  for (const r of residual(u, f, n)) sum += r * r;
  return Math.sqrt(sum / (n * n));
}

function cycle(u: Float64Array, f: Float64Array, n: number, lvl: number, levels: number, ssteps: number): void {
  // Level lvl has n = N / 2^lvl cells of width 2^lvl / N = 1 / n.
  const h2 = 1 / (n * n);
  jacobiSweeps(u, f, n, h2, ssteps);
  if (lvl === levels - 1) return;
  const r = residual(u, f, n);
  const nc = n / 2;
  const fc = new Float64Array(nc * nc);
  for (let y = 0; y < nc; y++) {
    for (let x = 0; x < nc; x++) fc[y * nc + x] = (r[2 * y * n + 2 * x]! + r[2 * y * n + 2 * x + 1]! + r[(2 * y + 1) * n + 2 * x]! + r[(2 * y + 1) * n + 2 * x + 1]!) / 4;
  }
  const e = new Float64Array(nc * nc);
  cycle(e, fc, nc, lvl + 1, levels, ssteps);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const [cx, cy, dx, dy] = [x >> 1, y >> 1, x & 1 ? 1 : -1, y & 1 ? 1 : -1];
      u[y * n + x] += (9 * at(e, nc, cx, cy) + 3 * at(e, nc, cx + dx, cy) + 3 * at(e, nc, cx, cy + dy) + at(e, nc, cx + dx, cy + dy)) / 16;
    }
  }
  jacobiSweeps(u, f, n, h2, ssteps);
}

/** `vsteps` V-cycles on u in place. */
export function vcycleReference(u: Float64Array, f: Float64Array, n: number, levels: number, vsteps: number, ssteps: number): void {
  for (let i = 0; i < vsteps; i++) cycle(u, f, n, 0, levels, ssteps);
}
