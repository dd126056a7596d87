#include "harness/cli/compare_command.hpp"

#include <fmt/format.h>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/report/compare.hpp"
#include "harness/report/results_json.hpp"

namespace vlb::cli {

int run_compare_command(const CompareRequest& request, std::FILE* out) {
  const RunRecord a = read_results_file(request.baseline_file);
  const RunRecord b = read_results_file(request.candidate_file);
  const std::vector<ComparisonRow> rows = compare_runs(a, b, request.threshold);
  if (rows.empty()) {
    // A gate that passes on nothing would pass on anything: two unrelated files, a run whose cases all failed to run.
    throw InputError(fmt::format("{} and {} share no timed case, so nothing was compared ({} times {} case(s), {} "
                                 "times {}); compare runs of the same cases, with timing (not --check-only)",
                                 request.baseline_file.string(), request.candidate_file.string(),
                                 request.baseline_file.string(), timed_case_count(a), request.candidate_file.string(),
                                 timed_case_count(b)));
  }
  if (request.as_json) {
    fmt::print(out, "{}\n", dump_json(comparison_json(rows, request.threshold), 2));
  } else {
    print_comparison(out, rows);
  }
  return static_cast<int>(any_regression(rows) ? ExitCode::kCaseFailed : ExitCode::kSuccess);
}

}  // namespace vlb::cli
