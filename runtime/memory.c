/*
 * Memory on every platform: host allocations directly, accelerator allocations through
 * their platform, and a table of every accelerator allocation so that each later use
 * (a copy, a release, a kernel argument) is checked against the device and the size it
 * was made for: a host pointer passed as a buffer, a buffer of another device or a copy
 * past the end is a clear error, never a driver crash or a silent wrong answer. Released
 * device memory is pooled for the next allocation of the same size, large released host
 * memory for the next host allocation it holds.
 */
#include "device.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Matches a cache line and the widest vector registers (AVX-512), so vectorised loads
 * and stores on allocated buffers never straddle a line. */
enum { ALIGNMENT = 64 };

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static anydsl_buffer* table;
static size_t table_len, table_cap;
/* table_len, readable without the lock: programs that never touch an accelerator (most
 * CPU programs) pay no lock for their host copies and releases. */
static _Atomic size_t table_entries;

/* Whether ptr of this buffer is an address that may be offset (CUDA's device pointers,
 * host and unified memory), rather than an opaque handle (an OpenCL cl_mem). */
static int addressable(const anydsl_buffer* b) {
    return (b->dev & 0xF) == ANYDSL_PLATFORM_CUDA || b->kind != ANYDSL_MEM_DEVICE;
}

/* The entry holding ptr: exactly its start, or inside an addressable one. Returns its
 * index or -1; the caller holds the lock. Linear: programs hold few device buffers. */
static long table_index(const void* ptr) {
    const char* p = ptr;
    for (size_t i = 0; i < table_len; i++)
        if (table[i].ptr == ptr) return (long)i;
    for (size_t i = 0; i < table_len; i++) {
        const char* start = table[i].ptr;
        if (addressable(&table[i]) && p > start && p < start + table[i].size) return (long)i;
    }
    return -1;
}

int anydsl_buffer_of(const void* ptr, anydsl_buffer* found, int64_t* inner) {
    if (atomic_load_explicit(&table_entries, memory_order_acquire) == 0) return 0;
    pthread_mutex_lock(&table_lock);
    long i = table_index(ptr);
    if (i >= 0) {
        *found = table[i];
        *inner = (const char*)ptr - (const char*)table[i].ptr;
    }
    pthread_mutex_unlock(&table_lock);
    return i >= 0;
}

static void table_add(const anydsl_buffer* b) {
    pthread_mutex_lock(&table_lock);
    if (table_len == table_cap) {
        size_t cap = table_cap ? 2 * table_cap : 64;
        anydsl_buffer* grown = realloc(table, cap * sizeof *grown);
        if (!grown) anydsl_device_fatal("out of host memory tracking %zu device buffers", table_len);
        table = grown;
        table_cap = cap;
    }
    table[table_len++] = *b;
    atomic_store_explicit(&table_entries, table_len, memory_order_release);
    pthread_mutex_unlock(&table_lock);
}

/* Removes the entry that starts at ptr; returns whether there was one. */
static int table_take(const void* ptr, anydsl_buffer* taken) {
    pthread_mutex_lock(&table_lock);
    long i = table_index(ptr);
    int found = i >= 0 && table[i].ptr == ptr;
    if (found) {
        *taken = table[i];
        table[i] = table[--table_len];
        atomic_store_explicit(&table_entries, table_len, memory_order_release);
    }
    pthread_mutex_unlock(&table_lock);
    return found;
}

/* Every accelerator allocation has GUARD bytes of a known pattern after its end, checked
 * when the buffer is copied from or released if kernels ran on its device since the last
 * check: a kernel that wrote a little past the end (an off-by-one in an index or a
 * boundary condition) is reported, naming the buffer and the last kernel, instead of
 * corrupting a neighbour silently. A check costs one 64-byte read. */
enum { GUARD = 64 };

static void guard_pattern(uint8_t* guard) {
    for (int i = 0; i < GUARD; i++) guard[i] = (uint8_t)(0xA5 ^ (i * 29));
}

