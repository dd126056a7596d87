#pragma once
// The command line: CLI11 options turned into a request (a RunPlan or another command). Parsing never touches the
// GPU, so every usage error is found first and exits 2.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/cli/compare_command.hpp"
#include "harness/cli/merge_command.hpp"
#include "harness/export/package.hpp"
#include "harness/export/traces.hpp"
#include "harness/plan/run_plan.hpp"
#include "harness/profile/profile.hpp"

namespace CLI {
class App;
}

namespace vlb::cli {

enum class Command {
  kRun, kDryRun, kList, kCompare, kExport, kPackage, kMerge, kShow, kProfile, kHelp, kVersion, kDeviceWorker
};

// `vlbench show RESULTS`: the per-kernel view of the cases of a results file (all, or those selected).
struct ShowRequest {
  std::filesystem::path results;
  std::vector<int> cases;              // case indices; empty: every case
  std::vector<std::string> solutions;  // empty: every solution
};

struct Request {
  Command command = Command::kRun;
  RunPlan plan;
  CompareRequest compare;
  ExportRequest export_traces;
  PackageRequest package;
  MergeRequest merge;
  ShowRequest show;
  ProfileRequest profile;
  std::string help_text;  // for kHelp
  std::vector<std::string> warnings;  // options the command ignores (printed, then the command runs)
  bool list_as_json = false;  // for kList: `--list --json`
  std::filesystem::path worker_folder;  // for kDeviceWorker (internal: a device worker's folder)
};

class CommandLine {
 public:
  CommandLine();
  ~CommandLine();
  // Throws UsageError with CLI11's message and a pointer to --help.
  Request parse(const std::vector<std::string>& arguments);  // arguments without the program name

 private:
  struct Options;
  std::unique_ptr<Options> options_;
  std::unique_ptr<CLI::App> app_;
};

}  // namespace vlb::cli
