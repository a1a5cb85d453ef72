/*
 * The OpenCL platform, through the ICD loader (libOpenCL.so.1) opened with dlopen on first
 * use: nothing OpenCL is needed to build or load an artifact, only to run a device on it.
 * Every device of every OpenCL platform gets an index, in the order the loader lists them.
 * Each device has one context and one in-order, profiling command queue; programs are
 * built once per device and kept with their kernels; device memory is cl_mem handles
 * (memory.c checks every use). Kernel time comes from the launches' profiling events,
 * collected when the device is synchronised or read.
 */
#include "device.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The part of the OpenCL API used here, declared from the Khronos headers' values so that
 * the runtime builds where they are not installed. */
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef uint64_t cl_bitfield;
typedef intptr_t cl_context_properties;
typedef struct _cl_platform_id* cl_platform_id;
typedef struct _cl_device_id* cl_device_id;
typedef struct _cl_context* cl_context;
typedef struct _cl_command_queue* cl_command_queue;
typedef struct _cl_mem* cl_mem;
typedef struct _cl_program* cl_program;
typedef struct _cl_kernel* cl_kernel;
typedef struct _cl_event* cl_event;

#define CL_SUCCESS 0
#define CL_DEVICE_NOT_FOUND (-1)
#define CL_BUILD_PROGRAM_FAILURE (-11)
#define CL_PLATFORM_NOT_FOUND_KHR (-1001)
#define CL_TRUE 1u
#define CL_PLATFORM_NAME 0x0902u
#define CL_DEVICE_TYPE_GPU (1u << 2)
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define CL_DEVICE_TYPE 0x1000u
#define CL_DEVICE_NAME 0x102Bu
#define CL_DEVICE_SVM_CAPABILITIES 0x1053u
#define CL_DEVICE_SINGLE_FP_CONFIG 0x101Bu
#define CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT (1u << 7)
#define CL_DEVICE_SVM_FINE_GRAIN_BUFFER (1u << 1)
#define CL_QUEUE_PROFILING_ENABLE (1u << 1)
#define CL_MEM_READ_WRITE (1u << 0)
#define CL_MEM_ALLOC_HOST_PTR (1u << 4)
#define CL_MEM_SVM_FINE_GRAIN_BUFFER (1u << 10)
#define CL_MAP_READ (1u << 0)
#define CL_MAP_WRITE (1u << 1)
#define CL_PROGRAM_BUILD_LOG 0x1183u
#define CL_KERNEL_NUM_ARGS 0x1191u
#define CL_EVENT_COMMAND_EXECUTION_STATUS 0x11D3u
#define CL_PROFILING_COMMAND_START 0x1282u
#define CL_PROFILING_COMMAND_END 0x1283u

#define CL_API(X)                                                                                                  \
    X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id*, cl_uint*))                                              \
    X(clGetPlatformInfo, cl_int, (cl_platform_id, cl_uint, size_t, void*, size_t*))                                \
    X(clGetDeviceIDs, cl_int, (cl_platform_id, cl_bitfield, cl_uint, cl_device_id*, cl_uint*))                     \
    X(clGetDeviceInfo, cl_int, (cl_device_id, cl_uint, size_t, void*, size_t*))                                    \
    X(clCreateContext, cl_context,                                                                                 \
      (const cl_context_properties*, cl_uint, const cl_device_id*, void (*)(const char*, const void*, size_t, void*), \
       void*, cl_int*))                                                                                            \
    X(clCreateCommandQueue, cl_command_queue, (cl_context, cl_device_id, cl_bitfield, cl_int*))                    \
    X(clCreateBuffer, cl_mem, (cl_context, cl_bitfield, size_t, void*, cl_int*))                                   \
    X(clReleaseMemObject, cl_int, (cl_mem))                                                                        \
    X(clEnqueueReadBuffer, cl_int,                                                                                 \
      (cl_command_queue, cl_mem, cl_uint, size_t, size_t, void*, cl_uint, const cl_event*, cl_event*))             \
    X(clEnqueueWriteBuffer, cl_int,                                                                                \
      (cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void*, cl_uint, const cl_event*, cl_event*))       \
    X(clEnqueueCopyBuffer, cl_int,                                                                                 \
      (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event*, cl_event*))             \
    X(clEnqueueMapBuffer, void*,                                                                                   \
      (cl_command_queue, cl_mem, cl_uint, cl_bitfield, size_t, size_t, cl_uint, const cl_event*, cl_event*,        \
       cl_int*))                                                                                                   \
    X(clEnqueueUnmapMemObject, cl_int, (cl_command_queue, cl_mem, void*, cl_uint, const cl_event*, cl_event*))     \
    X(clCreateProgramWithSource, cl_program, (cl_context, cl_uint, const char**, const size_t*, cl_int*))          \
    X(clBuildProgram, cl_int,                                                                                      \
      (cl_program, cl_uint, const cl_device_id*, const char*, void (*)(cl_program, void*), void*))                 \
    X(clGetProgramBuildInfo, cl_int, (cl_program, cl_device_id, cl_uint, size_t, void*, size_t*))                  \
    X(clCreateKernel, cl_kernel, (cl_program, const char*, cl_int*))                                               \
    X(clGetKernelInfo, cl_int, (cl_kernel, cl_uint, size_t, void*, size_t*))                                       \
    X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, size_t, const void*))                                           \
    X(clEnqueueNDRangeKernel, cl_int,                                                                              \
      (cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*, cl_uint, const cl_event*, \
       cl_event*))                                                                                                 \
    X(clFinish, cl_int, (cl_command_queue))                                                                        \
    X(clGetEventInfo, cl_int, (cl_event, cl_uint, size_t, void*, size_t*))                                         \
    X(clGetEventProfilingInfo, cl_int, (cl_event, cl_uint, size_t, void*, size_t*))                                \
    X(clReleaseEvent, cl_int, (cl_event))

