#pragma once
// The reference's side of one (solution, case): every output the solution's side captured is compared with the
// reference computed here for exactly that call's inputs (regenerated from the plan's seeds), the case's status is
// decided, and speed of light, the physical floor and the score are added. In isolation mode this runs in the parent
// process, so the reference output never exists where the solution runs.
#include <cuda_runtime.h>

#include <memory>
#include <optional>

#include "harness/core/cuda_stream.hpp"
#include "harness/core/device_info.hpp"
#include "harness/report/results.hpp"
#include "harness/plan/run_plan.hpp"
#include "harness/worker/solution_side.hpp"
#include "harness/sol/baselines.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

class CaseJudge {
 public:
  CaseJudge(const RunPlan& plan, const DeviceInfo& device, const GpuSpec& gpu_spec,
            const std::optional<BaselineTable>& baselines);
  ~CaseJudge();
  CaseJudge(const CaseJudge&) = delete;
  CaseJudge& operator=(const CaseJudge&) = delete;

  // The final result. Precedence, in call order: the first failing round (its timing is dropped); a failure the
  // solution's side found; a median below the physical floor (REWARD_HACK); the first failing sampled or last timed
  // call. Only a PASSED case gets a SOL fraction and a score. Throws Error when the harness cannot compute the
  // reference.
  CaseResult complete(SolutionRun run, const Case& test_case);

 private:
  struct Judgement;
  void add_speed_of_light(const Case& test_case, CaseResult& result) const;

  const RunPlan& plan_;
  const DeviceInfo& device_;
  const GpuSpec& gpu_spec_;
  const std::optional<BaselineTable>& baselines_;
  CudaStream stream_;
  std::unique_ptr<Solution> reference_;
};

}  // namespace vlb
