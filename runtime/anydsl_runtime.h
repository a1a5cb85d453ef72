/*
 * The C ABI every compiled AnyDSL artifact links against. The backend emits calls
 * to exactly these symbols, so a signature change here is a change to the compiler's
 * contract with native code (docs/architecture.md, "The runtime").
 *
 * Device numbers are platform | (index << 4): platform 0 is the CPU, 1 CUDA, 2 OpenCL.
 */
#ifndef ANYDSL_RUNTIME_H
#define ANYDSL_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void* anydsl_alloc(int32_t dev, int64_t size);
void anydsl_release(int32_t dev, void* ptr);
void anydsl_copy(int32_t dev_src, const void* src, int64_t offset_src,
                 int32_t dev_dst, void* dst, int64_t offset_dst, int64_t size);

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
int64_t anydsl_get_kernel_time(void);

void anydsl_parallel_for(int32_t num_threads, int32_t lower, int32_t upper, void* args,
                         void (*fn)(void* args, int32_t lower, int32_t upper));
int32_t anydsl_spawn_thread(void* args, void (*fn)(void* args));
void anydsl_sync_thread(int32_t id);

/* Internal: reports a runtime error on stderr, flushes the program's output, aborts. */
void anydsl_fatal(const char* fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif
