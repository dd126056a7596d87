#pragma once
// Executes a RunPlan: every selected solution on every selected case, in order, each finished case reported and
// appended to the results file as it completes.
#include <cstdio>
#include <filesystem>

#include "harness/report/results.hpp"
#include "harness/plan/run_plan.hpp"

namespace vlb {

struct RunOutput {
  RunRecord record;
  bool any_failure = false;  // some case neither PASSED nor SKIPPED
};

// Throws UsageError/InputError for a bad plan (before any GPU work where possible), SystemError when the GPU fails.
// Progress goes to `progress` (nullptr: silent).
RunOutput execute_plan(const RunPlan& plan, std::FILE* progress);

// A worker process's whole job (`vlbench --worker FOLDER`): the task the parent wrote to `folder` (worker_folder.hpp),
// the solution's side of its one case, the outcome written back there. Throws Error when the harness fails.
void execute_worker_task(const std::filesystem::path& folder);

}  // namespace vlb
