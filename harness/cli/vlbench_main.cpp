#include "harness/cli/vlbench_main.hpp"

#include <fmt/format.h>
#include <vlbench_git.hpp>

#include <exception>

#include "harness/cli/command_line.hpp"
#include "harness/cli/compare_command.hpp"
#include "harness/cli/dry_run_command.hpp"
#include "harness/cli/export_commands.hpp"
#include "harness/cli/list_command.hpp"
#include "harness/core/errors.hpp"
#include "harness/report/table.hpp"
#include "harness/scaleout/device_fanout.hpp"
#include "harness/scaleout/device_worker.hpp"
#include "harness/judge/suite_runner.hpp"
#include "harness/plan/solution_catalog.hpp"

namespace vlb::cli {
namespace {

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
    case Command::kDeviceWorker: {
      const RunOutput result = execute_device_worker(request.worker_folder, out);
      return static_cast<int>(result.any_failure ? ExitCode::kCaseFailed : ExitCode::kSuccess);
    }
    case Command::kRun: {
      const RunOutput result =
          request.plan.devices ? execute_on_devices(request.plan, out) : execute_plan(request.plan, out);
      print_case_table(out, result.record);
      print_summary(out, result.record);
      if (request.plan.json_path) fmt::print(out, "Results written to {}\n", request.plan.json_path->string());
      return static_cast<int>(result.any_failure ? ExitCode::kCaseFailed : ExitCode::kSuccess);
    }
  }
  return 0;
}

}  // namespace

int vlbench_main(const std::vector<std::string>& arguments, std::FILE* out, std::FILE* err) {
  try {
    CommandLine command_line;
    return run(command_line.parse(arguments), out);
  } catch (const Error& error) {
    fmt::print(err, "vlbench: error: {}\n", error.message());
    return static_cast<int>(error.exit_code());
  } catch (const std::exception& error) {
    fmt::print(err, "vlbench: internal error: {}\n", error.what());
    return static_cast<int>(ExitCode::kSystemError);
  }
}

}  // namespace vlb::cli
