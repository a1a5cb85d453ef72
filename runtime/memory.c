#include "anydsl_runtime.h"

#include <stdlib.h>
#include <string.h>

/* Matches a cache line and the widest vector registers (AVX-512), so vectorised loads
 * and stores on allocated buffers never straddle a line. */
enum { ALIGNMENT = 64 };

static const char* platform_name(int32_t dev) {
    switch (dev & 0xF) {
        case 0: return "CPU";
        case 1: return "CUDA";
        case 2: return "OpenCL";
        default: return "unknown";
    }
}

static void require_cpu(int32_t dev, const char* what) {
    if (dev != 0)
        anydsl_fatal("%s: device %d (platform %s, index %d) is not supported yet; only the CPU (device 0) is",
                     what, dev, platform_name(dev), dev >> 4);
}

void* anydsl_alloc(int32_t dev, int64_t size) {
    require_cpu(dev, "anydsl_alloc");
    if (size < 0) anydsl_fatal("anydsl_alloc: negative size %lld", (long long)size);
    void* ptr = NULL;
    /* A zero-byte request still returns a distinct, releasable pointer. */
    size_t bytes = size == 0 ? ALIGNMENT : (size_t)size;
    if (posix_memalign(&ptr, ALIGNMENT, bytes) != 0)
        anydsl_fatal("anydsl_alloc: out of memory allocating %lld bytes", (long long)size);
    return ptr;
}

void anydsl_release(int32_t dev, void* ptr) {
    require_cpu(dev, "anydsl_release");
    free(ptr);
}

void anydsl_copy(int32_t dev_src, const void* src, int64_t offset_src,
                 int32_t dev_dst, void* dst, int64_t offset_dst, int64_t size) {
    require_cpu(dev_src, "anydsl_copy (source)");
    require_cpu(dev_dst, "anydsl_copy (destination)");
    if (size < 0) anydsl_fatal("anydsl_copy: negative size %lld", (long long)size);
    if (size == 0) return;
    /* memmove: programs copy between overlapping parts of one buffer (shifting a row). */
    memmove((char*)dst + offset_dst, (const char*)src + offset_src, (size_t)size);
}
