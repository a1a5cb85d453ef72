// What the alignment reference drivers share: reading the inputs the bench writes (a matrix
// file, sequences one per line as letters, pairs of indices) and printing the result as one
// JSON line. Inputs: matrix = "<alphabet>\n" then size×size integers; sequences = one line
// each; pairs = "<query index> <target index>" per line.
#pragma once
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

struct Matrix {
  std::string alphabet;
  std::vector<int> scores;  // size*size, row-major (query code, target code)
  int at(int a, int b) const { return scores[a * alphabet.size() + b]; }
};

[[noreturn]] inline void die(const std::string &why) {
  std::fprintf(stderr, "%s\n", why.c_str());
  std::exit(2);
}

inline Matrix read_matrix(const char *file) {
  std::ifstream in(file);
  if (!in) die(std::string("cannot read ") + file);
  Matrix m;
  in >> m.alphabet;
  m.scores.resize(m.alphabet.size() * m.alphabet.size());
  for (auto &v : m.scores)
    if (!(in >> v)) die(std::string("short matrix in ") + file);
  return m;
}

inline std::vector<std::string> read_lines(const char *file) {
  std::ifstream in(file);
  if (!in) die(std::string("cannot read ") + file);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

inline std::vector<std::pair<int, int>> read_pairs(const char *file) {
  std::ifstream in(file);
  if (!in) die(std::string("cannot read ") + file);
  std::vector<std::pair<int, int>> out;
  int a, b;
  while (in >> a >> b) out.emplace_back(a, b);
  return out;
}

inline double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/** CPU time of the process (all its threads), for timings on a machine shared with other work. */
inline double now_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/** {"about": ..., "ms": [...], "cpu_ms": [...] (when measured), "scores": [...]} on one line. */
inline void print_result(const std::string &about, const std::vector<double> &ms, const std::vector<long> &scores, const std::vector<double> &cpu_ms = {}) {
  std::printf("{\"about\":\"%s\",\"ms\":[", about.c_str());
  for (size_t i = 0; i < ms.size(); i++) std::printf("%s%.4f", i ? "," : "", ms[i]);
  if (!cpu_ms.empty()) {
    std::printf("],\"cpu_ms\":[");
    for (size_t i = 0; i < cpu_ms.size(); i++) std::printf("%s%.4f", i ? "," : "", cpu_ms[i]);
  }
  std::printf("],\"scores\":[");
  for (size_t i = 0; i < scores.size(); i++) std::printf("%s%ld", i ? "," : "", scores[i]);
  std::printf("]}\n");
}
