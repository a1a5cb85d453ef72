// Parasail 2.6 on the bench's pairs: one kernel family (nw, sg, sw; score only or traceback
// with the CIGAR) and one vectorisation (striped, scan, diag), 16-bit lanes redone at 32
// bits when a score saturates, pairs spread over OpenMP threads as parasail_aligner does.
// striped_profile and scan_profile (score only) are what parasail_aligner runs for one query
// against a database: a profile per query, built inside the timed run, and the `_sat`
// kernels (8-bit lanes, redone at 16 and then 32 bits on saturation).
// usage: parasail_driver <nw|sg|sw> <striped|scan|diag|striped_profile|scan_profile> <trace 0|1> <open> <extend> <runs> <threads>
//                        <matrix> <queries> <targets> <pairs>
#include <omp.h>
#include <parasail.h>
#include <parasail/cpuid.h>
#include "driver_common.h"

int main(int argc, char **argv) {
  if (argc != 12) die("usage: parasail_driver <nw|sg|sw> <striped|scan|diag> <trace 0|1> <open> <extend> <runs> <threads> <matrix> <queries> <targets> <pairs>");
  std::string family = argv[1], vec = argv[2];
  bool trace = std::atoi(argv[3]);
  int open = std::atoi(argv[4]), extend = std::atoi(argv[5]), runs = std::atoi(argv[6]), threads = std::atoi(argv[7]);
  Matrix m = read_matrix(argv[8]);
  auto queries = read_lines(argv[9]);
  auto targets = read_lines(argv[10]);
  auto pairs = read_pairs(argv[11]);
  // Parasail appends a '*' wildcard of its own; every residue the bench writes is in the alphabet.
  parasail_matrix_t *pm = parasail_matrix_create(m.alphabet.c_str(), 0, 0);
  for (size_t a = 0; a < m.alphabet.size(); a++)
    for (size_t b = 0; b < m.alphabet.size(); b++) parasail_matrix_set_value(pm, a, b, m.at(a, b));
  omp_set_num_threads(threads);
  std::vector<long> scores(pairs.size());
  std::vector<double> ms, cpu;
  std::string isa = parasail_can_use_avx2() ? "AVX2 256-bit" : parasail_can_use_sse41() ? "SSE4.1 128-bit" : "SSE2 128-bit";
  std::string threads_text = std::to_string(threads) + " thread" + (threads > 1 ? "s" : "");
  if (vec.size() > 8 && vec.compare(vec.size() - 8, 8, "_profile") == 0) {
    if (trace) die("the profile kernels run score only");
    std::string name = family + "_" + vec + "_sat";
    parasail_pfunction_t *f = parasail_lookup_pfunction(name.c_str());
    if (!f) die("parasail has no function " + name);
    std::vector<parasail_profile_t *> profiles(queries.size(), nullptr);
    for (int run = -1; run < runs; run++) {
      double t0 = now_ms(), c0 = now_cpu_ms();
#pragma omp parallel for schedule(dynamic, 1)
      for (size_t qi = 0; qi < queries.size(); qi++) profiles[qi] = parasail_profile_create_sat(queries[qi].c_str(), queries[qi].size(), pm);
#pragma omp parallel for schedule(dynamic, 1)
      for (size_t k = 0; k < pairs.size(); k++) {
        const std::string &t = targets[pairs[k].second];
        parasail_result_t *r = f(profiles[pairs[k].first], t.c_str(), t.size(), open, extend);
        scores[k] = r->score;
        parasail_result_free(r);
      }
      for (auto &p : profiles) parasail_profile_free(p);
      double t1 = now_ms(), c1 = now_cpu_ms();
      if (run >= 0) ms.push_back(t1 - t0), cpu.push_back(c1 - c0);
    }
    print_result("Parasail 2.6 " + name + " (as parasail_aligner; " + isa + ", " + threads_text + ")", ms, scores, cpu);
    parasail_matrix_free(pm);
    return 0;
  }
  int width = 16;
  for (int run = -1; run < runs; run++) {  // run -1: warm-up, and the width is settled
    std::string name = family + (trace ? "_trace_" : "_") + vec + "_" + std::to_string(width);
    parasail_function_t *f = parasail_lookup_function(name.c_str());
    if (!f) die("parasail has no function " + name);
    int saturated = 0;
    double t0 = now_ms(), c0 = now_cpu_ms();
#pragma omp parallel for schedule(dynamic, 1) reduction(| : saturated)
    for (size_t k = 0; k < pairs.size(); k++) {
      const std::string &q = queries[pairs[k].first], &t = targets[pairs[k].second];
      parasail_result_t *r = f(q.c_str(), q.size(), t.c_str(), t.size(), open, extend, pm);
      if (parasail_result_is_saturated(r)) saturated = 1;
      scores[k] = r->score;
      if (trace && !saturated) {
        parasail_cigar_t *c = parasail_result_get_cigar(r, q.c_str(), q.size(), t.c_str(), t.size(), pm);
        parasail_cigar_free(c);
      }
      parasail_result_free(r);
    }
    double t1 = now_ms(), c1 = now_cpu_ms();
    if (saturated) {
      if (width == 32) die("parasail saturated at 32 bits");
      width = 32;
      run = -2;  // warm up again at the new width
      continue;
    }
    if (run >= 0) ms.push_back(t1 - t0), cpu.push_back(c1 - c0);
  }
  print_result("Parasail 2.6 " + family + (trace ? "_trace_" : "_") + vec + "_" + std::to_string(width) + " (" + isa + ", " + threads_text + ")", ms, scores, cpu);
  parasail_matrix_free(pm);
}
