#include "harness/worker/solution_call.hpp"

#include "harness/solution/registry.hpp"

namespace vlb {

FusionArgs make_fusion_args(const ProblemShape& shape, const FusionInputs& inputs, bf16* output, void* workspace,
                            std::size_t workspace_bytes, cudaStream_t stream) {
  FusionArgs args;
  args.shape = shape;
  args.inputs = inputs;
  args.output.data = output;
  args.output.shape = {shape.batch, shape.lang_seq, ModelDims::kHidden};
  args.workspace = workspace;
  args.workspace_bytes = workspace_bytes;
  args.stream = stream;
  return args;
}

FusionArgs make_fusion_args(const ProblemShape& shape, const FusionInputs& inputs, bf16* output,
                            const DeviceBuffer& workspace, cudaStream_t stream) {
  return make_fusion_args(shape, inputs, output, workspace.data(), workspace.bytes(), stream);
}

std::unique_ptr<Solution> create_solution(const std::string& name) {
  SolutionRegistry::instance().require(name);
  return guard_solution_call("constructor", [&] { return SolutionRegistry::instance().create(name); });
}

std::optional<CallFailure> call_and_wait(Solution& solution, const FusionArgs& args) {
  try {
    guard_solution_call("run", [&] { solution.run(args); });
  } catch (const SolutionFault& fault) {
    return CallFailure{CaseStatus::kRuntimeError, fault.what()};
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
