/*
 * Drives the runtime's device API from C for tests/runtime: hand-written kernels launched
 * through anydsl_launch_kernel on the device ANYDSL_DEVICE picks (OpenCL C below; on CUDA
 * the PTX of kernels.cu from the file HARNESS_PTX names), inputs from a seeded generator
 * the TypeScript side reproduces, one output line per case so that the test compares each
 * against its own reference.
 *
 *   harness CASE...    CASE is elementwise:N:SEED:BLOCK, reduce:N:SEED:BLOCK,
 *                      divergent:N:SEED:BLOCK, copies:N:SEED, memory-kinds:N:SEED, concurrent:N:SEED, reuse:N,
 *                      device, kernel-time, or one of the misuses below (which end the program).
 */
#include "anydsl_runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const OPENCL_PROGRAM =
    "__kernel void affine(__global const uint* a, __global const uint* b, __global uint* c, uint k, int n) {\n"
    "    int i = get_global_id(0);\n"
    "    if (i >= n) return;\n"
    "    c[i] = a[i] * k + b[i];\n"
    "}\n"
    "\n"
    "/* Each block sums its part of a into out[group] in __local memory, halving with barriers. */\n"
    "__kernel void block_sum(__global const uint* a, __global uint* out, int n) {\n"
    "    __local uint part[256];\n"
    "    int t = get_local_id(0);\n"
    "    int i = get_global_id(0);\n"
    "    part[t] = i < n ? a[i] : 0;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
    "        if (t < s) part[t] += part[t + s];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (t == 0) out[get_group_id(0)] = part[0];\n"
    "}\n"
    "\n"
    "/* Collatz steps, with early exits that differ between neighbouring work items. */\n"
    "__kernel void divergent(__global const uint* a, __global int* out, int n) {\n"
    "    int i = get_global_id(0);\n"
    "    if (i >= n) return;\n"
    "    uint x = a[i] % 1000u;\n"
    "    if (x % 7u == 0u) { out[i] = -7; return; }\n"
    "    int steps = 0;\n"
    "    while (x != 1u && x != 0u) {\n"
    "        if (steps == 60) { out[i] = -1; return; }\n"
    "        x = (x & 1u) ? 3u * x + 1u : x / 2u;\n"
    "        steps++;\n"
    "    }\n"
    "    out[i] = steps;\n"
    "}\n"
    "\n"
    "/* Deliberately wrong: writes one element past the end of c. */\n"
    "__kernel void overrun(__global uint* c, int n) {\n"
    "    int i = get_global_id(0);\n"
    "    if (i <= n) c[i] = i;\n"
    "}\n";

/* The tests' generator (xorshift32; the TypeScript side has the same): never 0 for seed != 0. */
static uint32_t next(uint32_t* state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static uint32_t* inputs(int32_t n, uint32_t seed) {
    uint32_t* a = malloc(((size_t)n + 1) * sizeof *a);
    uint32_t state = seed ? seed : 1;
    for (int32_t i = 0; i < n; i++) a[i] = next(&state);
    return a;
}

static int32_t dev;
static const char* program = OPENCL_PROGRAM;

static int32_t round_up(int32_t n, int32_t block) { return n == 0 ? block : (n + block - 1) / block * block; }

static void launch(const char* kernel, int32_t n, int32_t block, void** args, const int64_t* sizes,
                   const uint8_t* kinds, int32_t num_args) {
    int32_t grid[3] = {round_up(n, block), 1, 1}, blocks[3] = {block, 1, 1};
    anydsl_launch_kernel(dev, "harness-program-1", program, kernel, grid, blocks, args, sizes, kinds, num_args);
}

static void* to_device(const void* host, int64_t bytes) {
    void* buffer = anydsl_alloc(dev, bytes);
    anydsl_copy(0, host, 0, dev, buffer, 0, bytes);
    return buffer;
}

static void print_u32s(const char* name, const uint32_t* v, int32_t n) {
    printf("%s", name);
    for (int32_t i = 0; i < n; i++) printf(" %u", v[i]);
    printf("\n");
}

static void print_i32s(const char* name, const int32_t* v, int32_t n) {
    printf("%s", name);
    for (int32_t i = 0; i < n; i++) printf(" %d", v[i]);
    printf("\n");
}

/* c = a * k + b, with k the seed. */
static void elementwise(int32_t n, uint32_t seed, int32_t block) {
    uint32_t* a = inputs(n, seed);
    uint32_t* b = inputs(n, seed + 1);
    int64_t bytes = (int64_t)n * 4;
    void* da = to_device(a, bytes);
    void* db = to_device(b, bytes);
    void* dc = anydsl_alloc(dev, bytes);
    uint32_t k = seed;
    void* args[] = {&da, &db, &dc, &k, &n};
    int64_t sizes[] = {8, 8, 8, 4, 4};
    uint8_t kinds[] = {1, 1, 1, 0, 0};
    launch("affine", n, block, args, sizes, kinds, 5);
    anydsl_synchronize(dev);
    anydsl_copy(dev, dc, 0, 0, a, 0, bytes);
    print_u32s("elementwise", a, n);
    anydsl_release(dev, da);
    anydsl_release(dev, db);
    anydsl_release(dev, dc);
    free(a);
    free(b);
}

static void reduce(int32_t n, uint32_t seed, int32_t block) {
    uint32_t* a = inputs(n, seed);
    int32_t groups = round_up(n, block) / block;
    void* da = to_device(a, (int64_t)n * 4);
    void* dout = anydsl_alloc(dev, (int64_t)groups * 4);
    void* args[] = {&da, &dout, &n};
    int64_t sizes[] = {8, 8, 4};
    uint8_t kinds[] = {1, 1, 0};
    launch("block_sum", n, block, args, sizes, kinds, 3);
    uint32_t* out = malloc((size_t)groups * 4);
    anydsl_copy(dev, dout, 0, 0, out, 0, (int64_t)groups * 4);
    print_u32s("reduce", out, groups);
    anydsl_release(dev, da);
    anydsl_release(dev, dout);
    free(out);
    free(a);
}

static void divergent(int32_t n, uint32_t seed, int32_t block) {
    uint32_t* a = inputs(n, seed);
    void* da = to_device(a, (int64_t)n * 4);
    void* dout = anydsl_alloc(dev, (int64_t)n * 4);
    void* args[] = {&da, &dout, &n};
    int64_t sizes[] = {8, 8, 4};
    uint8_t kinds[] = {1, 1, 0};
    launch("divergent", n, block, args, sizes, kinds, 3);
    anydsl_copy(dev, dout, 0, 0, a, 0, (int64_t)n * 4);
    print_i32s("divergent", (int32_t*)a, n);
    anydsl_release(dev, da);
    anydsl_release(dev, dout);
    free(a);
}

/* Host -> device, a device-internal copy between offsets, a device -> device copy between
 * two buffers, device -> host at an offset: out[i] = a[(i + n/2) % n] is what comes back. */
static void copies(int32_t n, uint32_t seed) {
    uint32_t* a = inputs(n, seed);
    int64_t bytes = (int64_t)n * 4, half = (int64_t)(n / 2) * 4;
    void* d1 = to_device(a, bytes);
    void* d2 = anydsl_alloc(dev, 2 * bytes);
    anydsl_copy(dev, d1, half, dev, d2, 0, bytes - half);
    anydsl_copy(dev, d1, 0, dev, d2, bytes - half, half);
    void* d3 = anydsl_alloc(dev, bytes);
    anydsl_copy(dev, d2, 0, dev, d3, 0, bytes);
    uint32_t* out = calloc((size_t)n + 1, 4);
    anydsl_copy(dev, d3, 0, 0, out, 0, bytes);
    print_u32s("copies", out, n);
    anydsl_release(dev, d1);
    anydsl_release(dev, d2);
    anydsl_release(dev, d3);
    free(out);
    free(a);
}

/* Host memory (anydsl_alloc_host) as a copy source and destination, and unified memory
 * written by the host, used by a kernel and read back directly. The copies and releases
 * name this memory both as the accelerator's and, as the 2018 API's Buffer does, as the
 * host's (device 0). */
static void memory_kinds(int32_t n, uint32_t seed) {
    int64_t bytes = (int64_t)n * 4;
    uint32_t* a = inputs(n, seed);
    uint32_t* pinned = anydsl_alloc_host(dev, bytes);
    memcpy(pinned, a, (size_t)bytes);
    void* da = anydsl_alloc(dev, bytes);
    anydsl_copy(0, pinned, 0, dev, da, 0, bytes);
    uint32_t* b = anydsl_alloc_unified(dev, bytes);
    for (int32_t i = 0; i < n; i++) b[i] = (uint32_t)i;
    uint32_t* c = anydsl_alloc_unified(dev, bytes);
    uint32_t k = 3;
    void* args[] = {&da, &b, &c, &k, &n};
    int64_t sizes[] = {8, 8, 8, 4, 4};
    uint8_t kinds[] = {1, 1, 1, 0, 0};
    launch("affine", n, 4, args, sizes, kinds, 5);
    anydsl_synchronize(dev);
    print_u32s("unified", c, n);
    memset(pinned, 0, (size_t)bytes);
    anydsl_copy(dev, da, 0, dev, pinned, 0, bytes);
    print_u32s("host", pinned, n);
    anydsl_release(0, pinned);
    anydsl_release(dev, da);
    anydsl_release(dev, b);
    anydsl_release(0, c);
    free(a);
}

/* Four threads run elementwise cases at once (seeds seed..seed+3), each on its own buffers
 * through the shared device; their lines are printed in seed order. */
typedef struct {
    int32_t n;
    uint32_t seed;
    char* line;
    size_t size;
} concurrent_case;

static void* run_concurrent(void* arg) {
    concurrent_case* c = arg;
    FILE* out = open_memstream(&c->line, &c->size);
    uint32_t* a = inputs(c->n, c->seed);
    uint32_t* b = inputs(c->n, c->seed + 1);
    int64_t bytes = (int64_t)c->n * 4;
    void* da = to_device(a, bytes);
    void* db = to_device(b, bytes);
    void* dc = anydsl_alloc(dev, bytes);
    uint32_t k = c->seed;
    int32_t n = c->n;
    void* args[] = {&da, &db, &dc, &k, &n};
    int64_t sizes[] = {8, 8, 8, 4, 4};
    uint8_t kinds[] = {1, 1, 1, 0, 0};
    launch("affine", n, 16, args, sizes, kinds, 5);
    anydsl_copy(dev, dc, 0, 0, a, 0, bytes);
    fprintf(out, "elementwise");
    for (int32_t i = 0; i < n; i++) fprintf(out, " %u", a[i]);
    fclose(out);
    anydsl_release(dev, da);
    anydsl_release(dev, db);
    anydsl_release(dev, dc);
    free(a);
    free(b);
    return NULL;
}

static void concurrent(int32_t n, uint32_t seed) {
    pthread_t threads[4];
    concurrent_case cases[4];
    for (int t = 0; t < 4; t++) {
        cases[t] = (concurrent_case){.n = n, .seed = seed + (uint32_t)t};
        pthread_create(&threads[t], NULL, run_concurrent, &cases[t]);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        printf("%s\n", cases[t].line);
        free(cases[t].line);
    }
}

/* Released device memory is pooled: an allocation of the size just released gets that
 * buffer back, one of another size does not, and buffers of different sizes are kept apart.
 * Prints "reuse SAME OTHER APART" with 1 for each that holds. */
static void reuse(int32_t n) {
    int64_t bytes = (int64_t)n * 4;
    void* a = anydsl_alloc(dev, bytes);
    anydsl_release(dev, a);
    void* c = anydsl_alloc(dev, bytes + 4);
    void* b = anydsl_alloc(dev, bytes);
    anydsl_release(dev, c);
    anydsl_release(dev, b);
    void* d = anydsl_alloc(dev, bytes + 4);
    printf("reuse %d %d %d\n", a == b, c != a, d == c);
    anydsl_release(dev, d);
}

/* Misuses, each ending the program with the runtime's message. */
static void misuse(const char* what) {
    uint32_t host[64] = {0};
    void* buffer = anydsl_alloc(dev, 256);
    int32_t n = 64;
    uint32_t k = 1;
    void* ptr = host;
    int64_t sizes[] = {8, 8, 8, 4, 4};
    uint8_t kinds[] = {1, 1, 1, 0, 0};
    if (strcmp(what, "host-pointer") == 0) {
        void* args[] = {&buffer, &ptr, &buffer, &k, &n};
        launch("affine", n, 16, args, sizes, kinds, 5);
    } else if (strcmp(what, "bad-kernel") == 0) {
        void* args[] = {&buffer, &buffer, &buffer, &k, &n};
        launch("no_such_kernel", n, 16, args, sizes, kinds, 5);
    } else if (strcmp(what, "argument-count") == 0) {
        void* args[] = {&buffer, &buffer, &buffer, &k};
        launch("affine", n, 16, args, sizes, kinds, 4);
    } else if (strcmp(what, "build-error") == 0) {
        int32_t grid[3] = {64, 1, 1}, block[3] = {16, 1, 1};
        void* args[] = {&buffer};
        const char* broken = "__kernel void broken(__global int* a) {\n    a[get_global_id(0)] = undefined_name;\n}\n";
        anydsl_launch_kernel(dev, "harness-broken", broken, "broken", grid, block, args, sizes, kinds, 1);
    } else if (strcmp(what, "copy-bounds") == 0) {
        uint8_t bytes[400] = {0};
        anydsl_copy(0, bytes, 0, dev, buffer, 0, 400);
    } else if (strcmp(what, "copy-offset") == 0) {
        anydsl_copy(dev, buffer, 200, 0, host, 0, 100);
    } else if (strcmp(what, "copy-host-as-device") == 0) {
        anydsl_copy(dev, host, 0, 0, host, 0, 16);
    } else if (strcmp(what, "geometry") == 0) {
        void* args[] = {&buffer, &buffer, &buffer, &k, &n};
        int32_t grid[3] = {100, 1, 1}, block[3] = {16, 1, 1};
        anydsl_launch_kernel(dev, "harness-program-1", program, "affine", grid, block, args, sizes, kinds, 5);
    } else if (strcmp(what, "overrun") == 0 || strcmp(what, "overrun-release") == 0) {
        /* 60 elements in a 240-byte buffer; the kernel writes element 60 too. */
        void* small = anydsl_alloc(dev, 240);
        int32_t count = 60;
        void* args[] = {&small, &count};
        int64_t overrun_sizes[] = {8, 4};
        uint8_t overrun_kinds[] = {1, 0};
        launch("overrun", 64, 16, args, overrun_sizes, overrun_kinds, 2);
        if (strcmp(what, "overrun") == 0) anydsl_copy(dev, small, 0, 0, host, 0, 240);
        else anydsl_release(dev, small);
    } else if (strcmp(what, "fault") == 0) {
        /* A kernel of kernels.cu (CUDA only) that stores through a null pointer. */
        void* args[] = {&buffer};
        launch("fault", 1, 1, args, sizes, kinds, 1);
    } else if (strcmp(what, "double-release") == 0) {
        anydsl_release(dev, buffer);
        anydsl_release(dev, buffer);
    } else if (strcmp(what, "key-reuse") == 0) {
        void* args[] = {&buffer};
        int32_t grid[3] = {64, 1, 1}, block[3] = {16, 1, 1};
        const char* other = "__kernel void affine(__global int* a) { a[0] = 1; }\n";
        void* first[] = {&buffer, &buffer, &buffer, &k, &n};
        anydsl_launch_kernel(dev, "harness-program-1", program, "affine", grid, block, first, sizes, kinds, 5);
        anydsl_launch_kernel(dev, "harness-program-1", other, "affine", grid, block, args, sizes, kinds, 1);
    } else {
        fprintf(stderr, "harness: unknown case %s\n", what);
        exit(2);
    }
    anydsl_synchronize(dev);
    printf("%s: no error\n", what);
}

static char* read_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "harness: cannot read %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* text = calloc((size_t)size + 1, 1);
    if (fread(text, 1, (size_t)size, f) != (size_t)size) exit(2);
    fclose(f);
    return text;
}

