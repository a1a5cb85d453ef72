// The Embree 3.13 reference of bench/raytrace and `trace --compare embree`: reads a mesh and
// ray sets in the binary forms of libs/raytrace (references.ts writes the mesh; rays.ts
// defines the rays and hits), and either
//
//   trace: builds an Embree scene of the mesh (BVH4 or BVH8 of triangle4 leaves, the
//   high-quality builder with spatial splits) and traces each ray set with the single-ray
//   API (rtcIntersect1/rtcOccluded1), packets of 4/8/16 (rtcIntersect4/8/16, rtcOccluded…)
//   and the stream API (rtcIntersect1M/rtcOccluded1M), timing warm runs, writing the hits;
//
//   buildbvh: builds Embree's own tree through rtcBuildBVH's callbacks (the same builder
//   family, with our cost constants) and writes it, so our SAH cost and our traversal can
//   run on Embree's tree.
//
// Times and facts go to stdout as one JSON object; a user error is one line on stderr, exit 1.
//
//   embree_driver trace --mesh M.bin --bvh 4|8 --threads T --runs N --builds B
//                       --modes single,packet4,packet8,packet16,stream
//                       --job RAYS.bin,closest|any,HITS_PREFIX|-[,coherent] ...
// (coherent: Embree's COHERENT context flag for that ray set, as for primary rays).
//   embree_driver buildbvh --mesh M.bin --arity 2|4|8 --max-leaf L --sah-block B --trav-cost C --int-cost C
//                          --quality low|medium|high --threads T --builds B --out TREE.bin
#include <embree3/rtcore.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

static double now_ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

[[noreturn]] static void fail(const std::string& why) {
  fprintf(stderr, "embree_driver: %s\n", why.c_str());
  exit(1);
}

static std::vector<char> read_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail("cannot read " + file);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

static void write_file(const std::string& file, const std::vector<char>& bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), (std::streamsize)bytes.size());
  if (!out) fail("cannot write " + file);
}

template <class T> static void put(std::vector<char>& out, const T& x) { out.insert(out.end(), (const char*)&x, (const char*)&x + sizeof(T)); }

// ------------------------------------------------------------ inputs

// "ANYMESH1", u32 vertices, u32 triangles, f32 xyz per vertex, u32 three indices per triangle.
struct Mesh {
  std::vector<float> positions;  // one float of padding at the end: Embree reads vertices with 16-byte loads
  std::vector<uint32_t> triangles;
  size_t vertices = 0, count = 0;
};

static Mesh read_mesh(const std::string& file) {
  std::vector<char> b = read_file(file);
  if (b.size() < 16 || memcmp(b.data(), "ANYMESH1", 8) != 0) fail(file + " is not a mesh file (ANYMESH1)");
  Mesh m;
  uint32_t nv, nt;
  memcpy(&nv, b.data() + 8, 4);
  memcpy(&nt, b.data() + 12, 4);
  if (b.size() != 16 + 12ull * nv + 12ull * nt) fail(file + ": the mesh file's size does not match its header");
  m.vertices = nv;
  m.count = nt;
  m.positions.resize(3ull * nv + 1);
  memcpy(m.positions.data(), b.data() + 16, 12ull * nv);
  m.triangles.resize(3ull * nt);
  memcpy(m.triangles.data(), b.data() + 16 + 12ull * nv, 12ull * nt);
  return m;
}

// "ANYRAYS1", u32 count, u32 flags, 8 f32 per ray (ox oy oz dx dy dz tmin tmax).
static std::vector<float> read_rays(const std::string& file, size_t& count) {
  std::vector<char> b = read_file(file);
  if (b.size() < 16 || memcmp(b.data(), "ANYRAYS1", 8) != 0) fail(file + " is not a binary rays file (ANYRAYS1)");
  uint32_t n;
  memcpy(&n, b.data() + 8, 4);
  if (b.size() != 16 + 32ull * n) fail(file + ": the rays file's size does not match its header");
  count = n;
  std::vector<float> rays(8ull * n);
  memcpy(rays.data(), b.data() + 16, 32ull * n);
  return rays;
}

