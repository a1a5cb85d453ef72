// SeqAn 2.4's Hirschberg: global alignment with linear gaps and match/mismatch scores in
// memory linear in the lengths (what SeqAn 3 lacks), one pair after another. The case of the
// bench's long traceback rows.
// usage: seqan2_driver <match> <mismatch> <gap> <runs> <threads> <matrix> <queries> <targets> <pairs>
#include <seqan/align.h>
#include <seqan/version.h>
#include "driver_common.h"

int main(int argc, char **argv) {
  if (argc != 10) die("usage: seqan2_driver <match> <mismatch> <gap> <runs> <threads> <matrix> <queries> <targets> <pairs>");
  int match = std::atoi(argv[1]), mismatch = std::atoi(argv[2]), gap = std::atoi(argv[3]), runs = std::atoi(argv[4]);
  auto queries = read_lines(argv[7]), targets = read_lines(argv[8]);
  auto pairs = read_pairs(argv[9]);
  seqan::Score<int, seqan::Simple> scoring(match, mismatch, -gap);
  std::vector<long> scores(pairs.size());
  std::vector<double> ms;
  for (int r = -1; r < runs; r++) {
    double t0 = now_ms();
    for (size_t k = 0; k < pairs.size(); k++) {
      seqan::Dna5String a = queries[pairs[k].first].c_str(), b = targets[pairs[k].second].c_str();
      seqan::Align<seqan::Dna5String> align;
      seqan::resize(seqan::rows(align), 2);
      seqan::assignSource(seqan::row(align, 0), a);
      seqan::assignSource(seqan::row(align, 1), b);
      scores[k] = seqan::globalAlignment(align, scoring, seqan::Hirschberg());
    }
    double t1 = now_ms();
    if (r >= 0) ms.push_back(t1 - t0);
  }
  print_result("SeqAn " + std::to_string(SEQAN_VERSION_MAJOR) + "." + std::to_string(SEQAN_VERSION_MINOR) + " Hirschberg (linear memory, 1 thread)", ms, scores);
}
