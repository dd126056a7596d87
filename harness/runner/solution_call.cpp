#include "harness/runner/solution_call.hpp"

#include <fmt/format.h>

#include <exception>

#include "harness/core/cuda_check.hpp"

namespace vlb {

FusionArgs make_fusion_args(const ProblemShape& shape, const FusionInputs& inputs, bf16* output,
                            const DeviceBuffer& workspace, cudaStream_t stream) {
  FusionArgs args;
  args.shape = shape;
  args.inputs = inputs;
  args.output.data = output;
  args.output.shape = {shape.batch, shape.lang_seq, ModelDims::kHidden};
  args.workspace = workspace.data();
  args.workspace_bytes = workspace.bytes();
  args.stream = stream;
  return args;
}

std::optional<CallFailure> call_and_wait(Solution& solution, const FusionArgs& args) {
  try {
    solution.run(args);
  } catch (const std::exception& error) {
    return CallFailure{CaseStatus::kRuntimeError, fmt::format("the solution threw: {}", error.what())};
  }
  const cudaError_t launch_status = cudaGetLastError();
  const cudaError_t run_status = cudaStreamSynchronize(args.stream);
  const cudaError_t status = launch_status != cudaSuccess ? launch_status : run_status;
  if (status != cudaSuccess) {
    return CallFailure{CaseStatus::kRuntimeError, fmt::format("CUDA error during the solution's call: {} ({})",
                                                              cudaGetErrorName(status), cudaGetErrorString(status))};
  }
  return std::nullopt;
}

}  // namespace vlb
