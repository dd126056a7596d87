#include "harness/cli/merge_command.hpp"

#include <fmt/format.h>

#include "harness/cli/kept_files.hpp"
#include "harness/core/output_file.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/results_merge.hpp"

namespace vlb::cli {

int run_merge_command(const MergeRequest& request, std::FILE* out) {
  const std::string prefix = results_error_prefix(request.output);
  std::vector<NamedInput> inputs;
  for (const std::filesystem::path& input : request.inputs) inputs.push_back({"one of the files it merges", input});
  refuse_output_over_input(request.output, inputs, prefix);
  check_output_file(request.output, prefix);  // before reading: an unwritable path fails first

  std::vector<NamedRun> runs;
  for (const std::filesystem::path& input : request.inputs) runs.push_back({input.string(), read_results_or_partial(input)});
  MergedRun merged = merge_runs(runs, request.force);
  merged.record.argv = request.argv;
  const auto kept = write_results_file(request.output, merged.record);
  for (const std::string& note : merged.overridden) {
    fmt::print(out, "merged despite --force: {}\n", printable_text(note));
  }
  const SummaryRecord& summary = *merged.record.summary;
  fmt::print(out, "wrote {}: {} case(s) from {} file(s): {} passed, {} failed, {} skipped\n",
             printable_text(request.output.string()), summary.cases, runs.size(), summary.passed, summary.failed,
             summary.skipped);
  print_kept_file(out, request.output, kept);
  return 0;
}

}  // namespace vlb::cli
