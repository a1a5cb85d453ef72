/*
 * Drives the runtime's pool of released host buffers from C for tests/runtime/host-pool.test.ts.
 * Every buffer is filled with a pattern of its own (a tag), and each allocation is reported
 * as the name of the released buffer it returned with that pattern whole, or `new`: memory
 * that free() had (glibc writes its list pointers into a freed chunk, munmap drops the
 * pages) never reads back whole, so `new` is also what every case prints without the pool.
 *
 *   host-pool CASE...  CASE is reuse:BYTES, fit:BYTES, kinds:BYTES, bound:COUNT:BYTES,
 *                      threads:THREADS:ROUNDS or double-release:BYTES (which ends the program).
 */
#include "anydsl_runtime.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Word i of a buffer tagged tag: different in every buffer and at every offset. */
static uint64_t word(uint64_t tag, size_t i) { return (tag + 1) * 0x9E3779B97F4A7C15ull ^ i; }

static void fill(void* p, size_t bytes, uint64_t tag) {
    uint64_t* w = p;
    for (size_t i = 0; i < bytes / 8; i++) w[i] = word(tag, i);
}

static int holds(const void* p, size_t bytes, uint64_t tag) {
    const uint64_t* w = p;
    for (size_t i = 0; i < bytes / 8; i++)
        if (w[i] != word(tag, i)) return 0;
    return 1;
}

/* The runtime's allocation, checked for the alignment it promises. */
static void* alloc(int64_t bytes) {
    void* p = anydsl_alloc(0, bytes);
    if ((uintptr_t)p % 64 != 0) {
        fprintf(stderr, "host-pool: %lld bytes at %p, not 64-byte aligned\n", (long long)bytes, p);
        exit(2);
    }
    return p;
}

/* Which of the released buffers named[i] (tag i, `bytes` filled) p is, whole, or "new". */
static void name(char* out, const void* p, void* const* named, size_t count, size_t bytes) {
    for (size_t i = 0; i < count; i++) {
        if (p == named[i] && holds(p, bytes, i)) {
            sprintf(out, "%zu", i);
            return;
        }
    }
    strcpy(out, "new");
}

/* Two buffers released, two allocations of their size: the most recently released first. */
static void reuse(size_t bytes) {
    void* b[3];
    for (int i = 0; i < 3; i++) fill(b[i] = alloc((int64_t)bytes), bytes, (uint64_t)i);
    anydsl_release(0, b[0]);
    anydsl_release(0, b[1]);
    char x[24], y[24];
    name(x, alloc((int64_t)bytes), b, 2, bytes);
    name(y, alloc((int64_t)bytes), b, 2, bytes);
    printf("reuse %s %s\n", x, y);
}

/* One buffer released, then requests of twice, half and 15/16 of its size. */
static void fit(size_t bytes) {
    void* b = alloc((int64_t)bytes);
    fill(b, bytes, 0);
    anydsl_release(0, b);
    char twice[24], half[24], most[24];
    name(twice, alloc((int64_t)(2 * bytes)), &b, 1, bytes);
    name(half, alloc((int64_t)(bytes / 2)), &b, 1, bytes);
    name(most, alloc((int64_t)(bytes - bytes / 16)), &b, 1, bytes);
    printf("fit %s %s %s\n", twice, half, most);
}

/* Host memory of anydsl_alloc_host and anydsl_alloc_unified on device 0 is the same pool's. */
static void kinds(size_t bytes) {
    void* b = anydsl_alloc_host(0, (int64_t)bytes);
    fill(b, bytes, 0);
    anydsl_release_host(0, b);
    char plain[24], unified[24];
    void* p = alloc((int64_t)bytes);
    name(plain, p, &b, 1, bytes);
    anydsl_release(0, p);
    void* u = anydsl_alloc_unified(0, (int64_t)bytes);
    name(unified, u, &b, 1, bytes);
    printf("kinds %s %s\n", plain, unified);
}

/* count buffers released oldest first, then count allocations of their size. */
static void bound(size_t count, size_t bytes) {
    void** b = malloc(count * sizeof *b);
    for (size_t i = 0; i < count; i++) fill(b[i] = alloc((int64_t)bytes), bytes, i);
    for (size_t i = 0; i < count; i++) anydsl_release(0, b[i]);
    printf("bound");
    for (size_t i = 0; i < count; i++) {
        char got[24];
        name(got, alloc((int64_t)bytes), b, count, bytes);
        printf(" %s", got);
    }
    printf("\n");
    free(b);
}

/* Threads allocating, filling, checking and releasing buffers of three sizes at once: a
 * buffer handed to two of them at the same time shows as a pattern overwritten. */
enum { THREAD_SIZES = 3 };
static const size_t thread_sizes[THREAD_SIZES] = {96 << 10, 160 << 10, 256 << 10};
static _Atomic uint64_t next_tag, overwritten;
static int32_t rounds;

static void churn(void* unused) {
    (void)unused;
    for (int32_t r = 0; r < rounds; r++) {
        size_t bytes = thread_sizes[r % THREAD_SIZES];
        uint64_t tag = atomic_fetch_add(&next_tag, 1);
        void* p = alloc((int64_t)bytes);
        fill(p, bytes, tag);
        if (!holds(p, bytes, tag)) atomic_fetch_add(&overwritten, 1);
        anydsl_release(0, p);
    }
}

/* After the threads, one allocation of each size returns a buffer some thread released,
 * its pattern whole. */
static void threads(int32_t count, int32_t per_thread) {
    rounds = per_thread;
    int32_t* ids = malloc((size_t)count * sizeof *ids);
    for (int32_t t = 0; t < count; t++) ids[t] = anydsl_spawn_thread(NULL, churn);
    for (int32_t t = 0; t < count; t++) anydsl_sync_thread(ids[t]);
    free(ids);
    int pooled = 0;
    for (int s = 0; s < THREAD_SIZES; s++) {
        const uint64_t* p = alloc((int64_t)thread_sizes[s]);
        for (uint64_t tag = 0; tag < atomic_load(&next_tag); tag++) {
            if (p[0] == word(tag, 0)) {
                pooled += holds(p, thread_sizes[s], tag);
                break;
            }
        }
    }
    printf("threads %llu overwritten, %d of %d sizes pooled\n", (unsigned long long)atomic_load(&overwritten), pooled,
           THREAD_SIZES);
}

int main(int argc, char** argv) {
    for (int i = 1; i < argc; i++) {
        char what[32] = "";
        long a = 0, b = 0;
        sscanf(argv[i], "%31[^:]:%ld:%ld", what, &a, &b);
        if (strcmp(what, "reuse") == 0) reuse((size_t)a);
        else if (strcmp(what, "fit") == 0) fit((size_t)a);
        else if (strcmp(what, "kinds") == 0) kinds((size_t)a);
        else if (strcmp(what, "bound") == 0) bound((size_t)a, (size_t)b);
        else if (strcmp(what, "threads") == 0) threads((int32_t)a, (int32_t)b);
        else if (strcmp(what, "double-release") == 0) {
            void* p = alloc(a);
            anydsl_release(0, p);
            anydsl_release(0, p);
            printf("released twice\n");
        } else {
            fprintf(stderr, "host-pool: unknown case %s\n", argv[i]);
            return 2;
        }
        fflush(stdout);
    }
    return 0;
}
