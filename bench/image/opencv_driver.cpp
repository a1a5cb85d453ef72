// Runs OpenCV's 5 × 5 Gaussian (σ = 0 selects the binomial 1 4 6 4 1 kernel; 8-bit input
// takes OpenCV's bit-exact fixed-point path) with replicated borders (ours: clamp) on a
// raw u8 gray image and times it.
//
//   opencv_driver gauss5 <width> <height> <runs> <in.raw> <out.raw>
#include "driver_common.h"

#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

int main(int argc, char **argv) {
    if (argc != 7 || strcmp(argv[1], "gauss5")) {
        fprintf(stderr, "usage: %s gauss5 <width> <height> <runs> <in.raw> <out.raw>\n", argv[0]);
        return 2;
    }
    const int w = atoi(argv[2]), h = atoi(argv[3]), runs = atoi(argv[4]);
    std::vector<uint8_t> in_data = read_raw<uint8_t>(argv[5], size_t(w) * h);
    std::vector<uint8_t> out_data(size_t(w) * h);
    cv::Mat in(h, w, CV_8UC1, in_data.data()), out(h, w, CV_8UC1, out_data.data());
    time_runs(runs, [&] { cv::GaussianBlur(in, out, cv::Size(5, 5), 0, 0, cv::BORDER_REPLICATE); });
    if (out.data != out_data.data()) {
        fprintf(stderr, "OpenCV reallocated the output\n");
        return 1;
    }
    write_raw(argv[6], out_data);
    fprintf(stderr, "opencv %s, %d threads\n", CV_VERSION, cv::getNumThreads());
    return 0;
}
