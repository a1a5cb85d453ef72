/*
 * Devices: numbering and naming, the choice of a device (ANYDSL_DEVICE), and the
 * platform-neutral half of kernel launches (geometry and argument checks, then the
 * platform's launch), synchronisation and the kernel time total.
 */
#include "device.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const anydsl_platform* platform_of(int32_t platform) {
    switch (platform) {
        case ANYDSL_PLATFORM_CUDA: return &anydsl_cuda_platform;
        case ANYDSL_PLATFORM_OPENCL: return &anydsl_opencl_platform;
        default: return NULL;
    }
}

static const char* platform_word(int32_t dev) {
    switch (dev & 0xF) {
        case ANYDSL_PLATFORM_HOST: return "host";
        case ANYDSL_PLATFORM_CUDA: return "CUDA";
        case ANYDSL_PLATFORM_OPENCL: return "OpenCL";
        default: return "unknown platform";
    }
}

const char* anydsl_device_label(int32_t dev) {
    /* Several labels can appear in one message, so a few buffers take turns. */
    static _Thread_local char labels[4][64];
    static _Thread_local unsigned next;
    char* label = labels[next++ % 4];
    if (dev < 0) snprintf(label, sizeof labels[0], "device %d", dev);
    else snprintf(label, sizeof labels[0], "device %d (%s %d)", dev, platform_word(dev), dev >> 4);
    return label;
}

const anydsl_platform* anydsl_accelerator(int32_t dev, const char* what) {
    if (dev < 0 || ((dev & 0xF) == ANYDSL_PLATFORM_HOST && dev != 0))
        anydsl_device_fatal("%s: %s does not exist (devices are platform | index << 4 with platform 0 the host, "
                            "1 CUDA, 2 OpenCL; the host is device 0)",
                            what, anydsl_device_label(dev));
    const anydsl_platform* platform = platform_of(dev & 0xF);
    if (!platform)
        anydsl_device_fatal("%s: device %d has unknown platform %d (0 host, 1 CUDA, 2 OpenCL)", what, dev, dev & 0xF);
    int32_t count = platform->device_count();
    if (count == 0) anydsl_device_fatal("%s: %s: %s", what, anydsl_device_label(dev), platform->missing());
    if (dev >> 4 >= count)
        anydsl_device_fatal("%s: %s does not exist: %s has %d device%s", what, anydsl_device_label(dev),
                            platform->name, count, count == 1 ? "" : "s");
    return platform;
}

/* The first GPU of a platform, or -1. */
static int32_t first_gpu(const anydsl_platform* platform) {
    int32_t count = platform->device_count();
    for (int32_t i = 0; i < count; i++)
        if (platform->is_gpu(i)) return i;
    return -1;
}

/* The device a request names, or -1 with the reason written into why. */
static int32_t pick(const char* request, char* why, size_t why_size) {
#define REFUSE(...) return (snprintf(why, why_size, __VA_ARGS__), -1)
    const char* from = request ? "device request" : "ANYDSL_DEVICE";
    const char* r = request ? request : getenv("ANYDSL_DEVICE");
    if (!r || !*r) r = "auto";
    /* name, optionally ":index" */
    const char* colon = strchr(r, ':');
    size_t name_len = colon ? (size_t)(colon - r) : strlen(r);
    int32_t index = 0;
    if (colon) {
        char* end;
        long n = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end || n < 0 || n > 0x7FFFFFF)
            REFUSE("%s \"%s\": the index after ':' must be a number such as 0 or 1", from, r);
        index = (int32_t)n;
    }
#define IS(word) (name_len == strlen(word) && strncmp(r, word, name_len) == 0)
    if (IS("auto") && !colon) {
        /* An NVIDIA GPU through CUDA, then any OpenCL GPU, then any OpenCL device (PoCL's CPU). */
        if (anydsl_cuda_platform.device_count() > 0) return ANYDSL_PLATFORM_CUDA;
        int32_t gpu = first_gpu(&anydsl_opencl_platform);
        if (gpu >= 0) return ANYDSL_PLATFORM_OPENCL | gpu << 4;
        if (anydsl_opencl_platform.device_count() > 0) return ANYDSL_PLATFORM_OPENCL;
        return 0;
    }
    if (IS("host")) {
        if (index != 0) REFUSE("%s \"%s\": there is one host device, host:0", from, r);
        return 0;
    }
    const anydsl_platform* platform = IS("cuda") ? &anydsl_cuda_platform : IS("opencl") ? &anydsl_opencl_platform : NULL;
#undef IS
    if (!platform)
        REFUSE("%s \"%s\": expected auto, cuda, opencl or host (cuda and opencl optionally with an index, as in "
               "opencl:1)",
               from, r);
    int32_t count = platform->device_count();
    if (count == 0) REFUSE("%s \"%s\": %s", from, r, platform->missing());
    if (index >= count)
        REFUSE("%s \"%s\": %s has %d device%s, %.*s:0 to %.*s:%d", from, r, platform->name, count,
               count == 1 ? "" : "s", (int)name_len, r, (int)name_len, r, count - 1);
    return (platform == &anydsl_cuda_platform ? ANYDSL_PLATFORM_CUDA : ANYDSL_PLATFORM_OPENCL) | index << 4;
