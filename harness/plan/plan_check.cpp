#include "harness/plan/plan_check.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "harness/core/errors.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/plan/solution_catalog.hpp"

namespace vlb {

namespace {

namespace fs = std::filesystem;

bool writable_folder(const fs::path& folder) {
  std::error_code error;
  return fs::is_directory(folder, error) && access(folder.c_str(), W_OK) == 0;
}

void check_results_path(const std::optional<fs::path>& file) {
  if (!file) return;
  std::error_code error;
  if (fs::is_directory(*file, error)) {
    throw UsageError(fmt::format("cannot write results to {}: it is a folder; give a file name (--json {}/run.json)",
                                 file->string(), file->string()));
  }
  const fs::path folder = file->has_parent_path() ? file->parent_path() : fs::path(".");
  if (!writable_folder(folder)) {
    throw UsageError(fmt::format("cannot write results to {}: folder {} does not exist or is not writable",
                                 file->string(), folder.string()));
  }
}

// The dump folder is created when the first case is dumped: it must be a folder, or creatable under a writable one.
void check_dump_folder(const std::optional<fs::path>& folder) {
  if (!folder) return;
  std::error_code error;
  if (fs::exists(*folder, error)) {
    if (!writable_folder(*folder)) {
      throw UsageError(fmt::format("cannot dump into {}: it is not a writable folder", folder->string()));
    }
    return;
  }
  fs::path ancestor = fs::absolute(*folder, error).parent_path();
  while (!ancestor.empty() && !fs::exists(ancestor, error) && ancestor != ancestor.root_path()) {
    ancestor = ancestor.parent_path();
  }
  if (!writable_folder(ancestor)) {
    throw UsageError(fmt::format("cannot dump into {}: it cannot be created under {}", folder->string(),
                                 ancestor.string()));
  }
}

std::vector<fs::path> baseline_files_in(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code error;
  if (!fs::is_directory(folder, error)) return files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Reads each safetensors input of the selected cases once, as the run will, so a wrong file fails now.
int check_file_inputs(const std::vector<Case>& cases) {
  int checked = 0;
  for (const Case& test_case : cases) {
    if (!has_file_inputs(test_case.workload)) continue;
    for (int i = 0; i < kNumInputs; ++i) {
      const auto id = static_cast<TensorId>(i);
      const auto found = test_case.workload->inputs.find(std::string(tensor_name(id)));
      if (found == test_case.workload->inputs.end() || found->second.type != "safetensors") continue;
      (void)load_file_input(found->second, id, test_case.shape);
      ++checked;
    }
  }
  return checked;
}

}  // namespace

std::optional<BaselineTable> find_baselines(const CheckedPlan& checked, const RunPlan& plan,
                                           const std::string& gpu_key) {
  for (const BaselineTable& table : checked.baseline_tables) {
    if (plan.baseline_path || table.gpu_key == gpu_key) return table;
  }
  return std::nullopt;
}

CheckedPlan check_plan(const RunPlan& plan) {
  SelectedCases selected = select_plan_cases(plan);  // moved, not copied: the cases point into its suite
  CheckedPlan checked{std::move(selected.suite), std::move(selected.cases), {}, {}, {}, {}, {}, 0};
  for (const std::string& name : plan.solutions) SolutionCatalog::instance().require(name);
  checked.gpu_specs = load_gpu_specs((plan.workloads_dir / "gpus.json").string());
  if (plan.gpu_spec_key) checked.gpu_spec = select_gpu_spec(checked.gpu_specs, "", plan.gpu_spec_key);

  checked.baseline_files = plan.baseline_path ? std::vector<fs::path>{*plan.baseline_path}
                                              : baseline_files_in(plan.workloads_dir / "baselines");
  for (const fs::path& file : checked.baseline_files) checked.baseline_tables.push_back(load_baselines(file.string()));
  if (plan.baseline_path || checked.gpu_spec) {
    checked.baselines = find_baselines(checked, plan, checked.gpu_spec ? checked.gpu_spec->key : "");
  }
  check_results_path(plan.json_path);
  check_dump_folder(plan.dump_dir);
  checked.file_inputs = check_file_inputs(checked.cases);
  return checked;
}

}  // namespace vlb
