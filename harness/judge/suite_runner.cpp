#include "harness/judge/suite_runner.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>

#include "harness/core/cuda_check.hpp"
#include "harness/core/cuda_stream.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/table.hpp"
#include "harness/judge/case_judge.hpp"
#include "harness/worker/solution_call.hpp"
#include "harness/worker/solution_side.hpp"
#include "harness/judge/live_progress.hpp"
#include "harness/plan/plan_check.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/plan/run_setup.hpp"
#include "harness/isolation/worker_process.hpp"
#include "harness/solution/registry.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {
namespace {

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

// Runs the solution's side of cases in this process, keeping the solutions alive across cases.
class InProcessSolutions {
 public:
  InProcessSolutions(const RunPlan& plan, const DeviceInfo& device) : plan_(plan), device_(device) {}

  SolutionRun run(const std::string& solution_name, const Case& test_case, const CallProgress& on_call) {
    if (context_lost_) return failed_run(solution_name, test_case, CaseStatus::kRuntimeError, *context_lost_);
    try {
      auto& solution = solutions_[solution_name];
      if (!solution) solution = create_solution(solution_name);
      return run_solution_calls(*solution, test_case, {plan_, device_, stream_.get(), on_call});
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
                         int case_position, const CallProgress& progress) {
  WorkerOutcome outcome = run_in_worker({plan, solution_name, case_position}, progress);
  if (outcome.run) return std::move(*outcome.run);
  return failed_run(solution_name, test_case, outcome.failure_status, outcome.failure_reason);
}

// The solution's side (in a worker or here), then the judgement against the reference here.
CaseResult run_one_case(const RunPlan& plan, InProcessSolutions& in_process, CaseJudge& judge,
                        const std::string& solution_name, const Case& test_case, int case_position,
                        const CallProgress& progress) {
  const auto started = std::chrono::steady_clock::now();
  CaseResult result;
  try {
    SolutionRun run = plan.isolation ? run_isolated(plan, solution_name, test_case, case_position, progress)
                                     : in_process.run(solution_name, test_case, progress);
    if (progress) progress(CallSchedule(plan).max_calls());  // the solution's side is over: the judging starts
    result = judge.complete(std::move(run), test_case);
  } catch (const std::exception& error) {
    // Also what a worker handed back that makes no sense (a call outside the schedule, a malformed file).
    result = failed_case(solution_name, test_case, CaseStatus::kRuntimeError,
                         fmt::format("the harness could not judge the case: {}", error.what()));
  }
  result.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace

RunOutput execute_plan(const RunPlan& plan, std::FILE* progress) {
  const CheckedPlan selected = check_plan(plan);  // everything that needs no GPU, first (as --dry-run)
  const DeviceInfo device = query_device(plan.device);
  VLB_CUDA_CHECK(cudaSetDevice(plan.device));
  const RunSetup setup = set_up_run(plan, selected, device);

  RunOutput output;
  output.record = setup.header;
  std::optional<ResultsWriter> writer;
  if (plan.json_path) writer.emplace(*plan.json_path, output.record);

  const auto started = std::chrono::steady_clock::now();
  InProcessSolutions in_process(plan, device);
  CaseJudge judge(plan, device, setup.gpu_spec, setup.baselines);
  const int total = static_cast<int>(plan.solutions.size() * selected.cases.size());
  LiveProgress live(progress, plan);
  for (const std::string& solution_name : plan.solutions) {
    for (std::size_t position = 0; position < selected.cases.size(); ++position) {
      const int done = static_cast<int>(output.record.cases.size());
      const CallProgress on_call = live.start_case(solution_name, selected.cases[position], done + 1, total);
      output.record.cases.push_back(run_one_case(plan, in_process, judge, solution_name, selected.cases[position],
                                                 static_cast<int>(position), on_call));
      const CaseResult& result = output.record.cases.back();
      output.any_failure = output.any_failure || is_failure(result.status);
      if (writer) writer->append_case(result);
      if (progress) print_progress(progress, result, done + 1, total, live.on_terminal());
    }
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  output.record.summary = summarize(output.record.cases, wall_s);
  if (writer) writer->finish(output.record);
  return output;
}

void execute_worker_task(const std::filesystem::path& folder) {
  const WorkerTask task = read_worker_task(folder);
  const SelectedCases selected = select_plan_cases(task.plan);
  if (task.case_position < 0 || task.case_position >= static_cast<int>(selected.cases.size())) {
    throw SystemError(fmt::format("a worker's case {} is outside the {} selected cases", task.case_position,
                                  selected.cases.size()));
  }
  const Case& test_case = selected.cases[task.case_position];
  const DeviceInfo device = query_device(task.plan.device);
  VLB_CUDA_CHECK(cudaSetDevice(task.plan.device));
  const RunRecord header = worker_header(task.plan, device);

  const auto started = std::chrono::steady_clock::now();
  InProcessSolutions solutions(task.plan, device);
  const CallProgress report = throttled_progress_file(folder, CallSchedule(task.plan).max_calls());  // for the parent
  SolutionRun run = solutions.run(task.solution, test_case, report);
  run.result.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  write_worker_outcome(folder, run, header);
}

}  // namespace vlb
