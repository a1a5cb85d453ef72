#include "anydsl_runtime.h"

#include <time.h>

/* Monotonic: programs subtract two readings to time a region, and wall-clock jumps
 * (NTP, suspend) must not show up as negative or huge durations. */
int64_t anydsl_get_nano_time(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t anydsl_get_micro_time(void) { return anydsl_get_nano_time() / 1000; }
