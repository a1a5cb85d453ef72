// Runs one Halide reference kernel (a shared object built from halide_pipelines.cpp's output)
// on a raw interleaved image and times it. The driver holds the Halide runtime (linked with
// -rdynamic), which the kernels, compiled without one, use. Every kernel has the signature
// `int name(halide_buffer_t *input, halide_buffer_t *output)` on interleaved (x, y, c) buffers.
//
//   halide_driver <kernel.so> <name> <in type> <out type> <width> <height> <in channels> <out channels> <runs> <in.raw> <out.raw>
//
// Types are u8, i32 or f32. Prints the times as JSON on stdout (driver_common.h).
#include "HalideBuffer.h"
#include "driver_common.h"

#include <cstring>
#include <dlfcn.h>

using Halide::Runtime::Buffer;
using Kernel = int (*)(halide_buffer_t *, halide_buffer_t *);

template <typename In, typename Out>
int run(Kernel kernel, int w, int h, int cin, int cout, int runs, const char *in_path, const char *out_path) {
    std::vector<In> in_data = read_raw<In>(in_path, size_t(w) * h * cin);
    std::vector<Out> out_data(size_t(w) * h * cout);
    auto in = Buffer<In>::make_interleaved(in_data.data(), w, h, cin);
    auto out = Buffer<Out>::make_interleaved(out_data.data(), w, h, cout);
    int status = 0;
    time_runs(runs, [&] { status |= kernel(in, out); });
    if (status) {
        fprintf(stderr, "the Halide kernel failed with status %d\n", status);
        return 1;
    }
    write_raw(out_path, out_data);
    return 0;
}

// A kernel's error (an image too small for a schedule's tiles) is printed and the kernel
// returns its status; Halide's default handler aborts.
void print_error(void *, const char *msg) { fprintf(stderr, "%s", msg); }

int main(int argc, char **argv) {
    halide_set_error_handler(print_error);
    if (argc != 12) {
        fprintf(stderr, "usage: %s <kernel.so> <name> <in type> <out type> <width> <height> <in channels> <out channels> <runs> <in.raw> <out.raw>\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    auto kernel = reinterpret_cast<Kernel>(dlsym(lib, argv[2]));
    if (!kernel) {
        fprintf(stderr, "%s has no kernel %s\n", argv[1], argv[2]);
        return 1;
    }
    const std::string in_type = argv[3], out_type = argv[4];
    const int w = atoi(argv[5]), h = atoi(argv[6]), cin = atoi(argv[7]), cout = atoi(argv[8]), runs = atoi(argv[9]);
    const char *in = argv[10], *out = argv[11];
    if (in_type == "u8" && out_type == "u8") return run<uint8_t, uint8_t>(kernel, w, h, cin, cout, runs, in, out);
    if (in_type == "i32" && out_type == "i32") return run<int32_t, int32_t>(kernel, w, h, cin, cout, runs, in, out);
    if (in_type == "u8" && out_type == "f32") return run<uint8_t, float>(kernel, w, h, cin, cout, runs, in, out);
    if (in_type == "f32" && out_type == "f32") return run<float, float>(kernel, w, h, cin, cout, runs, in, out);
    fprintf(stderr, "no kernel takes %s to %s\n", in_type.c_str(), out_type.c_str());
    return 2;
}
