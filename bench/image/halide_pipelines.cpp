// Halide generator for the image benchmark: builds the reference kernels ahead of time
// (static libraries + headers for the host CPU) with the arithmetic of libs/image's
// pipelines, so the outputs can be compared bit for bit (box3) or to 1e-5 (Harris).
//
//   halide_pipelines <output dir>
#include "Halide.h"

#include <string>

using namespace Halide;

namespace {

Var x("x"), y("y"), xi("xi"), yi("yi");

// The tile ours uses (libs/image/variants.ts, schedules tile/vec/opt): 512 × 32, rows of
// tiles in parallel, and the vector width of ours' vec(16).
constexpr int TILE_W = 512;
constexpr int TILE_H = 32;
constexpr int LANES = 16;

// Guarded tails, as ours cuts edge tiles short: Halide's default shifts the last tile inwards,
// which needs the image to be at least a tile (--compare takes any size). Loop partitioning
// keeps the guard out of full tiles.
void tiled(Func f) {
    f.tile(x, y, xi, yi, TILE_W, TILE_H, TailStrategy::GuardWithIf).vectorize(xi, LANES).parallel(y);
}

// box3 on i32 with clamp boundary: blur_x inlined into blur_y, as libs/image/pipelines.impala.
// Halide's `/` rounds toward −∞ and Impala's toward 0; the inputs are non-negative, so they agree.
void box3(const std::string &dir, const Target &target) {
    ImageParam input(Int(32), 2, "input");
    Func in = BoundaryConditions::repeat_edge(input);
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    tiled(blur_y);
    blur_y.compile_to_static_library(dir + "/halide_box3", {input}, "halide_box3", target);
}

// Harris on a gray f32 image with clamp boundary, in the same operation order as
// libs/image/pipelines.impala: Sobel / 12, the three products, 3 × 3 box sums row by row,
// det − 0.04 · trace².
Func harris(ImageParam input, Func &prod) {
    Func g = BoundaryConditions::repeat_edge(input);
    Expr ix = ((g(x + 1, y - 1) - g(x - 1, y - 1)) + 2.0f * (g(x + 1, y) - g(x - 1, y)) + (g(x + 1, y + 1) - g(x - 1, y + 1))) * (1.0f / 12.0f);
    Expr iy = ((g(x - 1, y + 1) - g(x - 1, y - 1)) + 2.0f * (g(x, y + 1) - g(x, y - 1)) + (g(x + 1, y + 1) - g(x + 1, y - 1))) * (1.0f / 12.0f);
    prod(x, y) = Tuple(ix * ix, iy * iy, ix * iy);
    auto box = [&](int k) {
        auto row = [&](int dy) { return prod(x - 1, y + dy)[k] + prod(x, y + dy)[k] + prod(x + 1, y + dy)[k]; };
        return row(-1) + row(0) + row(1);
    };
    Expr sxx = box(0), syy = box(1), sxy = box(2);
    Expr det = sxx * syy - sxy * sxy;
    Expr trace = sxx + syy;
    Func out("harris");
    out(x, y) = det - 0.04f * trace * trace;
    return out;
}

// Ours' `opt` schedule: for each 512 × 32 output tile the products are computed on the tile
// grown by one pixel into a per-tile buffer (compute_at the tile), then box-summed; tiles
// vectorised, rows of tiles in parallel.
void harris_tiled(const std::string &dir, const Target &target) {
    ImageParam input(Float(32), 2, "input");
    Func prod("prod");
    Func out = harris(input, prod);
    tiled(out);
    prod.compute_at(out, x).vectorize(x, LANES);
    out.compile_to_static_library(dir + "/halide_harris_tiled", {input}, "halide_harris_tiled", target);
}

// Ours' `tile`/`vec` staging: the products computed for the whole image first (compute_root),
// both stages in 512 × 32 tiles, vectorised, rows of tiles in parallel.
void harris_root(const std::string &dir, const Target &target) {
    ImageParam input(Float(32), 2, "input");
    Func prod("prod");
    Func out = harris(input, prod);
    tiled(out);
    prod.compute_root();
    tiled(prod);
    out.compile_to_static_library(dir + "/halide_harris_root", {input}, "halide_harris_root", target);
}

// Halide's own apps/harris CPU schedule: strips of 32 rows in parallel, the products
// computed per row inside the strip and kept in a sliding window (fused, no full-size temporaries).
void harris_fused(const std::string &dir, const Target &target) {
    ImageParam input(Float(32), 2, "input");
    Func prod("prod");
    Func out = harris(input, prod);
    const int lanes = target.natural_vector_size<float>();
    out.split(y, y, yi, TILE_H).parallel(y).vectorize(x, lanes);
    prod.store_at(out, y).compute_at(out, yi).vectorize(x, lanes);
    out.compile_to_static_library(dir + "/halide_harris_fused", {input}, "halide_harris_fused", target);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <output dir>\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    const Target target = get_host_target();
    box3(dir, target);
    harris_tiled(dir, target);
    harris_root(dir, target);
    harris_fused(dir, target);
    printf("%s\n", target.to_string().c_str());
    return 0;
}
