#include "anydsl_runtime.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Everything goes through stdout's stdio buffer, from any thread, so output from the
 * different print functions stays in program order and printing costs no syscall per call.
 * The buffer is flushed at exit so a program's output is never lost, also when the
 * artifact is a shared library inside a host process that exits some other way. */
__attribute__((constructor)) static void register_flush_at_exit(void) {
    atexit(anydsl_print_flush);
}

void anydsl_print_i16(int16_t v) { printf("%" PRId16, v); }
void anydsl_print_i32(int32_t v) { printf("%" PRId32, v); }
void anydsl_print_i64(int64_t v) { printf("%" PRId64, v); }
void anydsl_print_u16(uint16_t v) { printf("%" PRIu16, v); }
void anydsl_print_u32(uint32_t v) { printf("%" PRIu32, v); }
void anydsl_print_u64(uint64_t v) { printf("%" PRIu64, v); }
void anydsl_print_f32(float v) { printf("%g", (double)v); }
void anydsl_print_f64(double v) { printf("%g", v); }
void anydsl_print_f64_fixed(double v, int32_t digits) { printf("%.*f", digits, v); }
void anydsl_print_char(uint8_t c) { putchar(c); }
void anydsl_print_string(const char* s) { fputs(s, stdout); }
void anydsl_print_flush(void) { fflush(stdout); }
