#include "device.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void report(const char* fmt, va_list args) {
    /* What the program printed before the error is often the best clue, so keep it. */
    anydsl_print_flush();
    fputs("anydsl runtime error: ", stderr);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    fflush(stderr);
}

/* A broken invariant of the program itself (division by zero, syncing a thread that does
 * not exist): abort, so a debugger or core dump shows where. */
void anydsl_fatal(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    report(fmt, args);
    va_end(args);
    abort();
}

/* Device errors are mostly about the machine (no driver, out of device memory, a build
 * log to read), so they end like any bad input: one message and exit status 1, not a
 * signal that reads as a crash (in node too, when the artifact is a library loaded with
 * koffi). _exit, not exit: the error can happen on a worker thread or inside a driver
 * callback, where running atexit handlers and static destructors (the driver's, TBB's,
 * node's) while other threads still use them can hang or crash. */
void anydsl_device_fatal(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    report(fmt, args);
    va_end(args);
    fflush(NULL);
    _exit(1);
}
