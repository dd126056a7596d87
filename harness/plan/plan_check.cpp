#include "harness/plan/plan_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "harness/core/errors.hpp"
#include "harness/core/output_file.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "harness/report/results_json.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/plan/solution_catalog.hpp"

namespace vlb {

namespace {

namespace fs = std::filesystem;

void check_results_path(const std::optional<fs::path>& file) {
  if (!file) return;
  std::error_code error;
  if (fs::is_directory(*file, error) || !file->has_filename()) {
    throw UsageError(fmt::format("cannot write results to {}: it is a folder; give a file name (--json {}/run.json)",
                                 file->string(), file->string()));
  }
  check_output_file(*file, results_error_prefix(*file));  // a trial file in its folder: what the run will need
}

// A folder is writable when a file can be created in it (access(2) says yes to root even on /sys).
bool writable_folder(const fs::path& folder) { return folder_write_problem(folder).empty(); }

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

// Every file the run reads, so that --json cannot name one of them (a real run would overwrite it).
std::vector<NamedInput> files_read(const CheckedPlan& checked, const RunPlan& plan) {
  std::vector<NamedInput> inputs = {{"the suite's workload file", checked.suite.workloads_path},
                                    {"the suite's definition file", checked.suite.definition.path},
                                    {"the GPU spec table", plan.workloads_dir / "gpus.json"}};
  for (const fs::path& file : checked.baseline_files) inputs.push_back({"a baseline table", file});
  for (const Case& test_case : checked.cases) {
    if (test_case.workload == nullptr) continue;
    for (const auto& [name, descriptor] : test_case.workload->inputs) {
      if (descriptor.path) inputs.push_back({"the safetensors file of input " + name, *descriptor.path});
    }
  }
  return inputs;
}

// The results file and its partial file are written, the dump folder filled: none may be what the run reads, and
// the dump folder may not be the results file.
void check_outputs_against_inputs(const CheckedPlan& checked, const RunPlan& plan) {
  if (!plan.json_path) return;
  const std::vector<NamedInput> inputs = files_read(checked, plan);
  for (const fs::path& output : {*plan.json_path, partial_results_path(*plan.json_path)}) {
    refuse_output_over_input(output, inputs, results_error_prefix(*plan.json_path));
  }
  if (plan.dump_dir && same_file(*plan.dump_dir, *plan.json_path)) {
    throw UsageError(fmt::format("--dump {} and --json {} name the same path: the dumps are a folder, the results a "
                                 "file; give each its own",
                                 plan.dump_dir->string(), plan.json_path->string()));
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

// A Python package runs in its own worker only, and is checked by SOL-ExecBench's models before anything runs.
void check_solution(const CatalogEntry& entry, const RunPlan& plan) {
  if (!entry.is_python_package()) return;
  if (!plan.isolation) {
    throw UsageError(fmt::format("solution '{}' is a Python package, which runs in its own worker only: "
                                 "--no-isolation and vlbench profile run solution code in vlbench's own process",
                                 entry.info.name));
  }
  validate_with_upstream(*entry.package);
  (void)python_interpreter();     // the worker's Python and program are there, before any case starts
  (void)python_worker_program();
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
  for (const std::string& name : plan.solutions) check_solution(SolutionCatalog::instance().at(name), plan);
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
  check_outputs_against_inputs(checked, plan);
  checked.file_inputs = check_file_inputs(checked.cases);
  return checked;
}

}  // namespace vlb
