// Runs the GPU benchmark's Halide reference (halide_cuda.cpp's objects, linked in) on a raw
// interleaved u8 image of 3 channels and times it two ways, each after one warm-up:
//   ms          end to end, as an app sees it: the input copied to the GPU (marked dirty on
//               the host), the pipeline, the output copied back;
//   kernel_ms   the pipeline alone on an input already on the GPU, up to its completion
//               (device sync): the kernels and their launches.
// Device buffers are allocated by the first run and kept, as Halide's Buffer does.
//
//   halide_cuda_driver <box3|gauss5|harris> <width> <height> <runs> <in.raw> <out.raw>
//
// Prints {"ms":[…]} and {"kernel_ms":[…]} as JSON lines on stdout; the output (u8 × 3, or f32
// × 1 for Harris) goes to out.raw.
#include "HalideBuffer.h"
#include "HalideRuntimeCuda.h"
#include "box3.h"
#include "driver_common.h"
#include "gauss5.h"
#include "harris.h"

#include <cstring>

using Halide::Runtime::Buffer;

namespace {

constexpr int CHANNELS = 3;

template <typename Out>
int run(int (*kernel)(halide_buffer_t *, halide_buffer_t *), int w, int h, int out_channels, int runs, const char *in_path, const char *out_path) {
    std::vector<uint8_t> in_data = read_raw<uint8_t>(in_path, size_t(w) * h * CHANNELS);
    std::vector<Out> out_data(size_t(w) * h * out_channels);
    auto in = Buffer<uint8_t>::make_interleaved(in_data.data(), w, h, CHANNELS);
    auto out = Buffer<Out>::make_interleaved(out_data.data(), w, h, out_channels);
    int status = 0;
    time_runs(runs, [&] {
        in.set_host_dirty();
        status |= kernel(in, out);
        status |= out.copy_to_host();
    });
    // time_runs prints {"ms":[…]}; the kernel times follow on a line of their own.
    std::vector<double> kernel_ms;
    auto pipeline = [&] {
        status |= kernel(in, out);
        status |= out.device_sync();
    };
    pipeline();
    for (int i = 0; i < runs; i++) {
        auto start = std::chrono::steady_clock::now();
        pipeline();
        kernel_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    printf("{\"kernel_ms\":[");
    for (size_t i = 0; i < kernel_ms.size(); i++) printf("%s%.6f", i ? "," : "", kernel_ms[i]);
    printf("]}\n");
    status |= out.copy_to_host();
    if (status) {
        fprintf(stderr, "the Halide CUDA pipeline failed with status %d\n", status);
        return 1;
    }
    write_raw(out_path, out_data);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s <box3|gauss5|harris> <width> <height> <runs> <in.raw> <out.raw>\n", argv[0]);
        return 2;
    }
    const std::string pipeline = argv[1];
    const int w = atoi(argv[2]), h = atoi(argv[3]), runs = atoi(argv[4]);
    if (w < 1 || h < 1 || runs < 1) {
        fprintf(stderr, "width, height and runs must be positive\n");
        return 2;
    }
    if (pipeline == "box3") return run<uint8_t>(box3, w, h, CHANNELS, runs, argv[5], argv[6]);
    if (pipeline == "gauss5") return run<uint8_t>(gauss5, w, h, CHANNELS, runs, argv[5], argv[6]);
    if (pipeline == "harris") return run<float>(harris, w, h, 1, runs, argv[5], argv[6]);
    fprintf(stderr, "unknown pipeline %s (box3, gauss5, harris)\n", pipeline.c_str());
    return 2;
}
