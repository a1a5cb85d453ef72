/*
 * The rest of the C functions that the 2018 AnyDSL runtime.impala binds, with the same
 * meaning, so code written against it links unchanged: anydsl_info, anydsl_get_device_ptr,
 * anydsl_release_host, the random numbers and the floating-point classification
 * (the task graph is in threads.cpp, on TBB).
 *
 * The random numbers are splitmix64 rather than the original's mt19937: one 64-bit
 * state advanced atomically, so that any thread may draw, the interpreter
 * (compiler/src/interp/externs.ts) reproduces the sequence exactly, and a seed
 * gives the same numbers on every machine.
 */
#include "device.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>

void anydsl_info(void) {
    printf("Available platforms:\n    * host: the CPU\n");
    const anydsl_platform* platforms[] = {&anydsl_cuda_platform, &anydsl_opencl_platform};
    for (size_t p = 0; p < sizeof platforms / sizeof platforms[0]; p++) {
        int32_t count = platforms[p]->device_count();
        if (count == 0) printf("    * %s: none (%s)\n", platforms[p]->name, platforms[p]->missing());
        for (int32_t i = 0; i < count; i++) printf("    * %s\n", platforms[p]->device_name(i));
    }
}

/* The address the device's kernels use for host memory of anydsl_alloc_host: the same
 * pointer on the host and under CUDA's unified addressing; on OpenCL the buffer that is
 * mapped there. Device and unified memory already are what kernels take. */
void* anydsl_get_device_ptr(int32_t dev, void* ptr) {
    anydsl_buffer buffer;
    int64_t inner;
    if ((dev & 0xF) == ANYDSL_PLATFORM_OPENCL && anydsl_buffer_of(ptr, &buffer, &inner) && buffer.kind == ANYDSL_MEM_HOST) {
        if (inner != 0) anydsl_fatal("anydsl_get_device_ptr: %p is inside a host buffer of %s, not its start", ptr, anydsl_device_label(dev));
        return buffer.handle;
    }
    return ptr;
}

/* anydsl_release knows from its table what kind of memory a pointer is. */
void anydsl_release_host(int32_t dev, void* ptr) { anydsl_release(dev, ptr); }

static _Atomic uint64_t random_state = 0x853c49e6748fea9bull;

void anydsl_random_seed(uint32_t seed) { atomic_store(&random_state, seed); }

uint64_t anydsl_random_val_u64(void) {
    uint64_t z = atomic_fetch_add(&random_state, 0x9e3779b97f4a7c15ull) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1): the top 24 bits, every one of which a float holds exactly. */
float anydsl_random_val_f32(void) { return (float)(anydsl_random_val_u64() >> 40) * 0x1p-24f; }

int32_t anydsl_isinff(float x) { return isinf(x) != 0; }
int32_t anydsl_isnanf(float x) { return isnan(x) != 0; }
int32_t anydsl_isfinitef(float x) { return isfinite(x) != 0; }
int32_t anydsl_isinf(double x) { return isinf(x) != 0; }
int32_t anydsl_isnan(double x) { return isnan(x) != 0; }
int32_t anydsl_isfinite(double x) { return isfinite(x) != 0; }