/* OpenCL 2.0, for unified memory: optional, as older loaders lack them. */
#define CL_API_OPTIONAL(X)                                                                                         \
    X(clSVMAlloc, void*, (cl_context, cl_bitfield, size_t, cl_uint))                                               \
    X(clSVMFree, void, (cl_context, void*))                                                                        \
    X(clSetKernelArgSVMPointer, cl_int, (cl_kernel, cl_uint, const void*))

#define DECLARE(name, ret, params) static ret(*name) params;
CL_API(DECLARE)
CL_API_OPTIONAL(DECLARE)
#undef DECLARE

static const char* error_name(cl_int err) {
    switch (err) {
        case 0: return "CL_SUCCESS";
        case -1: return "CL_DEVICE_NOT_FOUND";
        case -2: return "CL_DEVICE_NOT_AVAILABLE";
        case -3: return "CL_COMPILER_NOT_AVAILABLE";
        case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
        case -5: return "CL_OUT_OF_RESOURCES";
        case -6: return "CL_OUT_OF_HOST_MEMORY";
        case -7: return "CL_PROFILING_INFO_NOT_AVAILABLE";
        case -8: return "CL_MEM_COPY_OVERLAP";
        case -9: return "CL_IMAGE_FORMAT_MISMATCH";
        case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
        case -11: return "CL_BUILD_PROGRAM_FAILURE";
        case -12: return "CL_MAP_FAILURE";
        case -13: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
        case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
        case -15: return "CL_COMPILE_PROGRAM_FAILURE";
        case -16: return "CL_LINKER_NOT_AVAILABLE";
        case -17: return "CL_LINK_PROGRAM_FAILURE";
        case -18: return "CL_DEVICE_PARTITION_FAILED";
        case -19: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
        case -30: return "CL_INVALID_VALUE";
        case -31: return "CL_INVALID_DEVICE_TYPE";
        case -32: return "CL_INVALID_PLATFORM";
        case -33: return "CL_INVALID_DEVICE";
        case -34: return "CL_INVALID_CONTEXT";
        case -35: return "CL_INVALID_QUEUE_PROPERTIES";
        case -36: return "CL_INVALID_COMMAND_QUEUE";
        case -37: return "CL_INVALID_HOST_PTR";
        case -38: return "CL_INVALID_MEM_OBJECT";
        case -39: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
        case -40: return "CL_INVALID_IMAGE_SIZE";
        case -41: return "CL_INVALID_SAMPLER";
        case -42: return "CL_INVALID_BINARY";
        case -43: return "CL_INVALID_BUILD_OPTIONS";
        case -44: return "CL_INVALID_PROGRAM";
        case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
        case -46: return "CL_INVALID_KERNEL_NAME";
        case -47: return "CL_INVALID_KERNEL_DEFINITION";
        case -48: return "CL_INVALID_KERNEL";
        case -49: return "CL_INVALID_ARG_INDEX";
        case -50: return "CL_INVALID_ARG_VALUE";
        case -51: return "CL_INVALID_ARG_SIZE";
        case -52: return "CL_INVALID_KERNEL_ARGS";
        case -53: return "CL_INVALID_WORK_DIMENSION";
        case -54: return "CL_INVALID_WORK_GROUP_SIZE";
        case -55: return "CL_INVALID_WORK_ITEM_SIZE";
        case -56: return "CL_INVALID_GLOBAL_OFFSET";
        case -57: return "CL_INVALID_EVENT_WAIT_LIST";
        case -58: return "CL_INVALID_EVENT";
        case -59: return "CL_INVALID_OPERATION";
        case -60: return "CL_INVALID_GL_OBJECT";
        case -61: return "CL_INVALID_BUFFER_SIZE";
        case -62: return "CL_INVALID_MIP_LEVEL";
        case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
        case -64: return "CL_INVALID_PROPERTY";
        case -65: return "CL_INVALID_IMAGE_DESCRIPTOR";
        case -66: return "CL_INVALID_COMPILER_OPTIONS";
        case -67: return "CL_INVALID_LINKER_OPTIONS";
        case -68: return "CL_INVALID_DEVICE_PARTITION_COUNT";
        case -69: return "CL_INVALID_PIPE_SIZE";
        case -70: return "CL_INVALID_DEVICE_QUEUE";
        case -71: return "CL_INVALID_SPEC_ID";
        case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
        case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
        default: return "unknown error";
    }
}

