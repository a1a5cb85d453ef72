/*
 * The CUDA platform, through the driver API (libcuda.so.1, which comes with the NVIDIA
 * driver) opened with dlopen on first use: nothing CUDA is needed to build or load an
 * artifact. Each device runs in its primary context on the legacy default stream, so
 * launches and copies happen in program order. PTX is JIT-compiled by the driver once per
 * device and program key (the driver also keeps its own disk cache of the results), and
 * device memory is CUdeviceptr values (memory.c checks every use). Kernel time comes from
 * a pair of events around each launch, read when the device is synchronised or read.
 */
#include "device.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The part of the driver API used here, declared from cuda.h's values so that the runtime
 * builds where the toolkit is not installed. The _v2 names are what cuda.h's macros map
 * the plain names to since CUDA 3.2. */
typedef int CUresult;
typedef int CUdevice;
typedef int CUjit_option;
typedef int CUdevice_attribute;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUevent_st* CUevent;
typedef struct CUstream_st* CUstream;

#define CUDA_SUCCESS 0
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define CU_MEM_ATTACH_GLOBAL 1u
#define CU_EVENT_DEFAULT 0u

#define CUDA_API(X)                                                                                                \
    X(cuInit, cuInit, (unsigned))                                                                                  \
    X(cuGetErrorName, cuGetErrorName, (CUresult, const char**))                                                    \
    X(cuDeviceGetCount, cuDeviceGetCount, (int*))                                                                  \
    X(cuDeviceGet, cuDeviceGet, (CUdevice*, int))                                                                  \
    X(cuDeviceGetName, cuDeviceGetName, (char*, int, CUdevice))                                                    \
    X(cuDeviceGetAttribute, cuDeviceGetAttribute, (int*, CUdevice_attribute, CUdevice))                            \
    X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, (CUcontext*, CUdevice))                                  \
    X(cuCtxSetCurrent, cuCtxSetCurrent, (CUcontext))                                                               \
    X(cuCtxSynchronize, cuCtxSynchronize, (void))                                                                  \
    X(cuModuleLoadDataEx, cuModuleLoadDataEx, (CUmodule*, const void*, unsigned, CUjit_option*, void**))           \
    X(cuModuleGetFunction, cuModuleGetFunction, (CUfunction*, CUmodule, const char*))                              \
    X(cuMemAlloc, cuMemAlloc_v2, (CUdeviceptr*, size_t))                                                           \
    X(cuMemFree, cuMemFree_v2, (CUdeviceptr))                                                                      \
    X(cuMemAllocHost, cuMemAllocHost_v2, (void**, size_t))                                                         \
    X(cuMemFreeHost, cuMemFreeHost, (void*))                                                                       \
    X(cuMemAllocManaged, cuMemAllocManaged, (CUdeviceptr*, size_t, unsigned))                                      \
    X(cuMemcpyHtoD, cuMemcpyHtoD_v2, (CUdeviceptr, const void*, size_t))                                           \
    X(cuMemcpyDtoH, cuMemcpyDtoH_v2, (void*, CUdeviceptr, size_t))                                                 \
    X(cuMemcpyDtoD, cuMemcpyDtoD_v2, (CUdeviceptr, CUdeviceptr, size_t))                                           \
    X(cuLaunchKernel, cuLaunchKernel,                                                                              \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**))  \
    X(cuEventCreate, cuEventCreate, (CUevent*, unsigned))                                                          \
    X(cuEventRecord, cuEventRecord, (CUevent, CUstream))                                                           \
    X(cuEventElapsedTime, cuEventElapsedTime, (float*, CUevent, CUevent))                                          \
    X(cuEventDestroy, cuEventDestroy_v2, (CUevent))

#define DECLARE(name, symbol, params) static CUresult(*name) params;
CUDA_API(DECLARE)
#undef DECLARE

typedef struct {
    CUdevice id;
    char name[320];
    /* Guards everything below. */
    pthread_mutex_t lock;
    CUcontext context;
    anydsl_program* programs;
    anydsl_pending_list pending;
} device;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char missing[640];
static device* devices;
static int32_t device_count;

