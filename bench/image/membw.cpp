// Memory bandwidth on this machine the way a stencil uses it: every core copies its share
// of a large buffer (memcpy), timed like the kernels. Reports the times; the caller turns
// them into bytes read + written per second.
//
//   membw <bytes> <runs>
#include "driver_common.h"

#include <cstring>
#include <thread>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <bytes> <runs>\n", argv[0]);
        return 2;
    }
    const size_t bytes = strtoull(argv[1], nullptr, 10);
    const int runs = atoi(argv[2]);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    time_runs(runs, [&] {
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; t++) {
            size_t a = bytes * t / threads, b = bytes * (t + 1) / threads;
            pool.emplace_back([&, a, b] { memcpy(dst.data() + a, src.data() + a, b - a); });
        }
        for (auto &th : pool) th.join();
    });
    return 0;
}