// "ANYHITS1", u32 count, u32 flags (2: u and v follow), i32 prims, f32 t, f32 u, f32 v.
static void write_hits(const std::string& file, const std::vector<int32_t>& prim, const std::vector<float>& t, const std::vector<float>& u,
                       const std::vector<float>& v) {
  std::vector<char> out(8);
  memcpy(out.data(), "ANYHITS1", 8);
  put<uint32_t>(out, (uint32_t)prim.size());
  put<uint32_t>(out, 2);
  for (auto* a : {(const void*)prim.data(), (const void*)t.data(), (const void*)u.data(), (const void*)v.data()})
    out.insert(out.end(), (const char*)a, (const char*)a + 4 * prim.size());
  write_file(file, out);
}

// ------------------------------------------------------------ arguments

struct Args {
  std::vector<std::pair<std::string, std::string>> kv;
  std::string get(const std::string& k, const std::string& def = "") const {
    for (auto& p : kv)
      if (p.first == k) return p.second;
    if (def.empty()) fail("missing --" + k);
    return def;
  }
  bool has(const std::string& k) const {
    for (auto& p : kv)
      if (p.first == k) return true;
    return false;
  }
  std::vector<std::string> all(const std::string& k) const {
    std::vector<std::string> r;
    for (auto& p : kv)
      if (p.first == k) r.push_back(p.second);
    return r;
  }
};

static Args parse(int argc, char** argv) {
  Args a;
  for (int i = 2; i < argc; i++) {
    std::string k = argv[i];
    if (k.rfind("--", 0) != 0) fail("unexpected argument " + k);
    k = k.substr(2);
    if (i + 1 < argc) a.kv.push_back({k, argv[++i]});
    else fail("--" + k + " needs a value");
  }
  return a;
}

static std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> r;
  size_t start = 0;
  for (;;) {
    size_t e = s.find(sep, start);
    r.push_back(s.substr(start, e == std::string::npos ? std::string::npos : e - start));
    if (e == std::string::npos) return r;
    start = e + 1;
  }
}

static int to_int(const std::string& s, const char* what) {
  char* end;
  long v = strtol(s.c_str(), &end, 10);
  if (*end || s.empty() || v < 0) fail(std::string("--") + what + " must be a number ≥ 0, not " + s);
  return (int)v;
}

// ------------------------------------------------------------ device

// Bytes Embree holds, as its memory monitor reports them (allocations minus frees).
static std::atomic<long long> g_bytes{0};
static bool monitor(void*, ssize_t bytes, bool) {
  g_bytes += bytes;
  return true;
}

static RTCDevice new_device(const std::string& config) {
  RTCDevice dev = rtcNewDevice(config.c_str());
  if (!dev) fail("rtcNewDevice(\"" + config + "\") failed with error " + std::to_string(rtcGetDeviceError(nullptr)));
  rtcSetDeviceErrorFunction(dev, [](void*, RTCError code, const char* str) { fail("Embree error " + std::to_string(code) + ": " + (str ? str : "")); }, nullptr);
  rtcSetDeviceMemoryMonitorFunction(dev, monitor, nullptr);
  return dev;
}

/** Runs body(begin, end) over [0, n) in chunks on `threads` threads (the calling one included). */
static void parallel_chunks(size_t n, size_t chunk, int threads, const std::function<void(size_t, size_t)>& body) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (;;) {
      size_t b = next.fetch_add(chunk);
      if (b >= n) return;
      body(b, std::min(n, b + chunk));
    }
  };
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; i++) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

static std::string json_list(const std::vector<double>& xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); i++) s += (i ? "," : "") + std::to_string(xs[i]);
  return s + "]";
}

// ------------------------------------------------------------ trace

