// Ping-pong 128x128x64 in a 2x1 cluster: the two CTAs of a cluster take adjacent M tiles and share each weight tile by
// TMA multicast, halving the weight traffic into shared memory. Persistent data-parallel scheduler only.
#include "solutions/fused_b200/projection_gemm_sm90_kernel.hpp"

namespace vlb::fused_b200::sm90 {
namespace {
using Pingpong128x128Cluster2 = ProjectionGemm<cutlass::gemm::KernelTmaWarpSpecializedPingpong,
                                              cutlass::gemm::PersistentScheduler, /*kBlockN=*/128, /*kClusterM=*/2,
                                              /*kStageRows=*/64>;
}  // namespace

std::size_t pingpong_128x128_c2_workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  return Pingpong128x128Cluster2::workspace_bytes(gemm, sm_count);
}

void run_pingpong_128x128_c2(const GemmLaunch& gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  Pingpong128x128Cluster2::run(gemm, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200::sm90