#undef REFUSE
}

int32_t anydsl_device_pick(const char* request) {
    char why[768];
    int32_t dev = pick(request, why, sizeof why);
    if (dev < 0) anydsl_device_fatal("%s", why);
    return dev;
}

const char* anydsl_device_unavailable(const char* request) {
    static _Thread_local char why[768];
    return pick(request, why, sizeof why) < 0 ? why : NULL;
}

const char* anydsl_device_name(int32_t dev) {
    if (dev == 0) return "host: the CPU";
    return anydsl_accelerator(dev, "anydsl_device_name")->device_name(dev >> 4);
}

/* The last kernel launched per device and the number of launches, for finding and
 * reporting damage later (a kernel that wrote past the end of a buffer, memory.c). */
enum { REMEMBERED_INDICES = 16, KERNEL_NAME = 128 };
static pthread_mutex_t remembered_lock = PTHREAD_MUTEX_INITIALIZER;
static char remembered[3][REMEMBERED_INDICES][KERNEL_NAME];
static uint64_t launches[3][REMEMBERED_INDICES];

static char* remembered_slot(int32_t dev) {
    int32_t platform = dev & 0xF, index = dev >> 4;
    return platform < 3 && index >= 0 && index < REMEMBERED_INDICES ? remembered[platform][index] : NULL;
}

static void remember_kernel(int32_t dev, const char* name) {
    char* slot = remembered_slot(dev);
    if (!slot) return;
    pthread_mutex_lock(&remembered_lock);
    snprintf(slot, KERNEL_NAME, "%s", name);
    launches[dev & 0xF][dev >> 4]++;
    pthread_mutex_unlock(&remembered_lock);
}

uint64_t anydsl_launch_count(int32_t dev) {
    /* Devices beyond the table always count as having run something new. */
    if (!remembered_slot(dev)) return UINT64_MAX;
    pthread_mutex_lock(&remembered_lock);
    uint64_t count = launches[dev & 0xF][dev >> 4];
    pthread_mutex_unlock(&remembered_lock);
    return count;
}

const char* anydsl_last_kernel(int32_t dev, char* out, size_t size) {
    char* slot = remembered_slot(dev);
    pthread_mutex_lock(&remembered_lock);
    snprintf(out, size, "%s", slot && *slot ? slot : "none");
    pthread_mutex_unlock(&remembered_lock);
    return out;
}

void anydsl_launch_kernel(int32_t dev, const char* program_key, const char* program, const char* kernel_name,
                          const int32_t* grid, const int32_t* block, void** args, const int64_t* arg_sizes,
                          const uint8_t* arg_kinds, int32_t num_args) {
    if (!kernel_name || !program)
        anydsl_device_fatal("anydsl_launch_kernel: the kernel name and the program must not be null");
    if (dev == 0)
        anydsl_device_fatal("anydsl_launch_kernel: kernel %s: device 0 is the host, which runs no device programs",
                            kernel_name);
    const anydsl_platform* platform = anydsl_accelerator(dev, "anydsl_launch_kernel");
    anydsl_launch l = {.dev = dev, .program_key = program_key, .program = program,
                       .kernel_name = kernel_name, .args = args, .arg_sizes = arg_sizes, .num_args = num_args};
    int geometry_ok = 1;
    for (int d = 0; d < 3; d++) {
        geometry_ok &= grid[d] > 0 && block[d] > 0 && grid[d] % block[d] == 0;
        l.grid[d] = grid[d] > 0 ? (size_t)grid[d] : 0;
        l.block[d] = block[d] > 0 ? (size_t)block[d] : 0;
    }
    if (!geometry_ok)
        anydsl_device_fatal("kernel %s on %s: grid (%d, %d, %d) and block (%d, %d, %d): the grid counts work items "
                            "and must be a non-empty multiple of the block",
                            kernel_name, anydsl_device_label(dev), grid[0], grid[1], grid[2], block[0], block[1],
                            block[2]);
    if (num_args < 0) anydsl_device_fatal("kernel %s: negative argument count %d", kernel_name, num_args);
    anydsl_buffer* found = calloc((size_t)num_args + 1, sizeof *found);
    const anydsl_buffer** buffers = calloc((size_t)num_args + 1, sizeof *buffers);
    if (!found || !buffers) anydsl_device_fatal("kernel %s: out of host memory", kernel_name);
    for (int32_t i = 0; i < num_args; i++) {
        if (arg_kinds[i] == 0) continue;
        if (arg_kinds[i] != 1)
            anydsl_device_fatal("argument %d of kernel %s has kind %u (0 is a value, 1 a device buffer)", i,
                                kernel_name, arg_kinds[i]);
        if (arg_sizes[i] != (int64_t)sizeof(void*))
            anydsl_device_fatal("argument %d of kernel %s is a buffer of %lld bytes; a buffer argument is a pointer",
                                i, kernel_name, (long long)arg_sizes[i]);
        const void* ptr = *(void* const*)args[i];
        int64_t inner;
        if (!anydsl_buffer_of(ptr, &found[i], &inner) || found[i].dev != dev)
            anydsl_device_fatal("argument %d of kernel %s is not a%s %s buffer on %s (a host pointer?)", i,
                                kernel_name, platform == &anydsl_opencl_platform ? "n" : "", platform->name,
                                anydsl_device_label(dev));
        if (inner != 0 && platform == &anydsl_opencl_platform)
            anydsl_device_fatal("argument %d of kernel %s points %lld bytes into an OpenCL buffer on %s; OpenCL "
                                "kernels take whole buffers",
                                i, kernel_name, (long long)inner, anydsl_device_label(dev));
        buffers[i] = &found[i];
    }
    l.buffers = buffers;
    remember_kernel(dev, kernel_name);
    platform->launch(dev >> 4, &l);
    free(buffers);
    free(found);
}

