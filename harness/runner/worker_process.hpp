#pragma once
// Isolation: each (solution, case) runs in a worker process (vlbench re-executing itself), so that a crash, a hang or
// a CUDA fault of one solution costs that case only. The worker writes its CaseResult to a file; the parent waits
// with a time limit.
#include <optional>
#include <string>
#include <vector>

#include "harness/report/results.hpp"

namespace vlb {

struct WorkerRequest {
  std::vector<std::string> run_arguments;  // the parent's own options, without the program name
  std::string solution;
  int case_position = 0;                   // index into the selected cases
  double timeout_s = 600;
};

// The CaseResult the worker wrote; or, when it crashed, hung or wrote nothing, a result built by the caller from
// the returned failure (status RUNTIME_ERROR or TIMEOUT, reason with the worker's last output lines).
struct WorkerOutcome {
  std::optional<CaseResult> result;
  CaseStatus failure_status = CaseStatus::kRuntimeError;
  std::string failure_reason;
};

WorkerOutcome run_in_worker(const WorkerRequest& request);

// The arguments a worker is started with (exposed for tests).
std::vector<std::string> worker_arguments(const WorkerRequest& request, const std::string& result_path);

// Removes --json (with its value) from a run's arguments: only the parent writes the results file (workers write
// their own case dumps, one file each).
std::vector<std::string> strip_parent_only_options(const std::vector<std::string>& arguments);

}  // namespace vlb
