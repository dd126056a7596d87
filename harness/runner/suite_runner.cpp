#include "harness/runner/suite_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <vlbench_git.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>

#include "harness/core/cuda_check.hpp"
#include "harness/core/cuda_stream.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/table.hpp"
#include "harness/runner/case_runner.hpp"
#include "harness/runner/environment.hpp"
#include "harness/runner/worker_process.hpp"
#include "harness/solution/registry.hpp"
#include "harness/suite/suite.hpp"
#include "reference/gpu_reference.hpp"

namespace vlb {
namespace {

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

CaseResult failed_case(const std::string& solution, const Case& test_case, CaseStatus status,
                       const std::string& reason) {
  CaseResult result;
  result.solution = solution;
  result.case_index = test_case.index;
  result.uuid = test_case.uuid;
  result.shape = test_case.shape;
  result.tolerance = test_case.tolerance;
  result.work = count_work(test_case.shape);
  result.status = status;
  result.reason = reason;
  return result;
}

// After a harness-side CUDA failure: is the context still usable (an asynchronous fault is sticky)?
bool context_usable() { return cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess; }

void ensure_writable_folder(const std::optional<std::filesystem::path>& file) {
  if (!file) return;
  const auto folder = file->has_parent_path() ? file->parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder) || access(folder.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("cannot write results to {}: folder {} does not exist or is not writable",
                                 file->string(), folder.string()));
  }
}

// Runs cases in this process, keeping the reference and the solutions alive across cases.
class InProcessRunner {
 public:
  InProcessRunner(const RunPlan& plan, const DeviceInfo& device, const GpuSpec& gpu_spec,
                  const std::optional<BaselineTable>& baselines)
      : plan_(plan), device_(device), gpu_spec_(gpu_spec), baselines_(baselines) {}

  CaseResult run(const std::string& solution_name, const Case& test_case) {
    if (context_lost_) return failed_case(solution_name, test_case, CaseStatus::kRuntimeError, *context_lost_);
    try {
      if (!reference_) reference_ = std::make_unique<reference::GpuReference>();
      auto& solution = solutions_[solution_name];
      if (!solution) solution = SolutionRegistry::instance().create(solution_name);
      const RunContext context{plan_, device_, gpu_spec_, baselines_, *reference_, stream_.get()};
      return run_case(*solution, test_case, context);
    } catch (const Error& error) {
      if (!context_usable()) {
        context_lost_ = fmt::format("not run: the CUDA context was lost in an earlier case ({})", error.message());
      }
      return failed_case(solution_name, test_case, CaseStatus::kRuntimeError, error.message());
    }
  }

 private:
  const RunPlan& plan_;
  const DeviceInfo& device_;
  const GpuSpec& gpu_spec_;
  const std::optional<BaselineTable>& baselines_;
  CudaStream stream_;
  std::unique_ptr<reference::GpuReference> reference_;
  std::map<std::string, std::unique_ptr<Solution>> solutions_;
  std::optional<std::string> context_lost_;
};

CaseResult run_isolated(const RunPlan& plan, const std::string& solution_name, const Case& test_case,
                        int case_position) {
  WorkerRequest request;
  request.run_arguments.assign(plan.argv.begin() + (plan.argv.empty() ? 0 : 1), plan.argv.end());
  request.solution = solution_name;
  request.case_position = case_position;
  request.timeout_s = plan.case_timeout_s;
  WorkerOutcome outcome = run_in_worker(request);
  if (outcome.result) return *outcome.result;
  return failed_case(solution_name, test_case, outcome.failure_status, outcome.failure_reason);
}

}  // namespace

RunOutput execute_plan(const RunPlan& plan, std::FILE* progress) {
  // Everything that can be wrong with the request is found before the GPU is touched.
  const Suite suite = load_suite(plan.suite, plan.workloads_dir);
  const std::vector<Case> cases = select_cases(suite, plan.case_selectors, plan.custom_case_atol);
  for (const std::string& name : plan.solutions) {
    SolutionRegistry::instance().require(name);
  }
  const std::vector<GpuSpec> gpu_specs = load_gpu_specs((plan.workloads_dir / "gpus.json").string());
  ensure_writable_folder(plan.json_path);

  const DeviceInfo device = query_device(plan.device);
  VLB_CUDA_CHECK(cudaSetDevice(plan.device));
  const GpuSpec& gpu_spec = select_gpu_spec(gpu_specs, device.name, plan.gpu_spec_key);
  const std::optional<BaselineTable> baselines = find_baselines(plan, gpu_spec.key);

  RunOutput output;
  output.record = make_header(plan, collect_environment(device, gpu_spec.key), baselines);
  std::optional<ResultsWriter> writer;
  const auto result_path = plan.worker ? std::optional(plan.worker->result_path) : plan.json_path;
  if (result_path) writer.emplace(*result_path, output.record);

  const auto started = std::chrono::steady_clock::now();
  InProcessRunner in_process(plan, device, gpu_spec, baselines);
  auto record = [&](CaseResult result, int total) {
    output.any_failure = output.any_failure || is_failure(result.status);
    output.record.cases.push_back(std::move(result));
    if (writer) writer->append_case(output.record.cases.back());
    if (progress && !plan.worker) {
      print_progress(progress, output.record.cases.back(), static_cast<int>(output.record.cases.size()), total,
                     isatty(fileno(progress)) != 0);
    }
  };

  if (plan.worker) {
    const int position = plan.worker->case_position;
    if (position < 0 || position >= static_cast<int>(cases.size())) {
      throw UsageError(fmt::format("--worker-case {} is outside the {} selected cases", position, cases.size()));
    }
    record(in_process.run(plan.worker->solution, cases[position]), 1);
  } else {
    const int total = static_cast<int>(plan.solutions.size() * cases.size());
    for (const std::string& solution_name : plan.solutions) {
      for (std::size_t position = 0; position < cases.size(); ++position) {
        const Case& test_case = cases[position];
        record(plan.isolation ? run_isolated(plan, solution_name, test_case, static_cast<int>(position))
                              : in_process.run(solution_name, test_case),
               total);
      }
    }
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  output.record.summary = summarize(output.record.cases, wall_s);
  if (writer) writer->finish(output.record);
  return output;
}

}  // namespace vlb