typedef struct {
    cl_device_id id;
    char name[320];
    int gpu;
    int fine_grained_svm;
    /* The options programs are built with (set in load_library). */
    const char* build_options;
    /* Guards everything below: launches set arguments on shared kernel objects. */
    pthread_mutex_t lock;
    int ready;
    cl_context context;
    cl_command_queue queue;
    anydsl_program* programs;
    anydsl_pending_list pending;
} device;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char missing[640];
static device* devices;
static int32_t device_count;

static const char* label(int32_t index) { return anydsl_device_label(ANYDSL_PLATFORM_OPENCL | index << 4); }

/* "OpenCL error -5 (CL_OUT_OF_RESOURCES) in clEnqueueNDRangeKernel of kernel K on device 2 (OpenCL 0)" */
#define fail(err, call, index, ...) \
    anydsl_call_failed("OpenCL", err, error_name(err), call, ANYDSL_PLATFORM_OPENCL | (index) << 4, __VA_ARGS__)

static void load_library(void* lib) {
    const char* absent = NULL;
#define RESOLVE(name, ret, params)                                    \
    name = (ret(*) params)dlsym(lib, #name);                          \
    if (!name && !absent) absent = #name;
    CL_API(RESOLVE)
#undef RESOLVE
    if (absent) {
        snprintf(missing, sizeof missing, "no OpenCL: libOpenCL.so.1 lacks %s; install ocl-icd-libopencl1", absent);
        return;
    }
#define RESOLVE_OPTIONAL(name, ret, params) name = (ret(*) params)dlsym(lib, #name);
    CL_API_OPTIONAL(RESOLVE_OPTIONAL)
#undef RESOLVE_OPTIONAL
    cl_uint platform_count = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &platform_count);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && platform_count == 0)) {
        snprintf(missing, sizeof missing, "no OpenCL platform: install pocl-opencl-icd (CPU) or a GPU driver");
        return;
    }
    if (err != CL_SUCCESS) {
        snprintf(missing, sizeof missing, "no OpenCL: clGetPlatformIDs fails with %d (%s)", err, error_name(err));
        return;
    }
    cl_platform_id* platforms = calloc(platform_count, sizeof *platforms);
    if (!platforms || clGetPlatformIDs(platform_count, platforms, NULL) != CL_SUCCESS) {
        snprintf(missing, sizeof missing, "no OpenCL: the platforms cannot be listed");
        free(platforms);
        return;
    }
    for (cl_uint p = 0; p < platform_count; p++) {
        cl_uint n = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n) != CL_SUCCESS || n == 0) continue;
        cl_device_id* ids = calloc(n, sizeof *ids);
        device* grown = realloc(devices, (size_t)(device_count + (int32_t)n) * sizeof *grown);
        if (!ids || !grown || clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, n, ids, NULL) != CL_SUCCESS) {
            free(ids);
            if (grown) devices = grown;
            continue;
        }
        devices = grown;
        char platform_name[128] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name, NULL);
        for (cl_uint i = 0; i < n; i++) {
            device* d = &devices[device_count];
            memset(d, 0, sizeof *d);
            d->id = ids[i];
            pthread_mutex_init(&d->lock, NULL);
            char device_name[128] = "";
            clGetDeviceInfo(ids[i], CL_DEVICE_NAME, sizeof device_name - 1, device_name, NULL);
            snprintf(d->name, sizeof d->name, "OpenCL %d: %s, %s", device_count, platform_name, device_name);
            cl_bitfield type = 0, svm = 0;
            clGetDeviceInfo(ids[i], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            d->gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
            /* Older devices do not know the query and leave svm 0. */
            clGetDeviceInfo(ids[i], CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
            d->fine_grained_svm = (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) && clSVMAlloc && clSVMFree &&
                                  clSetKernelArgSVMPointer;
            /* f32 division and sqrt correctly rounded, as on the CPU and in NVVM's div.rn/sqrt.rn, where
             * the device can: OpenCL's default allows 2.5 and 3 ulp, and the option is an error elsewhere. */
            cl_bitfield fp32 = 0;
            clGetDeviceInfo(ids[i], CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp32, &fp32, NULL);
            d->build_options = fp32 & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
            device_count++;
        }
        free(ids);
    }
    free(platforms);
    if (device_count == 0)
        snprintf(missing, sizeof missing,
                 "no OpenCL device: the OpenCL platforms offer none; install pocl-opencl-icd (CPU) or a GPU driver");
}

