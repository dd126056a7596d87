#include "harness/cli/merge_command.hpp"

#include <fmt/format.h>

#include "harness/report/results_json.hpp"
#include "harness/report/results_merge.hpp"

namespace vlb::cli {

int run_merge_command(const MergeRequest& request, std::FILE* out) {
  std::vector<NamedRun> runs;
  for (const std::filesystem::path& input : request.inputs) runs.push_back({input.string(), read_results_or_partial(input)});
  MergedRun merged = merge_runs(runs, request.force);
  merged.record.argv = request.argv;
  write_results_file(request.output, merged.record);
  for (const std::string& note : merged.overridden) fmt::print(out, "merged despite --force: {}\n", note);
  const SummaryRecord& summary = *merged.record.summary;
  fmt::print(out, "wrote {}: {} case(s) from {} file(s): {} passed, {} failed, {} skipped\n", request.output.string(),
             summary.cases, runs.size(), summary.passed, summary.failed, summary.skipped);
  return 0;
}

}  // namespace vlb::cli
