#pragma once
// The solution's side of one (solution, case): every call it makes (the correctness rounds, then the warm-up and
// timed calls), each prepared and inspected by the call protocol, and the outputs to be judged copied to the host.
// No reference output exists here: in isolation mode this runs in the worker process and the parent judges the
// outputs (case_judge.hpp); in-process, the judging comes after the last call.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "harness/core/device_info.hpp"
#include "harness/report/results.hpp"
#include "harness/judge/case_progress.hpp"
#include "harness/plan/run_plan.hpp"
#include "harness/solution/solution.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

// The output of call `call` (CallSchedule numbering), as the solution wrote it.
struct CapturedOutput {
  int call = 0;
  std::vector<std::byte> bytes;
};

// The result so far: status PASSED unless this side found a failure (SKIPPED, a solution fault, a timing violation);
// each round that ran is in `correctness` (PASSED while its output awaits judgement, or what this side found), and
// `captured` holds the outputs to judge: those rounds', then the sampled and the last timed calls'.
struct SolutionRun {
  CaseResult result;
  std::vector<CapturedOutput> captured;
};

struct SolutionSideContext {
  const RunPlan& plan;
  const DeviceInfo& device;
  cudaStream_t stream;
  CallProgress on_call = nullptr;  // told the number of calls finished, after each call (outside timed windows)
};

// A result with the case's identity filled in, status SKIPPED and no reason yet.
CaseResult new_case_result(const std::string& solution, const Case& test_case);

// Never throws for what the solution does (a SolutionFault or a CUDA error of its call becomes RUNTIME_ERROR);
// throws Error when the harness cannot go on (for example a CUDA context lost to the solution's fault).
SolutionRun run_solution_calls(Solution& solution, const Case& test_case, const SolutionSideContext& context);

}  // namespace vlb