static RTCScene build_scene(RTCDevice dev, Mesh& m) {
  RTCScene sc = rtcNewScene(dev);
  rtcSetSceneBuildQuality(sc, RTC_BUILD_QUALITY_HIGH);
  rtcSetSceneFlags(sc, RTC_SCENE_FLAG_NONE);
  RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
  rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, m.positions.data(), 0, 12, m.vertices);
  rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, m.triangles.data(), 0, 12, m.count);
  rtcSetGeometryBuildQuality(g, RTC_BUILD_QUALITY_HIGH);
  rtcCommitGeometry(g);
  rtcAttachGeometry(sc, g);
  rtcReleaseGeometry(g);
  rtcCommitScene(sc);
  return sc;
}

static void init_ray(RTCRayHit& rh, const float* r) {
  rh.ray.org_x = r[0]; rh.ray.org_y = r[1]; rh.ray.org_z = r[2];
  rh.ray.dir_x = r[3]; rh.ray.dir_y = r[4]; rh.ray.dir_z = r[5];
  rh.ray.tnear = r[6]; rh.ray.tfar = r[7];
  rh.ray.mask = 0xffffffffu; rh.ray.flags = 0; rh.ray.time = 0; rh.ray.id = 0;
  rh.hit.geomID = RTC_INVALID_GEOMETRY_ID; rh.hit.primID = RTC_INVALID_GEOMETRY_ID;
  rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
}

/** A packet's valid mask, aligned like the packet (Embree loads it with one SIMD load). */
template <int N> struct alignas(64) Valid {
  int lane[N];
};

/** Packets of N rays in SoA form; rays past the end are inactive. */
template <int N, class RH> static void fill_packets(std::vector<RH>& pk, std::vector<Valid<N>>& valid, const std::vector<float>& rays, size_t count) {
  size_t np = (count + N - 1) / N;
  pk.resize(np);
  valid.resize(np);
  for (size_t p = 0; p < np; p++) {
    RH& q = pk[p];
    for (int k = 0; k < N; k++) {
      size_t i = p * N + k;
      const float* r = i < count ? &rays[8 * i] : &rays[0];
      valid[p].lane[k] = i < count ? -1 : 0;
      q.ray.org_x[k] = r[0]; q.ray.org_y[k] = r[1]; q.ray.org_z[k] = r[2];
      q.ray.dir_x[k] = r[3]; q.ray.dir_y[k] = r[4]; q.ray.dir_z[k] = r[5];
      q.ray.tnear[k] = r[6]; q.ray.tfar[k] = r[7];
      q.ray.mask[k] = 0xffffffffu; q.ray.flags[k] = 0; q.ray.time[k] = 0; q.ray.id[k] = 0;
      q.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID; q.hit.primID[k] = RTC_INVALID_GEOMETRY_ID;
      q.hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
    }
  }
}

struct Result {
  std::vector<int32_t> prim;
  std::vector<float> t, u, v;
  explicit Result(size_t n) : prim(n, -1), t(n, -1), u(n, 0), v(n, 0) {}
};

// Rays per chunk a thread takes: enough to amortise the atomic, small enough to balance 2 threads.
static const size_t CHUNK = 1024;

/** One mode on one ray set: `runs` timed runs after a warm-up, times in ms; the last run's hits in `res`. */
template <int N, class RH, class R>
static std::vector<double> run_packets(RTCScene sc, RTCIntersectContext& ctx, const std::vector<float>& rays, size_t count, bool any, int runs, int threads,
                                       Result& res, void (*isect)(const int*, RTCScene, RTCIntersectContext*, RH*),
                                       void (*occl)(const int*, RTCScene, RTCIntersectContext*, R*)) {
  std::vector<RH> pristine, pk;
  std::vector<Valid<N>> valid;
  fill_packets<N>(pristine, valid, rays, count);
  std::vector<double> times;
  for (int run = 0; run <= runs; run++) {
    pk = pristine;
    double t0 = now_ms();
    parallel_chunks(pk.size(), CHUNK / N, threads, [&](size_t b, size_t e) {
      for (size_t p = b; p < e; p++) {
        if (any) occl(valid[p].lane, sc, &ctx, &pk[p].ray);
        else isect(valid[p].lane, sc, &ctx, &pk[p]);
      }
    });
    double t1 = now_ms();
    if (run) times.push_back(t1 - t0);
  }
  for (size_t i = 0; i < count; i++) {
    const RH& q = pk[i / N];
    int k = (int)(i % N);
    if (any) res.prim[i] = q.ray.tfar[k] == -INFINITY ? 0 : -1;
    else if (q.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID) {
      res.prim[i] = (int32_t)q.hit.primID[k];
      res.t[i] = q.ray.tfar[k];
      res.u[i] = q.hit.u[k];
      res.v[i] = q.hit.v[k];
    }
  }
  return times;
}

