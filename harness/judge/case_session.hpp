#pragma once
// One (solution, case), end to end, on the judge's side: the memory and every call's inputs are the judge's, each
// call is prepared (call_preparation.hpp), run by the host (a sandboxed worker, or this process), read back by the
// judge the moment it is reported done, inspected and judged. In order:
//   1. the placements for every call, shared with the host;
//   2. the outside clock's calibration (calls of known work; no solution code loaded yet);
//   3. the solution loaded: SKIPPED with its reason, or its workspace;
//   4. the correctness rounds (seeded by --seed), each judged; the first failure ends the case;
//   5. the warm-up and timed calls (seeds from entropy), L2 flushed before each; every timed call judged against the
//      reference for its own inputs; CUPTI spans and the kernel-set audit; the worker's median against the judge's
//      own clock and against the physical floor.
// For every judged call the reference comes first (on the judge's own copy of the inputs), then the call's inputs
// where the worker sees them, so that they are visible to it only for the end of the judge's preparation;
//   6. speed of light, SOL fraction and score for a PASSED case.
#include <cuda_runtime.h>

#include <optional>

#include "harness/core/device_info.hpp"
#include "harness/judge/case_progress.hpp"
#include "harness/judge/solution_host.hpp"
#include "harness/plan/run_plan.hpp"
#include "harness/plan/solution_catalog.hpp"
#include "harness/report/results.hpp"
#include "harness/sol/baselines.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

struct CaseContext {
  const RunPlan& plan;
  const DeviceInfo& device;
  const GpuSpec& gpu_spec;
  const std::optional<BaselineTable>& baselines;
  CallProgress on_call = nullptr;  // told the number of calls finished (CallSchedule numbering)
};

// A result with the case's identity filled in, status SKIPPED and no reason yet.
CaseResult new_case_result(const std::string& solution, const Case& test_case);

// The case's result. Never throws for what the solution does; throws Error when the judge itself cannot go on (its
// own CUDA calls fail).
CaseResult run_case(const CaseContext& context, SolutionHost& host, const CatalogEntry& solution, const Case& test_case);

}  // namespace vlb
