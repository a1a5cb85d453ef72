// Hand-written C references for bench/arrays and the apps' --compare: Game of Life on a
// torus, PDE1 (red-black relaxation of the 3-D Poisson equation) and the 2-D V-cycle, as
// defined in libs/arrays/README.md and libs/multigrid/README.md. Parallel with OpenMP over
// rows (planes for PDE1); inner loops left to clang's vectoriser (-O3 -march=native).
//
//   reference life   RUNS IN OUT width height steps
//   reference pde1   RUNS IN OUT n iterations
//   reference vcycle RUNS IN OUT n levels cycles ssteps merge(0|1) first(0|1)
//
// IN holds the input (life: the u8 board; pde1: u then f, f64; vcycle: the right-hand side,
// f64), OUT gets the result of the last run (vcycle: the solution, then with first = 0 the
// residual norm before and after each cycle). Every run starts from the same input; the
// milliseconds of each run (input copies excluded) are printed one per line.
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double now_ms(void) { return omp_get_wtime() * 1e3; }

static void *read_file(const char *path, size_t bytes) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    void *p = malloc(bytes ? bytes : 1);
    if (fread(p, 1, bytes, f) != bytes) { fprintf(stderr, "%s: expected %zu bytes\n", path, bytes); exit(1); }
    fclose(f);
    return p;
}

