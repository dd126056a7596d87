#include "harness/worker/solution_call.hpp"

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

}  // namespace vlb
