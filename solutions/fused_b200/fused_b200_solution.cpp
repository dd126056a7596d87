// fused_b200: the whole operation with our own kernels (fused_operation.hpp): projection GEMMs with bias and RoPE in
// their epilogues, a warp-specialized GQA attention kernel, the O projection. Hopper (sm_90a) today; other GPUs are
// SKIPPED with the reason.
#include <cuda_runtime.h>

#include <memory>

#include "harness/solution/registry.hpp"
#include "solutions/fused_b200/fused_operation.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"

namespace vlb::solutions {
namespace {

class FusedB200Solution final : public Solution {
 public:
  FusedB200Solution() : operation_(fused_b200::current_sm_count()) {}

  static SolutionInfo describe() {
    return {.name = "fused_b200",
            .author = "vlbench",
            .description = "Fused: projections with bias/RoPE epilogues, warp-specialized GQA attention (TMA, wgmma)",
            .languages = {"cuda"},
            .target_compute_capabilities = {90}};
  }

  std::size_t workspace_bytes(const ProblemShape& shape) const override { return operation_.workspace_bytes(shape); }
  void run(const FusionArgs& args) override { operation_.run(args); }

 private:
  fused_b200::FusedOperation operation_;
};

}  // namespace
}  // namespace vlb::solutions

VLBENCH_REGISTER_SOLUTION(vlb::solutions::FusedB200Solution);
