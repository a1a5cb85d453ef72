// What the reference drivers share: raw image files in and out, and timing the way
// libs/image/bench.ts does (one warm-up, then `runs` timed calls), reported as JSON on stdout.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <malloc.h>
#include <string>
#include <vector>

template <typename T>
std::vector<T> read_raw(const char *path, size_t count) {
    std::vector<T> data(count);
    FILE *f = fopen(path, "rb");
    if (!f || fread(data.data(), sizeof(T), count, f) != count) {
        fprintf(stderr, "cannot read %zu elements from %s\n", count, path);
        exit(1);
    }
    fclose(f);
    return data;
}

template <typename T>
void write_raw(const char *path, const std::vector<T> &data) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data.data(), sizeof(T), data.size(), f) != data.size()) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

// Prints {"ms":[…]} with the time of each run after one warm-up. Each time is flushed as
// it comes, so that the caller can show progress on long runs.
//
// Freed memory stays with the process, as in a long-running application with a warm heap:
// by default glibc hands every block over 128 KiB back to the kernel when freed, and a kernel
// that allocates its temporaries per call (Halide's compute_root and per-tile buffers) then
// page-faults them in again on every run, which on this VM made some Halide schedules 20–30×
// slower than their arithmetic.
inline void time_runs(int runs, const std::function<void()> &once) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    once();
    printf("{\"ms\":[");
    fflush(stdout);
    for (int i = 0; i < runs; i++) {
        auto start = std::chrono::steady_clock::now();
        once();
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        printf("%s%.6f", i ? "," : "", ms);
        fflush(stdout);
    }
    printf("]}\n");
}
