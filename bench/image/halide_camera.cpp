// Halide's camera pipe (halide_apps.cpp) for the camera references: compiles it just in time
// for the host under one schedule (the app's, or an autoscheduler with the mosaic's size as
// estimate and this CPU as machine parameters), runs it on a raw mosaic of 16-bit samples
// and times it as the other drivers do (driver_common.h), writing the interleaved RGB output.
//
//   halide_camera <schedule> <width> <height> <runs> <in.raw> <out.raw> <color temp> <gamma> <contrast> <sharpen> <black> <white> <cores> <llc bytes>
//
// schedule: app, adams2019, li2018, mullapudi2016. Prints the target and, for an
// autoscheduler, the schedule it chose on stderr; the times as JSON on stdout.
#include "Halide.h"
#include "driver_common.h"

#include <map>

#include "halide_apps.cpp"

#ifndef HALIDE_PLUGIN_DIR
#define HALIDE_PLUGIN_DIR "/usr/lib/x86_64-linux-gnu/halide14"
#endif

using namespace Halide;

int main(int argc, char **argv) {
    if (argc != 15) {
        fprintf(stderr, "usage: %s <schedule> <width> <height> <runs> <in.raw> <out.raw> <color temp> <gamma> <contrast> <sharpen> <black> <white> <cores> <llc bytes>\n", argv[0]);
        return 2;
    }
    const std::string schedule = argv[1];
    const int w = atoi(argv[2]), h = atoi(argv[3]), runs = atoi(argv[4]);
    const int cores = atoi(argv[13]);
    const long long llc = atoll(argv[14]);
    // As halide_pipelines.cpp: no AVX512-FP16 code on a CPU that lacks it.
    Target target = get_host_target().without_feature(Target::AVX512_SapphireRapids);
    Var x("x"), y("y"), c("c");
    ImageParam input(UInt(16), 2, "input");
    halide_apps::CameraPipe p = halide_apps::camera_pipe(input, x, y, c);
    p.out.output_buffer().dim(0).set_stride(3).dim(2).set_stride(1).set_bounds(0, 3);
    static const std::map<std::string, std::string> plugins = {{"adams2019", "Adams2019"}, {"li2018", "Li2018"}, {"mullapudi2016", "Mullapudi2016"}};
    Pipeline pipeline(p.out);
    if (schedule == "app") {
        halide_apps::camera_pipe_app_schedule(p, x, y, c, target);
    } else if (plugins.count(schedule)) {
        load_plugin(std::string(HALIDE_PLUGIN_DIR) + "/libautoschedule_" + schedule + ".so");
        input.dim(0).set_estimate(0, w).dim(1).set_estimate(0, h);
        p.out.set_estimate(x, 0, w).set_estimate(y, 0, h).set_estimate(c, 0, 3);
        p.color_temp.set_estimate(3700.0f);
        p.gamma.set_estimate(2.0f);
        p.contrast.set_estimate(50.0f);
        p.sharpen.set_estimate(1.0f);
        p.black.set_estimate(25);
        p.white.set_estimate(1023);
        AutoSchedulerResults r = pipeline.auto_schedule(plugins.at(schedule), target, MachineParams(cores, llc, 40));
        fprintf(stderr, "%s\n", r.schedule_source.c_str());
    } else {
        fprintf(stderr, "unknown schedule %s\n", schedule.c_str());
        return 2;
    }
    fprintf(stderr, "target %s\n", target.to_string().c_str());
    pipeline.compile_jit(target);
    std::vector<uint16_t> in_data = read_raw<uint16_t>(argv[5], size_t(w) * h);
    std::vector<uint8_t> out_data(size_t(w) * h * 3);
    Buffer<uint16_t> in(in_data.data(), w, h);
    auto out = Runtime::Buffer<uint8_t>::make_interleaved(out_data.data(), w, h, 3);
    input.set(in);
    p.color_temp.set(float(atof(argv[7])));
    p.gamma.set(float(atof(argv[8])));
    p.contrast.set(float(atof(argv[9])));
    p.sharpen.set(float(atof(argv[10])));
    p.black.set(atoi(argv[11]));
    p.white.set(atoi(argv[12]));
    Buffer<uint8_t> result_buffer(*out.raw_buffer());
    Realization result(result_buffer);
    time_runs(runs, [&] { pipeline.realize(result, target); });
    write_raw(argv[6], out_data);
    return 0;
}
