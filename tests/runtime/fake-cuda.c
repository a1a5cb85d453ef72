/*
 * A test double of the CUDA driver (built as libcuda.so.1 by tests/runtime/cuda.test.ts and
 * found through LD_LIBRARY_PATH) so that the runtime's CUDA platform (runtime/cuda.c) runs on
 * machines without an NVIDIA GPU: one device, "device memory" in host memory, and instead of
 * a PTX JIT the kernels of kernels.cu implemented here in C, run block by block. It checks
 * what a real driver would reject (launch geometry, unknown kernels, invalid PTX) and
 * reports a faulting kernel at the next synchronisation, as a GPU does. What it cannot
 * show is that PTX runs; the same test runs against the real driver where there is one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
    SUCCESS = 0,
    INVALID_VALUE = 1,
    INVALID_IMAGE = 200,
    INVALID_PTX = 218,
    NOT_FOUND = 500,
    ILLEGAL_ADDRESS = 700,
};

typedef void (*kernel_fn)(unsigned block, unsigned threads, void** params);

/* A fault of a kernel stays until the next synchronisation reports it (sticky, like a GPU's). */
static CUresult pending_fault = SUCCESS;

static void affine(unsigned block, unsigned threads, void** p) {
    const unsigned* a = *(unsigned**)p[0];
    const unsigned* b = *(unsigned**)p[1];
    unsigned* c = *(unsigned**)p[2];
    unsigned k = *(unsigned*)p[3];
    int n = *(int*)p[4];
    for (unsigned t = 0; t < threads; t++) {
        int i = (int)(block * threads + t);
        if (i < n) c[i] = a[i] * k + b[i];
    }
}

static void block_sum(unsigned block, unsigned threads, void** p) {
    const unsigned* a = *(unsigned**)p[0];
    unsigned* out = *(unsigned**)p[1];
    int n = *(int*)p[2];
    unsigned sum = 0;
    for (unsigned t = 0; t < threads; t++) {
        int i = (int)(block * threads + t);
        if (i < n) sum += a[i];
    }
    out[block] = sum;
}

static void divergent(unsigned block, unsigned threads, void** p) {
    const unsigned* a = *(unsigned**)p[0];
    int* out = *(int**)p[1];
    int n = *(int*)p[2];
    for (unsigned t = 0; t < threads; t++) {
        int i = (int)(block * threads + t);
        if (i >= n) continue;
        unsigned x = a[i] % 1000u;
        int steps = 0;
        if (x % 7u == 0u) steps = -7;
        while (steps >= 0 && x != 1u && x != 0u) {
            if (steps == 60) steps = -1;
            else x = (x & 1u) ? 3u * x + 1u : x / 2u, steps++;
        }
        out[i] = steps;
    }
}

static void overrun(unsigned block, unsigned threads, void** p) {
    unsigned* c = *(unsigned**)p[0];
    int n = *(int*)p[1];
    for (unsigned t = 0; t < threads; t++) {
        int i = (int)(block * threads + t);
        if (i <= n) c[i] = (unsigned)i;
    }
}

static void fault(unsigned block, unsigned threads, void** p) {
    (void)block, (void)threads, (void)p;
    pending_fault = ILLEGAL_ADDRESS;
}

typedef struct {
    const char* name;
    kernel_fn fn;
} kernel_entry;

static const kernel_entry kernels[] = {{"affine", affine}, {"block_sum", block_sum}, {"divergent", divergent}, {"overrun", overrun}, {"fault", fault}};

CUresult cuInit(unsigned flags) { return flags == 0 ? SUCCESS : INVALID_VALUE; }

CUresult cuGetErrorName(CUresult err, const char** name) {
    switch (err) {
        case SUCCESS: *name = "CUDA_SUCCESS"; return SUCCESS;
        case INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; return SUCCESS;
        case INVALID_IMAGE: *name = "CUDA_ERROR_INVALID_IMAGE"; return SUCCESS;
        case INVALID_PTX: *name = "CUDA_ERROR_INVALID_PTX"; return SUCCESS;
        case NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; return SUCCESS;
        case ILLEGAL_ADDRESS: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return SUCCESS;
        default: return INVALID_VALUE;
    }
}

