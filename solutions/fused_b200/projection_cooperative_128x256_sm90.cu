// Cooperative 128x256x64 in a 2x1 cluster (the two CTAs of a cluster take adjacent M tiles and share each weight tile
// by TMA multicast), with CUTLASS's stream-K tile scheduler: data-parallel, split-K and stream-K plans.
// The epilogue stages 16 rows per pass, so that its 19 KB leave room for four 48 KB mainloop stages.
#include "solutions/fused_b200/projection_gemm_sm90_kernel.hpp"

namespace vlb::fused_b200::sm90 {
namespace {
using Cooperative128x256 = ProjectionGemm<cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                                          cutlass::gemm::StreamKScheduler, /*kBlockN=*/256, /*kClusterM=*/2,
                                          /*kStageRows=*/16>;
}  // namespace

std::size_t cooperative_128x256_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Cooperative128x256::workspace_bytes(gemm, sm_count);
}

void run_cooperative_128x256(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Cooperative128x256::run(gemm, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200::sm90
