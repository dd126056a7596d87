// Cooperative 128x128x64 (both consumer warpgroups on one tile), no cluster, with CUTLASS's stream-K tile
// scheduler: data-parallel, split-K and stream-K plans.
#include "solutions/fused_b200/projection_gemm_sm90_kernel.hpp"

namespace vlb::fused_b200::sm90 {
namespace {
using Cooperative128x128 = ProjectionGemm<cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                                          cutlass::gemm::StreamKScheduler>;
}  // namespace

std::size_t cooperative_128x128_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Cooperative128x128::workspace_bytes(gemm, sm_count);
}

void run_cooperative_128x128(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Cooperative128x128::run(gemm, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200::sm90