static const char* label(int32_t index) { return anydsl_device_label(ANYDSL_PLATFORM_CUDA | index << 4); }

static const char* error_name(CUresult err) {
    const char* name = NULL;
    if (cuGetErrorName(err, &name) != CUDA_SUCCESS || !name) return "unknown error";
    return name;
}

/* Errors of a kernel's execution, which the driver reports at the next call that waits. */
static int execution_error(CUresult err) {
    return err == 700 || err == 702 || err == 710 || (err >= 714 && err <= 719);
}

/* An error of a kernel's execution is reported with the last kernel launched. */
static void report_execution_error(device* d, CUresult err, const char* call, int32_t index) {
    if (execution_error(err) && d->pending.len)
        anydsl_device_fatal("CUDA error %d (%s) in kernel %s on %s (reported by %s)", err, error_name(err),
                            d->pending.items[d->pending.len - 1].kernel, label(index), call);
}

/* "CUDA error 700 (CUDA_ERROR_ILLEGAL_ADDRESS) in kernel K on device 1 (CUDA 0) (reported by cuCtxSynchronize)",
 * "CUDA error 2 (CUDA_ERROR_OUT_OF_MEMORY) in cuMemAlloc of 4096 bytes on device 1 (CUDA 0)". */
#define fail(d, err, call, index, ...)                                                                       \
    (report_execution_error(d, err, call, index),                                                           \
     anydsl_call_failed("CUDA", err, error_name(err), call, ANYDSL_PLATFORM_CUDA | (index) << 4, __VA_ARGS__))

static void load_library(void* lib) {
    const char* absent = NULL;
#define RESOLVE(name, symbol, params)                                 \
    name = (CUresult(*) params)dlsym(lib, #symbol);                   \
    if (!name && !absent) absent = #symbol;
    CUDA_API(RESOLVE)
#undef RESOLVE
    if (absent) {
        snprintf(missing, sizeof missing, "no CUDA: libcuda.so.1 lacks %s; update the NVIDIA driver", absent);
        return;
    }
    CUresult err = cuInit(0);
    int count = 0;
    if (err == CUDA_SUCCESS) err = cuDeviceGetCount(&count);
    if (err != CUDA_SUCCESS) {
        snprintf(missing, sizeof missing, "no CUDA device: cuInit fails with %d (%s)", err, error_name(err));
        return;
    }
    if (count == 0) {
        snprintf(missing, sizeof missing, "no CUDA device: the NVIDIA driver sees no GPU");
        return;
    }
    devices = calloc((size_t)count, sizeof *devices);
    if (!devices) {
        snprintf(missing, sizeof missing, "no CUDA: out of host memory listing %d devices", count);
        return;
    }
    for (int i = 0; i < count; i++) {
        device* d = &devices[i];
        char gpu[128] = "";
        int major = 0, minor = 0;
        if (cuDeviceGet(&d->id, i) != CUDA_SUCCESS) continue;
        cuDeviceGetName(gpu, sizeof gpu - 1, d->id);
        cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->id);
        cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->id);
        snprintf(d->name, sizeof d->name, "CUDA %d: %s (sm_%d%d)", i, gpu, major, minor);
        pthread_mutex_init(&d->lock, NULL);
    }
    device_count = count;
}

static void load(void) {
    void* lib = anydsl_open_driver("libcuda.so.1", "CUDA", "install the NVIDIA driver", missing, sizeof missing);
    if (lib) load_library(lib);
}

static int32_t cuda_device_count(void) {
    pthread_once(&loaded, load);
    return device_count;
}

static const char* cuda_missing(void) { return missing; }
static int cuda_is_gpu(int32_t index) { return index >= 0; }
static const char* cuda_device_name(int32_t index) { return devices[index].name; }

