#pragma once
// Executes a RunPlan: every selected solution on every selected case, in order, each (solution, case) in its own
// sandboxed worker (or in this process with --no-isolation) and judged here, each finished case reported and appended
// to the results file as it completes.
#include <cstdio>

#include "harness/plan/run_plan.hpp"
#include "harness/report/results.hpp"

namespace vlb {

struct RunOutput {
  RunRecord record;
  bool any_failure = false;  // some case neither PASSED nor SKIPPED
};

// Throws UsageError/InputError for a bad plan (before any GPU work where possible), SystemError when the GPU fails.
// Progress goes to `progress` (nullptr: silent).
RunOutput execute_plan(const RunPlan& plan, std::FILE* progress);

}  // namespace vlb