static std::vector<double> run_mode(const std::string& mode, RTCScene sc, bool coherent, const std::vector<float>& rays, size_t count, bool any, int runs,
                                    int threads, Result& res) {
  RTCIntersectContext ctx;
  rtcInitIntersectContext(&ctx);
  ctx.flags = coherent ? RTC_INTERSECT_CONTEXT_FLAG_COHERENT : RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
  if (mode == "packet4") return run_packets<4, RTCRayHit4, RTCRay4>(sc, ctx, rays, count, any, runs, threads, res, rtcIntersect4, rtcOccluded4);
  if (mode == "packet8") return run_packets<8, RTCRayHit8, RTCRay8>(sc, ctx, rays, count, any, runs, threads, res, rtcIntersect8, rtcOccluded8);
  if (mode == "packet16") return run_packets<16, RTCRayHit16, RTCRay16>(sc, ctx, rays, count, any, runs, threads, res, rtcIntersect16, rtcOccluded16);
  if (mode != "single" && mode != "stream") fail("unknown mode " + mode + " (single, packet4, packet8, packet16, stream)");
  std::vector<RTCRayHit> pristine(count), rh;
  for (size_t i = 0; i < count; i++) init_ray(pristine[i], &rays[8 * i]);
  const bool stream = mode == "stream";
  std::vector<double> times;
  for (int run = 0; run <= runs; run++) {
    rh = pristine;
    double t0 = now_ms();
    parallel_chunks(count, CHUNK, threads, [&](size_t b, size_t e) {
      if (stream) {
        if (any) rtcOccluded1M(sc, &ctx, &rh[b].ray, (unsigned)(e - b), sizeof(RTCRayHit));
        else rtcIntersect1M(sc, &ctx, &rh[b], (unsigned)(e - b), sizeof(RTCRayHit));
      } else {
        for (size_t i = b; i < e; i++) {
          if (any) rtcOccluded1(sc, &ctx, &rh[i].ray);
          else rtcIntersect1(sc, &ctx, &rh[i]);
        }
      }
    });
    double t1 = now_ms();
    if (run) times.push_back(t1 - t0);
  }
  for (size_t i = 0; i < count; i++) {
    if (any) res.prim[i] = rh[i].ray.tfar == -INFINITY ? 0 : -1;
    else if (rh[i].hit.geomID != RTC_INVALID_GEOMETRY_ID) {
      res.prim[i] = (int32_t)rh[i].hit.primID;
      res.t[i] = rh[i].ray.tfar;
      res.u[i] = rh[i].hit.u;
      res.v[i] = rh[i].hit.v;
    }
  }
  return times;
}