int main(int argc, char** argv) {
    dev = anydsl_device_pick(NULL);
    if ((dev & 0xF) == ANYDSL_PLATFORM_CUDA) {
        const char* ptx = getenv("HARNESS_PTX");
        if (!ptx) {
            fprintf(stderr, "harness: HARNESS_PTX must name the PTX of kernels.cu on CUDA\n");
            return 2;
        }
        program = read_file(ptx);
    }
    for (int i = 1; i < argc; i++) {
        char name[32] = "";
        long n = 0, seed = 0, block = 16;
        sscanf(argv[i], "%31[^:]:%ld:%ld:%ld", name, &n, &seed, &block);
        if (strcmp(name, "device") == 0) printf("device %d %s\n", dev, anydsl_device_name(dev));
        else if (strcmp(name, "elementwise") == 0) elementwise((int32_t)n, (uint32_t)seed, (int32_t)block);
        else if (strcmp(name, "reduce") == 0) reduce((int32_t)n, (uint32_t)seed, (int32_t)block);
        else if (strcmp(name, "divergent") == 0) divergent((int32_t)n, (uint32_t)seed, (int32_t)block);
        else if (strcmp(name, "copies") == 0) copies((int32_t)n, (uint32_t)seed);
        else if (strcmp(name, "memory-kinds") == 0) memory_kinds((int32_t)n, (uint32_t)seed);
        else if (strcmp(name, "concurrent") == 0) concurrent((int32_t)n, (uint32_t)seed);
        else if (strcmp(name, "reuse") == 0) reuse((int32_t)n);
        else if (strcmp(name, "kernel-time") == 0) printf("kernel-time %lld\n", (long long)anydsl_get_kernel_time());
        else misuse(argv[i]);
        fflush(stdout);
    }
    return 0;
}
