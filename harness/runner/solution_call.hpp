#pragma once
// Calling a solution: building its arguments, and turning what it throws into a status and a reason.
#include <cuda_runtime.h>

#include <optional>
#include <string>

#include "harness/check/status.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/solution/solution.hpp"

namespace vlb {

FusionArgs make_fusion_args(const ProblemShape& shape, const FusionInputs& inputs, bf16* output,
                            const DeviceBuffer& workspace, cudaStream_t stream);

struct CallFailure {
  CaseStatus status;
  std::string reason;
};

// Runs the solution once on `stream` and waits for it. A thrown exception or a CUDA error during the call
// becomes RUNTIME_ERROR.
std::optional<CallFailure> call_and_wait(Solution& solution, const FusionArgs& args);

}  // namespace vlb
