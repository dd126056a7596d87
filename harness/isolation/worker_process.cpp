#include "harness/isolation/worker_process.hpp"

#include <fmt/format.h>

#include <functional>

#include "harness/isolation/child_process.hpp"

namespace vlb {

WorkerOutcome run_in_worker(const WorkerTask& task, const CallProgress& on_progress) {
  const ScratchDir scratch("worker");
  const auto log_path = scratch.path() / "worker.log";
  write_worker_task(scratch.path(), task);
  ChildProcess worker(own_executable(), {"vlbench", "--worker", scratch.path().string()}, log_path);
  std::function<void()> report_progress;
  if (on_progress) {
    report_progress = [&] {
      if (const std::optional<int> calls_done = read_progress(scratch.path())) on_progress(*calls_done);
    };
  }
  const std::optional<int> status = worker.wait_for(task.plan.case_timeout_s, report_progress);

  WorkerOutcome outcome;
  if (!status) {
    outcome.failure_status = CaseStatus::kTimeout;
    outcome.failure_reason =
        fmt::format("the case ran past its {:.0f} s limit and its worker was killed", task.plan.case_timeout_s);
    return outcome;
  }
  outcome.run = read_worker_outcome(scratch.path());
  if (outcome.run) return outcome;
  outcome.failure_status = CaseStatus::kRuntimeError;
  const std::string exit = fmt::format("the worker {} without a result", describe_exit(*status));
  const std::string tail = last_lines(log_path, 3);
  outcome.failure_reason = tail.empty() ? exit : fmt::format("{}: {}", exit, tail);
  return outcome;
}

}  // namespace vlb
