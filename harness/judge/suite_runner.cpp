#include "harness/judge/suite_runner.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <optional>

#include "harness/core/cuda_check.hpp"
#include "harness/isolation/sandbox.hpp"
#include "harness/judge/case_session.hpp"
#include "harness/judge/live_progress.hpp"
#include "harness/judge/local_host.hpp"
#include "harness/judge/worker_host.hpp"
#include "harness/plan/extension_build.hpp"
#include "harness/plan/plan_check.hpp"
#include "harness/plan/run_setup.hpp"
#include "harness/plan/solution_catalog.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/table.hpp"
#include "harness/timing/call_timer.hpp"

namespace vlb {
namespace {

CaseResult failed_case(const std::string& solution, const Case& test_case, CaseStatus status,
                       const std::string& reason) {
  CaseResult result = new_case_result(solution, test_case);
  result.status = status;
  result.reason = reason;
  return result;
}

// After a CUDA failure in this process: is the context still usable (an asynchronous fault is sticky)?
bool context_usable() { return cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess; }

// --no-isolation: the solution's calls run here, so a device fault of one case can take this process's CUDA context
// with it; the cases after it are then reported, not run.
class LocalCases {
 public:
  explicit LocalCases(const DeviceInfo& device) : device_(device) {}
  CaseResult run(const CaseContext& context, const CatalogEntry& entry, const Case& test_case) {
    if (context_lost_) return failed_case(entry.info.name, test_case, CaseStatus::kRuntimeError, *context_lost_);
    if (!timer_) timer_ = std::make_unique<CallTimer>();
    try {
      LocalHost host(device_, *timer_, context.plan.nvtx_ranges);
      return run_case(context, host, entry, test_case);
    } catch (const Error& error) {
      if (!context_usable()) {
        context_lost_ = fmt::format("not run: the CUDA context was lost in an earlier case ({})", error.message());
      }
      return failed_case(entry.info.name, test_case, CaseStatus::kRuntimeError, error.message());
    }
  }

 private:
  const DeviceInfo& device_;
  std::unique_ptr<CallTimer> timer_;  // one CUPTI subscriber per process, kept across cases
  std::optional<std::string> context_lost_;
};

CaseResult run_isolated(const CaseContext& context, const CatalogEntry& entry, const Case& test_case) {
  try {
    WorkerHost host(worker_command_for(entry, context.device.compute_capability()), context.device.ordinal,
                    context.plan.case_timeout_s);
    return run_case(context, host, entry, test_case);
  } catch (const HostFailure& failure) {  // the worker failed before the case began
    return failed_case(entry.info.name, test_case, failure.status(), failure.what());
  } catch (const BuildFailure& failure) {  // a C++ group package that did not build, or cannot be built here
    const CaseStatus status = failure.compiled() ? CaseStatus::kCompileError : CaseStatus::kSkipped;
    return failed_case(entry.info.name, test_case, status, failure.what());
  }
}

CaseResult run_one_case(const CaseContext& context, LocalCases& local, const CatalogEntry& entry,
                        const Case& test_case) {
  const auto started = std::chrono::steady_clock::now();
  CaseResult result;
  try {
    result = context.plan.isolation ? run_isolated(context, entry, test_case) : local.run(context, entry, test_case);
  } catch (const std::exception& error) {
    result = failed_case(entry.info.name, test_case, CaseStatus::kRuntimeError,
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
  RunSetup setup = set_up_run(plan, selected, device);
  setup.header.environment.sandbox =
      plan.isolation ? describe_sandbox(sandbox_capabilities())
                     : "none (--no-isolation: solution code runs in the judge's process)";

  RunOutput output;
  output.record = setup.header;
  std::optional<ResultsWriter> writer;
  if (plan.json_path) writer.emplace(*plan.json_path, output.record);

  const auto started = std::chrono::steady_clock::now();
  LocalCases local(device);
  const int total = static_cast<int>(plan.solutions.size() * selected.cases.size());
  LiveProgress live(progress, plan);
  for (const std::string& solution_name : plan.solutions) {
    const CatalogEntry& entry = SolutionCatalog::instance().at(solution_name);
    for (const Case& test_case : selected.cases) {
      const int done = static_cast<int>(output.record.cases.size());
      const CaseContext context{plan, device, setup.gpu_spec, setup.baselines,
                                live.start_case(solution_name, test_case, done + 1, total)};
      output.record.cases.push_back(run_one_case(context, local, entry, test_case));
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

}  // namespace vlb