static void load(void) {
    void* lib = anydsl_open_driver("libOpenCL.so.1", "OpenCL",
                                   "install ocl-icd-libopencl1 and pocl-opencl-icd (CPU) or a GPU's OpenCL driver",
                                   missing, sizeof missing);
    if (lib) load_library(lib);
}

static int32_t opencl_device_count(void) {
    pthread_once(&loaded, load);
    return device_count;
}

static const char* opencl_missing(void) { return missing; }
static int opencl_is_gpu(int32_t index) { return devices[index].gpu; }
static const char* opencl_device_name(int32_t index) { return devices[index].name; }

/* Locks the device and creates its context and queue on first use. */
static device* lock_device(int32_t index) {
    device* d = &devices[index];
    pthread_mutex_lock(&d->lock);
    if (!d->ready) {
        cl_int err;
        d->context = clCreateContext(NULL, 1, &d->id, NULL, NULL, &err);
        if (err != CL_SUCCESS) fail(err, "clCreateContext", index, "for %s", d->name);
        d->queue = clCreateCommandQueue(d->context, d->id, CL_QUEUE_PROFILING_ENABLE, &err);
        if (err != CL_SUCCESS) fail(err, "clCreateCommandQueue", index, "for %s", d->name);
        d->ready = 1;
    }
    return d;
}

/* Called once everything enqueued has finished: reports a failed kernel, adds the
 * kernels' time, releases their events. */
static void collect(device* d, int32_t index) {
    for (size_t i = 0; i < d->pending.len; i++) {
        anydsl_pending* p = &d->pending.items[i];
        cl_event event = p->first;
        cl_int status = 0;
        cl_int err = clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
        if (err == CL_SUCCESS && status < 0) fail(status, "the execution", index, "of kernel %s", p->kernel);
        cl_ulong start = 0, end = 0;
        if (clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) == CL_SUCCESS &&
            end > start)
            anydsl_add_kernel_time((int64_t)(end - start));
        clReleaseEvent(event);
    }
    d->pending.len = 0;
}

static void finish(device* d, int32_t index) {
    cl_int err = clFinish(d->queue);
    const char* last = d->pending.len ? d->pending.items[d->pending.len - 1].kernel : NULL;
    collect(d, index);
    if (err != CL_SUCCESS) {
        if (last) fail(err, "clFinish", index, "after kernel %s", last);
        fail(err, "clFinish", index, "of the command queue");
    }
}

