// Halide generator for the GPU benchmark's reference: the algorithms of bench/image's
// generator (halide_pipelines.cpp, included below so that both compile the same code) with
// GPU schedules in the style of Halide's own apps, ahead of time for CUDA. Runs without a
// GPU; the objects it writes need nothing but the NVIDIA driver where they run (Halide's
// CUDA runtime loads libcuda.so with dlopen).
//
//   halide_cuda <out dir>     writes <pipeline>.a and <pipeline>.h for box3, gauss5 and harris on
//                             u8 images of 3 channels (no runtime), and halide_runtime.o
//
// Schedules: the output in 32 × 8 tiles of GPU threads, channels unrolled inside a thread
// (interleaved images), and the stage a stencil reads computed per tile in shared memory
// (compute_at the block, gpu_threads), as apps/blur and apps/harris do on GPUs: the
// counterpart of libs/image's gpu_shared schedule.
#define main halide_pipelines_main
#include "../image/halide_pipelines.cpp"
#undef main

namespace {

constexpr int BLOCK_W = 32;
constexpr int BLOCK_H = 8;
constexpr int CHANNELS = 3;

// Compute capability 8.0 (Ampere, and JIT-compiled from PTX on anything newer such as sm_90).
Target cuda_target() {
    return get_host_target().with_feature(Target::CUDA).with_feature(Target::CUDACapability80);
}

void gpu_schedule(Stages &st, int out_channels) {
    st.out.bound(c, 0, out_channels).reorder(c, x, y).unroll(c).gpu_tile(x, y, xi, yi, BLOCK_W, BLOCK_H);
    if (st.first.defined()) {
        // Per block in shared memory; Harris' gradients are inlined into the products, whose
        // gray input is staged per block too.
        st.first.compute_at(st.out, x).gpu_threads(x, y);
        if (st.gray.defined()) st.gray.compute_at(st.out, x).gpu_threads(x, y);
        else st.first.reorder(c, x, y).unroll(c);
    }
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <out dir>\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    const Target target = cuda_target();
    for (const char *name : {"box3", "gauss5", "harris"}) {
        Spec s{name, "u8", "cuda", CHANNELS, 0, 0, target};
        ImageParam input(UInt(8), 3, "input");
        Stages st = PIPELINES.at(name).algorithm(input, s);
        interleaved(input, CHANNELS);
        interleaved(st.out.output_buffer(), out_channels(s));
        gpu_schedule(st, out_channels(s));
        st.out.compile_to_static_library(dir + "/" + name, {input}, name, target.with_feature(Target::NoRuntime));
    }
    compile_standalone_runtime(dir + "/halide_runtime.o", target);
    printf("target: %s\n", target.to_string().c_str());
    return 0;
}
