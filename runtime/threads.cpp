#include "anydsl_runtime.h"

#include <algorithm>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include <memory>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/flow_graph.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

// Chunks per thread of a parallel loop. A chunk is one call of the body, which no other
// thread can take over once it runs, and TBB lets idle threads take only chunks waiting in a
// task pool. The auto-partitioner queues a few large pieces and cuts each further only in
// its running owner's private pool: a thread that loses its core to another process keeps
// that share (a quarter of the loop on two threads) until it runs again, and the loop waits.
// The simple partitioner queues every piece it splits off, down to the grain: with 8 chunks
// per thread the others take over all but the one chunk the stalled thread is running.
static constexpr int32_t CHUNKS_PER_THREAD = 8;

extern "C" void anydsl_parallel_for(int32_t num_threads, int32_t lower, int32_t upper, void* args,
                                    void (*fn)(void*, int32_t, int32_t)) {
    if (num_threads < 0) anydsl_fatal("parallel: negative thread count %d", num_threads);
    if (lower >= upper) return;
    // The body is compiled code taking whole sub-ranges, so a chunk is one call and the loop
    // inside stays vectorisable. The simple partitioner splits down to the grain size and
    // puts every half it splits off in the task pool, where any idle thread takes it.
    auto run = [=] {
        int64_t chunks = int64_t(tbb::this_task_arena::max_concurrency()) * CHUNKS_PER_THREAD;
        int64_t grain = std::max<int64_t>(1, (int64_t(upper) - lower + chunks - 1) / chunks);
        tbb::parallel_for(tbb::blocked_range<int32_t>(lower, upper, size_t(grain)),
                          [=](const tbb::blocked_range<int32_t>& r) { fn(args, r.begin(), r.end()); },
                          tbb::simple_partitioner());
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

namespace {

// The task graphs of the 2018 runtime: a task runs its closure once every task with an
// edge to it has run, on TBB's flow graph. Graphs and tasks live until the program ends,
// like the original's; their ids index these tables.
using Task = tbb::flow::continue_node<tbb::flow::continue_msg>;

struct Graphs {
    std::mutex mutex;
    std::vector<std::unique_ptr<tbb::flow::graph>> graphs;
    std::vector<std::unique_ptr<Task>> tasks;
    std::vector<int32_t> task_graph;
};

Graphs& graphs() {
    static Graphs* g = new Graphs;  // never destroyed, as the thread table
    return *g;
}

}  // namespace

extern "C" int32_t anydsl_create_graph(void) {
    Graphs& g = graphs();
    std::lock_guard<std::mutex> lock(g.mutex);
    g.graphs.emplace_back(new tbb::flow::graph);
    return static_cast<int32_t>(g.graphs.size() - 1);
}

extern "C" int32_t anydsl_create_task(int32_t graph, anydsl_closure closure) {
    Graphs& g = graphs();
    std::lock_guard<std::mutex> lock(g.mutex);
    if (graph < 0 || static_cast<size_t>(graph) >= g.graphs.size()) anydsl_fatal("anydsl_create_task: no graph %d", graph);
    g.tasks.emplace_back(new Task(*g.graphs[graph], [closure](const tbb::flow::continue_msg&) { closure.fn(closure.payload); }));
    g.task_graph.push_back(graph);
    return static_cast<int32_t>(g.tasks.size() - 1);
}

extern "C" void anydsl_create_edge(int32_t from, int32_t to) {
    Graphs& g = graphs();
    std::lock_guard<std::mutex> lock(g.mutex);
    int32_t count = static_cast<int32_t>(g.tasks.size());
    if (from < 0 || from >= count || to < 0 || to >= count) anydsl_fatal("anydsl_create_edge: no task %d", from < 0 || from >= count ? from : to);
    if (g.task_graph[from] != g.task_graph[to]) anydsl_fatal("anydsl_create_edge: tasks %d and %d are in different graphs", from, to);
    tbb::flow::make_edge(*g.tasks[from], *g.tasks[to]);
}

extern "C" void anydsl_execute_graph(int32_t graph, int32_t root) {
    Graphs& g = graphs();
    tbb::flow::graph* flow;
    Task* start;
    {
        std::lock_guard<std::mutex> lock(g.mutex);
        if (graph < 0 || static_cast<size_t>(graph) >= g.graphs.size()) anydsl_fatal("anydsl_execute_graph: no graph %d", graph);
        if (root < 0 || static_cast<size_t>(root) >= g.tasks.size() || g.task_graph[root] != graph)
            anydsl_fatal("anydsl_execute_graph: no task %d in graph %d", root, graph);
        flow = g.graphs[graph].get();
        start = g.tasks[root].get();
    }
    // Outside the lock: the tasks may create graphs and tasks themselves.
    start->try_put(tbb::flow::continue_msg());
    flow->wait_for_all();
}