static void opencl_alloc(int32_t index, int64_t size, anydsl_buffer* b) {
    device* d = lock_device(index);
    cl_int err;
    switch (b->kind) {
        case ANYDSL_MEM_DEVICE: {
            cl_mem mem = clCreateBuffer(d->context, CL_MEM_READ_WRITE, (size_t)size, NULL, &err);
            if (err != CL_SUCCESS) fail(err, "clCreateBuffer", index, "of %lld bytes", (long long)size);
            b->ptr = b->handle = mem;
            break;
        }
        case ANYDSL_MEM_HOST: {
            /* Memory the driver allocates for transfers (pinned on GPUs), mapped for the host for good. */
            cl_mem mem = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, (size_t)size, NULL, &err);
            if (err != CL_SUCCESS) fail(err, "clCreateBuffer", index, "of %lld bytes of host memory", (long long)size);
            b->ptr = clEnqueueMapBuffer(d->queue, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, (size_t)size, 0, NULL,
                                        NULL, &err);
            if (err != CL_SUCCESS) fail(err, "clEnqueueMapBuffer", index, "of %lld bytes of host memory", (long long)size);
            b->handle = mem;
            break;
        }
        default: {
            if (!d->fine_grained_svm)
                anydsl_device_fatal("anydsl_alloc_unified: %s (%s) has no fine-grained shared virtual memory; use "
                                    "anydsl_alloc and anydsl_copy",
                                    label(index), d->name);
            b->ptr = clSVMAlloc(d->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, (size_t)size, 0);
            if (!b->ptr)
                anydsl_device_fatal("anydsl_alloc_unified: clSVMAlloc of %lld bytes fails on %s", (long long)size,
                                    label(index));
            break;
        }
    }
    pthread_mutex_unlock(&d->lock);
}

static void opencl_release(int32_t index, const anydsl_buffer* b) {
    device* d = lock_device(index);
    cl_int err = CL_SUCCESS;
    switch (b->kind) {
        case ANYDSL_MEM_DEVICE:
            /* OpenCL keeps the memory until the kernels enqueued with it have finished. */
            err = clReleaseMemObject(b->handle);
            if (err != CL_SUCCESS) fail(err, "clReleaseMemObject", index, "of a %lld-byte buffer", (long long)b->size);
            break;
        case ANYDSL_MEM_HOST:
            err = clEnqueueUnmapMemObject(d->queue, b->handle, b->ptr, 0, NULL, NULL);
            if (err != CL_SUCCESS) fail(err, "clEnqueueUnmapMemObject", index, "of %lld bytes of host memory", (long long)b->size);
            err = clReleaseMemObject(b->handle);
            if (err != CL_SUCCESS) fail(err, "clReleaseMemObject", index, "of %lld bytes of host memory", (long long)b->size);
            break;
        default:
            /* clSVMFree does not wait for kernels that use the memory. */
            finish(d, index);
            clSVMFree(d->context, b->ptr);
            break;
    }
    pthread_mutex_unlock(&d->lock);
}

static void opencl_read(int32_t index, const anydsl_buffer* src, int64_t offset, void* dst, int64_t size) {
    device* d = lock_device(index);
    cl_int err = clEnqueueReadBuffer(d->queue, src->handle, CL_TRUE, (size_t)offset, (size_t)size, dst, 0, NULL, NULL);
    if (err != CL_SUCCESS) fail(err, "clEnqueueReadBuffer", index, "of %lld bytes", (long long)size);
    /* The queue is in order: the blocking read saw every earlier kernel finish. */
    collect(d, index);
    pthread_mutex_unlock(&d->lock);
}

static void opencl_write(int32_t index, const void* src, const anydsl_buffer* dst, int64_t offset, int64_t size) {
    device* d = lock_device(index);
    /* Blocking: the program may reuse or free its host memory as soon as the copy returns. */
    cl_int err = clEnqueueWriteBuffer(d->queue, dst->handle, CL_TRUE, (size_t)offset, (size_t)size, src, 0, NULL, NULL);
    if (err != CL_SUCCESS) fail(err, "clEnqueueWriteBuffer", index, "of %lld bytes", (long long)size);
    pthread_mutex_unlock(&d->lock);
}

static void opencl_copy(int32_t index, const anydsl_buffer* src, int64_t offset_src, const anydsl_buffer* dst,
                        int64_t offset_dst, int64_t size) {
    device* d = lock_device(index);
    cl_int err = clEnqueueCopyBuffer(d->queue, src->handle, dst->handle, (size_t)offset_src, (size_t)offset_dst,
                                     (size_t)size, 0, NULL, NULL);
    if (err != CL_SUCCESS) fail(err, "clEnqueueCopyBuffer", index, "of %lld bytes", (long long)size);
    pthread_mutex_unlock(&d->lock);
}

