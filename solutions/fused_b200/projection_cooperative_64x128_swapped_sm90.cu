// Cooperative with 64-row tiles: the GEMM computed as out^T = W x act^T, so that the MMA's M tile is 128 output
// features (the cooperative kernel needs M >= 128) and its N tile 64 rows; both consumer warpgroups work on every
// tile. CUTLASS's stream-K tile scheduler: data-parallel, split-K and stream-K plans.
#include "solutions/fused_b200/projection_gemm_sm90_kernel.hpp"

namespace vlb::fused_b200::sm90 {
namespace {
using Cooperative64x128Swapped = ProjectionGemm<cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                                                cutlass::gemm::StreamKScheduler, /*kTileRows=*/64, /*kSwapped=*/true>;
}  // namespace

std::size_t cooperative_64x128_swapped_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Cooperative64x128Swapped::workspace_bytes(gemm, sm_count);
}

void run_cooperative_64x128_swapped(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Cooperative64x128Swapped::run(gemm, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200::sm90
