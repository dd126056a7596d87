#pragma once
// What a run settles before its first case: the request checked without the GPU, then the GPU spec, the baselines and
// the results file's header for the device it runs on. Shared by a run on one GPU and a run over several (--devices).
#include <optional>

#include "harness/core/device_info.hpp"
#include "harness/report/results.hpp"
#include "harness/runner/case_shards.hpp"
#include "harness/runner/run_plan.hpp"
#include "harness/sol/baselines.hpp"
#include "harness/sol/speed_of_light.hpp"

namespace vlb {

// Everything that can be wrong with the request and needs no GPU: the suite, the cases, the solutions, the GPU spec
// file, the results folder. Throws UsageError/InputError.
SelectedCases check_plan(const RunPlan& plan);

struct RunSetup {
  GpuSpec gpu_spec;
  std::optional<BaselineTable> baselines;
  RunRecord header;  // no cases, no summary
};
RunSetup set_up_run(const RunPlan& plan, const DeviceInfo& device);

// The header alone, for a worker process (no baselines: the parent judges).
RunRecord worker_header(const RunPlan& plan, const DeviceInfo& device);

}  // namespace vlb
