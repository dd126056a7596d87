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
#include "harness/runner/case_judge.hpp"
#include "harness/runner/solution_call.hpp"
#include "harness/runner/solution_side.hpp"
#include "harness/runner/environment.hpp"
#include "harness/runner/worker_process.hpp"
#include "harness/solution/registry.hpp"
#include "harness/suite/suite.hpp"

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
  CaseResult result = new_case_result(solution, test_case);
  result.status = status;
  result.reason = reason;
  return result;
}

SolutionRun failed_run(const std::string& solution, const Case& test_case, CaseStatus status, const std::string& reason) {
  return {failed_case(solution, test_case, status, reason), {}};
}

// After a CUDA failure: is the context still usable (an asynchronous fault is sticky)?
bool context_usable() { return cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess; }

void ensure_writable_folder(const std::optional<std::filesystem::path>& file) {
  if (!file) return;
  const auto folder = file->has_parent_path() ? file->parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder) || access(folder.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("cannot write results to {}: folder {} does not exist or is not writable",
                                 file->string(), folder.string()));
  }
}

// Runs the solution's side of cases in this process, keeping the solutions alive across cases.
class InProcessSolutions {
 public:
  InProcessSolutions(const RunPlan& plan, const DeviceInfo& device) : plan_(plan), device_(device) {}

  SolutionRun run(const std::string& solution_name, const Case& test_case) {
    if (context_lost_) return failed_run(solution_name, test_case, CaseStatus::kRuntimeError, *context_lost_);
    try {
      auto& solution = solutions_[solution_name];
      if (!solution) solution = create_solution(solution_name);
      return run_solution_calls(*solution, test_case, {plan_, device_, stream_.get()});
    } catch (const SolutionFault& fault) {
      return failed_run(solution_name, test_case, CaseStatus::kRuntimeError, fault.what());
    } catch (const Error& error) {
      if (!context_usable()) {
        context_lost_ = fmt::format("not run: the CUDA context was lost in an earlier case ({})", error.message());
      }
      return failed_run(solution_name, test_case, CaseStatus::kRuntimeError, error.message());
    }
  }

 private:
  const RunPlan& plan_;
  const DeviceInfo& device_;
  CudaStream stream_;
  std::map<std::string, std::unique_ptr<Solution>> solutions_;
  std::optional<std::string> context_lost_;
};

SolutionRun run_isolated(const RunPlan& plan, const std::string& solution_name, const Case& test_case,
                         int case_position) {
  WorkerOutcome outcome = run_in_worker({plan, solution_name, case_position});
  if (outcome.run) return std::move(*outcome.run);
  return failed_run(solution_name, test_case, outcome.failure_status, outcome.failure_reason);
}

// The solution's side (in a worker or here), then the judgement against the reference here.
CaseResult run_one_case(const RunPlan& plan, InProcessSolutions& in_process, CaseJudge& judge,
                        const std::string& solution_name, const Case& test_case, int case_position) {
  const auto started = std::chrono::steady_clock::now();
  CaseResult result;
  try {
    SolutionRun run = plan.isolation ? run_isolated(plan, solution_name, test_case, case_position)
                                     : in_process.run(solution_name, test_case);
    result = judge.complete(std::move(run), test_case);
  } catch (const std::exception& error) {
    // Also what a worker handed back that makes no sense (a call outside the schedule, a malformed file).
    result = failed_case(solution_name, test_case, CaseStatus::kRuntimeError,
                         fmt::format("the harness could not judge the case: {}", error.what()));
  }
  result.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

struct SelectedRun {
  Suite suite;
  std::vector<Case> cases;
};

// Everything that can be wrong with the request is found before the GPU is touched.
SelectedRun select(const RunPlan& plan) {
  SelectedRun selected{load_suite(plan.suite, plan.workloads_dir), {}};
  selected.cases = select_cases(selected.suite, plan.case_selectors, plan.custom_case_atol);
  return selected;
}

}  // namespace

RunOutput execute_plan(const RunPlan& plan, std::FILE* progress) {
  const SelectedRun selected = select(plan);
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
  if (plan.json_path) writer.emplace(*plan.json_path, output.record);

  const auto started = std::chrono::steady_clock::now();
  InProcessSolutions in_process(plan, device);
  CaseJudge judge(plan, device, gpu_spec, baselines);
  const int total = static_cast<int>(plan.solutions.size() * selected.cases.size());
  for (const std::string& solution_name : plan.solutions) {
    for (std::size_t position = 0; position < selected.cases.size(); ++position) {
      output.record.cases.push_back(run_one_case(plan, in_process, judge, solution_name, selected.cases[position],
                                                 static_cast<int>(position)));
      const CaseResult& result = output.record.cases.back();
      output.any_failure = output.any_failure || is_failure(result.status);
      if (writer) writer->append_case(result);
      if (progress) {
        print_progress(progress, result, static_cast<int>(output.record.cases.size()), total,
                       isatty(fileno(progress)) != 0);
      }
    }
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  output.record.summary = summarize(output.record.cases, wall_s);
  if (writer) writer->finish(output.record);
  return output;
}

void execute_worker_task(const std::filesystem::path& folder) {
  const WorkerTask task = read_worker_task(folder);
  const SelectedRun selected = select(task.plan);
  if (task.case_position < 0 || task.case_position >= static_cast<int>(selected.cases.size())) {
    throw SystemError(fmt::format("a worker's case {} is outside the {} selected cases", task.case_position,
                                  selected.cases.size()));
  }
  const Case& test_case = selected.cases[task.case_position];
  const DeviceInfo device = query_device(task.plan.device);
  VLB_CUDA_CHECK(cudaSetDevice(task.plan.device));
  const RunRecord header =
      make_header(task.plan, collect_environment(device, task.plan.gpu_spec_key.value_or("")), std::nullopt);

  const auto started = std::chrono::steady_clock::now();
  InProcessSolutions solutions(task.plan, device);
  SolutionRun run = solutions.run(task.solution, test_case);
  run.result.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  write_worker_outcome(folder, run, header);
}

}  // namespace vlb