static anydsl_program* program_of(device* d, int32_t index, const anydsl_launch* l) {
    anydsl_program* cached = anydsl_find_program(d->programs, l);
    if (cached) return cached;
    cl_int err;
    const char* source = l->program;
    cl_program program = clCreateProgramWithSource(d->context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS) fail(err, "clCreateProgramWithSource", index, "of kernel %s", l->kernel_name);
    err = clBuildProgram(program, 1, &d->id, d->build_options, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t log_size = 0;
        clGetProgramBuildInfo(program, d->id, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
        char* log = calloc(log_size + 1, 1);
        if (log) clGetProgramBuildInfo(program, d->id, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
        anydsl_device_fatal("OpenCL error %d (%s) in clBuildProgram: %s (kernel %s) does not build on device %d (%s):\n%s",
                            err, error_name(err), anydsl_program_label(l), l->kernel_name,
                            ANYDSL_PLATFORM_OPENCL | index << 4, d->name, log && *log ? log : "(the build log is empty)");
    }
    return anydsl_add_program(&d->programs, l, program);
}

static anydsl_kernel* kernel_of(device* d, int32_t index, const anydsl_launch* l) {
    anydsl_program* program = program_of(d, index, l);
    anydsl_kernel* cached = anydsl_find_kernel(program, l->kernel_name);
    if (cached) return cached;
    cl_int err;
    cl_kernel kernel = clCreateKernel(program->handle, l->kernel_name, &err);
    if (err != CL_SUCCESS)
        fail(err, "clCreateKernel", index, "of kernel %s (%s has no such kernel?)", l->kernel_name,
             anydsl_program_label(l));
    cl_uint params = 0;
    err = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof params, &params, NULL);
    if (err != CL_SUCCESS) fail(err, "clGetKernelInfo", index, "of kernel %s", l->kernel_name);
    if ((int64_t)params != l->num_args)
        anydsl_device_fatal("kernel %s on %s takes %u argument%s, the launch passes %d", l->kernel_name, label(index),
                            params, params == 1 ? "" : "s", l->num_args);
    return anydsl_add_kernel(program, l->kernel_name, kernel);
}

static void opencl_launch(int32_t index, const anydsl_launch* l) {
    device* d = lock_device(index);
    anydsl_kernel* k = kernel_of(d, index, l);
    cl_kernel kernel = k->handle;
    for (int32_t i = 0; i < l->num_args; i++) {
        const anydsl_buffer* b = l->buffers[i];
        cl_int err;
        if (!b) err = clSetKernelArg(kernel, (cl_uint)i, (size_t)l->arg_sizes[i], l->args[i]);
        else if (b->kind == ANYDSL_MEM_DEVICE) err = clSetKernelArg(kernel, (cl_uint)i, sizeof(cl_mem), &b->handle);
        else if (b->kind == ANYDSL_MEM_UNIFIED) err = clSetKernelArgSVMPointer(kernel, (cl_uint)i, b->ptr);
        else
            anydsl_device_fatal("argument %d of kernel %s is host memory (anydsl_alloc_host) of %s, which OpenCL "
                                "kernels cannot address; copy it into a buffer from anydsl_alloc",
                                i, l->kernel_name, label(index));
        if (err != CL_SUCCESS) fail(err, "clSetKernelArg", index, "of argument %d of kernel %s", i, l->kernel_name);
    }
    if (!anydsl_pending_room(&d->pending, l->kernel_name)) finish(d, index);
    cl_event event;
    cl_int err = clEnqueueNDRangeKernel(d->queue, kernel, 3, NULL, l->grid, l->block, 0, NULL, &event);
    if (err != CL_SUCCESS) fail(err, "clEnqueueNDRangeKernel", index, "of kernel %s", l->kernel_name);
    d->pending.items[d->pending.len++] = (anydsl_pending){.first = event, .kernel = k->name};
    pthread_mutex_unlock(&d->lock);
}

static void opencl_synchronize(int32_t index) {
    device* d = lock_device(index);
    finish(d, index);
    pthread_mutex_unlock(&d->lock);
}

const anydsl_platform anydsl_opencl_platform = {
    .name = "OpenCL",
    .device_count = opencl_device_count,
    .missing = opencl_missing,
    .is_gpu = opencl_is_gpu,
    .device_name = opencl_device_name,
    .alloc = opencl_alloc,
    .release = opencl_release,
    .read = opencl_read,
    .write = opencl_write,
    .copy = opencl_copy,
    .launch = opencl_launch,
    .synchronize = opencl_synchronize,
};
