/* C side of the conformance acceptance check (tests/conformance/support/accept.impala):
   defines the program's extern "C" functions and calls its exported `extern fn`. */
#include <stdio.h>

double impala_scale(double x); /* exported by accept.impala */

void support_fill(int *p, int n) {
    for (int i = 0; i < n; i++) p[i] = i;
}

void support_report(int sum, double scale) {
    printf("sum=%d scale=%g check=%g\n", sum, scale, impala_scale(2.0));
    fflush(stdout);
}

int support_add(int a, int b) { return a + b; }
