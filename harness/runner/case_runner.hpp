#pragma once
// One (solution, case): can it run here, is it correct over several seeded rounds, how fast is it, how close to SOL.
#include <cuda_runtime.h>

#include <optional>

#include "harness/core/device_info.hpp"
#include "harness/report/results.hpp"
#include "harness/runner/run_plan.hpp"
#include "harness/sol/baselines.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "harness/solution/solution.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

struct RunContext {
  const RunPlan& plan;
  const DeviceInfo& device;
  const GpuSpec& gpu_spec;
  const std::optional<BaselineTable>& baselines;
  Solution& reference;  // the faithful GPU reference, whose output every solution is checked against
  cudaStream_t stream;
};

// Never throws for what the solution does (its failures become statuses); throws SystemError when the harness itself
// cannot go on (for example a CUDA context lost to an earlier fault).
CaseResult run_case(Solution& solution, const Case& test_case, const RunContext& context);

}  // namespace vlb