CUresult cuDeviceGetCount(int* count) { return *count = 1, SUCCESS; }
CUresult cuDeviceGet(int* device, int ordinal) { return ordinal == 0 ? (*device = 0, SUCCESS) : INVALID_VALUE; }
CUresult cuDeviceGetName(char* name, int size, int device) {
    (void)device;
    snprintf(name, (size_t)size, "Fake GPU (tests/runtime/fake-cuda.c)");
    return SUCCESS;
}
CUresult cuDeviceGetAttribute(int* value, int attribute, int device) {
    (void)device;
    *value = attribute == 75 ? 9 : 0; /* compute capability 9.0 */
    return SUCCESS;
}

static int context;
CUresult cuDevicePrimaryCtxRetain(void** ctx, int device) { return device == 0 ? (*ctx = &context, SUCCESS) : INVALID_VALUE; }
CUresult cuCtxSetCurrent(void* ctx) { return ctx == &context ? SUCCESS : INVALID_VALUE; }
CUresult cuCtxSynchronize(void) { return pending_fault; }

/* A module is its PTX text; a function is an entry of the kernel table. */
CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned count, int* options, void** values) {
    if (!strstr(image, ".version") || !strstr(image, ".entry")) {
        char* log = NULL;
        size_t size = 0;
        for (unsigned i = 0; i < count; i++) {
            if (options[i] == 5) log = values[i]; /* CU_JIT_ERROR_LOG_BUFFER */
            if (options[i] == 6) size = (size_t)(uintptr_t)values[i]; /* ..._SIZE_BYTES */
        }
        if (log && size) snprintf(log, size, "ptxas fatal   : no .version directive");
        return INVALID_PTX;
    }
    *module = (void*)image;
    return pending_fault;
}

CUresult cuModuleGetFunction(void** function, void* module, const char* name) {
    char entry[160];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (strcmp(kernels[i].name, name) == 0 && strstr(module, entry)) return *function = (void*)&kernels[i], SUCCESS;
    return NOT_FOUND;
}

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t size) {
    void* p = malloc(size);
    return p ? (*ptr = (CUdeviceptr)(uintptr_t)p, SUCCESS) : 2;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) { return free((void*)(uintptr_t)ptr), pending_fault; }
CUresult cuMemAllocHost_v2(void** ptr, size_t size) { return (*ptr = malloc(size)) ? SUCCESS : 2; }
CUresult cuMemFreeHost(void* ptr) { return free(ptr), SUCCESS; }
CUresult cuMemAllocManaged(CUdeviceptr* ptr, size_t size, unsigned flags) { return flags == 1 ? cuMemAlloc_v2(ptr, size) : INVALID_VALUE; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t size) {
    return memcpy((void*)(uintptr_t)dst, src, size), pending_fault;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t size) {
    return memcpy(dst, (const void*)(uintptr_t)src, size), pending_fault;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t size) {
    return memmove((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, size), pending_fault;
}

CUresult cuLaunchKernel(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void* stream, void** params, void** extra) {
    (void)stream;
    if (pending_fault) return pending_fault;
    /* The kernels of kernels.cu are one-dimensional. */
    if (gx == 0 || bx == 0 || bx > 1024 || gy != 1 || gz != 1 || by != 1 || bz != 1 || shared || extra) return INVALID_VALUE;
    for (unsigned block = 0; block < gx; block++) ((const kernel_entry*)function)->fn(block, bx, params);
    return SUCCESS;
}

static int event;
CUresult cuEventCreate(void** e, unsigned flags) { return flags == 0 ? (*e = &event, SUCCESS) : INVALID_VALUE; }
CUresult cuEventRecord(void* e, void* stream) { return e == &event && !stream ? SUCCESS : INVALID_VALUE; }
CUresult cuEventElapsedTime(float* ms, void* start, void* end) { return start == &event && end == &event ? (*ms = 0.001f, SUCCESS) : INVALID_VALUE; }
CUresult cuEventDestroy_v2(void* e) { return e == &event ? SUCCESS : INVALID_VALUE; }
