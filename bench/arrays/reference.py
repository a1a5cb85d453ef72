"""NumPy references for bench/arrays and the apps' --compare, with the command line and files
of reference.c: Game of Life on a torus (np.roll), PDE1 (red-black relaxation of the 3-D
Poisson equation on strided slices) and the 2-D V-cycle (whole-array slicing, ghosts by
padding), as defined in libs/arrays/README.md and libs/multigrid/README.md.

  python3 reference.py life   RUNS IN OUT width height steps
  python3 reference.py pde1   RUNS IN OUT n iterations
  python3 reference.py vcycle RUNS IN OUT n levels cycles ssteps merge(ignored) first(0|1)
"""
import sys
import time

import numpy as np

OMEGA = 0.8


def life(runs, inp, out, w, h, steps):
    board = np.fromfile(inp, dtype=np.uint8).reshape(h, w)
    for _ in range(runs):
        a = board.copy()
        t = time.perf_counter()
        for _ in range(steps):
            n = sum(np.roll(np.roll(a, dy, 0), dx, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
            a = ((n == 3) | ((n == 2) & (a == 1))).astype(np.uint8)
        print(f"{(time.perf_counter() - t) * 1e3:.6f}")
    a.tofile(out)


def pde1(runs, inp, out, n, iterations):
    data = np.fromfile(inp, dtype=np.float64)
    u0, f = data[: n**3].reshape(n, n, n), data[n**3 :].reshape(n, n, n)
    h = 1.0 / (n - 1)
    h2 = h * h
    # The interior points of one colour as eight strided slices (parities of i, j, k).
    def colour_slices(colour):
        for pi in (0, 1):
            for pj in (0, 1):
                for pk in (0, 1):
                    if (pi + pj + pk) % 2 == colour:
                        yield pi, pj, pk

    def sl(p, shift):
        # Interior indices i ≡ p (mod 2), 1 ≤ i ≤ n − 2, shifted by `shift`.
        first = 1 + ((p - 1) % 2)
        return slice(first + shift, n - 1 + shift, 2)

    for _ in range(runs):
        u = u0.copy()
        t = time.perf_counter()
        for _ in range(iterations):
            for colour in (0, 1):
                for pi, pj, pk in colour_slices(colour):
                    c = (sl(pi, 0), sl(pj, 0), sl(pk, 0))
                    s = u[sl(pi, -1), c[1], c[2]] + u[sl(pi, 1), c[1], c[2]]
                    s = s + (u[c[0], sl(pj, -1), c[2]] + u[c[0], sl(pj, 1), c[2]])
                    s = s + (u[c[0], c[1], sl(pk, -1)] + u[c[0], c[1], sl(pk, 1)])
                    u[c] = (s + h2 * f[c]) * (1.0 / 6.0)
        print(f"{(time.perf_counter() - t) * 1e3:.6f}")
    u.tofile(out)


def ghosted(u):
    """u with one ghost cell around it: the edge cells mirrored with the opposite sign (corners twice)."""
    p = np.pad(u, 1, mode="symmetric")
    p[0, :] *= -1
    p[-1, :] *= -1
    p[:, 0] *= -1
    p[:, -1] *= -1
    return p


def neighbours(p):
    return ((p[1:-1, :-2] + p[1:-1, 2:]) + p[:-2, 1:-1]) + p[2:, 1:-1]


def jacobi(u, f, h2):
    return (1.0 - OMEGA) * u + (OMEGA * 0.25) * (h2 * f + neighbours(ghosted(u)))


def residual(u, f, h2):
    return f - (4.0 * u - neighbours(ghosted(u))) / h2


def restrict(r):
    return 0.25 * ((r[0::2, 0::2] + r[0::2, 1::2]) + (r[1::2, 0::2] + r[1::2, 1::2]))


def interpolate(e, n):
    p = ghosted(e)
    c = p[1:-1, 1:-1]
    out = np.empty((n, n))
    for py in (0, 1):
        for px in (0, 1):
            dy, dx = (1 if py else -1), (1 if px else -1)
            side_x = p[1:-1, 1 + dx : p.shape[1] - 1 + dx]
            side_y = p[1 + dy : p.shape[0] - 1 + dy, 1:-1]
            diag = p[1 + dy : p.shape[0] - 1 + dy, 1 + dx : p.shape[1] - 1 + dx]
            out[py::2, px::2] = (9.0 * c + 3.0 * (side_x + side_y) + diag) * (1.0 / 16.0)
    return out


def cycle(u, f, lvl, levels, ssteps, descend=True):
    n = u.shape[0]
    h2 = 1.0 / (n * n)
    for _ in range(ssteps):
        u = jacobi(u, f, h2)
    if lvl == levels - 1:
        return u
    fc = restrict(residual(u, f, h2))
    e = np.zeros_like(fc)
    if descend:
        e = cycle(e, fc, lvl + 1, levels, ssteps)
    u = u + interpolate(e, n)
    for _ in range(ssteps):
        u = jacobi(u, f, h2)
    return u


def norm(u, f):
    n = u.shape[0]
    r = residual(u, f, 1.0 / (n * n))
    return np.sqrt(np.sum(r * r) / (n * n))


def vcycle(runs, inp, out, n, levels, cycles, ssteps, _merge, first):
    f = np.fromfile(inp, dtype=np.float64).reshape(n, n)
    norms = []
    for _ in range(runs):
        u = np.zeros((n, n))
        if first:
            t = time.perf_counter()
            u = cycle(u, f, 0, max(levels, 2), ssteps, descend=False)
            print(f"{(time.perf_counter() - t) * 1e3:.6f}")
        else:
            spent = 0.0
            norms = [norm(u, f)]
            for _ in range(cycles):
                t = time.perf_counter()
                u = cycle(u, f, 0, levels, ssteps)
                spent += time.perf_counter() - t
                norms.append(norm(u, f))
            print(f"{spent * 1e3:.6f}")
    with open(out, "wb") as o:
        u.tofile(o)
        if not first:
            np.array(norms, dtype=np.float64).tofile(o)


def main(argv):
    what, runs, inp, out, *args = argv
    runs = int(runs)
    args = [int(a) for a in args]
    {"life": life, "pde1": pde1, "vcycle": vcycle}[what](runs, inp, out, *args)


if __name__ == "__main__":
    main(sys.argv[1:])
