// Runs one Halide reference kernel on a raw single-channel image and times it.
//
//   halide_driver box3|harris_tiled|harris_root|harris_fused <width> <height> <runs> <in.raw> <out.raw>
#include "HalideBuffer.h"
#include "driver_common.h"
#include "halide_box3.h"
#include "halide_harris_fused.h"
#include "halide_harris_root.h"
#include "halide_harris_tiled.h"

#include <cstring>

using Halide::Runtime::Buffer;

template <typename T>
int run(int (*kernel)(halide_buffer_t *, halide_buffer_t *), int w, int h, int runs, const char *in_path, const char *out_path) {
    std::vector<T> in_data = read_raw<T>(in_path, size_t(w) * h);
    std::vector<T> out_data(size_t(w) * h);
    Buffer<T> in(in_data.data(), w, h), out(out_data.data(), w, h);
    int status = 0;
    time_runs(runs, [&] { status |= kernel(in, out); });
    if (status) {
        fprintf(stderr, "the Halide kernel failed with status %d\n", status);
        return 1;
    }
    write_raw(out_path, out_data);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s box3|harris_tiled|harris_root|harris_fused <width> <height> <runs> <in.raw> <out.raw>\n", argv[0]);
        return 2;
    }
    const int w = atoi(argv[2]), h = atoi(argv[3]), runs = atoi(argv[4]);
    if (!strcmp(argv[1], "box3")) return run<int32_t>(halide_box3, w, h, runs, argv[5], argv[6]);
    if (!strcmp(argv[1], "harris_tiled")) return run<float>(halide_harris_tiled, w, h, runs, argv[5], argv[6]);
    if (!strcmp(argv[1], "harris_root")) return run<float>(halide_harris_root, w, h, runs, argv[5], argv[6]);
    if (!strcmp(argv[1], "harris_fused")) return run<float>(halide_harris_fused, w, h, runs, argv[5], argv[6]);
    fprintf(stderr, "unknown pipeline %s\n", argv[1]);
    return 2;
}
