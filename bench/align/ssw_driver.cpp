// SSW 1.1 (Farrar striped Smith–Waterman, SSE2, 8-bit lanes redone at 16 bits on overflow)
// on the bench's pairs, scores only: one profile per query, every target aligned against
// it, queries spread over OpenMP threads. Sequences are passed as residue codes, the matrix
// as int8 in code order.
// usage: ssw_driver <open> <extend> <runs> <threads> <matrix> <queries> <targets> <pairs>
#include <omp.h>
#include <cstdint>
#include <map>
extern "C" {
#include <ssw.h>
}
#include "driver_common.h"

int main(int argc, char **argv) {
  if (argc != 9) die("usage: ssw_driver <open> <extend> <runs> <threads> <matrix> <queries> <targets> <pairs>");
  int open = std::atoi(argv[1]), extend = std::atoi(argv[2]), runs = std::atoi(argv[3]), threads = std::atoi(argv[4]);
  Matrix m = read_matrix(argv[5]);
  auto queries = read_lines(argv[6]), targets = read_lines(argv[7]);
  auto pairs = read_pairs(argv[8]);
  int n = m.alphabet.size();
  std::vector<int8_t> mat(n * n);
  for (int i = 0; i < n * n; i++) {
    if (m.scores[i] < -128 || m.scores[i] > 127) die("SSW takes 8-bit scores");
    mat[i] = m.scores[i];
  }
  int8_t code[256] = {0};
  for (int i = 0; i < n; i++) code[(unsigned char)m.alphabet[i]] = i;
  auto encode = [&](const std::string &s) {
    std::vector<int8_t> out(s.size());
    for (size_t i = 0; i < s.size(); i++) out[i] = code[(unsigned char)s[i]];
    return out;
  };
  std::vector<std::vector<int8_t>> q, t;
  for (auto &s : queries) q.push_back(encode(s));
  for (auto &s : targets) t.push_back(encode(s));
  // The pairs grouped by query, so each profile is built once per run.
  std::map<int, std::vector<size_t>> byQuery;
  for (size_t k = 0; k < pairs.size(); k++) byQuery[pairs[k].first].push_back(k);
  std::vector<std::pair<int, std::vector<size_t>>> groups(byQuery.begin(), byQuery.end());
  omp_set_num_threads(threads);
  std::vector<long> scores(pairs.size());
  std::vector<double> ms, cpu;
  for (int r = -1; r < runs; r++) {
    double t0 = now_ms(), c0 = now_cpu_ms();
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t g = 0; g < groups.size(); g++) {
      auto &query = q[groups[g].first];
      s_profile *p = ssw_init(query.data(), query.size(), mat.data(), n, 2);
      for (size_t k : groups[g].second) {
        auto &target = t[pairs[k].second];
        s_align *a = ssw_align(p, target.data(), target.size(), open, extend, 0, 0, 0, 15);
        scores[k] = a->score1;
        align_destroy(a);
      }
      init_destroy(p);
    }
    double t1 = now_ms(), c1 = now_cpu_ms();
    if (r >= 0) ms.push_back(t1 - t0), cpu.push_back(c1 - c0);
  }
  print_result("SSW 1.1 striped SSE2 8/16-bit (" + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "") + ")", ms, scores, cpu);
}
