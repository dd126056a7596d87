#pragma once
// The GPU reference, faithful to the reference's rounding points: cuBLAS for the projections and the two attention
// products, simple kernels for bias, RoPE, scaling and softmax. The score matrix is processed in chunks so that every
// workload (up to B=1, Lq=8192, Lv=12544) runs in bounded memory. Registered as the solution `reference`.
#include <cstddef>

#include "harness/solution/solution.hpp"

namespace vlb::reference {

class GpuReference final : public Solution {
 public:
  GpuReference();
  ~GpuReference() override;
  static SolutionInfo describe();
  std::size_t workspace_bytes(const ProblemShape& shape) const override;
  void run(const FusionArgs& args) override;

 private:
  struct Impl;
  Impl* impl_;
};

// An independent exact-math path on the GPU: fp32 throughout with no intermediate rounding (its own kernels, not the
// faithful ones with a flag), for the cases too large for the CPU double reference. Writes fp32 output [B, Lq, 4096].
std::size_t exact_fp32_workspace_bytes(const ProblemShape& shape);
void exact_output_fp32_gpu(const ProblemShape& shape, const FusionInputs& inputs, float* output, void* workspace,
                           std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace vlb::reference
