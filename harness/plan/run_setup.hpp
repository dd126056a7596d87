#pragma once
// What a run settles before its first case, once the request is checked without the GPU (plan_check.hpp): the GPU
// spec, the baselines and the results file's header for the device it runs on. Shared by a run on one GPU and a run
// over several (--devices).
#include <optional>

#include "harness/core/device_info.hpp"
#include "harness/report/results.hpp"
#include "harness/plan/plan_check.hpp"
#include "harness/plan/run_plan.hpp"
#include "harness/sol/baselines.hpp"
#include "harness/sol/speed_of_light.hpp"

namespace vlb {

struct RunSetup {
  GpuSpec gpu_spec;
  std::optional<BaselineTable> baselines;
  RunRecord header;  // no cases, no summary
};
// `checked`: check_plan(plan), whose GPU specs and baseline tables are used as read (no file is read again).
RunSetup set_up_run(const RunPlan& plan, const CheckedPlan& checked, const DeviceInfo& device);

// The header alone, for a worker process (no baselines: the parent judges).
RunRecord worker_header(const RunPlan& plan, const DeviceInfo& device);

}  // namespace vlb
