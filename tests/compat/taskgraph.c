/* The 2018 runtime's task graph and the rest of compat.c, called as C code calls them.
 * Prints one line per check; tests/compat/runtime.test.ts compares them. */
#include "anydsl_runtime.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Atomic int clock_tick;
static int ran_at[8];

static void task(uint64_t id) { ran_at[id] = atomic_fetch_add(&clock_tick, 1) + 1; }

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "info") == 0) {
        anydsl_info();
        return 0;
    }
    /* A diamond with a tail: 0 -> {1, 2, 3} -> 4 -> 5; 6 is in the graph but not reached. */
    int32_t g = anydsl_create_graph();
    int32_t t[7];
    for (int i = 0; i < 7; i++) t[i] = anydsl_create_task(g, (anydsl_closure){task, (uint64_t)i});
    for (int i = 1; i <= 3; i++) {
        anydsl_create_edge(t[0], t[i]);
        anydsl_create_edge(t[i], t[4]);
    }
    anydsl_create_edge(t[4], t[5]);
    for (int round = 0; round < 2; round++) {
        memset(ran_at, 0, sizeof ran_at);
        anydsl_execute_graph(g, t[0]);
        int ok = ran_at[0] > 0 && ran_at[6] == 0 && ran_at[5] > ran_at[4];
        for (int i = 1; i <= 3; i++) ok = ok && ran_at[i] > ran_at[0] && ran_at[4] > ran_at[i];
        printf("graph round %d: %s\n", round, ok ? "ordered" : "wrong order");
    }
    anydsl_random_seed(7);
    for (int i = 0; i < 3; i++) printf("u64 %llu\n", (unsigned long long)anydsl_random_val_u64());
    printf("f32 %.9g\n", anydsl_random_val_f32());
    float inf = 1.0f / 0.0f, nan = inf - inf;
    printf("is %d%d%d %d%d%d\n", anydsl_isinff(inf), anydsl_isnanf(nan), anydsl_isfinitef(nan), anydsl_isinf(-(double)inf),
           anydsl_isnan(1.0), anydsl_isfinite(1.0));
    void* host = anydsl_alloc_host(0, 64);
    printf("device ptr of host memory on the host: %s\n", anydsl_get_device_ptr(0, host) == host ? "same" : "other");
    anydsl_release_host(0, host);
    return 0;
}
