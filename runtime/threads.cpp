#include "anydsl_runtime.h"

#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

extern "C" void anydsl_parallel_for(int32_t num_threads, int32_t lower, int32_t upper, void* args,
                                    void (*fn)(void*, int32_t, int32_t)) {
    if (num_threads < 0) anydsl_fatal("parallel: negative thread count %d", num_threads);
    if (lower >= upper) return;
    // The body is compiled code taking whole sub-ranges, so TBB's auto-partitioner can
    // hand it chunks as large as load balance allows and the loop inside stays vectorisable.
    auto run = [=] {
        tbb::parallel_for(tbb::blocked_range<int32_t>(lower, upper),
                          [=](const tbb::blocked_range<int32_t>& r) { fn(args, r.begin(), r.end()); });
    };
    if (num_threads == 0) {
        run();
    } else {
        tbb::task_arena arena(num_threads);
        arena.execute(run);
    }
}

namespace {

// Threads live here between spawn and sync; ids are never reused, so a stale id
// is reported instead of joining some unrelated later thread.
struct ThreadTable {
    std::mutex mutex;
    std::unordered_map<int32_t, std::thread> threads;
    int32_t next_id = 1;
};

ThreadTable& table() {
    static ThreadTable* t = new ThreadTable;  // never destroyed: unjoined threads at exit must not std::terminate
    return *t;
}

}  // namespace

extern "C" int32_t anydsl_spawn_thread(void* args, void (*fn)(void*)) {
    ThreadTable& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    int32_t id = t.next_id++;
    try {
        t.threads.emplace(id, std::thread(fn, args));
    } catch (const std::system_error& e) {
        anydsl_fatal("spawn: cannot start a thread: %s", e.what());
    }
    return id;
}

extern "C" void anydsl_sync_thread(int32_t id) {
    ThreadTable& t = table();
    std::thread thread;
    {
        std::lock_guard<std::mutex> lock(t.mutex);
        auto it = t.threads.find(id);
        if (it == t.threads.end()) anydsl_fatal("sync: no running thread with id %d (never spawned or already synced)", id);
        thread = std::move(it->second);
        t.threads.erase(it);
    }
    // Joined outside the lock so the joined thread may itself spawn or sync.
    thread.join();
}
