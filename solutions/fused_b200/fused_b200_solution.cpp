// fused_b200: the whole operation (fused_operation.hpp): projection GEMMs with bias and RoPE, a warp-specialized GQA
// attention kernel, the O projection; on Hopper Q and O go to cuBLAS at the row counts where it is faster
// (projection_cublas.hpp). Hopper (sm_90a: wgmma, fused epilogues) and Blackwell
// B200 (sm_100a: tcgen05 with tensor-memory accumulators, BLACKWELL.md), dispatched by compute capability; other
// GPUs, and a GPU whose architecture this build has no kernels for, are SKIPPED with the reason.
#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>

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
            .description = "Fused: projections with bias/RoPE epilogues, warp-specialized GQA attention; Hopper "
                           "(wgmma) measured, Blackwell sm_100a path (tcgen05) compiled but never run here",
            .languages = {"cuda"},
            .target_compute_capabilities = {90, 100}};
  }

  // The targets' check, then whether this build holds the kernels (VLBENCH_GPU_TARGETS may leave one out).
  std::optional<std::string> unsupported_reason(const DeviceInfo& device, const ProblemShape& shape) const override {
    if (auto reason = Solution::unsupported_reason(device, shape)) return reason;
    if (fused_b200::kernel_architecture_for(device.compute_major, device.compute_minor) ==
        fused_b200::KernelArchitecture::kNone) {
      return "solution 'fused_b200' was built without kernels for sm_" + std::to_string(device.compute_capability()) +
             " (configure with VLBENCH_GPU_TARGETS including " + std::to_string(device.compute_capability()) + "a)";
    }
    return std::nullopt;
  }

  std::size_t workspace_bytes(const ProblemShape& shape) const override { return operation_.workspace_bytes(shape); }
  void run(const FusionArgs& args) override { operation_.run(args); }

 private:
  fused_b200::FusedOperation operation_;
};

}  // namespace
}  // namespace vlb::solutions

VLBENCH_REGISTER_SOLUTION(vlb::solutions::FusedB200Solution);
