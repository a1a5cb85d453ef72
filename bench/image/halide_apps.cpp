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

// ------------------------------------------------------------ camera pipe

/** apps/camera_pipe's Funcs and the run-time parameters it takes. */
struct CameraPipe {
    Func out, denoised, deinterleaved, demosaiced, corrected, curved, curve, matrix, strength;
    Param<float> color_temp{"color_temp"}, gamma{"gamma"}, contrast{"contrast"}, sharpen{"sharpen"};
    Param<int> black{"black"}, white{"white"};
};

/**
 * apps/camera_pipe (libs/image/camera.impala) on a GRBG mosaic of 16-bit samples, output
 * interleaved RGB u8 of the mosaic's size. As the app: hot-pixel suppression, deinterleave,
 * demosaic and sharpening in 16-bit signed arithmetic, the 3 × 4 Q8.8 colour matrix
 * interpolated by colour temperature (f32, strict), the tone curve as a table (here in f64,
 * as ours, so that both round alike). Where the app shifts into a larger input, the mosaic is
 * extended plane by plane with clamp (each colour plane's repeat_edge), as ours' clamp mode.
 */
inline CameraPipe camera_pipe(ImageParam input, Var x, Var y, Var c) {
    CameraPipe p;
    Expr cw = input.width() / 2, ch = input.height() / 2;
    // Sample (x, y) of the mosaic with each colour plane clamped at its edges.
    Func raw("raw");
    Expr px = x % 2, py = y % 2, cx = clamp(x / 2, 0, cw - 1), cy = clamp(y / 2, 0, ch - 1);
    raw(x, y) = cast<int16_t>(input(2 * cx + px, 2 * cy + py));
    p.denoised = Func("denoised");
    p.denoised(x, y) = clamp(raw(x, y), cast<int16_t>(0), max(max(raw(x - 2, y), raw(x + 2, y)), max(raw(x, y - 2), raw(x, y + 2))));
    p.deinterleaved = Func("deinterleaved");
    p.deinterleaved(x, y, c) = mux(c, {p.denoised(2 * x, 2 * y), p.denoised(2 * x + 1, 2 * y), p.denoised(2 * x, 2 * y + 1), p.denoised(2 * x + 1, 2 * y + 1)});
    auto avg = [](Expr a, Expr b) { return cast<int16_t>((cast<int32_t>(a) + b + 1) >> 1); };
    auto absd16 = [](Expr a, Expr b) { return cast<int16_t>(absd(a, b)); };
    Func g_gr("g_gr"), r_r("r_r"), b_b("b_b"), g_gb("g_gb"), g_r("g_r"), g_b("g_b");
    g_gr(x, y) = p.deinterleaved(x, y, 0);
    r_r(x, y) = p.deinterleaved(x, y, 1);
    b_b(x, y) = p.deinterleaved(x, y, 2);
    g_gb(x, y) = p.deinterleaved(x, y, 3);
    g_r(x, y) = select(absd16(g_gr(x + 1, y), g_gr(x, y)) < absd16(g_gb(x, y - 1), g_gb(x, y)), avg(g_gr(x + 1, y), g_gr(x, y)), avg(g_gb(x, y - 1), g_gb(x, y)));
    g_b(x, y) = select(absd16(g_gb(x - 1, y), g_gb(x, y)) < absd16(g_gr(x, y + 1), g_gr(x, y)), avg(g_gb(x - 1, y), g_gb(x, y)), avg(g_gr(x, y + 1), g_gr(x, y)));
    Expr r_gr = g_gr(x, y) - avg(g_r(x, y), g_r(x - 1, y)) + avg(r_r(x - 1, y), r_r(x, y));
    Expr b_gr = g_gr(x, y) - avg(g_b(x, y), g_b(x, y - 1)) + avg(b_b(x, y), b_b(x, y - 1));
    Expr r_gb = g_gb(x, y) - avg(g_r(x, y), g_r(x, y + 1)) + avg(r_r(x, y), r_r(x, y + 1));
    Expr b_gb = g_gb(x, y) - avg(g_b(x, y), g_b(x + 1, y)) + avg(b_b(x, y), b_b(x + 1, y));
    Expr rp_b = g_b(x, y) - avg(g_r(x, y), g_r(x - 1, y + 1)) + avg(r_r(x, y), r_r(x - 1, y + 1));
    Expr rn_b = g_b(x, y) - avg(g_r(x - 1, y), g_r(x, y + 1)) + avg(r_r(x - 1, y), r_r(x, y + 1));
    Expr r_b = select(absd16(r_r(x, y), r_r(x - 1, y + 1)) < absd16(r_r(x - 1, y), r_r(x, y + 1)), rp_b, rn_b);
    Expr bp_r = g_r(x, y) - avg(g_b(x, y), g_b(x + 1, y - 1)) + avg(b_b(x, y), b_b(x + 1, y - 1));
    Expr bn_r = g_r(x, y) - avg(g_b(x + 1, y), g_b(x, y - 1)) + avg(b_b(x + 1, y), b_b(x, y - 1));
    Expr b_r = select(absd16(b_b(x, y), b_b(x + 1, y - 1)) < absd16(b_b(x + 1, y), b_b(x, y - 1)), bp_r, bn_r);
    // Cell (x, y), site s (GRBG: (x & 1) + 2 (y & 1)), colour c.
    Func cell("demosaic_cell");
    Var s("s");
    cell(x, y, s, c) = mux(s, {mux(c, {r_gr, g_gr(x, y), b_gr}), mux(c, {r_r(x, y), g_r(x, y), b_r}), mux(c, {r_b, g_b(x, y), b_b(x, y)}), mux(c, {r_gb, g_gb(x, y), b_gb})});
    p.demosaiced = Func("demosaiced");
    p.demosaiced(x, y, c) = cell(x / 2, y / 2, x % 2 + 2 * (y % 2), c);
    const float m3200[12] = {1.6697f, -0.2693f, -0.4004f, -42.4346f, -0.3576f, 1.0615f, 1.5949f, -37.1158f, -0.2175f, -1.8751f, 6.9640f, -26.6970f};
    const float m7000[12] = {2.2997f, -0.4478f, 0.1706f, -39.0923f, -0.3826f, 1.5906f, -0.2080f, -25.4311f, -0.0888f, -0.7344f, 2.2832f, -20.0826f};
    Expr alpha = (1.0f / p.color_temp - 1.0f / 3200.0f) / (1.0f / 7000.0f - 1.0f / 3200.0f);
    Var mx("mx"), my("my");
    p.matrix = Func("matrix");
    std::vector<Expr> entries;
    for (int i = 0; i < 12; i++) entries.push_back(strict_float(cast<int32_t>((m3200[i] * alpha + m7000[i] * (1.0f - alpha)) * 256.0f)));
    p.matrix(mx, my) = mux(my * 4 + mx, entries);
    auto m = [&](int col, Expr row) { return p.matrix(col, row); };
    Expr ir = cast<int32_t>(p.demosaiced(x, y, 0)), ig = cast<int32_t>(p.demosaiced(x, y, 1)), ib = cast<int32_t>(p.demosaiced(x, y, 2));
    p.corrected = Func("corrected");
    p.corrected(x, y, c) = cast<int16_t>((m(3, c) + m(0, c) * ir + m(1, c) * ig + m(2, c) * ib) >> 8);
    // The tone curve over 0 … white, in f64.
    Var v("v");
    auto d = [](double value) { return Expr(value); };
    Expr inv_range = d(1.0) / cast<double>(p.white - p.black);
    Expr b = d(2.0) - pow(d(2.0), cast<double>(p.contrast) / d(100.0));
    Expr a = d(2.0) - d(2.0) * b;
    Expr xf = clamp(cast<double>(v - p.black) * inv_range, d(0.0), d(1.0));
    Expr g = pow(xf, d(1.0) / cast<double>(p.gamma));
    Expr z = select(g > d(0.5), d(1.0) - (a * (d(1.0) - g) * (d(1.0) - g) + b * (d(1.0) - g)), a * g * g + b * g);
    p.curve = Func("curve");
    p.curve(v) = select(v <= p.black, cast<uint8_t>(0), cast<uint8_t>(clamp(z * d(255.0) + d(0.5), d(0.0), d(255.0))));
    p.curved = Func("curved");
    p.curved(x, y, c) = p.curve(clamp(cast<int32_t>(p.corrected(x, y, c)), 0, p.white));
    p.strength = Func("sharpen_strength_x32");
    p.strength() = cast<uint8_t>(clamp(cast<int32_t>(p.sharpen * 32.0f), 0, 255));
    auto avg8 = [](Expr a, Expr b) { return cast<uint8_t>((cast<uint16_t>(a) + b + 1) >> 1); };
    auto blur121 = [&](Expr a, Expr b, Expr c) { return avg8(avg8(a, c), b); };
    Func unsharp_y("unsharp_y"), unsharp("unsharp");
    unsharp_y(x, y, c) = blur121(p.curved(x, y - 1, c), p.curved(x, y, c), p.curved(x, y + 1, c));
    unsharp(x, y, c) = blur121(unsharp_y(x - 1, y, c), unsharp_y(x, y, c), unsharp_y(x + 1, y, c));
    Expr mask = cast<int16_t>(p.curved(x, y, c)) - cast<int16_t>(unsharp(x, y, c));
    p.out = Func("camera_pipe");
    p.out(x, y, c) = cast<uint8_t>(clamp(cast<int16_t>(p.curved(x, y, c)) + ((mask * cast<int16_t>(p.strength())) >> 5), 0, 255));
    return p;
}