void anydsl_synchronize(int32_t dev) {
    /* Host launches run to completion before they return. */
    if (dev == 0) return;
    anydsl_accelerator(dev, "anydsl_synchronize")->synchronize(dev >> 4);
}

static _Atomic int64_t kernel_nanoseconds;

void anydsl_add_kernel_time(int64_t nanoseconds) { atomic_fetch_add(&kernel_nanoseconds, nanoseconds); }

int64_t anydsl_get_kernel_time(void) { return atomic_load(&kernel_nanoseconds) / 1000; }

static char* copy_string(const char* s) {
    char* copy = strdup(s);
    if (!copy) anydsl_device_fatal("out of host memory caching a device program");
    return copy;
}

anydsl_program* anydsl_find_program(anydsl_program* list, const anydsl_launch* launch) {
    const char* key = launch->program_key ? launch->program_key : launch->program;
    for (anydsl_program* p = list; p; p = p->next) {
        if (strcmp(p->key ? p->key : p->source, key) != 0) continue;
        if (p->key && launch->program != p->verified && strcmp(p->source, launch->program) != 0)
            anydsl_device_fatal("program key %s names two different programs (kernel %s on %s)", p->key,
                                launch->kernel_name, anydsl_device_label(launch->dev));
        p->verified = launch->program;
        return p;
    }
    return NULL;
}

anydsl_program* anydsl_add_program(anydsl_program** list, const anydsl_launch* launch, void* handle) {
    anydsl_program* p = calloc(1, sizeof *p);
    if (!p) anydsl_device_fatal("out of host memory caching a device program");
    p->key = launch->program_key ? copy_string(launch->program_key) : NULL;
    p->source = copy_string(launch->program);
    p->handle = handle;
    p->next = *list;
    *list = p;
    return p;
}

anydsl_kernel* anydsl_find_kernel(anydsl_program* program, const char* name) {
    for (anydsl_kernel* k = program->kernels; k; k = k->next)
        if (strcmp(k->name, name) == 0) return k;
    return NULL;
}

anydsl_kernel* anydsl_add_kernel(anydsl_program* program, const char* name, void* handle) {
    anydsl_kernel* k = calloc(1, sizeof *k);
    if (!k) anydsl_device_fatal("out of host memory caching a kernel");
    k->name = copy_string(name);
    k->handle = handle;
    k->next = program->kernels;
    program->kernels = k;
    return k;
}

const char* anydsl_program_label(const anydsl_launch* launch) {
    static _Thread_local char label[160];
    if (!launch->program_key) return "the program";
    snprintf(label, sizeof label, "program %.140s", launch->program_key);
    return label;
}

enum { MAX_PENDING = 1024 };

int anydsl_pending_room(anydsl_pending_list* list, const char* kernel) {
    if (list->len < list->cap) return 1;
    if (list->cap == MAX_PENDING) return 0;
    size_t cap = list->cap ? 2 * list->cap : 16;
    anydsl_pending* grown = realloc(list->items, cap * sizeof *grown);
    if (!grown) anydsl_device_fatal("kernel %s: out of host memory", kernel);
    list->items = grown;
    list->cap = cap;
    return 1;
}

void* anydsl_open_driver(const char* library, const char* platform, const char* install, char* missing, size_t size) {
    void* lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* why = dlerror();
        snprintf(missing, size, "no %s: %s cannot be loaded (%s); %s", platform, library, why ? why : "not found",
                 install);
    }
    return lib;
}

void anydsl_call_failed(const char* platform, long err, const char* name, const char* call, int32_t dev,
                        const char* fmt, ...) {
    char what[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(what, sizeof what, fmt, args);
    va_end(args);
    anydsl_device_fatal("%s error %ld (%s) in %s %s on %s", platform, err, name, call, what, anydsl_device_label(dev));
}
