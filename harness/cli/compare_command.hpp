#pragma once
// The body of `vlbench compare A.json B.json [--threshold T] [--json]`: the table (or the JSON) of compare_runs, and
// the exit code CI gates on.
#include <cstdio>
#include <filesystem>

#include "harness/report/compare.hpp"

namespace vlb::cli {

struct CompareRequest {
  std::filesystem::path baseline_file;   // A
  std::filesystem::path candidate_file;  // B
  double threshold = kDefaultCompareThreshold;  // relative change of the median that counts
  bool as_json = false;
};

// 0 when no case is slower beyond the threshold, 1 when one is; errors (unreadable, invalid files, two files that
// share no timed case) are thrown.
int run_compare_command(const CompareRequest& request, std::FILE* out);

}  // namespace vlb::cli