static void write_file(const char *path, const void *p, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

// ------------------------------------------------------------ Game of Life (B3/S23, torus)

// One cell of B3/S23 from its neighbour count n (0..8) and its state c (0 or 1).
static inline uint8_t rule(uint8_t n, uint8_t c) { return (uint8_t)((n == 3) | ((n == 2) & c)); }

// One row of a generation from the rows above and below: the interior (x = 1 .. w - 2) a
// branch-free loop over u8 that clang vectorises 64 cells at a time, the two edge cells (the
// torus wraps there) apart. A function of its own so that `restrict` tells clang the rows do
// not overlap (OpenMP's outlined loop body would have lost it, and with it the vector loop).
static void life_row(const uint8_t *restrict up, const uint8_t *restrict mid, const uint8_t *restrict dn, uint8_t *restrict out, int w) {
    if (w < 3) {
        for (int x = 0; x < w; x++) {
            int l = x == 0 ? w - 1 : x - 1, r = x == w - 1 ? 0 : x + 1;
            out[x] = rule((uint8_t)(up[l] + up[x] + up[r] + mid[l] + mid[r] + dn[l] + dn[x] + dn[r]), mid[x]);
        }
        return;
    }
    for (int x = 1; x < w - 1; x++) {
        uint8_t n = (uint8_t)(up[x - 1] + up[x] + up[x + 1] + mid[x - 1] + mid[x + 1] + dn[x - 1] + dn[x] + dn[x + 1]);
        out[x] = rule(n, mid[x]);
    }
    out[0] = rule((uint8_t)(up[w - 1] + up[0] + up[1] + mid[w - 1] + mid[1] + dn[w - 1] + dn[0] + dn[1]), mid[0]);
    out[w - 1] = rule((uint8_t)(up[w - 2] + up[w - 1] + up[0] + mid[w - 2] + mid[0] + dn[w - 2] + dn[w - 1] + dn[0]), mid[w - 1]);
}

// One generation as an expert writes it: rows in parallel, each row vectorised (life_row).
static void life_step(const uint8_t *restrict a, uint8_t *restrict b, int w, int h) {
    #pragma omp parallel for schedule(static) if (w * h >= 65536)
    for (int y = 0; y < h; y++) {
        life_row(a + (size_t)((y + h - 1) % h) * w, a + (size_t)y * w, a + (size_t)((y + 1) % h) * w, b + (size_t)y * w, w);
    }
}

static void life(int runs, const char *in, const char *out, int w, int h, int steps) {
    size_t cells = (size_t)w * h;
    uint8_t *board = read_file(in, cells), *a = malloc(cells + 1), *b = malloc(cells + 1);
    for (int run = 0; run < runs; run++) {
        memcpy(a, board, cells);
        double t = now_ms();
        for (int s = 0; s < steps; s++) { life_step(a, b, w, h); uint8_t *t2 = a; a = b; b = t2; }
        printf("%.6f\n", now_ms() - t);
    }
    write_file(out, a, cells);
}

// ------------------------------------------------------------ PDE1 (red-black Gauss-Seidel, 3-D)

static void pde1_sweep(double *restrict u, const double *restrict f, int n, double h2, int colour) {
    #pragma omp parallel for schedule(static)
    for (int i = 1; i < n - 1; i++) {
        for (int j = 1; j < n - 1; j++) {
            size_t row = ((size_t)i * n + j) * n;
            for (int k = 1 + ((i + j + 1 + colour) & 1); k < n - 1; k += 2) {
                size_t p = row + k;
                double s = 0.0;
                s = s + (u[p - (size_t)n * n] + u[p + (size_t)n * n]);
                s = s + (u[p - n] + u[p + n]);
                s = s + (u[p - 1] + u[p + 1]);
                u[p] = (s + h2 * f[p]) * (1.0 / 6.0);
            }
        }
    }
}

static void pde1(int runs, const char *in, const char *out, int n, int iterations) {
    size_t cells = (size_t)n * n * n;
    double *input = read_file(in, 2 * cells * sizeof(double)), *u = malloc(cells * sizeof(double));
    const double *f = input + cells;
    double h = 1.0 / (double)(n - 1), h2 = h * h;
    for (int run = 0; run < runs; run++) {
        memcpy(u, input, cells * sizeof(double));
        double t = now_ms();
        for (int it = 0; it < iterations; it++) { pde1_sweep(u, f, n, h2, 0); pde1_sweep(u, f, n, h2, 1); }
        printf("%.6f\n", now_ms() - t);
    }
    write_file(out, u, cells * sizeof(double));
}

// ------------------------------------------------------------ V-cycle (cell-centred, 2-D)

#define OMEGA 0.8

// u(x, y) one cell past the edges: the ghost mirrors the edge cell negated (zero at the wall).
static inline double at(const double *u, int n, int x, int y) {
    int flips = 0;
    if (x < 0) { x = -1 - x; flips++; } else if (x >= n) { x = 2 * n - 1 - x; flips++; }
    if (y < 0) { y = -1 - y; flips++; } else if (y >= n) { y = 2 * n - 1 - y; flips++; }
    double v = u[(size_t)y * n + x];
    return flips == 1 ? -v : v;
}

static inline double nb_slow(const double *u, int n, int x, int y) {
    return at(u, n, x - 1, y) + at(u, n, x + 1, y) + at(u, n, x, y - 1) + at(u, n, x, y + 1);
}

static void jacobi(const double *restrict u, double *restrict out, const double *restrict f, int n, double h2) {
    #pragma omp parallel for schedule(static)
    for (int y = 0; y < n; y++) {
        const double *r = u + (size_t)y * n;
        double *o = out + (size_t)y * n;
        const double *fr = f + (size_t)y * n;
        const double w = 1.0 - OMEGA, q = OMEGA * 0.25;
        if (y == 0 || y == n - 1) {
            for (int x = 0; x < n; x++) o[x] = w * r[x] + q * (h2 * fr[x] + nb_slow(u, n, x, y));
        } else {
            o[0] = w * r[0] + q * (h2 * fr[0] + nb_slow(u, n, 0, y));
            for (int x = 1; x < n - 1; x++) o[x] = w * r[x] + q * (h2 * fr[x] + (((r[x - 1] + r[x + 1]) + r[x - n]) + r[x + n]));
            if (n > 1) o[n - 1] = w * r[n - 1] + q * (h2 * fr[n - 1] + nb_slow(u, n, n - 1, y));
        }
    }
}

// The residual of rows [y0, y1) into out (rows counted from y0).
static void residual_rows(const double *restrict u, const double *restrict f, double *restrict out, int n, double h2, int y0, int y1) {
    for (int y = y0; y < y1; y++) {
        const double *r = u + (size_t)y * n, *fr = f + (size_t)y * n;
        double *o = out + (size_t)(y - y0) * n;
        int edge = y == 0 || y == n - 1;
        if (edge) {
            for (int x = 0; x < n; x++) o[x] = fr[x] - (4.0 * r[x] - nb_slow(u, n, x, y)) / h2;
        } else {
            o[0] = fr[0] - (4.0 * r[0] - nb_slow(u, n, 0, y)) / h2;
            for (int x = 1; x < n - 1; x++) o[x] = fr[x] - (4.0 * r[x] - (((r[x - 1] + r[x + 1]) + r[x - n]) + r[x + n])) / h2;
            if (n > 1) o[n - 1] = fr[n - 1] - (4.0 * r[n - 1] - nb_slow(u, n, n - 1, y)) / h2;
        }
    }
}

static inline void restrict_row(const double *r0, const double *r1, double *rhs_c, double *sol_c, int nc) {
    for (int x = 0; x < nc; x++) {
        rhs_c[x] = 0.25 * ((r0[2 * x] + r0[2 * x + 1]) + (r1[2 * x] + r1[2 * x + 1]));
        sol_c[x] = 0.0;
    }
}

static void residual_restrict(const double *u, const double *f, double *res, double *rhs_c, double *sol_c, int n, double h2, int merge) {
    int nc = n / 2;
    if (merge) {
        #pragma omp parallel
        {
            double *rows = malloc(2 * (size_t)n * sizeof(double));
            #pragma omp for schedule(static)
            for (int y = 0; y < nc; y++) {
                residual_rows(u, f, rows, n, h2, 2 * y, 2 * y + 2);
                restrict_row(rows, rows + n, rhs_c + (size_t)y * nc, sol_c + (size_t)y * nc, nc);
            }
            free(rows);
        }
    } else {
        #pragma omp parallel for schedule(static)
        for (int y = 0; y < n; y++) residual_rows(u, f, res + (size_t)y * n, n, h2, y, y + 1);
        #pragma omp parallel for schedule(static)
        for (int y = 0; y < nc; y++) restrict_row(res + (size_t)2 * y * n, res + (size_t)(2 * y + 1) * n, rhs_c + (size_t)y * nc, sol_c + (size_t)y * nc, nc);
    }
}

static void interpolate_add(double *u, const double *e, int n) {
    int nc = n / 2;
    #pragma omp parallel for schedule(static)
    for (int y = 0; y < n; y++) {
        int cy = y >> 1, dy = (y & 1) ? 1 : -1;
        for (int x = 0; x < n; x++) {
            int cx = x >> 1, dx = (x & 1) ? 1 : -1;
            u[(size_t)y * n + x] += (9.0 * at(e, nc, cx, cy) + 3.0 * (at(e, nc, cx + dx, cy) + at(e, nc, cx, cy + dy)) + at(e, nc, cx + dx, cy + dy)) * (1.0 / 16.0);
        }
    }
}

typedef struct { double *sol, *rhs, *tmp, *res; int n; } Level;

static void smooth(Level *g, int steps) {
    double h2 = 1.0 / ((double)g->n * g->n);
    for (int i = 0; i < steps; i++) {
        jacobi(g->sol, g->tmp, g->rhs, g->n, h2);
        double *t = g->sol; g->sol = g->tmp; g->tmp = t;
    }
}

// One level of the V-cycle; `descend` 0 stops after restriction (the first-level measurement).
static void vcycle_level(Level *levels, int lvl, int count, int ssteps, int merge, int descend) {
    Level *g = &levels[lvl];
    smooth(g, ssteps);
    if (lvl == count - 1) return;
    Level *c = &levels[lvl + 1];
    residual_restrict(g->sol, g->rhs, g->res, c->rhs, c->sol, g->n, 1.0 / ((double)g->n * g->n), merge);
    if (descend) vcycle_level(levels, lvl + 1, count, ssteps, merge, 1);
    interpolate_add(g->sol, c->sol, g->n);
    smooth(g, ssteps);
}

static double residual_norm(Level *g) {
    int n = g->n;
    double h2 = 1.0 / ((double)n * n), total = 0.0;
    double *rows = malloc((size_t)n * sizeof(double));
    #pragma omp parallel for schedule(static)
    for (int y = 0; y < n; y++) {
        double *r = malloc((size_t)n * sizeof(double)), acc = 0.0;
        residual_rows(g->sol, g->rhs, r, n, h2, y, y + 1);
        for (int x = 0; x < n; x++) acc += r[x] * r[x];
        rows[y] = acc;
        free(r);
    }
    for (int y = 0; y < n; y++) total += rows[y];
    free(rows);
    return sqrt(total * h2);
}

static void vcycle(int runs, const char *in, const char *out, int n, int count, int cycles, int ssteps, int merge, int first) {
    size_t cells = (size_t)n * n;
    double *rhs = read_file(in, cells * sizeof(double));
    if (first && count < 2) count = 2;
    Level levels[32];
    for (int l = 0; l < count; l++) {
        int m = n >> l;
        size_t k = (size_t)m * m;
        levels[l] = (Level){ calloc(k, 8), l ? calloc(k, 8) : rhs, calloc(k, 8), calloc(k, 8), m };
    }
    double *norms = malloc((size_t)(cycles + 1) * sizeof(double));
    for (int run = 0; run < runs; run++) {
        for (int l = 0; l < count; l++) memset(levels[l].sol, 0, (size_t)levels[l].n * levels[l].n * 8);
        if (first) {
            double t = now_ms();
            vcycle_level(levels, 0, count, ssteps, merge, 0);
            printf("%.6f\n", now_ms() - t);
        } else {
            double spent = 0.0;
            norms[0] = residual_norm(&levels[0]);
            for (int c = 0; c < cycles; c++) {
                double t = now_ms();
                vcycle_level(levels, 0, count, ssteps, merge, 1);
                spent += now_ms() - t;
                norms[c + 1] = residual_norm(&levels[0]);
            }
            printf("%.6f\n", spent);
        }
    }
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(levels[0].sol, 8, cells, f) != cells || (!first && fwrite(norms, 8, (size_t)cycles + 1, f) != (size_t)cycles + 1)) { perror(out); exit(1); }
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: reference life|pde1|vcycle RUNS IN OUT ARGS...\n"); return 2; }
    int runs = atoi(argv[2]);
    const char *what = argv[1], *in = argv[3], *out = argv[4];
    if (!strcmp(what, "life") && argc == 8) life(runs, in, out, atoi(argv[5]), atoi(argv[6]), atoi(argv[7]));
    else if (!strcmp(what, "pde1") && argc == 7) pde1(runs, in, out, atoi(argv[5]), atoi(argv[6]));
    else if (!strcmp(what, "vcycle") && argc == 11) vcycle(runs, in, out, atoi(argv[5]), atoi(argv[6]), atoi(argv[7]), atoi(argv[8]), atoi(argv[9]), atoi(argv[10]));
    else { fprintf(stderr, "reference: bad arguments for '%s'\n", what); return 2; }
    return 0;
}
