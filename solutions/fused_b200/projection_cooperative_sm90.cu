// The cooperative instantiation (both consumer warpgroups on one tile) with CUTLASS's stream-K tile scheduler:
// data-parallel, split-K and stream-K plans.
#include "solutions/fused_b200/projection_gemm_sm90_kernel.hpp"

namespace vlb::fused_b200::sm90 {
namespace {
using Cooperative =
    ProjectionGemm<cutlass::gemm::KernelTmaWarpSpecializedCooperative, cutlass::gemm::StreamKScheduler>;
}  // namespace

std::size_t cooperative_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Cooperative::workspace_bytes(gemm, sm_count);
}

void run_cooperative(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Cooperative::run(gemm, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200::sm90
