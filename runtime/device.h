/*
 * Internal interface between the platform-neutral entry points (device.c: selection,
 * launch, synchronisation, kernel time; memory.c: allocation and copies) and the
 * accelerator platforms (cuda.c, opencl.c). Not part of the ABI compiled code sees.
 *
 * The generic side validates everything it can (device numbers, buffer ownership, copy
 * bounds, launch geometry) so that each platform only translates to its API, and so that
 * the messages read the same on every platform.
 */
#ifndef ANYDSL_DEVICE_H
#define ANYDSL_DEVICE_H

#include "anydsl_runtime.h"

#include <stddef.h>

/* What an accelerator allocation is, as the buffer table records it. */
enum { ANYDSL_MEM_DEVICE, ANYDSL_MEM_HOST, ANYDSL_MEM_UNIFIED };

typedef struct {
    /* What the program holds: a cl_mem or CUdeviceptr for device memory, a host address
     * for host and unified memory. */
    void* ptr;
    /* What the platform needs besides ptr (OpenCL: the cl_mem behind mapped host memory). */
    void* handle;
    int64_t size;
    int32_t dev;
    uint8_t kind;
    /* anydsl_launch_count(dev) when the guard after the end was last found intact. */
    uint64_t guard_checked;
} anydsl_buffer;

typedef struct {
    int32_t dev;
    const char* program_key; /* NULL: the program text is its own key */
    const char* program;
    const char* kernel_name;
    size_t grid[3];
    size_t block[3];
    void** args;
    const int64_t* arg_sizes;
    /* One per argument: NULL for a plain value, else the (validated) buffer it names. */
    const anydsl_buffer* const* buffers;
    int32_t num_args;
} anydsl_launch;

typedef struct {
    const char* name; /* "CUDA", "OpenCL" */
    /* Loads the platform on first call (thread-safe); 0 when it is not there. */
    int32_t (*device_count)(void);
    /* Why device_count is 0: one line that names what to install. */
    const char* (*missing)(void);
    int (*is_gpu)(int32_t index);
    /* "OpenCL 0: Portable Computing Language, pthread-..."; lives as long as the program. */
    const char* (*device_name)(int32_t index);
    /* Fills ptr and handle; size > 0. */
    void (*alloc)(int32_t index, int64_t size, anydsl_buffer* buffer);
    void (*release)(int32_t index, const anydsl_buffer* buffer);
    /* Device memory to and from host memory, and within one device; bounds are checked. */
    void (*read)(int32_t index, const anydsl_buffer* src, int64_t offset, void* dst, int64_t size);
    void (*write)(int32_t index, const void* src, const anydsl_buffer* dst, int64_t offset, int64_t size);
    void (*copy)(int32_t index, const anydsl_buffer* src, int64_t offset_src, const anydsl_buffer* dst,
                 int64_t offset_dst, int64_t size);
    void (*launch)(int32_t index, const anydsl_launch* launch);
    void (*synchronize)(int32_t index);
} anydsl_platform;

/* A platform's cache of device programs (one list per device), each with its kernels;
 * handles are the platform's (cl_program / CUmodule, cl_kernel / CUfunction). Callers
 * hold their device's lock. */
typedef struct anydsl_kernel {
    struct anydsl_kernel* next;
    char* name;
    void* handle;
} anydsl_kernel;

typedef struct anydsl_program {
    struct anydsl_program* next;
    char* key; /* NULL when the source is its own key */
    char* source;
    /* The caller's text last found equal to source: compiled programs pass the same
     * constant every launch, which then costs no string comparison. */
    const char* verified;
    void* handle;
    anydsl_kernel* kernels;
} anydsl_program;

/* The program cached under launch->program_key (or its source), or NULL; a key that
 * names two different sources is fatal rather than running the wrong code. */
anydsl_program* anydsl_find_program(anydsl_program* list, const anydsl_launch* launch);
anydsl_program* anydsl_add_program(anydsl_program** list, const anydsl_launch* launch, void* handle);
anydsl_kernel* anydsl_find_kernel(anydsl_program* program, const char* name);
anydsl_kernel* anydsl_add_kernel(anydsl_program* program, const char* name, void* handle);
/* "program KEY" or "the program" (no key): for messages. */
const char* anydsl_program_label(const anydsl_launch* launch);

extern const anydsl_platform anydsl_cuda_platform;
extern const anydsl_platform anydsl_opencl_platform;

/* The platform of an accelerator device that exists (fatal otherwise: unknown platform,
 * platform not installed, index out of range); `what` starts the message. */
const anydsl_platform* anydsl_accelerator(int32_t dev, const char* what);
/* "device 2 (OpenCL 0)": for messages; the string is static per thread. */
const char* anydsl_device_label(int32_t dev);

/* The accelerator allocation (memory.c's table) that ptr starts or, for addressable
 * memory (CUDA's, host and unified memory), points into; inner is ptr's offset in it. */
int anydsl_buffer_of(const void* ptr, anydsl_buffer* found, int64_t* inner);

/* The kernel launched last on dev (copied into out), or "none"; for messages. */
const char* anydsl_last_kernel(int32_t dev, char* out, size_t size);
/* How many kernels have been launched on dev so far. */
uint64_t anydsl_launch_count(int32_t dev);

/* Launches a platform has yet to collect (their events, their time), in launch order. */
typedef struct {
    void* first;  /* OpenCL: the launch's event; CUDA: the start event */
    void* second; /* CUDA: the end event */
    const char* kernel; /* the cached kernel's name */
} anydsl_pending;

typedef struct {
    anydsl_pending* items;
    size_t len, cap;
} anydsl_pending_list;

/* Makes room for one more launch; 0 when so many are pending that the platform must
 * synchronise and collect them first (which empties the list). */
int anydsl_pending_room(anydsl_pending_list* list, const char* kernel);

/* Opens a driver library; NULL with missing set to "no <platform>: <library> cannot be
 * loaded (<why>); <install>" when it cannot be. */
void* anydsl_open_driver(const char* library, const char* platform, const char* install, char* missing, size_t size);

/* Reports a failed driver call and ends the program:
 * "<platform> error <err> (<name>) in <call> <what> on device 2 (OpenCL 0)". */
void anydsl_call_failed(const char* platform, long err, const char* name, const char* call, int32_t dev,
                        const char* fmt, ...) __attribute__((noreturn, format(printf, 6, 7)));

/* Adds finished kernels' time (nanoseconds) to anydsl_get_kernel_time. */
void anydsl_add_kernel_time(int64_t nanoseconds);

/* An error of the program's environment or of its use of a device (no such platform, a
 * failing API call, a host pointer passed as a buffer): the message on stderr, all output
 * flushed, exit status 1. See fatal.c for why this is not abort(). */
void anydsl_device_fatal(const char* fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