/**
 * The CPU schedule of Halide 14's apps/camera_pipe: the output in strips of 32 rows in
 * parallel, two rows at a time, vectorised 2 × the natural 16-bit width; the denoised
 * mosaic, its planes and the curved image computed per pair of rows, stored per strip (the
 * app also folds that storage; here it is not folded); the demosaicing and the colour
 * correction per vector of the curved image; the matrix, the curve and the strength whole.
 */
inline void camera_pipe_app_schedule(CameraPipe &p, Var x, Var y, Var c, const Target &target) {
    const int vec = target.natural_vector_size(UInt(16));
    Var xi("xi"), yi("yi"), yo("yo"), yii("yii");
    p.matrix.compute_root();
    p.curve.compute_root();
    p.strength.compute_root();
    p.out.compute_root().reorder(c, x, y).split(y, yi, yii, 2, TailStrategy::RoundUp).split(yi, yo, yi, 16)
        .vectorize(x, 2 * vec, TailStrategy::RoundUp).unroll(c).parallel(yo);
    p.denoised.compute_at(p.out, yi).store_at(p.out, yo)
        .tile(x, y, x, y, xi, yi, 2 * vec, 2).vectorize(xi).unroll(yi);
    p.deinterleaved.compute_at(p.out, yi).store_at(p.out, yo).reorder(c, x, y).vectorize(x, 2 * vec, TailStrategy::RoundUp).unroll(c);
    p.curved.compute_at(p.out, yi).store_at(p.out, yo).reorder(c, x, y).tile(x, y, x, y, xi, yi, 2 * vec, 2, TailStrategy::RoundUp).vectorize(xi).unroll(yi).unroll(c);
    p.corrected.compute_at(p.curved, x).reorder(c, x, y).vectorize(x).unroll(c);
    p.demosaiced.compute_at(p.curved, x).vectorize(x).unroll(c);
}

}  // namespace halide_apps