static void write_guard(const anydsl_platform* platform, const anydsl_buffer* b) {
    uint8_t guard[GUARD];
    guard_pattern(guard);
    if (b->kind == ANYDSL_MEM_DEVICE) platform->write(b->dev >> 4, guard, b, b->size, GUARD);
    else memcpy((char*)b->ptr + b->size, guard, GUARD);
}

static void check_guard(const anydsl_platform* platform, const anydsl_buffer* b, const char* when) {
    uint64_t launches = anydsl_launch_count(b->dev);
    if (launches != UINT64_MAX && launches == b->guard_checked) return;
    uint8_t expected[GUARD], found[GUARD];
    guard_pattern(expected);
    if (b->kind == ANYDSL_MEM_DEVICE) {
        platform->read(b->dev >> 4, b, b->size, found, GUARD);
    } else {
        platform->synchronize(b->dev >> 4);
        memcpy(found, (const char*)b->ptr + b->size, GUARD);
    }
    if (memcmp(found, expected, GUARD) != 0) {
        char kernel[128];
        anydsl_device_fatal("a kernel wrote past the end of a %lld-byte buffer of %s (found at %s; the last kernel "
                            "launched there was %s)",
                            (long long)b->size, anydsl_device_label(b->dev), when,
                            anydsl_last_kernel(b->dev, kernel, sizeof kernel));
    }
    pthread_mutex_lock(&table_lock);
    for (size_t i = 0; i < table_len; i++)
        if (table[i].ptr == b->ptr) table[i].guard_checked = launches;
    pthread_mutex_unlock(&table_lock);
}

/* Released buffers kept for the next allocation they fit, in one of two pools below (device
 * buffers, host buffers): at most `capacity` buffers of a byte limit in all, the oldest going
 * back (to the driver, to free()) first to make room; the program exiting returns the rest. */
typedef struct {
    pthread_mutex_t lock;
    anydsl_buffer* kept; /* oldest first */
    size_t capacity, len;
    int64_t bytes;
    const char* what; /* the memory, for the message of a double release */
} buffer_pool;

/* Takes into b the most recently kept buffer of dev that holds size bytes with at most spare
 * bytes to spare. */
