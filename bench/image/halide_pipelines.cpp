// Halide generator for the image references: compiles one libs/image pipeline, for one
// element type and channel count, under one schedule, ahead of time for the host CPU, into
// a static library (without the Halide runtime) that references.ts links into a shared
// object for halide_driver.cpp, which has the runtime. The algorithms have the arithmetic of libs/image/pipelines.impala,
// so outputs agree bit for bit (integer pipelines) or to 1e-5 (Harris).
//
//   halide_pipelines <out dir> <name> <pipeline> <type> <channels> <schedule> <width> <height> <cores> <llc bytes>
//   halide_pipelines --target        (prints the host target the kernels are compiled for)
//   halide_pipelines --runtime <file.o>   (the Halide runtime for that target, for the driver)
//
// pipeline: box3 gauss5 unsharp sobel harris bilateral interpolate local_laplacian; type: u8 i32
// f32 (harris: u8 or f32 gray; the ports of Halide's apps: u8 or f32, interpolate on 2 or 4 channels);
// schedule: app (the schedule of Halide's own app for the pipeline), adams2019, li2018,
// mullapudi2016 (the autoschedulers Debian ships; the image size is their estimate, cores and
// LLC their machine parameters), same (libs/image's `opt`: 512 × 32 tiles, box3 strips of 32 rows; not for the ports of
// Halide's apps, whose `opt` is level by level in our own way). Prints the target
// and, for an autoscheduler, the schedule it chose.
//
// A new pipeline is one entry in PIPELINES: its algorithm (`Stages`) and its app schedule.
#include "Halide.h"

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "halide_apps.cpp"

// Where Debian's libhalide14-0-dev puts the autoscheduler plugins.
#ifndef HALIDE_PLUGIN_DIR
#define HALIDE_PLUGIN_DIR "/usr/lib/x86_64-linux-gnu/halide14"
#endif

using namespace Halide;