static int trace(const Args& a) {
  Mesh m = read_mesh(a.get("mesh"));
  const std::string bvh = a.get("bvh");
  if (bvh != "4" && bvh != "8") fail("--bvh must be 4 or 8");
  const int threads = std::max(1, to_int(a.get("threads", "1"), "threads"));
  const int runs = std::max(1, to_int(a.get("runs", "5"), "runs"));
  const int builds = std::max(1, to_int(a.get("builds", "1"), "builds"));
  // Triangle4 leaves and the spatial-split SAH builder Embree picks for RTC_BUILD_QUALITY_HIGH
  // by default (as BVH8 on this CPU); naming them makes the BVH4 variant use the same.
  const std::string config = "threads=" + std::to_string(threads) + ",start_threads=1,tri_accel=bvh" + bvh + ".triangle4,tri_builder=sah_fast_spatial";
  RTCDevice dev = new_device(config);
  std::vector<double> build_ms;
  long long bytes = 0;
  RTCScene sc = nullptr;
  for (int b = 0; b < builds; b++) {
    if (sc) rtcReleaseScene(sc);
    long long before = g_bytes;
    double t0 = now_ms();
    sc = build_scene(dev, m);
    build_ms.push_back(now_ms() - t0);
    bytes = g_bytes - before;
  }
  std::string modes_arg = a.get("modes", "single");
  std::vector<std::string> modes = split(modes_arg, ',');
  std::string json = "{\"version\":" + std::to_string(rtcGetDeviceProperty(dev, RTC_DEVICE_PROPERTY_VERSION)) + ",\"config\":\"" + config +
                     "\",\"triangles\":" + std::to_string(m.count) + ",\"buildMs\":" + json_list(build_ms) + ",\"bytes\":" + std::to_string(bytes) +
                     ",\"threads\":" + std::to_string(threads) + ",\"jobs\":[";
  auto jobs = a.all("job");
  for (size_t j = 0; j < jobs.size(); j++) {
    auto parts = split(jobs[j], ',');
    if (parts.size() < 3 || (parts[1] != "closest" && parts[1] != "any") || (parts.size() > 3 && parts[3] != "coherent"))
      fail("--job is RAYS,closest|any,HITS_PREFIX|-[,coherent], not " + jobs[j]);
    const bool coherent = parts.size() > 3;
    size_t count;
    std::vector<float> rays = read_rays(parts[0], count);
    if (count == 0) fail(parts[0] + " holds no rays");
    bool any = parts[1] == "any";
    json += std::string(j ? "," : "") + "{\"rays\":" + std::to_string(count) + ",\"anyHit\":" + (any ? "true" : "false") +
            ",\"coherent\":" + (coherent ? "true" : "false") + ",\"modes\":{";
    for (size_t k = 0; k < modes.size(); k++) {
      Result res(count);
      std::vector<double> times = run_mode(modes[k], sc, coherent, rays, count, any, runs, threads, res);
      size_t hit = 0;
      for (int32_t p : res.prim) hit += p >= 0;
      if (parts[2] != "-") write_hits(parts[2] + "-" + modes[k] + ".bin", res.prim, res.t, res.u, res.v);
      json += std::string(k ? "," : "") + "\"" + modes[k] + "\":{\"ms\":" + json_list(times) + ",\"hits\":" + std::to_string(hit) + "}";
    }
    json += "}}";
  }
  json += "]}";
  printf("%s\n", json.c_str());
  rtcReleaseScene(sc);
  rtcReleaseDevice(dev);
  return 0;
}

// ------------------------------------------------------------ buildbvh

// Nodes live in Embree's thread-local memory until rtcReleaseBVH; written out after the build.
struct Node {
  unsigned count;  // children of an inner node, primitives of a leaf
  bool leaf;
  float bounds[8][6];
  Node* children[8];
  unsigned prims[1];  // a leaf's primitives (allocated to `count`)
};

static void* create_node(RTCThreadLocalAllocator alloc, unsigned n, void*) {
  Node* node = (Node*)rtcThreadLocalAlloc(alloc, sizeof(Node), 16);
  node->count = n;
  node->leaf = false;
  return node;
}

static void set_children(void* p, void** ch, unsigned n, void*) {
  for (unsigned i = 0; i < n; i++) ((Node*)p)->children[i] = (Node*)ch[i];
}

static void set_bounds(void* p, const RTCBounds** b, unsigned n, void*) {
  for (unsigned i = 0; i < n; i++) {
    float* o = ((Node*)p)->bounds[i];
    o[0] = b[i]->lower_x; o[1] = b[i]->lower_y; o[2] = b[i]->lower_z;
    o[3] = b[i]->upper_x; o[4] = b[i]->upper_y; o[5] = b[i]->upper_z;
  }
}

static void* create_leaf(RTCThreadLocalAllocator alloc, const RTCBuildPrimitive* prims, size_t n, void*) {
  Node* node = (Node*)rtcThreadLocalAlloc(alloc, sizeof(Node) + n * sizeof(unsigned), 16);
  node->count = (unsigned)n;
  node->leaf = true;
  for (size_t i = 0; i < n; i++) node->prims[i] = prims[i].primID;
  return node;
}