static int pool_take(buffer_pool* pool, int32_t dev, int64_t size, int64_t spare, anydsl_buffer* b) {
    int found = 0;
    pthread_mutex_lock(&pool->lock);
    for (size_t i = pool->len; i-- > 0;) {
        const anydsl_buffer* k = &pool->kept[i];
        if (k->dev == dev && k->size >= size && k->size - size <= spare) {
            *b = *k;
            memmove(&pool->kept[i], &pool->kept[i + 1], (pool->len - i - 1) * sizeof *k);
            pool->len--;
            pool->bytes -= b->size;
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&pool->lock);
    return found;
}

/* Keeps b (at most max_bytes large), moving the oldest buffers out into evicted (room for
 * pool->capacity) to make room; returns how many. A buffer kept already is released twice:
 * an error, where keeping it again would hand it to two owners. */
static size_t pool_put(buffer_pool* pool, const anydsl_buffer* b, int64_t max_bytes, anydsl_buffer* evicted) {
    size_t n = 0;
    pthread_mutex_lock(&pool->lock);
    for (size_t i = 0; i < pool->len; i++) {
        if (pool->kept[i].ptr == b->ptr) {
            pthread_mutex_unlock(&pool->lock);
            anydsl_device_fatal("anydsl_release: %s released twice", pool->what);
        }
    }
    while (pool->len == pool->capacity || pool->bytes + b->size > max_bytes) {
        evicted[n++] = pool->kept[0];
        pool->bytes -= pool->kept[0].size;
        memmove(&pool->kept[0], &pool->kept[1], --pool->len * sizeof *pool->kept);
    }
    pool->kept[pool->len++] = *b;
    pool->bytes += b->size;
    pthread_mutex_unlock(&pool->lock);
    return n;
}

/* Device buffers, kept for the program's next allocation of the same size on the same
 * device: a pipeline run again on an image of the same size (the frames of a video, the runs
 * of a benchmark) allocates the same buffers again, and driver allocations are slow
 * (cuMemAlloc and cuMemFree synchronise the device). A kept buffer is out of the table, so
 * using or releasing it again is still the error it was; its guard was found intact when it
 * was released. */
enum { DEVICE_POOL_BUFFERS = 16 };
static const int64_t DEVICE_POOL_BYTES = (int64_t)1 << 30;
static anydsl_buffer device_kept[DEVICE_POOL_BUFFERS];
static buffer_pool device_pool = {PTHREAD_MUTEX_INITIALIZER, device_kept, DEVICE_POOL_BUFFERS, 0, 0, "device memory"};

/* Keeps a released device buffer, returning the oldest ones to their driver to make room. */
static void device_release(const anydsl_platform* platform, const anydsl_buffer* b) {
    if (b->size > DEVICE_POOL_BYTES) {
        platform->release(b->dev >> 4, b);
        return;
    }
    anydsl_buffer evicted[DEVICE_POOL_BUFFERS];
    size_t n = pool_put(&device_pool, b, DEVICE_POOL_BYTES, evicted);
    for (size_t i = 0; i < n; i++) anydsl_accelerator(evicted[i].dev, "anydsl_release")->release(evicted[i].dev >> 4, &evicted[i]);
}

static void check_size(const char* what, int64_t size) {
    if (size < 0) anydsl_device_fatal("%s: negative size %lld", what, (long long)size);
}

/* Host buffers of HOST_POOL_MIN bytes and more, kept for the next host allocation they hold.
 * glibc serves large allocations with mmap and unmaps them at free (above its mmap threshold,
 * which moves with what the process freed before), so a pipeline allocating the same large
 * temporaries on every call (the levels of an image pyramid) page-faulted all of them in
 * again on every call in some processes and not in others, 5-10x slower on a VM where page
 * faults are expensive. Smaller buffers stay with malloc, whose bins already keep them, and
 * take no lock here.
 *
 * A release has no size: the pool learns it from malloc_usable_size, which reads the chunk
 * header malloc keeps anyway. A header of our own before each buffer would cost a cache line
 * per allocation and change what C code that frees the pointer frees; table entries would put
 * a lock on every small allocation too. A buffer is kept and handed out with its usable size,
 * which may exceed the request; it serves a request it holds with at most an eighth to spare,
 * so a small level of a pyramid does not take the whole image's buffer. Only 64-byte aligned
 * pointers are kept (one that C code malloc'd and released here goes to free()), so every
 * pointer handed out stays aligned. */
enum { HOST_POOL_MIN = 64 << 10, HOST_POOL_BUFFERS = 64 };
static anydsl_buffer host_kept[HOST_POOL_BUFFERS];
static buffer_pool host_pool = {PTHREAD_MUTEX_INITIALIZER, host_kept, HOST_POOL_BUFFERS, 0, 0, "host memory (device 0)"};
static int64_t host_pool_max;
static pthread_once_t host_pool_once = PTHREAD_ONCE_INIT;

/* The bytes the host pool may keep: ANYDSL_HOST_POOL_BYTES (0: none), by default 1 GiB or an
 * eighth of the physical memory where that is less. */
static void read_host_pool_limit(void) {
    const char* setting = getenv("ANYDSL_HOST_POOL_BYTES");
    if (setting) {
        char* end;
        long long bytes = strtoll(setting, &end, 10);
        if (end == setting || *end != '\0' || bytes < 0)
            anydsl_device_fatal("ANYDSL_HOST_POOL_BYTES \"%s\": expected the bytes of released host memory to keep (0: none)",
                                setting);
        host_pool_max = bytes;
        return;
    }
    int64_t eighth = (int64_t)sysconf(_SC_PHYS_PAGES) / 8 * (int64_t)sysconf(_SC_PAGESIZE);
    host_pool_max = eighth > 0 && eighth < ((int64_t)1 << 30) ? eighth : (int64_t)1 << 30;
}

static void* host_alloc(const char* what, int64_t size) {
    /* A zero-byte request still returns a distinct, releasable pointer. */
    size_t bytes = size == 0 ? ALIGNMENT : (size_t)size;
    anydsl_buffer kept;
    if (bytes >= HOST_POOL_MIN && pool_take(&host_pool, 0, (int64_t)bytes, (int64_t)bytes / 8, &kept)) return kept.ptr;
    void* ptr = NULL;
    if (posix_memalign(&ptr, ALIGNMENT, bytes) != 0)
        anydsl_device_fatal("%s: out of memory allocating %lld bytes", what, (long long)size);
    return ptr;
}

static void host_release(void* ptr) {
    anydsl_buffer b = {.ptr = ptr};
    if ((uintptr_t)ptr % ALIGNMENT == 0 && (b.size = (int64_t)malloc_usable_size(ptr)) >= HOST_POOL_MIN) {
        pthread_once(&host_pool_once, read_host_pool_limit);
        if (b.size <= host_pool_max) {
            anydsl_buffer evicted[HOST_POOL_BUFFERS];
            size_t n = pool_put(&host_pool, &b, host_pool_max, evicted);
            for (size_t i = 0; i < n; i++) free(evicted[i].ptr);
            return;
        }
    }
    free(ptr);
}

static void* accelerator_alloc(const char* what, int32_t dev, int64_t size, uint8_t kind) {
    const anydsl_platform* platform = anydsl_accelerator(dev, what);
    /* With the guard, zero bytes still give a distinct buffer (OpenCL refuses empty ones). */
    anydsl_buffer b = {.size = size, .dev = dev, .kind = kind};
    if (kind == ANYDSL_MEM_DEVICE && pool_take(&device_pool, dev, size, 0, &b)) {
        table_add(&b);
        return b.ptr;
    }
    if (size > INT64_MAX - GUARD) anydsl_device_fatal("%s: %lld bytes is too large", what, (long long)size);
    platform->alloc(dev >> 4, size + GUARD, &b);
    write_guard(platform, &b);
    b.guard_checked = anydsl_launch_count(dev);
    table_add(&b);
    return b.ptr;
}

void* anydsl_alloc(int32_t dev, int64_t size) {
    check_size("anydsl_alloc", size);
    if (dev == 0) return host_alloc("anydsl_alloc", size);
    return accelerator_alloc("anydsl_alloc", dev, size, ANYDSL_MEM_DEVICE);
}

void* anydsl_alloc_host(int32_t dev, int64_t size) {
    check_size("anydsl_alloc_host", size);
    if (dev == 0) return host_alloc("anydsl_alloc_host", size);
    return accelerator_alloc("anydsl_alloc_host", dev, size, ANYDSL_MEM_HOST);
}

void* anydsl_alloc_unified(int32_t dev, int64_t size) {
    check_size("anydsl_alloc_unified", size);
    if (dev == 0) return host_alloc("anydsl_alloc_unified", size);
    return accelerator_alloc("anydsl_alloc_unified", dev, size, ANYDSL_MEM_UNIFIED);
}

void anydsl_release(int32_t dev, void* ptr) {
    if (!ptr) return;
    if (dev == 0) {
        anydsl_buffer b;
        int64_t inner;
        if (!anydsl_buffer_of(ptr, &b, &inner) || inner != 0) {
            host_release(ptr);
            return;
        }
        if (b.kind == ANYDSL_MEM_DEVICE)
            anydsl_device_fatal("anydsl_release: the pointer is a buffer of %s, released as host memory (device 0)",
                                anydsl_device_label(b.dev));
        /* Host and unified memory are host memory to the program (the 2018 API's Buffer
         * records them as device 0), but only their platform can free them. */
        dev = b.dev;
    }
    const anydsl_platform* platform = anydsl_accelerator(dev, "anydsl_release");
    anydsl_buffer b;
    if (!table_take(ptr, &b))
        anydsl_device_fatal("anydsl_release: the pointer is not a buffer of %s (released twice, or a host pointer?)",
                            anydsl_device_label(dev));
    if (b.dev != dev) {
        table_add(&b);
        anydsl_device_fatal("anydsl_release: the pointer is memory of %s, released as memory of %s",
                            anydsl_device_label(b.dev), anydsl_device_label(dev));
    }
    check_guard(platform, &b, "its release");
    if (b.kind == ANYDSL_MEM_DEVICE) device_release(platform, &b);
    else platform->release(dev >> 4, &b);
}

/* One side of a copy: host-addressable memory, or a range of a device buffer. */
typedef struct {
    char* host;
    const anydsl_platform* platform;
    anydsl_buffer buffer;
    int64_t offset;
} place;

static place resolve(int32_t dev, const void* ptr, int64_t offset, int64_t size, const char* role) {
    place p = {0};
    if (offset < 0) anydsl_device_fatal("anydsl_copy: negative %s offset %lld", role, (long long)offset);
    anydsl_buffer b;
    int64_t inner = 0;
    int known = anydsl_buffer_of(ptr, &b, &inner);
    if (dev == 0) {
        if (known && b.kind == ANYDSL_MEM_DEVICE)
            anydsl_device_fatal("anydsl_copy: the %s is a buffer of %s, not host memory (device 0)", role,
                                anydsl_device_label(b.dev));
        if (known) anydsl_accelerator(b.dev, "anydsl_copy")->synchronize(b.dev >> 4);
        p.host = (char*)ptr + offset;
        return p;
    }
    p.platform = anydsl_accelerator(dev, "anydsl_copy");
    if (!known || b.dev != dev)
        anydsl_device_fatal("anydsl_copy: the %s is not a buffer of %s (a host pointer?)", role,
                            anydsl_device_label(dev));
    if (offset > b.size - inner || size > b.size - inner - offset)
        anydsl_device_fatal("anydsl_copy: %lld bytes at offset %lld do not fit the %s, %lld bytes of %s",
                            (long long)size, (long long)(inner + offset), role, (long long)b.size,
                            anydsl_device_label(dev));
    if (b.kind != ANYDSL_MEM_DEVICE) {
        /* Kernels may still be writing host-visible memory: the copy must see their result. */
        p.platform->synchronize(dev >> 4);
        p.host = (char*)ptr + offset;
        return p;
    }
    p.buffer = b;
    p.offset = inner + offset;
    return p;
}

static _Atomic int64_t copy_nanoseconds;

int64_t anydsl_get_copy_time(void) { return atomic_load(&copy_nanoseconds) / 1000; }

void anydsl_copy(int32_t dev_src, const void* src, int64_t offset_src,
                 int32_t dev_dst, void* dst, int64_t offset_dst, int64_t size) {
    if (size < 0) anydsl_device_fatal("anydsl_copy: negative size %lld", (long long)size);
    place from = resolve(dev_src, src, offset_src, size, "source");
    place to = resolve(dev_dst, dst, offset_dst, size, "destination");
    if (size == 0) return;
    if (from.host && to.host) {
        /* memmove: programs copy between overlapping parts of one buffer (shifting a row). */
        memmove(to.host, from.host, (size_t)size);
        return;
    }
    /* A copy waits for the kernels queued before it on its devices (in-order queues, the
     * legacy stream): waiting first keeps their time out of the copy's. */
    if (!from.host) from.platform->synchronize(from.buffer.dev >> 4);
    if (!to.host) to.platform->synchronize(to.buffer.dev >> 4);
    int64_t start = anydsl_get_nano_time();
    if (to.host) {
        from.platform->read(from.buffer.dev >> 4, &from.buffer, from.offset, to.host, size);
        check_guard(from.platform, &from.buffer, "a copy from it to the host");
    } else if (from.host) {
        to.platform->write(to.buffer.dev >> 4, from.host, &to.buffer, to.offset, size);
    } else if (from.buffer.dev == to.buffer.dev) {
        to.platform->copy(to.buffer.dev >> 4, &from.buffer, from.offset, &to.buffer, to.offset, size);
    } else {
        /* Different devices (or platforms): through the host. */
        char* staging = host_alloc("anydsl_copy", size);
        from.platform->read(from.buffer.dev >> 4, &from.buffer, from.offset, staging, size);
        to.platform->write(to.buffer.dev >> 4, staging, &to.buffer, to.offset, size);
        host_release(staging);
    }
    atomic_fetch_add(&copy_nanoseconds, anydsl_get_nano_time() - start);
}
