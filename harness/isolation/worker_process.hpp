#pragma once
// Isolation: each (solution, case) runs in a worker process (vlbench re-executing itself as `vlbench --worker
// FOLDER`), so that a crash, a hang or a CUDA fault of one solution costs that case only, and so that nothing the
// solution can reach holds a reference output. The parent writes the task (the serialized plan) to a fresh folder,
// waits with a time limit, and reads back what the worker left there (worker_folder.hpp).
#include <optional>
#include <string>

#include "harness/judge/case_progress.hpp"
#include "harness/worker/solution_side.hpp"
#include "harness/isolation/worker_folder.hpp"

namespace vlb {

// What the worker left: its run (the outputs still to be judged); or, when it crashed, hung or wrote nothing, the
// failure to report (status RUNTIME_ERROR or TIMEOUT, reason with the worker's last output lines).
struct WorkerOutcome {
  std::optional<SolutionRun> run;
  CaseStatus failure_status = CaseStatus::kRuntimeError;
  std::string failure_reason;
};

// `on_progress` (optional) is told, while the worker runs, how many calls it has finished (case_progress.hpp).
WorkerOutcome run_in_worker(const WorkerTask& task, const CallProgress& on_progress = nullptr);

}  // namespace vlb