/** Splits a (possibly already clipped) triangle at `pos` on axis `dim`: the boxes of its two parts, within its box. */
static void split_primitive(const RTCBuildPrimitive* prim, unsigned dim, float pos, RTCBounds* left, RTCBounds* right, void* user) {
  const Mesh& m = *(const Mesh*)user;
  float lo[2][3], hi[2][3];
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 3; k++) lo[s][k] = INFINITY, hi[s][k] = -INFINITY;
  auto grow = [&](int s, const float* p) {
    for (int k = 0; k < 3; k++) lo[s][k] = std::min(lo[s][k], p[k]), hi[s][k] = std::max(hi[s][k], p[k]);
  };
  const uint32_t* t = &m.triangles[3 * prim->primID];
  for (int e = 0; e < 3; e++) {
    const float* a = &m.positions[3 * t[e]];
    const float* b = &m.positions[3 * t[(e + 1) % 3]];
    if (a[dim] <= pos) grow(0, a);
    if (a[dim] >= pos) grow(1, a);
    if ((a[dim] < pos && b[dim] > pos) || (a[dim] > pos && b[dim] < pos)) {
      float f = (pos - a[dim]) / (b[dim] - a[dim]);
      float c[3];
      for (int k = 0; k < 3; k++) c[k] = a[k] + f * (b[k] - a[k]);
      c[dim] = pos;
      grow(0, c);
      grow(1, c);
    }
  }
  const float plo[3] = {prim->lower_x, prim->lower_y, prim->lower_z}, phi[3] = {prim->upper_x, prim->upper_y, prim->upper_z};
  RTCBounds* out[2] = {left, right};
  for (int s = 0; s < 2; s++) {
    float l[3], h[3];
    for (int k = 0; k < 3; k++) l[k] = std::max(lo[s][k], plo[k]), h[k] = std::min(hi[s][k], phi[k]);
    if (s == 0) h[dim] = std::min(h[dim], pos);
    else l[dim] = std::max(l[dim], pos);
    out[s]->lower_x = l[0]; out[s]->lower_y = l[1]; out[s]->lower_z = l[2];
    out[s]->upper_x = h[0]; out[s]->upper_y = h[1]; out[s]->upper_z = h[2];
  }
}

// "ANYBVH01", u32 arity, u32 nodes, u32 root (0), then per node in depth-first order:
// u32 kind (0 inner, 1 leaf), u32 n, f32 bounds[6], u32 items[n] (child node indices or triangles).
static void serialise(const Node* node, const float* bounds, std::vector<char>& out, uint32_t& next) {
  next++;
  put<uint32_t>(out, node->leaf ? 1 : 0);
  put<uint32_t>(out, node->count);
  for (int k = 0; k < 6; k++) put<float>(out, bounds[k]);
  if (node->leaf) {
    for (unsigned i = 0; i < node->count; i++) put<uint32_t>(out, node->prims[i]);
    return;
  }
  // Children are numbered in the order they are written: reserve their slots, fill them in after.
  size_t slots = out.size();
  for (unsigned i = 0; i < node->count; i++) put<uint32_t>(out, 0);
  for (unsigned i = 0; i < node->count; i++) {
    uint32_t index = next;
    memcpy(out.data() + slots + 4 * i, &index, 4);
    serialise(node->children[i], node->bounds[i], out, next);
  }
}

