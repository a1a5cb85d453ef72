// SeqAn 3.2 on the bench's pairs: align_pairwise with method_global (free end gaps on both
// sequences for semi) or method_local, affine gap costs (a linear gap is one with no
// opening cost), score only or score and alignment, scalar or vectorised (one pair per SIMD
// lane), pairs spread over threads with align_cfg::parallel.
// usage: seqan3_driver <global|semi|local> <dna|protein> <scalar|vectorised> <trace 0|1> <open> <extend> <runs> <threads>
//                      <matrix> <queries> <targets> <pairs>
#include <seqan3/alignment/configuration/all.hpp>
#include <seqan3/alignment/pairwise/align_pairwise.hpp>
#include <seqan3/alignment/scoring/aminoacid_scoring_scheme.hpp>
#include <seqan3/alignment/scoring/nucleotide_scoring_scheme.hpp>
#include <seqan3/alphabet/aminoacid/aa27.hpp>
#include <seqan3/alphabet/nucleotide/dna5.hpp>
#include <seqan3/version.hpp>
#include <span>
#include "driver_common.h"

struct Job {
  std::string mode, variant;
  bool trace;
  int open, extend, runs, threads;
  Matrix matrix;
  std::vector<std::string> queries, targets;
  std::vector<std::pair<int, int>> pairs;
};

template <typename Alph>
std::vector<std::vector<Alph>> convert(const std::vector<std::string> &lines) {
  std::vector<std::vector<Alph>> out(lines.size());
  for (size_t i = 0; i < lines.size(); i++) {
    out[i].resize(lines[i].size());
    for (size_t k = 0; k < lines[i].size(); k++) out[i][k] = seqan3::assign_char_to(lines[i][k], Alph{});
  }
  return out;
}

/** Times `runs` runs (after a warm-up) of aligning every pair with `config`. */
template <typename Alph, typename Config>
void run(const Job &job, Config const &config, const std::string &about) {
  auto q = convert<Alph>(job.queries), t = convert<Alph>(job.targets);
  using View = std::span<const Alph>;
  std::vector<std::pair<View, View>> pairs;
  for (auto [a, b] : job.pairs) pairs.emplace_back(View(q[a]), View(t[b]));
  std::vector<long> scores(pairs.size());
  std::vector<double> ms;
  for (int r = -1; r < job.runs; r++) {
    double t0 = now_ms();
    for (auto const &res : seqan3::align_pairwise(pairs, config)) scores[res.sequence1_id()] = res.score();
    double t1 = now_ms();
    if (r >= 0) ms.push_back(t1 - t0);
  }
  print_result(about, ms, scores);
}

template <typename Alph, typename Scheme>
void with_scheme(const Job &job, Scheme const &scheme, const std::string &what) {
  namespace cfg = seqan3::align_cfg;
  auto gaps = cfg::gap_cost_affine{cfg::open_score{-(job.open - job.extend)}, cfg::extension_score{-job.extend}};
  auto base = cfg::scoring_scheme{scheme} | gaps | cfg::parallel{(uint32_t)job.threads} | cfg::output_sequence1_id{} | cfg::output_score{};
  std::string about = std::string("SeqAn ") + seqan3::seqan3_version_cstring + " " + job.mode + " " + what + (job.trace ? " alignment" : " score") + " (" + job.variant + ", " +
                      std::to_string(job.threads) + " thread" + (job.threads > 1 ? "s" : "") + ")";
  auto finish = [&](auto const &method) {
    auto c = method | base;
    if (job.trace) {
      auto ct = c | cfg::output_alignment{} | cfg::output_begin_position{} | cfg::output_end_position{};
      if (job.variant == "vectorised") run<Alph>(job, ct | cfg::vectorised{}, about);
      else run<Alph>(job, ct, about);
    } else {
      if (job.variant == "vectorised") run<Alph>(job, c | cfg::vectorised{}, about);
      else run<Alph>(job, c, about);
    }
  };
  if (job.mode == "local") finish(cfg::method_local{});
  else {
    bool semi = job.mode == "semi";
    finish(cfg::method_global{cfg::free_end_gaps_sequence1_leading{semi}, cfg::free_end_gaps_sequence2_leading{semi}, cfg::free_end_gaps_sequence1_trailing{semi},
                              cfg::free_end_gaps_sequence2_trailing{semi}});
  }
}

int main(int argc, char **argv) {
  if (argc != 13) die("usage: seqan3_driver <global|semi|local> <dna|protein> <scalar|vectorised> <trace 0|1> <open> <extend> <runs> <threads> <matrix> <queries> <targets> <pairs>");
  Job job{argv[1], argv[3], std::atoi(argv[4]) != 0, std::atoi(argv[5]), std::atoi(argv[6]), std::atoi(argv[7]), std::atoi(argv[8]), read_matrix(argv[9]), read_lines(argv[10]), read_lines(argv[11]), read_pairs(argv[12])};
  std::string kind = argv[2];
  const Matrix &m = job.matrix;
  for (int v : m.scores)
    if (v < -128 || v > 127) die("SeqAn's scoring schemes hold 8-bit scores");
  if (kind == "dna") {
    seqan3::nucleotide_scoring_scheme<int8_t> scheme{seqan3::match_score{m.at(0, 0)}, seqan3::mismatch_score{m.at(0, 1)}};
    with_scheme<seqan3::dna5>(job, scheme, "dna5 match/mismatch");
  } else {
    // The matrix over aa27's letters; letters the matrix lacks never occur in the input.
    typename seqan3::aminoacid_scoring_scheme<int8_t>::matrix_type table{};
    for (size_t a = 0; a < m.alphabet.size(); a++)
      for (size_t b = 0; b < m.alphabet.size(); b++)
        table[seqan3::assign_char_to(m.alphabet[a], seqan3::aa27{}).to_rank()][seqan3::assign_char_to(m.alphabet[b], seqan3::aa27{}).to_rank()] = m.at(a, b);
    seqan3::aminoacid_scoring_scheme<int8_t> scheme;
    scheme.set_custom_matrix(table);
    with_scheme<seqan3::aa27>(job, scheme, "aa27 matrix");
  }
}
