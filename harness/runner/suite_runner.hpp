#pragma once
// Executes a RunPlan: every selected solution on every selected case, in order, each finished case reported and
// appended to the results file as it completes.
#include <cstdio>

#include "harness/report/results.hpp"
#include "harness/runner/run_plan.hpp"

namespace vlb {

struct RunOutput {
  RunRecord record;
  bool any_failure = false;  // some case neither PASSED nor SKIPPED
};

// Throws UsageError/InputError for a bad plan (before any GPU work where possible), SystemError when the GPU fails.
// Progress goes to `progress` (nullptr: silent).
RunOutput execute_plan(const RunPlan& plan, std::FILE* progress);

}  // namespace vlb