static int buildbvh(const Args& a) {
  Mesh m = read_mesh(a.get("mesh"));
  const int arity = to_int(a.get("arity"), "arity");
  if (arity != 2 && arity != 4 && arity != 8) fail("--arity must be 2, 4 or 8");
  const std::string quality = a.get("quality", "high");
  const int threads = std::max(1, to_int(a.get("threads", "1"), "threads"));
  const int builds = std::max(1, to_int(a.get("builds", "1"), "builds"));
  RTCDevice dev = new_device("threads=" + std::to_string(threads) + ",start_threads=1");
  std::vector<RTCBuildPrimitive> prims(m.count);
  float scene[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
  for (size_t t = 0; t < m.count; t++) {
    RTCBuildPrimitive& p = prims[t];
    p.lower_x = p.lower_y = p.lower_z = INFINITY;
    p.upper_x = p.upper_y = p.upper_z = -INFINITY;
    for (int k = 0; k < 3; k++) {
      const float* v = &m.positions[3 * m.triangles[3 * t + k]];
      p.lower_x = std::min(p.lower_x, v[0]); p.lower_y = std::min(p.lower_y, v[1]); p.lower_z = std::min(p.lower_z, v[2]);
      p.upper_x = std::max(p.upper_x, v[0]); p.upper_y = std::max(p.upper_y, v[1]); p.upper_z = std::max(p.upper_z, v[2]);
    }
    scene[0] = std::min(scene[0], p.lower_x); scene[1] = std::min(scene[1], p.lower_y); scene[2] = std::min(scene[2], p.lower_z);
    scene[3] = std::max(scene[3], p.upper_x); scene[4] = std::max(scene[4], p.upper_y); scene[5] = std::max(scene[5], p.upper_z);
    p.geomID = 0;
    p.primID = (unsigned)t;
  }
  std::vector<double> build_ms;
  std::vector<char> out;
  for (int b = 0; b < builds; b++) {
    // The builder reorders the array and writes split references into its spare capacity.
    std::vector<RTCBuildPrimitive> work(prims);
    work.resize(2 * prims.size());
    RTCBVH bvh = rtcNewBVH(dev);
    RTCBuildArguments args = rtcDefaultBuildArguments();
    args.byteSize = sizeof(args);
    args.buildQuality = quality == "low" ? RTC_BUILD_QUALITY_LOW : quality == "medium" ? RTC_BUILD_QUALITY_MEDIUM : RTC_BUILD_QUALITY_HIGH;
    args.maxBranchingFactor = arity;
    args.maxDepth = 1024;
    args.sahBlockSize = to_int(a.get("sah-block", "1"), "sah-block");
    args.minLeafSize = 1;
    args.maxLeafSize = to_int(a.get("max-leaf", "4"), "max-leaf");
    args.traversalCost = (float)atof(a.get("trav-cost", "1").c_str());
    args.intersectionCost = (float)atof(a.get("int-cost", "1").c_str());
    args.bvh = bvh;
    args.primitives = work.data();
    args.primitiveCount = prims.size();
    args.primitiveArrayCapacity = work.size();
    args.createNode = create_node;
    args.setNodeChildren = set_children;
    args.setNodeBounds = set_bounds;
    args.createLeaf = create_leaf;
    args.splitPrimitive = split_primitive;
    args.userPtr = &m;
    double t0 = now_ms();
    Node* root = (Node*)rtcBuildBVH(&args);
    build_ms.push_back(now_ms() - t0);
    if (!root) fail("rtcBuildBVH returned no tree");
    if (b == builds - 1) {
      out.assign(8, 0);
      memcpy(out.data(), "ANYBVH01", 8);
      put<uint32_t>(out, (uint32_t)arity);
      put<uint32_t>(out, 0);
      put<uint32_t>(out, 0);
      uint32_t count = 0;
      serialise(root, scene, out, count);
      memcpy(out.data() + 12, &count, 4);
    }
    rtcReleaseBVH(bvh);
  }
  write_file(a.get("out"), out);
  printf("{\"version\":%zd,\"buildMs\":%s,\"threads\":%d}\n", rtcGetDeviceProperty(dev, RTC_DEVICE_PROPERTY_VERSION), json_list(build_ms).c_str(), threads);
  rtcReleaseDevice(dev);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) fail("usage: embree_driver trace|buildbvh --option value ...");
  std::string cmd = argv[1];
  Args a = parse(argc, argv);
  if (cmd == "trace") return trace(a);
  if (cmd == "buildbvh") return buildbvh(a);
  fail("unknown command " + cmd + " (trace, buildbvh)");
}
