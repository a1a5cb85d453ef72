// Halide definitions of the pipelines of Halide's own apps that libs/image implements
// (bilateral.impala, interpolate.impala, local_laplacian.impala), for the image
// references: each algorithm in Halide 14 with the arithmetic and boundary handling of
// ours, so outputs agree to f32 rounding (Halide may contract a · b + c into an FMA), and
// the CPU schedule of Halide's app for it (written after Halide 14's apps/*_generator.cpp).
// halide_pipelines.cpp includes this file at file scope and adds a PIPELINES entry per
// pipeline that calls these functions with its Vars x, y, c; the autoschedulers need only
// `out` and the estimates it sets there.
//
// Images are interleaved (x, y, c) buffers of u8 or f32 (`unit`: the values in [0, 1] the
// algorithms compute on, u8 as v / 255) and the output has the input's type and channels
// (u8: rounded to the nearest level, halves up, saturated). The boundary is the clamp mode
// (Halide's repeat_edge) on the input.
#pragma once

#include "Halide.h"

#include <functional>
#include <string>
#include <vector>

namespace halide_apps {

using namespace Halide;

/** The input clamped at its edges, as f32 in [0, 1]. */
inline Func unit_clamped(ImageParam input, Var x, Var y, Var c) {
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func unit("unit");
    unit(x, y, c) = input.type() == UInt(8) ? cast<float>(clamped(x, y, c)) * (1.0f / 255.0f) : clamped(x, y, c);
    return unit;
}

/** A value in [0, 1] stored as the input's type, as libs/image/multiscale.impala's channel_u8_unit writes it. */
inline Expr store_unit(ImageParam input, Expr v) {
    if (input.type() != UInt(8)) return v;
    return cast<uint8_t>(clamp(v * 255.0f + 0.5f, 0.0f, 255.0f));
}

/** lerp as Halide defines it for floats, written out so that both sides round the same way. */
inline Expr lerp_f(Expr a, Expr b, Expr t) { return a * (1.0f - t) + b * t; }

// ------------------------------------------------------------ bilateral grid

/** apps/bilateral_grid's Funcs: the output (x, y, c) and the grid stages its schedule names. */
struct BilateralGrid {
    Func out, histogram, blurz, blurx, blury;
    RDom r;
    Var z, k;
};

/**
 * apps/bilateral_grid with s_sigma = 8 and r_sigma = 0.1 (libs/image/bilateral.impala), on
 * every channel c of the image on its own: k = 0 is the value, k = 1 the count of a grid cell.
 */
inline BilateralGrid bilateral_grid(ImageParam input, Var x, Var y, Var c) {
    const int s_sigma = 8;
    const float inv_r = 1.0f / 0.1f;
    BilateralGrid g{Func("bilateral_grid"), Func("histogram"), Func("blurz"), Func("blurx"), Func("blury"), RDom(0, s_sigma, 0, s_sigma), Var("z"), Var("k")};
    Func unit = unit_clamped(input, x, y, c);
    Var z = g.z, k = g.k;
    RDom r = g.r;
    Expr val = clamp(unit(x * s_sigma + r.x - s_sigma / 2, y * s_sigma + r.y - s_sigma / 2, c), 0.0f, 1.0f);
    Expr zi = cast<int>(val * inv_r + 0.5f);
    g.histogram(x, y, z, c, k) = 0.0f;
    g.histogram(x, y, zi, c, k) += select(k == 0, val, 1.0f);
    auto five = [](std::function<Expr(int)> t) { return t(-2) + t(-1) * 4.0f + t(0) * 6.0f + t(1) * 4.0f + t(2); };
    g.blurz(x, y, z, c, k) = five([&](int d) { return g.histogram(x, y, z + d, c, k); });
    g.blurx(x, y, z, c, k) = five([&](int d) { return g.blurz(x + d, y, z, c, k); });
    g.blury(x, y, z, c, k) = five([&](int d) { return g.blurx(x, y + d, z, c, k); });
    // Trilinear samples of the blurred grid at each pixel's position and value.
    Expr v = clamp(unit(x, y, c), 0.0f, 1.0f);
    Expr zv = v * inv_r;
    Expr zc = cast<int>(zv);
    Expr zf = zv - cast<float>(zc);
    Expr xf = cast<float>(x % s_sigma) / s_sigma;
    Expr yf = cast<float>(y % s_sigma) / s_sigma;
    Expr xi = x / s_sigma, yi = y / s_sigma;
    auto sample = [&](int kk) {
        auto b = [&](int dx, int dy, int dz) { return g.blury(xi + dx, yi + dy, zc + dz, c, kk); };
        auto plane = [&](int dz) { return lerp_f(lerp_f(b(0, 0, dz), b(1, 0, dz), xf), lerp_f(b(0, 1, dz), b(1, 1, dz), xf), yf); };
        return lerp_f(plane(0), plane(1), zf);
    };
    g.out(x, y, c) = store_unit(input, sample(0) / sample(1));
    return g;
}

/**
 * The CPU schedule of Halide 14's apps/bilateral_grid (its generator's non-GPU branch):
 * the histogram per row of blurz on the stack, blurz, blurx and blury computed whole,
 * parallel over y or z and vectorised 8 wide along x, the output parallel over rows.
 * The image channel c is the outermost loop of every grid stage.
 */
inline void bilateral_grid_app_schedule(BilateralGrid &g, Var x, Var y, Var c, int channels) {
    Var z = g.z, k = g.k;
    g.histogram.compute_at(g.blurz, y).store_in(MemoryType::Stack);
    g.histogram.update().reorder(k, g.r.x, g.r.y, x, y).unroll(k);
    g.blurz.compute_root().bound(k, 0, 2).reorder(k, z, x, y, c).parallel(y).vectorize(x, 8).unroll(k);
    g.blurx.compute_root().bound(k, 0, 2).reorder(k, x, y, z, c).parallel(z).vectorize(x, 8).unroll(k);
    g.blury.compute_root().bound(k, 0, 2).reorder(k, x, y, z, c).parallel(z).vectorize(x, 8).unroll(k);
    g.out.compute_root().bound(c, 0, channels).reorder(c, x, y).parallel(y).vectorize(x, 8);
    if (channels > 1) g.out.unroll(c);
}

// ------------------------------------------------------------ interpolate

constexpr int INTERPOLATE_LEVELS = 10;

/** apps/interpolate's Funcs: the output (x, y, c) and the levels its schedule names. */
struct Interpolate {
    Func out;
    std::vector<Func> downsampled, interpolated;
};

/**
 * apps/interpolate (libs/image/interpolate.impala) on an image whose last channel is alpha:
 * the premultiplied image downsampled nine times (1 2 1 in x, then y), upsampled back with
 * each level keeping its pixels by their alpha, divided by alpha (0 where it is 0). Level l
 * covers [0, w_l) with w_l = w_(l−1) / 2 + 1; level 1 reads the clamped input, deeper
 * levels their finer level clamped to its extent (the app clamps at level 4 only).
 */
inline Interpolate interpolate(ImageParam input, Var x, Var y, Var c, int channels) {
    const int alpha = channels - 1;
    const int levels = INTERPOLATE_LEVELS;
    Func unit = unit_clamped(input, x, y, c);
    Interpolate p{Func("interpolate"), std::vector<Func>(levels), std::vector<Func>(levels)};
    std::vector<Expr> w(levels), h(levels);
    w[0] = input.width();
    h[0] = input.height();
    for (int l = 1; l < levels; l++) {
        w[l] = w[l - 1] / 2 + 1;
        h[l] = h[l - 1] / 2 + 1;
    }
    Func &d0 = p.downsampled[0];
    d0 = Func("downsampled_0");
    d0(x, y, c) = select(c == alpha, unit(x, y, alpha), unit(x, y, c) * unit(x, y, alpha));
    for (int l = 1; l < levels; l++) {
        Func prev = p.downsampled[l - 1];
        if (l > 1) {
            Func bounded("bounded_" + std::to_string(l - 1));
            bounded(x, y, c) = prev(clamp(x, 0, w[l - 1] - 1), clamp(y, 0, h[l - 1] - 1), c);
            prev = bounded;
        }
        Func downx("downx_" + std::to_string(l));
        downx(x, y, c) = (prev(x * 2 - 1, y, c) + 2.0f * prev(x * 2, y, c) + prev(x * 2 + 1, y, c)) * 0.25f;
        p.downsampled[l] = Func("downsampled_" + std::to_string(l));
        p.downsampled[l](x, y, c) = (downx(x, y * 2 - 1, c) + 2.0f * downx(x, y * 2, c) + downx(x, y * 2 + 1, c)) * 0.25f;
    }
    p.interpolated[levels - 1] = p.downsampled[levels - 1];
    for (int l = levels - 2; l >= 0; l--) {
        Func next = p.interpolated[l + 1];
        Func upx("upsampledx_" + std::to_string(l)), up("upsampled_" + std::to_string(l));
        upx(x, y, c) = (next(x / 2, y, c) + next((x + 1) / 2, y, c)) / 2.0f;
        up(x, y, c) = (upx(x, y / 2, c) + upx(x, (y + 1) / 2, c)) / 2.0f;
        p.interpolated[l] = Func("interpolated_" + std::to_string(l));
        p.interpolated[l](x, y, c) = p.downsampled[l](x, y, c) + (1.0f - p.downsampled[l](x, y, alpha)) * up(x, y, c);
    }
    Func &i0 = p.interpolated[0];
    p.out(x, y, c) = store_unit(input, select(i0(x, y, alpha) > 0.0f, i0(x, y, c) / i0(x, y, alpha), 0.0f));
    return p;
}

/**
 * The CPU schedule of Halide 14's apps/interpolate: every level downsampled and interpolated
 * whole, in parallel strips of 8 rows, vectorised along x; the output with its channels
 * innermost and unrolled, in parallel strips of rows.
 */
inline void interpolate_app_schedule(Interpolate &p, Var x, Var y, Var c, int channels) {
    for (int l = 1; l < INTERPOLATE_LEVELS; l++) {
        p.downsampled[l].compute_root().bound(c, 0, channels).reorder(x, y, c).parallel(y, 8).vectorize(x, 16);
        if (l < INTERPOLATE_LEVELS - 1) {
            p.interpolated[l].compute_root().bound(c, 0, channels).reorder(x, y, c).parallel(y, 8).vectorize(x, 8);
        }
    }
    p.out.compute_root().bound(c, 0, channels).reorder(c, x, y).unroll(c).parallel(y, 8).vectorize(x, 8);
}

// ------------------------------------------------------------ local Laplacian

constexpr int LL_INTENSITIES = 8;
constexpr int LL_LEVELS = 8;

/** apps/local_laplacian's Funcs: the output (x, y, c) and the stages its schedule names. */
struct LocalLaplacian {
    Func out, remap, gray;
    std::vector<Func> gPyramid, inGPyramid, outGPyramid;
    Var k;
};

/**
 * apps/local_laplacian with levels = 8, alpha = beta = 1, J = 8 (libs/image/local_laplacian.impala):
 * 1 3 3 1 downsampling, lerp upsampling, the output's Laplacian blended from the remapped
 * pyramids at the two intensity levels around the gray pyramid's value, colour restored by
 * the ratio to the old gray (a fourth channel copied). Deeper levels read their finer level
 * clamped to its extent (w_j = w_(j−1) / 2 + 1), which keeps the footprint bounded; the remap
 * table's exponential is taken in f64, as ours does.
 */
inline LocalLaplacian local_laplacian(ImageParam input, Var x, Var y, Var c, int channels) {
    const int levels = LL_INTENSITIES, J = LL_LEVELS;
    const int colours = channels >= 3 ? 3 : 1;
    LocalLaplacian p{Func("local_laplacian"), Func("remap"), Func("gray"), std::vector<Func>(J), std::vector<Func>(J), std::vector<Func>(J), Var("k")};
    Var k = p.k;
    Func unit = unit_clamped(input, x, y, c);
    std::vector<Expr> w(J), h(J);
    w[0] = input.width();
    h[0] = input.height();
    for (int j = 1; j < J; j++) {
        w[j] = w[j - 1] / 2 + 1;
        h[j] = h[j - 1] / 2 + 1;
    }
    Expr fx = cast<float>(x) / 256.0f;
    p.remap(x) = 1.0f * fx * cast<float>(exp(cast<double>((-fx * fx) / 2.0f)));
    // Strict (no FMA): the remap table's index is a step function of the gray value, so one
    // rounding apart would pick another entry.
    p.gray(x, y) = strict_float(colours == 1 ? unit(x, y, 0) : 0.299f * unit(x, y, 0) + 0.587f * unit(x, y, 1) + 0.114f * unit(x, y, 2));
    auto bounded = [&](Func f, int j, bool with_k) {
        Func b("bounded_" + f.name());
        Expr bx = clamp(x, 0, w[j] - 1), by = clamp(y, 0, h[j] - 1);
        if (with_k) b(x, y, k) = f(bx, by, k); else b(x, y) = f(bx, by);
        return b;
    };
    auto downsample = [&](Func f, bool with_k) {
        Func downx("downx_" + f.name()), downy("downy_" + f.name());
        auto at = [&](Func g, Expr xx, Expr yy) { return with_k ? g(xx, yy, k) : g(xx, yy); };
        Expr dx = (at(f, 2 * x - 1, y) + 3.0f * (at(f, 2 * x, y) + at(f, 2 * x + 1, y)) + at(f, 2 * x + 2, y)) / 8.0f;
        if (with_k) downx(x, y, k) = dx; else downx(x, y) = dx;
        Expr dy = (at(downx, x, 2 * y - 1) + 3.0f * (at(downx, x, 2 * y) + at(downx, x, 2 * y + 1)) + at(downx, x, 2 * y + 2)) / 8.0f;
        if (with_k) downy(x, y, k) = dy; else downy(x, y) = dy;
        return downy;
    };
    auto upsample = [&](Func f, Expr kk, bool with_k) {
        auto at = [&](Expr xx, Expr yy) { return with_k ? f(xx, yy, kk) : f(xx, yy); };
        auto ux = [&](Expr yy) { return lerp_f(at((x + 1) / 2, yy), at((x - 1) / 2, yy), cast<float>((x % 2) * 2 + 1) / 4.0f); };
        return lerp_f(ux((y + 1) / 2), ux((y - 1) / 2), cast<float>((y % 2) * 2 + 1) / 4.0f);
    };
    Expr level = k * (1.0f / (levels - 1));
    Expr idx = clamp(cast<int>(p.gray(x, y) * cast<float>(levels - 1) * 256.0f), 0, (levels - 1) * 256);
    p.gPyramid[0] = Func("gPyramid_0");
    p.gPyramid[0](x, y, k) = 1.0f * (p.gray(x, y) - level) + level + p.remap(idx - 256 * k);
    p.inGPyramid[0] = Func("inGPyramid_0");
    p.inGPyramid[0](x, y) = p.gray(x, y);
    for (int j = 1; j < J; j++) {
        Func gprev = j == 1 ? p.gPyramid[0] : bounded(p.gPyramid[j - 1], j - 1, true);
        Func iprev = j == 1 ? p.inGPyramid[0] : bounded(p.inGPyramid[j - 1], j - 1, false);
        p.gPyramid[j] = Func("gPyramid_" + std::to_string(j));
        p.gPyramid[j](x, y, k) = downsample(gprev, true)(x, y, k);
        p.inGPyramid[j] = Func("inGPyramid_" + std::to_string(j));
        p.inGPyramid[j](x, y) = downsample(iprev, false)(x, y);
    }
    std::vector<Func> outL(J);
    for (int j = 0; j < J; j++) {
        Expr lv = p.inGPyramid[j](x, y) * cast<float>(levels - 1);
        Expr li = clamp(cast<int>(lv), 0, levels - 2);
        Expr lf = lv - cast<float>(li);
        auto lap = [&](Expr kk) {
            if (j == J - 1) return p.gPyramid[j](x, y, kk) - 0.0f;
            return p.gPyramid[j](x, y, kk) - upsample(bounded(p.gPyramid[j + 1], j + 1, true), kk, true);
        };
        outL[j] = Func("outLPyramid_" + std::to_string(j));
        outL[j](x, y) = (1.0f - lf) * lap(li) + lf * lap(li + 1);
    }
    p.outGPyramid[J - 1] = outL[J - 1];
    for (int j = J - 2; j >= 0; j--) {
        p.outGPyramid[j] = Func("outGPyramid_" + std::to_string(j));
        p.outGPyramid[j](x, y) = upsample(bounded(p.outGPyramid[j + 1], j + 1, false), Expr(), false) + outL[j](x, y);
    }
    Expr colour = clamp(p.outGPyramid[0](x, y) * (unit(x, y, c) + 0.01f) / (p.gray(x, y) + 0.01f), 0.0f, 1.0f);
    p.out(x, y, c) = store_unit(input, colours == channels ? colour : select(c < colours, colour, unit(x, y, c)));
    return p;
}

/**
 * The CPU schedule of Halide 14's apps/local_laplacian: the remap table and the gray image
 * whole, the first four levels of the pyramids whole in parallel strips (the remapped
 * pyramid stored x, k, y), the output in parallel strips of 64 rows with its Gaussian
 * pyramid's fine levels slid down each strip, the coarse levels whole.
 */
inline void local_laplacian_app_schedule(LocalLaplacian &p, Var x, Var y, Var c, int channels) {
    Var k = p.k, yo("yo");
    p.remap.compute_root();
    p.out.bound(c, 0, channels).reorder(c, x, y).split(y, yo, y, 64).parallel(yo).vectorize(x, 8);
    p.gray.compute_root().parallel(y, 32).vectorize(x, 8);
    for (int j = 1; j < 5; j++) {
        p.inGPyramid[j].compute_root().parallel(y, 32).vectorize(x, 8);
        p.gPyramid[j].compute_root().bound(k, 0, LL_INTENSITIES).reorder_storage(x, k, y).reorder(k, y).parallel(y, 8).vectorize(x, 8);
        p.outGPyramid[j].store_at(p.out, yo).compute_at(p.out, y).fold_storage(y, 4).vectorize(x, 8);
    }
    p.outGPyramid[0].compute_at(p.out, y).vectorize(x, 8);
    for (int j = 5; j < LL_LEVELS; j++) {
        p.inGPyramid[j].compute_root();
        p.gPyramid[j].compute_root().bound(k, 0, LL_INTENSITIES).parallel(k);
        p.outGPyramid[j].compute_root();
    }
}

}  // namespace halide_apps
