// Runs one OpenCV reference kernel with replicated borders (ours: clamp) on a raw u8 image of
// 1 to 4 interleaved channels (CV_8UC1 … CV_8UC4: OpenCV filters the colour image in one call)
// and times it. Each reproduces a libs/image pipeline exactly:
//   gauss5   GaussianBlur 5 × 5, σ = 0: the binomial 1 4 6 4 1 kernel, and 8-bit input takes
//            OpenCV's bit-exact fixed-point path, which rounds (Σ + 128) / 256 as ours does
//   unsharp  2·in − gauss5(in), the difference saturated to 8 bits as ours' u8 write does
//   sobel    |gx| + |gy| of the 3 × 3 Sobel derivatives in 16 bits, saturated to 8 bits
//
//   opencv_driver gauss5|unsharp|sobel <width> <height> <channels> <runs> <in.raw> <out.raw>
#include "driver_common.h"

#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

int main(int argc, char **argv) {
    const bool known = argc == 8 && (!strcmp(argv[1], "gauss5") || !strcmp(argv[1], "unsharp") || !strcmp(argv[1], "sobel"));
    if (!known) {
        fprintf(stderr, "usage: %s gauss5|unsharp|sobel <width> <height> <channels> <runs> <in.raw> <out.raw>\n", argv[0]);
        return 2;
    }
    const std::string kernel = argv[1];
    const int w = atoi(argv[2]), h = atoi(argv[3]), ch = atoi(argv[4]), runs = atoi(argv[5]);
    if (ch < 1 || ch > 4) {
        fprintf(stderr, "channels must be 1 to 4, not %d\n", ch);
        return 2;
    }
    std::vector<uint8_t> in_data = read_raw<uint8_t>(argv[6], size_t(w) * h * ch);
    std::vector<uint8_t> out_data(size_t(w) * h * ch);
    cv::Mat in(h, w, CV_8UC(ch), in_data.data()), out(h, w, CV_8UC(ch), out_data.data());
    // Temporaries allocated once, outside the timed calls.
    cv::Mat blurred(h, w, CV_8UC(ch)), gx(h, w, CV_16SC(ch)), gy(h, w, CV_16SC(ch));
    std::function<void()> once;
    if (kernel == "gauss5") {
        once = [&] { cv::GaussianBlur(in, out, cv::Size(5, 5), 0, 0, cv::BORDER_REPLICATE); };
    } else if (kernel == "unsharp") {
        once = [&] {
            cv::GaussianBlur(in, blurred, cv::Size(5, 5), 0, 0, cv::BORDER_REPLICATE);
            cv::addWeighted(in, 2, blurred, -1, 0, out);
        };
    } else {
        // The sum of two non-negative values saturates the same whether or not each is saturated first.
        once = [&] {
            cv::Sobel(in, gx, CV_16S, 1, 0, 3, 1, 0, cv::BORDER_REPLICATE);
            cv::Sobel(in, gy, CV_16S, 0, 1, 3, 1, 0, cv::BORDER_REPLICATE);
            cv::absdiff(gx, cv::Scalar::all(0), gx);
            cv::absdiff(gy, cv::Scalar::all(0), gy);
            cv::add(gx, gy, out, cv::noArray(), CV_8U);
        };
    }
    time_runs(runs, once);
    if (out.data != out_data.data()) {
        fprintf(stderr, "OpenCV reallocated the output\n");
        return 1;
    }
    write_raw(argv[7], out_data);
    fprintf(stderr, "opencv %s, %d threads\n", CV_VERSION, cv::getNumThreads());
    return 0;
}
