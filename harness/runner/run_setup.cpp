#include "harness/runner/run_setup.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <vlbench_git.hpp>

#include <algorithm>
#include <filesystem>

#include "harness/core/errors.hpp"
#include "harness/runner/environment.hpp"
#include "harness/solution/registry.hpp"

namespace vlb {
namespace {

std::filesystem::path gpu_specs_file(const RunPlan& plan) { return plan.workloads_dir / "gpus.json"; }

// The baseline table for a GPU spec: the explicit file, else the first file in workloads/baselines/ for that GPU.
std::optional<BaselineTable> find_baselines(const RunPlan& plan, const std::string& gpu_key) {
  if (plan.baseline_path) return load_baselines(plan.baseline_path->string());
  const auto folder = plan.workloads_dir / "baselines";
  if (!std::filesystem::is_directory(folder)) return std::nullopt;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    BaselineTable table = load_baselines(file.string());
    if (table.gpu_key == gpu_key) return table;
  }
  return std::nullopt;
}

RunRecord make_header(const RunPlan& plan, const EnvironmentRecord& environment,
                      const std::optional<BaselineTable>& baselines) {
  RunRecord record;
  record.harness_version = VLBENCH_VERSION;
  record.git_commit = VLBENCH_GIT_COMMIT;
  record.git_dirty = VLBENCH_GIT_DIRTY;
  record.argv = plan.argv;
  record.timestamp = utc_timestamp();
  record.environment = environment;
  record.settings.suite = plan.suite;
  record.settings.solutions = plan.solutions;
  record.settings.case_selectors = plan.case_selectors;
  record.settings.seed = plan.seed;
  record.settings.correctness_rounds = plan.correctness.rounds;
  record.settings.timing = plan.timing;
  record.settings.isolation = plan.isolation;
  record.settings.baseline_source = baselines ? baselines->source : "";
  return record;
}

void ensure_writable_folder(const std::optional<std::filesystem::path>& file) {
  if (!file) return;
  const auto folder = file->has_parent_path() ? file->parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder) || access(folder.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("cannot write results to {}: folder {} does not exist or is not writable",
                                 file->string(), folder.string()));
  }
}

}  // namespace

SelectedCases check_plan(const RunPlan& plan) {
  SelectedCases selected = select_plan_cases(plan);
  for (const std::string& name : plan.solutions) {
    SolutionRegistry::instance().require(name);
  }
  load_gpu_specs(gpu_specs_file(plan).string());
  ensure_writable_folder(plan.json_path);
  return selected;
}

RunSetup set_up_run(const RunPlan& plan, const DeviceInfo& device) {
  const std::vector<GpuSpec> gpu_specs = load_gpu_specs(gpu_specs_file(plan).string());
  RunSetup setup{select_gpu_spec(gpu_specs, device.name, plan.gpu_spec_key), std::nullopt, {}};
  setup.baselines = find_baselines(plan, setup.gpu_spec.key);
  setup.header = make_header(plan, collect_environment(device, setup.gpu_spec.key), setup.baselines);
  return setup;
}

RunRecord worker_header(const RunPlan& plan, const DeviceInfo& device) {
  return make_header(plan, collect_environment(device, plan.gpu_spec_key.value_or("")), std::nullopt);
}

}  // namespace vlb
