#include "anydsl_runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void anydsl_fatal(const char* fmt, ...) {
    /* What the program printed before the error is often the best clue, so keep it. */
    anydsl_print_flush();
    fputs("anydsl runtime error: ", stderr);
    va_list args;
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    abort();
}