namespace {

Var x("x"), y("y"), c("c"), xi("xi"), yi("yi"), xo("xo"), yo("yo");

// Ours' `opt` tiles (libs/image/variants.ts): 512 × 32, vectorised, rows of tiles in parallel.
constexpr int TILE_W = 512;
constexpr int TILE_H = 32;
// The strip height of Halide's apps/blur and apps/harris CPU schedules.
constexpr int APP_STRIP = 32;

/** A pipeline's Funcs: the output (x, y, c) and its intermediate stages, by role. */
struct Stages {
    Func out;
    /** The stage a stencil reads (blur_x, the horizontal Gaussian pass, Harris' products), if any. */
    Func first;
    /** Type the arithmetic is done in, for the vector width. */
    Type compute;
    /** Harris only: the gray image, Ix and Iy, the stages Halide's apps/harris schedules. */
    Func gray, ix, iy;
    /** The ports of Halide's apps (halide_apps.cpp): their app schedule, over the Funcs they keep. */
    std::function<void()> app_schedule;
};

struct Spec {
    std::string pipeline, type, schedule;
    int channels, width, height;
    Target target;
};

int out_channels(const Spec &s) { return s.pipeline == "harris" ? 1 : s.channels; }

// The clamp boundary (Halide's repeat_edge = Impala's clamp_mode) on an interleaved image.
Func clamped(ImageParam in) { return BoundaryConditions::repeat_edge(in); }

// 3 × 3 box blur: blur_x, then blur_y over it, each dividing by 3. u8 computes in 16 bits
// (3 · 255 fits), as Halide's apps/blur does; i32 in 32 (inputs are ≥ 0, so Halide's floor
// division equals Impala's truncating one).
Stages box3(ImageParam input, const Spec &s) {
    Func in = clamped(input);
    Type t = s.type == "u8" ? UInt(16) : Int(32);
    Func bx("blur_x"), out("blur_y");
    auto v = [&](Expr xx, Expr yy) { return cast(t, in(xx, yy, c)); };
    bx(x, y, c) = (v(x - 1, y) + v(x, y) + v(x + 1, y)) / 3;
    out(x, y, c) = cast(input.type(), (bx(x, y - 1, c) + bx(x, y, c) + bx(x, y + 1, c)) / 3);
    return {out, bx, t};
}

// The binomial 1 4 6 4 1 pass over `f` along x (dx = 1) or y.
Expr binomial5(Func f, int dx, int dy) {
    auto at = [&](int k) { return f(x + k * dx, y + k * dy, c); };
    return at(-2) + 4 * at(-1) + 6 * at(0) + 4 * at(1) + at(2);
}

// The 5 × 5 Gaussian's two passes, ((Σ + 128) / 256); u8 in 16 bits (16 · 16 · 255 + 128
// fits), as ours' gauss5_u8 and OpenCV do. The integer sums are exact, so the order of
// the passes does not change the result: `vertical_first` is apps/unsharp's order.
Stages gauss5_passes(ImageParam input, const Spec &s, bool vertical_first) {
    Func in = clamped(input);
    Type t = s.type == "u8" ? UInt(16) : Int(32);
    Func src("src"), pass1("pass1"), out("gauss5");
    src(x, y, c) = cast(t, in(x, y, c));
    pass1(x, y, c) = vertical_first ? binomial5(src, 0, 1) : binomial5(src, 1, 0);
    Expr sum = vertical_first ? binomial5(pass1, 1, 0) : binomial5(pass1, 0, 1);
    out(x, y, c) = s.type == "u8" ? cast<uint8_t>((sum + 128) >> 8) : (sum + 128) / 256;
    return {out, pass1, t};
}

Stages gauss5(ImageParam input, const Spec &s) { return gauss5_passes(input, s, false); }

// Unsharp mask 2·in − gauss5(in), saturated to u8 as ours' u8 write does (16-bit signed arithmetic).
Stages unsharp(ImageParam input, const Spec &s) {
    Stages g = gauss5_passes(input, s, s.schedule == "app");
    Func in = clamped(input);
    Func out("unsharp");
    if (s.type == "u8") {
        out(x, y, c) = saturating_cast<uint8_t>(2 * cast<int16_t>(in(x, y, c)) - cast<int16_t>(g.out(x, y, c)));
    } else {
        out(x, y, c) = 2 * in(x, y, c) - g.out(x, y, c);
    }
    return {out, g.first, g.compute};
}

// Sobel magnitude |gx| + |gy|, saturated to u8 (16-bit arithmetic: |gx| + |gy| ≤ 2040).
Stages sobel(ImageParam input, const Spec &s) {
    Func in = clamped(input);
    Type t = s.type == "u8" ? Int(16) : Int(32);
    auto r = [&](int dx, int dy) { return cast(t, in(x + dx, y + dy, c)); };
    Expr gx = (r(1, -1) + 2 * r(1, 0) + r(1, 1)) - (r(-1, -1) + 2 * r(-1, 0) + r(-1, 1));
    Expr gy = (r(-1, 1) + 2 * r(0, 1) + r(1, 1)) - (r(-1, -1) + 2 * r(0, -1) + r(1, -1));
    Func out("sobel");
    if (s.type == "u8") {
        out(x, y, c) = saturating_cast<uint8_t>(cast<uint16_t>(abs(gx)) + cast<uint16_t>(abs(gy)));
    } else {
        out(x, y, c) = cast<int32_t>(abs(gx)) + cast<int32_t>(abs(gy));
    }
    return {out, Func(), t};
}

// Harris on the gray image, in the operation order of pipelines.impala: gray (Rec. 601 of
// v / 255, alpha ignored) from u8, or the f32 gray input itself; Sobel / 12; the three
// products; 3 × 3 box sums row by row; det − 0.04 · trace². One output channel.
Stages harris(ImageParam input, const Spec &s) {
    Func in = clamped(input);
    Func gray("gray"), ix("Ix"), iy("Iy"), prod("prod"), out("harris");
    if (s.type == "u8") {
        auto v = [&](int ch) { return cast<float>(in(x, y, ch)) * (1.0f / 255.0f); };
        gray(x, y) = s.channels < 3 ? v(0) : 0.299f * v(0) + 0.587f * v(1) + 0.114f * v(2);
    } else {
        gray(x, y) = in(x, y, 0);
    }
    Func &g = gray;
    ix(x, y) = ((g(x + 1, y - 1) - g(x - 1, y - 1)) + 2.0f * (g(x + 1, y) - g(x - 1, y)) + (g(x + 1, y + 1) - g(x - 1, y + 1))) * (1.0f / 12.0f);
    iy(x, y) = ((g(x - 1, y + 1) - g(x - 1, y - 1)) + 2.0f * (g(x, y + 1) - g(x, y - 1)) + (g(x + 1, y + 1) - g(x + 1, y - 1))) * (1.0f / 12.0f);
    prod(x, y) = Tuple(ix(x, y) * ix(x, y), iy(x, y) * iy(x, y), ix(x, y) * iy(x, y));
    auto box = [&](int k) {
        auto row = [&](int dy) { return prod(x - 1, y + dy)[k] + prod(x, y + dy)[k] + prod(x + 1, y + dy)[k]; };
        return row(-1) + row(0) + row(1);
    };
    Expr sxx = box(0), syy = box(1), sxy = box(2);
    Expr det = sxx * syy - sxy * sxy;
    Expr trace = sxx + syy;
    out(x, y, c) = det - 0.04f * trace * trace;
    Stages st{out, prod, Float(32)};
    st.gray = gray;
    st.ix = ix;
    st.iy = iy;
    return st;
}

// ------------------------------------------------------------ schedules

int lanes(const Spec &s, Type t) { return s.target.natural_vector_size(t); }

// Channels innermost and unrolled, so that the stores of one vector of pixels combine into
// one interleaved store (the layout of the image).
void channels_inner(Func f, const Spec &s, int channels) {
    f.bound(c, 0, channels).reorder(c, x, y);
    if (channels > 1) f.unroll(c);
}

// Halide's apps/blur CPU schedule (for box3; gauss5 and sobel, which have no app of their
// own, take it too): 32-row strips in parallel, vectorised along x, the stage the stencil
// reads stored per strip and computed per vector of output (a sliding window down the strip).
// The app schedules guard the last strip and vector (GuardWithIf) where the apps shift them
// inwards, so that any image size works (the apps need at least a strip and a vector);
// loop partitioning keeps the guard out of every other strip.
void app_blur(Stages &st, const Spec &s) {
    const int v = lanes(s, st.compute);
    channels_inner(st.out, s, out_channels(s));
    st.out.split(y, y, yi, APP_STRIP, TailStrategy::GuardWithIf).parallel(y).vectorize(x, v, TailStrategy::GuardWithIf);
    if (st.first.defined()) {
        st.first.store_at(st.out, y).compute_at(st.out, x).vectorize(x, v);
        channels_inner(st.first, s, s.channels);
    }
}

// Halide's apps/unsharp CPU schedule: the first (vertical) pass computed per output row,
// rows in parallel, vectorised along x.
void app_unsharp(Stages &st, const Spec &s) {
    const int v = lanes(s, st.compute);
    channels_inner(st.out, s, s.channels);
    st.out.vectorize(x, v, TailStrategy::GuardWithIf).parallel(y);
    st.first.compute_at(st.out, y).vectorize(x, v, TailStrategy::GuardWithIf);
    channels_inner(st.first, s, s.channels);
}

// Halide's apps/harris CPU schedule: 32-row strips in parallel, gray, Ix and Iy stored per
// strip and computed per row (sliding windows), Ix computed with Iy, the rest inlined.
void app_harris(Stages &st, const Spec &s) {
    const int v = lanes(s, Float(32));
    st.out.bound(c, 0, 1);
    st.out.split(y, y, yi, APP_STRIP, TailStrategy::GuardWithIf).parallel(y).vectorize(x, v, TailStrategy::GuardWithIf);
    st.gray.store_at(st.out, y).compute_at(st.out, yi).vectorize(x, v, TailStrategy::GuardWithIf);
    st.iy.store_at(st.out, y).compute_at(st.out, yi).vectorize(x, v, TailStrategy::GuardWithIf);
    st.ix.store_at(st.out, y).compute_at(st.out, yi).vectorize(x, v, TailStrategy::GuardWithIf);
    st.ix.compute_with(st.iy, x);
}

// libs/image's `opt`: 512 × 32 tiles (box3: strips of 32 whole rows), rows of tiles in parallel, the channels of a row of
// tiles one after another, 16 lanes (32 in 16-bit arithmetic); the stage a stencil reads
// computed per tile on the tile grown by the stencil (Harris from u8: its gray too, as ours'
// harris_staged). Edge tiles are cut short, as ours: x is split into vectors first (the last
// one shifted inwards, Halide's way, so no vector is predicated, which Halide 14 does lane by
// lane) and the vectors into tiles of 512 / lanes, the last tile guarded; an image narrower
// than a vector is guarded lane by lane.
void same_as_ours(Stages &st, const Spec &s) {
    const int v = st.compute.bits() == 16 ? 32 : 16;
    Var xv("xv");
    auto tiles = [&](Stage f, TailStrategy vectors) {
        f.split(x, xo, xv, v, vectors)
            .split(xo, xo, xi, TILE_W / v, TailStrategy::GuardWithIf)
            .split(y, yo, yi, TILE_H, TailStrategy::GuardWithIf)
            .reorder(xv, xi, yi, xo, c, yo)
            .vectorize(xv)
            .parallel(yo);
    };
    st.out.bound(c, 0, out_channels(s));
    if (s.pipeline == "box3") {
        // box3's `opt` is strips of TILE_H whole rows (no tiles across x).
        auto strips = [&](Stage f, TailStrategy vectors) {
            f.split(x, xo, xv, v, vectors)
                .split(y, yo, yi, TILE_H, TailStrategy::GuardWithIf)
                .reorder(xv, xo, yi, c, yo)
                .vectorize(xv)
                .parallel(yo);
        };
        strips(st.out.specialize(st.out.output_buffer().width() >= v), TailStrategy::ShiftInwards);
        strips(st.out, TailStrategy::GuardWithIf);
        if (st.first.defined()) st.first.compute_at(st.out, c).vectorize(x, v);
        return;
    }
    tiles(st.out.specialize(st.out.output_buffer().width() >= v), TailStrategy::ShiftInwards);
    tiles(st.out, TailStrategy::GuardWithIf);
    if (st.first.defined()) st.first.compute_at(st.out, xo).vectorize(x, v);
    if (s.pipeline == "harris" && s.type == "u8") st.gray.compute_at(st.out, xo).vectorize(x, v);
}

// The ports of Halide's apps: the algorithm in halide_apps.cpp, with its app schedule kept
// beside the output for `app`.
Stages bilateral(ImageParam input, const Spec &s) {
    auto g = std::make_shared<halide_apps::BilateralGrid>(halide_apps::bilateral_grid(input, x, y, c));
    return {g->out, Func(), Float(32), Func(), Func(), Func(), [g, n = s.channels] { halide_apps::bilateral_grid_app_schedule(*g, x, y, c, n); }};
}

Stages interpolate(ImageParam input, const Spec &s) {
    auto p = std::make_shared<halide_apps::Interpolate>(halide_apps::interpolate(input, x, y, c, s.channels));
    return {p->out, Func(), Float(32), Func(), Func(), Func(), [p, n = s.channels] { halide_apps::interpolate_app_schedule(*p, x, y, c, n); }};
}

Stages local_laplacian(ImageParam input, const Spec &s) {
    auto p = std::make_shared<halide_apps::LocalLaplacian>(halide_apps::local_laplacian(input, x, y, c, s.channels));
    return {p->out, Func(), Float(32), Func(), Func(), Func(), [p, n = s.channels] { halide_apps::local_laplacian_app_schedule(*p, x, y, c, n); }};
}

void app_own(Stages &st, const Spec &) { st.app_schedule(); }

using Algorithm = std::function<Stages(ImageParam, const Spec &)>;
using Schedule = std::function<void(Stages &, const Spec &)>;

struct PipelineDef {
    Algorithm algorithm;
    Schedule app;
};

const std::map<std::string, PipelineDef> PIPELINES = {
    {"box3", {box3, app_blur}},
    {"gauss5", {gauss5, app_blur}},
    {"unsharp", {unsharp, app_unsharp}},
    {"sobel", {sobel, app_blur}},
    {"harris", {harris, app_harris}},
    {"bilateral", {bilateral, app_own}},
    {"interpolate", {interpolate, app_own}},
    {"local_laplacian", {local_laplacian, app_own}},
};

const std::map<std::string, std::string> AUTOSCHEDULERS = {
    {"adams2019", "Adams2019"},
    {"li2018", "Li2018"},
    {"mullapudi2016", "Mullapudi2016"},
};

Type element(const std::string &t) { return t == "u8" ? UInt(8) : t == "i32" ? Int(32) : Float(32); }

// Interleaved channels: x strides over the channels, c is the innermost dimension.
template <typename P>
void interleaved(P dims, int channels) {
    dims.dim(0).set_stride(channels);
    dims.dim(2).set_stride(1).set_bounds(0, channels);
}

// The host target, less Sapphire Rapids where the CPU lacks its AVX512-FP16: Halide 14 takes
// AVX512-BF16 with AVX-VNNI for a Sapphire Rapids, which AMD's Zen 4 also has, and LLVM then
// emits FP16 instructions (vmovw) that fault there.
Target host_target() {
    Target t = get_host_target();
    if (t.has_feature(Target::AVX512_SapphireRapids) && !__builtin_cpu_supports("avx512fp16")) t = t.without_feature(Target::AVX512_SapphireRapids);
    return t;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--target")) {
        printf("%s\n", host_target().to_string().c_str());
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--runtime")) {
        compile_standalone_runtime(argv[2], host_target());
        return 0;
    }
    if (argc != 11) {
        fprintf(stderr, "usage: %s <out dir> <name> <pipeline> <type> <channels> <schedule> <width> <height> <cores> <llc bytes>\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1], name = argv[2];
    Spec s{argv[3], argv[4], argv[6], atoi(argv[5]), atoi(argv[7]), atoi(argv[8]), host_target()};
    const int cores = atoi(argv[9]);
    const uint64_t llc = strtoull(argv[10], nullptr, 10);
    auto def = PIPELINES.find(s.pipeline);
    if (def == PIPELINES.end() || s.channels < 1 || s.channels > 4 || s.width < 1 || s.height < 1 || (s.pipeline == "interpolate" && s.channels % 2)) {
        fprintf(stderr, "unknown pipeline %s or bad channels/size\n", s.pipeline.c_str());
        return 2;
    }

    ImageParam input(element(s.type), 3, "input");
    Stages st = def->second.algorithm(input, s);
    if (s.schedule == "same" && st.app_schedule) {
        fprintf(stderr, "no schedule like ours for %s\n", s.pipeline.c_str());
        return 2;
    }
    interleaved(input, s.channels);
    interleaved(st.out.output_buffer(), out_channels(s));

    Pipeline p(st.out);
    auto autos = AUTOSCHEDULERS.find(s.schedule);
    if (s.schedule == "app") {
        def->second.app(st, s);
    } else if (s.schedule == "same") {
        same_as_ours(st, s);
    } else if (autos != AUTOSCHEDULERS.end()) {
        load_plugin(std::string(HALIDE_PLUGIN_DIR "/libautoschedule_") + s.schedule + ".so");
        input.dim(0).set_estimate(0, s.width).dim(1).set_estimate(0, s.height).dim(2).set_estimate(0, s.channels);
        st.out.set_estimate(x, 0, s.width).set_estimate(y, 0, s.height).set_estimate(c, 0, out_channels(s));
        AutoSchedulerResults r = p.auto_schedule(autos->second, s.target, MachineParams(cores, llc, 40));
        printf("schedule:\n%s\n", r.schedule_source.c_str());
    } else {
        fprintf(stderr, "unknown schedule %s\n", s.schedule.c_str());
        return 2;
    }
    // The runtime is linked into the driver once (--runtime), not into every kernel.
    p.compile_to_static_library(dir + "/" + name, {input}, name, s.target.with_feature(Target::NoRuntime));
    printf("target: %s\n", s.target.to_string().c_str());
    return 0;
}
