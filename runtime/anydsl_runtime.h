/*
 * The C ABI every compiled AnyDSL artifact links against. The backend emits calls
 * to exactly these symbols, so a signature change here is a change to the compiler's
 * contract with native code (docs/architecture.md, "The runtime").
 *
 * Device numbers are platform | (index << 4): platform 0 is the CPU, 1 CUDA, 2 OpenCL.
 * The accelerator platforms are loaded with dlopen on first use (libcuda.so.1,
 * libOpenCL.so.1), so an artifact loads and runs its CPU code on machines without them.
 */
#ifndef ANYDSL_RUNTIME_H
#define ANYDSL_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { ANYDSL_PLATFORM_HOST = 0, ANYDSL_PLATFORM_CUDA = 1, ANYDSL_PLATFORM_OPENCL = 2 };

/* Device memory: on the CPU a 64-byte aligned block; on CUDA a device pointer
 * (CUdeviceptr); on OpenCL a cl_mem handle. Only pointers returned here for that
 * device may be passed to its kernels or copies. */
void* anydsl_alloc(int32_t dev, int64_t size);
/* Host memory the device reaches fast (pinned on CUDA, a host-visible buffer on OpenCL
 * mapped for the host); an ordinary host pointer for every runtime function. */
void* anydsl_alloc_host(int32_t dev, int64_t size);
/* Memory both the host and the device address with the same pointer (managed on CUDA,
 * fine-grained SVM on OpenCL where the device has it; the CPU's plain allocation on host). */
void* anydsl_alloc_unified(int32_t dev, int64_t size);
void anydsl_release(int32_t dev, void* ptr);
/* Copies size bytes host<->device or device<->device; offsets are in bytes. */
void anydsl_copy(int32_t dev_src, const void* src, int64_t offset_src,
                 int32_t dev_dst, void* dst, int64_t offset_dst, int64_t size);

/* Launches kernel_name of the device program (PTX text for CUDA, OpenCL C source for
 * OpenCL), built once per device and cached under program_key (unique and stable, e.g.
 * the program's content hash). grid is the total number of work items per dimension
 * (OpenCL's convention; CUDA's grid is grid / block), block the work-group size.
 * args[i] points at the bytes (arg_sizes[i]) of argument i; arg_kinds[i] is 0 for a plain
 * value and 1 for a device buffer returned by anydsl_alloc(dev, ...). The launch is
 * asynchronous: anydsl_synchronize(dev) waits for it. */
void anydsl_launch_kernel(int32_t dev, const char* program_key, const char* program, const char* kernel_name,
                          const int32_t* grid, const int32_t* block, void** args, const int64_t* arg_sizes,
                          const uint8_t* arg_kinds, int32_t num_args);
void anydsl_synchronize(int32_t dev);

/* "auto" | "cuda" | "opencl" | "host", or NULL for the ANYDSL_DEVICE environment variable
 * (auto when unset): auto prefers an NVIDIA GPU (CUDA), then an OpenCL GPU, then any
 * OpenCL device (PoCL's CPU device), then the host. An explicit platform that is not
 * there stops the program with one line naming what to install. */
int32_t anydsl_device_pick(const char* request);
/* NULL when anydsl_device_pick(request) would succeed, else the line it would stop the
 * program with (what to install): for hosts, such as the apps in node, that report it
 * themselves. The string is valid until the thread's next call. */
const char* anydsl_device_unavailable(const char* request);
/* e.g. "OpenCL 0: Portable Computing Language, cpu-..."; the string lives as long as the program. */
const char* anydsl_device_name(int32_t dev);

void anydsl_print_i16(int16_t v);
void anydsl_print_i32(int32_t v);
void anydsl_print_i64(int64_t v);
void anydsl_print_u16(uint16_t v);
void anydsl_print_u32(uint32_t v);
void anydsl_print_u64(uint64_t v);
void anydsl_print_f32(float v);
void anydsl_print_f64(double v);
void anydsl_print_f64_fixed(double v, int32_t digits);
void anydsl_print_char(uint8_t c);
void anydsl_print_string(const char* s);
void anydsl_print_flush(void);

int64_t anydsl_get_micro_time(void);
int64_t anydsl_get_nano_time(void);
/* Microseconds spent in device kernels so far (all devices; measured with profiling
 * events on OpenCL and CUDA events on CUDA, counted once the kernel is synchronised). */
int64_t anydsl_get_kernel_time(void);
/* Microseconds spent in copies to, from and between device buffers so far (all devices;
 * each copy timed after the kernels queued before it have finished, so that their time
 * stays theirs). For hosts reporting where a GPU pipeline's time goes. */
int64_t anydsl_get_copy_time(void);

void anydsl_parallel_for(int32_t num_threads, int32_t lower, int32_t upper, void* args,
                         void (*fn)(void* args, int32_t lower, int32_t upper));
int32_t anydsl_spawn_thread(void* args, void (*fn)(void* args));
void anydsl_sync_thread(int32_t id);

/* Task graphs (the 2018 runtime's, on TBB's flow graph): a task calls fn(payload) once
 * every task with an edge to it has run; anydsl_execute_graph starts the graph at root
 * and returns when every task it reached has run. Ids are never reused. */
typedef struct {
    void (*fn)(uint64_t payload);
    uint64_t payload;
} anydsl_closure;
int32_t anydsl_create_graph(void);
int32_t anydsl_create_task(int32_t graph, anydsl_closure closure);
void anydsl_create_edge(int32_t from, int32_t to);
void anydsl_execute_graph(int32_t graph, int32_t root);

/* The rest of the 2018 runtime.impala's bindings (compat.c). anydsl_info prints the
 * platforms and their devices. anydsl_get_device_ptr is the address kernels of dev use
 * for memory of anydsl_alloc_host(dev, ...) (an OpenCL buffer; the pointer itself
 * elsewhere). The random numbers are splitmix64 from one state shared by all threads:
 * anydsl_random_val_f32 is uniform in [0, 1) with 24 random bits. anydsl_is* are C's
 * isinf/isnan/isfinite as 0 or 1. */
void anydsl_info(void);
void* anydsl_get_device_ptr(int32_t dev, void* ptr);
void anydsl_release_host(int32_t dev, void* ptr);
void anydsl_random_seed(uint32_t seed);
uint64_t anydsl_random_val_u64(void);
float anydsl_random_val_f32(void);
int32_t anydsl_isinff(float x);
int32_t anydsl_isnanf(float x);
int32_t anydsl_isfinitef(float x);
int32_t anydsl_isinf(double x);
int32_t anydsl_isnan(double x);
int32_t anydsl_isfinite(double x);

/* Internal: reports a runtime error on stderr, flushes the program's output, aborts. */
void anydsl_fatal(const char* fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif
