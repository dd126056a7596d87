#include "harness/cli/vlbench_main.hpp"

#include <fmt/format.h>
#include <vlbench_git.hpp>

#include <algorithm>
#include <exception>

#include "harness/cli/command_line.hpp"
#include "harness/cli/compare_command.hpp"
#include "harness/cli/dry_run_command.hpp"
#include "harness/cli/export_commands.hpp"
#include "harness/cli/kept_files.hpp"
#include "harness/cli/list_command.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/profile/profile.hpp"
#include "harness/report/breakdown_view.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/table.hpp"
#include "harness/scaleout/device_fanout.hpp"
#include "harness/scaleout/device_worker.hpp"
#include "harness/judge/suite_runner.hpp"
#include "harness/plan/solution_catalog.hpp"

namespace vlb::cli {
namespace {

int run_show_command(const ShowRequest& request, std::FILE* out) {
  const RunRecord record = read_results_file(request.results);
  int shown = 0;
  for (const CaseResult& result : record.cases) {
    const bool case_wanted = request.cases.empty() || std::find(request.cases.begin(), request.cases.end(),
                                                                result.case_index) != request.cases.end();
    const bool solution_wanted = request.solutions.empty() || std::find(request.solutions.begin(),
                                                                        request.solutions.end(),
                                                                        result.solution) != request.solutions.end();
    if (!case_wanted || !solution_wanted) continue;
    print_kernel_breakdown(out, result);
    ++shown;
  }
  if (shown == 0) {
    throw UsageError(fmt::format("{} holds no case of the selection (-c / -s)", printable_text(request.results.string())));
  }
  return 0;
}

// A run keeps an earlier run's files at its results path (ResultsWriter): it says which, where they went, whether
// it finished or not.
int run_plan(const RunPlan& plan, std::FILE* out) {
  const std::vector<EarlierFile> earlier = plan.json_path ? earlier_results_files(*plan.json_path)
                                                          : std::vector<EarlierFile>{};
  const auto report_kept = [&] {
    for (const EarlierFile& file : earlier) {
      std::error_code error;
      if (std::filesystem::exists(std::filesystem::symlink_status(file.kept_as, error))) {
        print_kept_file(out, file.path, file.kept_as);
      }
    }
  };
  RunOutput result;
  try {
    result = plan.devices ? execute_on_devices(plan, out) : execute_plan(plan, out);
  } catch (...) {
    report_kept();
    throw;
  }
  print_case_table(out, result.record);
  print_summary(out, result.record);
  if (plan.verbose) {
    for (const CaseResult& result_case : result.record.cases) print_kernel_breakdown(out, result_case);
  }
  if (plan.json_path) fmt::print(out, "Results written to {}\n", printable_text(plan.json_path->string()));
  report_kept();
  return static_cast<int>(result.any_failure ? ExitCode::kCaseFailed : ExitCode::kSuccess);
}

int run(const Request& request, std::FILE* out) {
  if (request.command != Command::kHelp && request.command != Command::kVersion) {
    SolutionCatalog::instance().require_clean();
  }
  switch (request.command) {
    case Command::kHelp:
      fmt::print(out, "{}", request.help_text);
      return 0;
    case Command::kVersion:
      fmt::print(out, "vlbench {} (commit {}{}), CUTLASS {}\n", VLBENCH_VERSION, VLBENCH_GIT_COMMIT,
                 VLBENCH_GIT_DIRTY ? ", with uncommitted changes" : "", VLBENCH_CUTLASS_VERSION);
      return 0;
    case Command::kList:
      if (request.list_as_json) {
        print_listing_json(out, request.plan);
      } else {
        print_listing(out, request.plan);
      }
      return 0;
    case Command::kDryRun:
      return run_dry_run_command(request.plan, out);
    case Command::kCompare:
      return run_compare_command(request.compare, out);
    case Command::kExport:
      return run_export_command(request.export_traces, out);
    case Command::kPackage:
      return run_package_command(request.package, out);
    case Command::kMerge:
      return run_merge_command(request.merge, out);
    case Command::kShow:
      return run_show_command(request.show, out);
    case Command::kProfile:
      run_profile(request.profile, out);
      return 0;
    case Command::kDeviceWorker: {
      const RunOutput result = execute_device_worker(request.worker_folder, out);
      return static_cast<int>(result.any_failure ? ExitCode::kCaseFailed : ExitCode::kSuccess);
    }
    case Command::kRun:
      return run_plan(request.plan, out);
  }
  return 0;
}

}  // namespace

int vlbench_main(const std::vector<std::string>& arguments, std::FILE* out, std::FILE* err) {
  // Messages quote what files and command lines hold: printable_text keeps binary bytes and terminal control
  // sequences off the terminal, in this one place every error passes.
  try {
    CommandLine command_line;
    const Request request = command_line.parse(arguments);
    for (const std::string& warning : request.warnings) {
      fmt::print(err, "vlbench: warning: {}\n", printable_text(warning));
    }
    return run(request, out);
  } catch (const Error& error) {
    fmt::print(err, "vlbench: error: {}\n", printable_text(error.message()));
    return static_cast<int>(error.exit_code());
  } catch (const std::exception& error) {
    fmt::print(err, "vlbench: internal error: {}\n", printable_text(error.what()));
    return static_cast<int>(ExitCode::kSystemError);
  }
}

}  // namespace vlb::cli