/* Locks the device and makes its primary context current on this thread. */
static device* lock_device(int32_t index) {
    device* d = &devices[index];
    pthread_mutex_lock(&d->lock);
    CUresult err;
    if (!d->context && (err = cuDevicePrimaryCtxRetain(&d->context, d->id)) != CUDA_SUCCESS)
        fail(d, err, "cuDevicePrimaryCtxRetain", index, "for %s", d->name);
    if ((err = cuCtxSetCurrent(d->context)) != CUDA_SUCCESS) fail(d, err, "cuCtxSetCurrent", index, "for %s", d->name);
    return d;
}

/* Called once everything launched has finished: adds the kernels' time, frees their events. */
static void collect(device* d) {
    for (size_t i = 0; i < d->pending.len; i++) {
        CUevent start = d->pending.items[i].first, end = d->pending.items[i].second;
        float ms = 0;
        if (cuEventElapsedTime(&ms, start, end) == CUDA_SUCCESS) anydsl_add_kernel_time((int64_t)((double)ms * 1e6));
        cuEventDestroy(start);
        cuEventDestroy(end);
    }
    d->pending.len = 0;
}

static void finish(device* d, int32_t index) {
    CUresult err = cuCtxSynchronize();
    if (err != CUDA_SUCCESS) fail(d, err, "cuCtxSynchronize", index, "of %s", d->name);
    collect(d);
}

static void cuda_alloc(int32_t index, int64_t size, anydsl_buffer* b) {
    device* d = lock_device(index);
    CUresult err;
    CUdeviceptr ptr = 0;
    switch (b->kind) {
        case ANYDSL_MEM_DEVICE:
            if ((err = cuMemAlloc(&ptr, (size_t)size)) != CUDA_SUCCESS)
                fail(d, err, "cuMemAlloc", index, "of %lld bytes", (long long)size);
            b->ptr = (void*)(uintptr_t)ptr;
            break;
        case ANYDSL_MEM_HOST:
            if ((err = cuMemAllocHost(&b->ptr, (size_t)size)) != CUDA_SUCCESS)
                fail(d, err, "cuMemAllocHost", index, "of %lld bytes", (long long)size);
            break;
        default:
            if ((err = cuMemAllocManaged(&ptr, (size_t)size, CU_MEM_ATTACH_GLOBAL)) != CUDA_SUCCESS)
                fail(d, err, "cuMemAllocManaged", index, "of %lld bytes", (long long)size);
            b->ptr = (void*)(uintptr_t)ptr;
            break;
    }
    pthread_mutex_unlock(&d->lock);
}

static void cuda_release(int32_t index, const anydsl_buffer* b) {
    device* d = lock_device(index);
    CUresult err = b->kind == ANYDSL_MEM_HOST ? cuMemFreeHost(b->ptr) : cuMemFree((CUdeviceptr)(uintptr_t)b->ptr);
    if (err != CUDA_SUCCESS)
        fail(d, err, b->kind == ANYDSL_MEM_HOST ? "cuMemFreeHost" : "cuMemFree", index, "of %lld bytes",
             (long long)b->size);
    pthread_mutex_unlock(&d->lock);
}

static CUdeviceptr at(const anydsl_buffer* b, int64_t offset) { return (CUdeviceptr)(uintptr_t)b->ptr + (CUdeviceptr)offset; }

static void cuda_read(int32_t index, const anydsl_buffer* src, int64_t offset, void* dst, int64_t size) {
    device* d = lock_device(index);
    CUresult err = cuMemcpyDtoH(dst, at(src, offset), (size_t)size);
    if (err != CUDA_SUCCESS) fail(d, err, "cuMemcpyDtoH", index, "of %lld bytes", (long long)size);
    /* A copy to pageable host memory waits for everything launched before it. */
    collect(d);
    pthread_mutex_unlock(&d->lock);
}

static void cuda_write(int32_t index, const void* src, const anydsl_buffer* dst, int64_t offset, int64_t size) {
    device* d = lock_device(index);
    CUresult err = cuMemcpyHtoD(at(dst, offset), src, (size_t)size);
    if (err != CUDA_SUCCESS) fail(d, err, "cuMemcpyHtoD", index, "of %lld bytes", (long long)size);
    pthread_mutex_unlock(&d->lock);
}

