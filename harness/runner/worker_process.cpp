#include "harness/runner/worker_process.hpp"

#include <fmt/format.h>

#include "harness/runner/child_process.hpp"

namespace vlb {

WorkerOutcome run_in_worker(const WorkerTask& task) {
  const ScratchDir scratch("worker");
  const auto log_path = scratch.path() / "worker.log";
  write_worker_task(scratch.path(), task);
  ChildProcess worker(own_executable(), {"vlbench", "--worker", scratch.path().string()}, log_path);
  const std::optional<int> status = worker.wait_for(task.plan.case_timeout_s);

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