static void cuda_copy(int32_t index, const anydsl_buffer* src, int64_t offset_src, const anydsl_buffer* dst,
                      int64_t offset_dst, int64_t size) {
    device* d = lock_device(index);
    CUresult err = cuMemcpyDtoD(at(dst, offset_dst), at(src, offset_src), (size_t)size);
    if (err != CUDA_SUCCESS) fail(d, err, "cuMemcpyDtoD", index, "of %lld bytes", (long long)size);
    pthread_mutex_unlock(&d->lock);
}

static anydsl_kernel* kernel_of(device* d, int32_t index, const anydsl_launch* l) {
    anydsl_program* program = anydsl_find_program(d->programs, l);
    if (!program) {
        char log[16384] = "";
        CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void* values[] = {log, (void*)(uintptr_t)(sizeof log - 1)};
        CUmodule module;
        CUresult err = cuModuleLoadDataEx(&module, l->program, 2, options, values);
        if (err != CUDA_SUCCESS)
            anydsl_device_fatal("CUDA error %d (%s) in cuModuleLoadDataEx: %s (kernel %s) does not load on device %d (%s):\n%s",
                                err, error_name(err), anydsl_program_label(l), l->kernel_name,
                                ANYDSL_PLATFORM_CUDA | index << 4, d->name, *log ? log : "(the JIT log is empty)");
        program = anydsl_add_program(&d->programs, l, module);
    }
    anydsl_kernel* cached = anydsl_find_kernel(program, l->kernel_name);
    if (cached) return cached;
    CUfunction function;
    CUresult err = cuModuleGetFunction(&function, program->handle, l->kernel_name);
    if (err != CUDA_SUCCESS)
        fail(d, err, "cuModuleGetFunction", index, "of kernel %s (%s has no such kernel?)", l->kernel_name,
             anydsl_program_label(l));
    return anydsl_add_kernel(program, l->kernel_name, function);
}

static void cuda_launch(int32_t index, const anydsl_launch* l) {
    device* d = lock_device(index);
    anydsl_kernel* k = kernel_of(d, index, l);
    if (!anydsl_pending_room(&d->pending, l->kernel_name)) finish(d, index);
    CUevent start, end;
    CUresult err;
    if ((err = cuEventCreate(&start, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
        (err = cuEventCreate(&end, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
        (err = cuEventRecord(start, NULL)) != CUDA_SUCCESS)
        fail(d, err, "cuEventCreate", index, "for kernel %s", l->kernel_name);
    /* Buffer arguments are device addresses already (memory.c checked them), so each
     * argument's bytes are what cuLaunchKernel reads. */
    err = cuLaunchKernel(k->handle, (unsigned)(l->grid[0] / l->block[0]), (unsigned)(l->grid[1] / l->block[1]),
                         (unsigned)(l->grid[2] / l->block[2]), (unsigned)l->block[0], (unsigned)l->block[1],
                         (unsigned)l->block[2], 0, NULL, l->args, NULL);
    if (err != CUDA_SUCCESS) fail(d, err, "cuLaunchKernel", index, "of kernel %s", l->kernel_name);
    if ((err = cuEventRecord(end, NULL)) != CUDA_SUCCESS)
        fail(d, err, "cuEventRecord", index, "after kernel %s", l->kernel_name);
    d->pending.items[d->pending.len++] = (anydsl_pending){.first = start, .second = end, .kernel = k->name};
    pthread_mutex_unlock(&d->lock);
}

static void cuda_synchronize(int32_t index) {
    device* d = lock_device(index);
    finish(d, index);
    pthread_mutex_unlock(&d->lock);
}

const anydsl_platform anydsl_cuda_platform = {
    .name = "CUDA",
    .device_count = cuda_device_count,
    .missing = cuda_missing,
    .is_gpu = cuda_is_gpu,
    .device_name = cuda_device_name,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .read = cuda_read,
    .write = cuda_write,
    .copy = cuda_copy,
    .launch = cuda_launch,
    .synchronize = cuda_synchronize,
};
